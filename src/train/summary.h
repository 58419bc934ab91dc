// summary.h — the files that close a run: curves.svg and summary.txt.
#pragma once
#include "model/model.h"
#include "train/checkpoint.h"

// Lengths at which reports state inference memory.
#define REPORT_LENGTHS {64, 1024, 16384, 1048576}

// Reads run_dir/metrics.csv, draws run_dir/curves.svg, writes run_dir/summary.txt.
int write_run_outputs(const char *run_dir, const Model *m, const TrainState *st);
