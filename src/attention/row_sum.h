// row_sum.h — y += p^T R for the one-token steps (generation): a weighted sum
// of the rows of R, each output summed over the rows in ascending order.
//
// Both recurrent read-outs need it (softmax: probabilities times cached
// values; fast weights: φ(q) times the rows of S). The obvious loop,
// y[j] += p[i] R[i][j] with j inner, keeps its sums in y, so every row goes
// through memory (a store, then a load of it, per row). A group of
// ROW_SUM_LANES columns is summed in a GCC vector (vector_size: element-wise
// IEEE operations, whatever the instruction set, one register on AVX-512):
// with a plain array the compiler was seen to keep the 16 sums in 16 scalar
// registers instead. The arithmetic per output is the
// same chain as the obvious loop's: y[j] + p[0] R[0][j] + p[1] R[1][j] + ...,
// one product and one add per row (no fused multiply-add: ISO C mode).
#pragma once
#include <stddef.h>
#include <string.h>

#define ROW_SUM_LANES 16
typedef float RowSumVec __attribute__((vector_size(ROW_SUM_LANES * sizeof(float))));

// y[0 .. cols) += sum over i < n, ascending, of p[i] R[i * ld + j]
static inline void row_sum_add(float *restrict y, const float *restrict R, size_t ld,
                               const float *restrict p, size_t n, size_t cols) {
    for (size_t j0 = 0; j0 < cols; j0 += ROW_SUM_LANES) {
        size_t w = cols - j0 < ROW_SUM_LANES ? cols - j0 : ROW_SUM_LANES;
        if (w == ROW_SUM_LANES) {
            RowSumVec acc, r;
            memcpy(&acc, y + j0, sizeof acc);
            for (size_t i = 0; i < n; i++) {
                memcpy(&r, R + i * ld + j0, sizeof r);
                acc += p[i] * r;
            }
            memcpy(y + j0, &acc, sizeof acc);
            continue;
        }
        float acc[ROW_SUM_LANES];
        memcpy(acc, y + j0, w * sizeof(float));
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < w; j++) acc[j] += p[i] * R[i * ld + j0 + j];
        memcpy(y + j0, acc, w * sizeof(float));
    }
}
