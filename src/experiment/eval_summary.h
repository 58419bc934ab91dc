// eval_summary.h — RUN/eval/summary.txt: the whole-split validation loss of a
// run, as `lmtrain eval` (and `ablate`, through it) computes it, read back by
// the ablation report.
//
// It names the checkpoint it was computed from (step and batch fingerprint),
// so a summary left over from an earlier run in the same folder is not taken
// for the current one's.
#pragma once
#include <stddef.h>

typedef struct {
    double loss;                    // mean loss per scored token over the whole split
    size_t tokens;                  // tokens scored
    size_t window;                  // the window length it was computed at (block_size)
    unsigned long long step;        // of the checkpoint evaluated
    unsigned long long batch_hash;  // of the checkpoint evaluated
} EvalSummary;

int eval_summary_write(const char *run_dir, const EvalSummary *e);
// 0, or ERR_RUNTIME if the file is missing or malformed.
int eval_summary_read(const char *run_dir, EvalSummary *e);
