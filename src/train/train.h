// train.h — one training run, start to finish (or resume to finish).
#pragma once
#include "config/config.h"

// Trains cfg into run_dir (created if needed): config.ini, metrics.csv,
// checkpoint.bin, curves.svg, and summary.txt last (its presence marks a
// finished run). mode is a TrainMode (run_folder.h): TRAIN_NEW (0) refuses a folder
// that holds a run, TRAIN_RESUME (1) continues run_dir/checkpoint.bin
// bit-identically, TRAIN_OVERWRITE (2) discards the old run. The folder is locked
// while training (one writer), and every refusal comes before it is touched.
// Returns 0, ERR_USAGE, ERR_RUNTIME, 128 + signal after a stop request
// (interrupt.h; a checkpoint was saved), or 141 if stdout was closed (saved too).
int train_run(const Config *cfg, const char *run_dir, int mode);

// The handlers train_run installs (interrupt.h: SIGINT, SIGTERM, SIGHUP, ...):
// the first asks the current step to finish and a checkpoint to be saved; a
// second exits at once. A
// command that trains several runs (ablate) installs them before the first,
// and asks train_stop_signal() between runs: the signal number, or 0. Each
// train_run starts with the flag cleared.
void train_signals_install(void);
int train_stop_signal(void);

// Paths inside a run folder.
void run_path(char *buf, size_t cap, const char *run_dir, const char *file);
