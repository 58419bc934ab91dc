// test_row_sum.c — attention/row_sum.h against the obvious loops, bit for bit:
// y[j] += p[i] R[i][j] over i ascending with j inner (sums through memory), and
// the running sum s += p[i]. Column counts around every group width (1, 2, 3,
// 4 vectors and the scalar tail), a leading dimension wider than the columns,
// and row counts from 0.
#include <string.h>

#include "attention/row_sum.h"
#include "test.h"
#include "util/rng.h"

static void fill(float *x, size_t n, Rng *r) {
    for (size_t i = 0; i < n; i++) x[i] = rng_normal(r);
}

static void test_bit_identical_to_obvious_loops(void) {
    enum { MAXC = 80, LD = 83, MAXN = 40 };
    static float R[MAXN * LD], p[MAXN], y0[MAXC], y1[MAXC], y2[MAXC];
    Rng r;
    rng_seed(&r, 5);
    size_t ns[] = {0, 1, 7, 40};
    for (size_t cols = 1; cols <= MAXC; cols++)
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
            size_t n = ns[a];
            fill(R, MAXN * LD, &r), fill(p, MAXN, &r), fill(y0, MAXC, &r);
            memcpy(y1, y0, sizeof y0), memcpy(y2, y0, sizeof y0);
            float s0 = rng_normal(&r), s1 = s0;
            for (size_t i = 0; i < n; i++) {
                s0 += p[i];
                for (size_t j = 0; j < cols; j++) y0[j] += p[i] * R[i * LD + j];
            }
            row_sum_add_and_sum(y1, R, LD, p, n, cols, &s1);
            row_sum_add(y2, R, LD, p, n, cols);
            CHECK(memcmp(y0, y1, sizeof y0) == 0);  // columns past cols untouched, too
            CHECK(memcmp(y0, y2, sizeof y0) == 0);
            CHECK(memcmp(&s0, &s1, sizeof s0) == 0);
        }
}

int main(void) {
    TEST(test_bit_identical_to_obvious_loops);
    return test_summary();
}
