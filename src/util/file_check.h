// file_check.h — inputs and outputs that must be regular files.
//
// lmtrain reads configs, corpora, checkpoints and metrics, and writes run
// files and exports, only as regular files. A FIFO would block the open or the
// read (a hang instead of an error), a device can be endless (/dev/zero) or
// have side effects, and renaming a temporary file over a FIFO, socket or
// device replaces the node someone made on purpose. These helpers refuse all
// of them with a message naming what is there, without blocking.
#pragma once
#include <stddef.h>
#include <sys/types.h>

// "a FIFO", "a socket", "a character device", "a block device", "a folder",
// "a symbolic link", "a regular file", "a special file".
const char *file_kind(mode_t mode);

// Opens `path` for reading; it must be a regular file of at most max_bytes
// (0: no limit). stat() first, so a FIFO or device is refused before open;
// the open itself is O_NONBLOCK|O_NOCTTY and fstat() checks again (the path
// may have been swapped in between); then the descriptor is made blocking.
// `what` names the input in messages ("corpus", "config", "checkpoint").
// Returns 0 with *fd and *size set, or ERR_RUNTIME (err_set) and *fd = -1.
int open_regular(const char *path, const char *what, size_t max_bytes, int *fd, size_t *size);

// Reads all of `path` (a regular file of at most max_bytes) into a malloc'd,
// NUL-terminated buffer. 0 or ERR_RUNTIME; *len gets the size.
int read_regular(const char *path, const char *what, size_t max_bytes, char **buf, size_t *len);

// 0 if `path` may be replaced by a new regular file: nothing is there, or a
// regular file is (lstat: a symbolic link is refused, never followed).
// Otherwise ERR_RUNTIME "PATH is a FIFO; lmtrain only replaces regular files".
int check_replaceable(const char *path);

// Opens `path` for writing as a regular file (created if missing; emptied if
// `truncate`, else appended to), never blocking and never following a
// symbolic link; anything else there is refused as check_replaceable does.
// 0 with *fd set, or ERR_RUNTIME.
int open_regular_output(const char *path, int truncate, int *fd);

// fopen(path, "r") for a regular file only: NULL (errno ENOENT if missing,
// EINVAL if it is a FIFO, socket, device or folder) without ever blocking.
// For small line-by-line readers (summaries, manifests).
#include <stdio.h>
FILE *fopen_regular(const char *path);
