// gradcheck.h — central finite differences against the tape's backward.
//
// Used by `lmtrain gradcheck` and by tests/autograd. Each case builds a small
// graph ending in op_dot (a non-constant scalar reduction, accumulated in
// double), runs backward once, then perturbs sampled elements of every leaf
// input by ±eps and compares (L+ - L-) / 2eps with the analytic gradient.
#pragma once
#include <stdio.h>

#include "autograd/tape.h"

typedef struct {
    double max_err;     // worst |analytic - numeric| / (rel*max(|a|,|n|) + abs*scale) ratio; <= 1 passes
    double worst_a, worst_n;
    const char *worst_input;
    size_t checked;
} GradcheckStats;

// Tolerance: |a - n| <= GC_REL * max(|a|, |n|) + GC_ABS * max|analytic| over the input.
// float32 forward, eps = 1e-3 relative to each value's scale: errors of a
// correct backward sit around 1e-4 relative; a wrong one is off by O(1).
#define GC_REL 2e-2
#define GC_ABS 2e-3

// Checks the gradient of `loss` (a 1x1 output of op_dot, recorded last on t,
// so t->nodes[t->n_nodes-1].value is its double value) with respect to each of
// the n leaf tensors, sampling at most `samples` elements of each.
GradcheckStats gradcheck_tape(Tape *t, Tensor *loss, Tensor **leaves, int n, size_t samples,
                              unsigned long long seed);

// Every op and every attention kind/option combination. Prints one line per
// case to `out` (may be NULL); returns the number of failing cases.
int gradcheck_all(FILE *out);
