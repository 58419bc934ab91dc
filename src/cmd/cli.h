// cli.h — shared command-line plumbing: resolving configs and run folders.
#pragma once
#include "config/config.h"

// Loads a config: NAME is used as a path if it exists, otherwise looked up as
// configs/NAME (and configs/NAME.ini). Applies `n_sets` "--set" assignments,
// validates. Errors are ERR_USAGE with file:line / key.
int cli_load_config(Config *c, const char *name, const char *const *sets, int n_sets);

// The run folder: --out DIR if given, else out_dir/name.
void cli_run_dir(char *buf, size_t cap, const Config *c, const char *out);

// The shipped configs' folder compiled in (PREFIX/share/lmtrain/configs),
// where --config looks last for a bare name.
const char *cli_share_configs(void);
