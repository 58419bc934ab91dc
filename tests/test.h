// test.h — the whole test framework: checks that count, and a closing line.
//
// Each tests/**/test_*.c is its own program. It calls the TEST macro for each
// case and ends main() with `return test_summary();`, which prints
// "N passed, M failed, K skipped" for that file (and one "skipped: CASE (need
// NEED): why" line per skip); tests/run.sh adds the files up and lists skips.
// A case fails if any CHECK inside it fails; CHECK never aborts, so one run
// reports every broken case.
//
// A case that cannot run here calls SKIP(need, "why", ...) and returns. `need`
// names what was missing: "corpus" (data/tinyshakespeare.txt), "clang",
// "valgrind", or something no CI can promise ("non-root", "mkfifo", ...). CI
// sets LMTRAIN_REQUIRE to a comma list of what it has ("corpus,clang,valgrind"):
// a skip for a need on that list counts as a failure, so a test that CI can
// run is never silently skipped there.
#pragma once
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_passed, t_failed, t_skipped, t_case_failed, t_case_skipped;
static const char *t_case;

static inline int test_required(const char *need) {
    const char *req = getenv("LMTRAIN_REQUIRE");
    size_t n = strlen(need);
    for (const char *p = req; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, need, n) == 0) return 1;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

static inline void test_skip(const char *need, const char *fmt, ...) {
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (test_required(need)) {  // CI has this: not having it here is a failure
        fprintf(stderr, "  FAIL %s: skipped, but LMTRAIN_REQUIRE includes \"%s\": %s\n", t_case, need, why);
        t_case_failed = 1;
        return;
    }
    printf("skipped: %s (need %s): %s\n", t_case, need, why);
    t_case_skipped = 1;
}
#define SKIP(need, ...) test_skip(need, __VA_ARGS__)

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
        t_case_skipped = 0;                                             \
        name();                                                         \
        if (t_case_failed) {                                            \
            t_failed++;                                                 \
            fprintf(stderr, "FAIL %s\n", #name);                        \
        } else if (t_case_skipped) {                                    \
            t_skipped++;                                                \
        } else {                                                        \
            t_passed++;                                                 \
        }                                                               \
    } while (0)

static inline int test_summary(void) {
    printf("%d passed, %d failed, %d skipped\n", t_passed, t_failed, t_skipped);
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
