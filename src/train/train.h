// train.h — one training run, start to finish (or resume to finish).
#pragma once
#include "config/config.h"

// Trains cfg into run_dir (created if needed): config.ini, metrics.csv,
// checkpoint.bin, curves.svg, and summary.txt last (its presence marks a
// finished run). resume: continue from run_dir/checkpoint.bin bit-identically.
// Returns 0, ERR_USAGE, ERR_RUNTIME, or 130/143 after SIGINT/SIGTERM (with a
// checkpoint saved).
int train_run(const Config *cfg, const char *run_dir, int resume);

// Paths inside a run folder.
void run_path(char *buf, size_t cap, const char *run_dir, const char *file);
