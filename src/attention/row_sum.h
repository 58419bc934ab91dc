// row_sum.h — y += p^T R for the one-token steps (generation): a weighted sum
// of the rows of R, each output summed over the rows in ascending order.
//
// Both recurrent read-outs need it (softmax: probabilities times cached
// values; fast weights: φ(q) times the rows of S). The obvious loop,
// y[j] += p[i] R[i][j] with j inner, keeps its sums in y, so every row goes
// through memory (a store, then a load of it, per row). Summing a group of
// ROW_SUM_LANES columns in a local array lets the compiler keep the group in
// one vector register across all the rows. The arithmetic per output is the
// same chain as the obvious loop's: y[j] + p[0] R[0][j] + p[1] R[1][j] + ...,
// one product and one add per row (no fused multiply-add: ISO C mode).
#pragma once
#include <stddef.h>
#include <string.h>

#define ROW_SUM_LANES 16

// y[0 .. cols) += sum over i < n, ascending, of p[i] R[i * ld + j]
static inline void row_sum_add(float *restrict y, const float *restrict R, size_t ld,
                               const float *restrict p, size_t n, size_t cols) {
    for (size_t j0 = 0; j0 < cols; j0 += ROW_SUM_LANES) {
        size_t w = cols - j0 < ROW_SUM_LANES ? cols - j0 : ROW_SUM_LANES;
        float acc[ROW_SUM_LANES];
        memcpy(acc, y + j0, w * sizeof(float));
        if (w == ROW_SUM_LANES)
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < ROW_SUM_LANES; j++) acc[j] += p[i] * R[i * ld + j0 + j];
        else
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < w; j++) acc[j] += p[i] * R[i * ld + j0 + j];
        memcpy(y + j0, acc, w * sizeof(float));
    }
}
