// train.h — one training run, start to finish (or resume to finish).
#pragma once
#include "config/config.h"

// Trains cfg into run_dir (created if needed): config.ini, metrics.csv,
// checkpoint.bin, curves.svg, and summary.txt last (its presence marks a
// finished run). resume: continue from run_dir/checkpoint.bin bit-identically.
// Returns 0, ERR_USAGE, ERR_RUNTIME, or 130/143 after SIGINT/SIGTERM (with a
// checkpoint saved).
int train_run(const Config *cfg, const char *run_dir, int resume);

// The handlers train_run installs: the first SIGINT/SIGTERM asks the current
// step to finish and a checkpoint to be saved; a second exits at once. A
// command that trains several runs (ablate) installs them before the first,
// and asks train_stop_signal() between runs: the signal number, or 0. Each
// train_run starts with the flag cleared.
void train_signals_install(void);
int train_stop_signal(void);

// Paths inside a run folder.
void run_path(char *buf, size_t cap, const char *run_dir, const char *file);
