// dirs.h — creating output folders.
#pragma once

// mkdir -p: creates path and every missing parent. 0, ERR_USAGE for an empty
// or over-long path, ERR_RUNTIME (with the reason) if a folder cannot be
// created or path exists and is not a folder.
int make_dirs(const char *path);
