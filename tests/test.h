// test.h — the whole test framework: checks that count, and a closing line.
//
// Each tests/**/test_*.c is its own program. It calls the TEST macro for each
// case and ends main() with `return test_summary();`, which prints
// "N passed, M failed" for that file; tests/run.sh adds the files up.
// A case fails if any CHECK inside it fails; CHECK never aborts, so one run
// reports every broken case.
#pragma once
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int t_passed, t_failed, t_case_failed;
static const char *t_case;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "  FAIL %s: %s:%d: %s\n", t_case, __FILE__, __LINE__, \
                    #cond);                                                      \
            t_case_failed = 1;                                                   \
        }                                                                        \
    } while (0)

// |got - want| <= tol, with tol an absolute bound the caller states.
#define CHECK_NEAR(got, want, tol)                                                   \
    do {                                                                             \
        double g_ = (double)(got), w_ = (double)(want), t_ = (double)(tol);          \
        if (!(fabs(g_ - w_) <= t_)) {                                                \
            fprintf(stderr, "  FAIL %s: %s:%d: %s = %.9g, want %.9g (tol %.3g)\n",   \
                    t_case, __FILE__, __LINE__, #got, g_, w_, t_);                   \
            t_case_failed = 1;                                                       \
        }                                                                            \
    } while (0)

#define TEST(name)                                                      \
    do {                                                                \
        t_case = #name;                                                 \
        t_case_failed = 0;                                              \
        name();                                                         \
        if (t_case_failed) {                                            \
            t_failed++;                                                 \
            fprintf(stderr, "FAIL %s\n", #name);                        \
        } else {                                                        \
            t_passed++;                                                 \
        }                                                               \
    } while (0)

static inline int test_summary(void) {
    printf("%d passed, %d failed\n", t_passed, t_failed);
    return t_failed ? 1 : 0;
}

// max |a-b| / max(max|b|, floor): the relative error measure the tolerances use
static inline double max_rel_err(const float *a, const float *b, size_t n, double floor) {
    double md = 0, mb = floor;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= md)) md = d;  // NaN propagates as a failure
        if (fabs((double)b[i]) > mb) mb = fabs((double)b[i]);
    }
    return md / mb;
}
