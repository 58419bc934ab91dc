// attn_check.h — what the attention kinds' tests share besides their own
// references: random inputs, float copies in double, and the relative error
// every comparison in them is made with.
#pragma once
#include <math.h>
#include <stdlib.h>

#include "util/rng.h"

// n values bias + scale·N(0, 1) from r, as floats (malloc'd; n = 0 allowed).
static inline float *randn(Rng *r, size_t n, double scale, double bias) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = (float)(bias + scale * rng_normal(r));
    return x;
}

// A malloc'd double copy of x (n = 0 allowed).
static inline double *to_double(const float *x, size_t n) {
    double *d = malloc((n ? n : 1) * sizeof(double));
    for (size_t i = 0; i < n; i++) d[i] = x[i];
    return d;
}

// max |got - want| / max(max |want|, 1e-30); a NaN in got is an error of NaN,
// which fails every "<= tolerance".
static inline double rel_err(const float *got, const double *want, size_t n) {
    double md = 0, mw = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);
        if (!(e <= md)) md = e;
        if (fabs(want[i]) > mw) mw = fabs(want[i]);
    }
    return md / mw;
}

// The same for a double result (a reference against another).
static inline double rel_err_dd(const double *got, const double *want, size_t n) {
    double md = 0, mw = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(got[i] - want[i]);
        if (!(e <= md)) md = e;
        if (fabs(want[i]) > mw) mw = fabs(want[i]);
    }
    return md / mw;
}
