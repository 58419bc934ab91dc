// nn_check.h — helpers shared by the nn kernel tests (tests/kernels/test_*.c
// for nn.h): random inputs, double-precision central differences, gradient
// comparison, and the thread-count bit-identity check.
#pragma once
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/err.h"
#include "util/pool.h"
#include "util/rng.h"

static inline void fill_uniform(Rng *r, float *x, size_t n, float lo, float hi) {
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * rng_f32(r);
}

static inline void to_double(double *d, const float *f, size_t n) {
    for (size_t i = 0; i < n; i++) d[i] = f[i];
}

// Central differences: grad[i] = (L(x + h e_i) - L(x - h e_i)) / 2h, with L a
// double-precision reference evaluated through ctx, which reads x (perturbed
// in place and restored exactly). h = 1e-5: truncation error ~h^2 |L'''|,
// about 1e-10, and rounding ~1e-16 |L| / h for the unit-scale functions here.
static inline void fd_grad(double *grad, double *x, size_t n, double (*loss)(void *ctx), void *ctx) {
    const double h = 1e-5;
    for (size_t i = 0; i < n; i++) {
        double x0 = x[i];
        x[i] = x0 + h;
        double lp = loss(ctx);
        x[i] = x0 - h;
        double lm = loss(ctx);
        x[i] = x0;
        grad[i] = (lp - lm) / (2 * h);
    }
}

// A backward ADDS into `got`, which held `init` before the call. Returns
// max_i |got_i - (init_i + want_i)| / max(max_i |want_i|, floor).
static inline double grad_err(const float *got, const float *init, const double *want, size_t n,
                              double floor) {
    double md = 0, mw = floor;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - ((double)init[i] + want[i]));
        if (!(d <= md)) md = d;  // NaN propagates as a failure
        if (fabs(want[i]) > mw) mw = fabs(want[i]);
    }
    return md / mw;
}

// Runs run(ctx, out) with the pool at 1, 2 and 3 threads (out: n_bytes, zeroed
// first) and reports whether all three results are bit-identical. `splits`:
// how many of run's parallel_for calls must reach the workers at 3 threads (a
// problem below a kernel's grain runs on the caller alone, and the comparison
// would then test nothing); fewer is a failure, said on stderr.
static inline int same_bits_for_1_2_3_threads(void (*run)(void *ctx, unsigned char *out), void *ctx,
                                              size_t n_bytes, unsigned long splits) {
    unsigned char *ref = xcalloc(n_bytes, 1), *got = xcalloc(n_bytes, 1);
    pool_init(1);
    run(ctx, ref);
    int same = 1;
    for (int t = 2; t <= 3; t++) {
        memset(got, 0, n_bytes);
        pool_init(t);
        pool_profile(1);
        run(ctx, got);
        unsigned long d = pool_dispatches();
        pool_profile(0);
        if (memcmp(ref, got, n_bytes) != 0) same = 0;
        if (t == 3 && d < splits) {
            fprintf(stderr, "    %lu of the %lu parallel_for calls split at 3 threads\n", d, splits);
            same = 0;
        }
    }
    pool_init(1);
    free(ref);
    free(got);
    return same;
}
