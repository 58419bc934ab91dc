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
// float32 forward, eps = 1e-3 relative to each value's scale: a correct
// backward stays under ~5% of this tolerance on every case (see `lmtrain
// gradcheck`); a wrong one is off by O(1).
#define GC_REL 5e-3
#define GC_ABS 5e-4

// Checks the gradient of `loss` (a 1x1 output of op_dot, recorded last on t,
// so t->nodes[t->n_nodes-1].value is its double value) with respect to each of
// the n leaf tensors, sampling at most `samples` elements of each.
// global_frac: the absolute term uses max(max|grad of this input|,
// global_frac * max|grad of any input|). 0 for single ops; a whole model
// passes a small fraction, because float32 finite differences of a deep graph
// cannot resolve a tensor whose every gradient is ~1e-6 of the largest one.
GradcheckStats gradcheck_tape(Tape *t, Tensor *loss, Tensor **leaves, int n, size_t samples,
                              unsigned long long seed, double global_frac);

// Directional form for deep graphs: for each leaf and each of `dirs` random
// directions d (scaled to the leaf's values), compares (L(x+εd) - L(x-εd))/2ε
// with g·d. Summing over a whole tensor lifts the signal far above float32
// rounding noise, so a mis-wired gradient (wrong tensor, missing path, wrong
// sign or scale) is caught even where single elements are too small to
// resolve. Tolerance: GC_REL*max(|a|,|n|) + GC_ABS*sum|g_j d_j| + 2(|D(ε) - D(ε/2)| + |D(ε) - D(2ε)|),
// the last term the measured disagreement of three step sizes (float32 rounding noise).
GradcheckStats gradcheck_directional(Tape *t, Tensor *loss, Tensor **leaves, int n, int dirs,
                                     unsigned long long seed);

// Every op and every attention kind/option combination. Prints one line per
// case to `out` (may be NULL); returns the number of failing cases.
int gradcheck_all(FILE *out);
