// train.h — one training run, start to finish (or resume to finish).
#pragma once
#include "config/config.h"

// Trains cfg into run_dir (created if needed): config.ini, metrics.csv,
// checkpoint.bin, curves.svg, and summary.txt last (its presence marks a
// finished run). mode is a RunMode (run_folder.h): RUN_NEW (0) refuses a folder
// that holds a run, RUN_RESUME (1) continues run_dir/checkpoint.bin
// bit-identically, RUN_OVERWRITE (2) discards the old run. The folder is locked
// while training (one writer), and every refusal comes before it is touched.
// Returns 0, ERR_USAGE, ERR_RUNTIME, 128 + signal after a stop request
// (interrupt.h; a checkpoint was saved), or 141 if stdout was closed (saved too).
int train_run(const Config *cfg, const char *run_dir, int mode);

// Paths inside a run folder.
void run_path(char *buf, size_t cap, const char *run_dir, const char *file);
// mkdir -p
int make_dirs(const char *path);
