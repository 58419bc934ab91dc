// report_extras.h — what report.html shows beyond report.md, read from the
// finished runs' own files: the whole-split loss by position in the window
// (RUN/eval/loss_by_position.csv, written by `lmtrain eval`, which ablate runs)
// and the learned decay λ per layer (the last logged lambda_L of metrics.csv).
// Each is a mean over a group's finished runs; absent where no run has it.
#pragma once
#include <stddef.h>

#include "experiment/results.h"

typedef struct {
    size_t n_pos;      // positions 0 .. n_pos-1; 0 when no run of the group has the file
    double *loss;      // (n_pos) mean over the runs that have it
    size_t n_layers;   // 0 when the kind has no decay
    double *lambda;    // (n_layers) mean λ of each layer at the end of training
} GroupExtras;

// One per group of a (group[0 .. a->n_group)). Files that are missing or
// malformed leave the field empty: the page then says "not available".
GroupExtras *report_extras_load(const Ablation *a);
void report_extras_free(GroupExtras *e, size_t n);
