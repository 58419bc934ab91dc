// row_sum.h — y += p^T R for the one-token steps (generation): a weighted sum
// of the rows of R, each output summed over the rows in ascending order.
//
// Softmax's cache step uses it (probabilities times cached values; the
// fast-weight steps fold their read-out into the pass that updates S, in
// linear.c and delta_chunk.c, with the same per-value chains). The obvious loop,
// y[j] += p[i] R[i][j] with j inner, keeps its sums in y, so every row goes
// through memory (a store, then a load of it, per row). A group of
// ROW_SUM_LANES columns is summed in a GCC vector (vector_size: element-wise
// IEEE operations, whatever the instruction set, one register on AVX-512):
// with a plain array the compiler was seen to keep the 16 sums in 16 scalar
// registers instead. The arithmetic per output is the
// same chain as the obvious loop's: y[j] + p[0] R[0][j] + p[1] R[1][j] + ...,
// one product and one add per row (no fused multiply-add: ISO C mode).
//
// Each chain is a run of dependent adds, so one group alone waits on the add's
// latency every row. Up to ROW_SUM_GROUPS groups (and, for softmax, the sum of
// p itself) go through the rows together, one pass, their chains side by side.
//
// R may also be bf16 (softmax's generation cache with AttnConfig.kv_bf16):
// each value is widened to its exact float as it is loaded, and the sums are
// then the same chains as over those floats.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

// The 64-byte vectors pass between these static inline functions only: gcc's
// note that their ABI differs without AVX-512 concerns no real call.
#pragma GCC diagnostic ignored "-Wpsabi"

#define ROW_SUM_LANES 16
#define ROW_SUM_GROUPS 4  // vectors of columns summed in one pass over the rows
typedef float RowSumVec __attribute__((vector_size(ROW_SUM_LANES * sizeof(float))));
typedef uint16_t RowSumHalf __attribute__((vector_size(ROW_SUM_LANES * sizeof(uint16_t))));
typedef uint32_t RowSumBits __attribute__((vector_size(ROW_SUM_LANES * sizeof(uint32_t))));

// R's elements from R[i] on: floats, or with bf (softmax's bf16 KV cache,
// AttnConfig.kv_bf16) bf16 values, each widened exactly to its float (the
// 16 bits moved to the top), so a bf16 R gives the sums its floats would
static inline __attribute__((always_inline)) RowSumVec row_sum_load(const void *R, size_t i, int bf) {
    RowSumVec r;
    if (bf) {
#if defined(__AVX512F__)
        // one 512-bit widening (GCC splits the generic form below into two 256-bit ones)
        __m512i w = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)((const uint16_t *)R + i))), 16);
        memcpy(&r, &w, sizeof r);
#else
        RowSumHalf h;
        memcpy(&h, (const uint16_t *)R + i, sizeof h);
        RowSumBits w = __builtin_convertvector(h, RowSumBits) << 16;
        memcpy(&r, &w, sizeof r);
#endif
    } else {
        memcpy(&r, (const float *)R + i, sizeof r);
    }
    return r;
}

static inline __attribute__((always_inline)) float row_sum_elem(const void *R, size_t i, int bf) {
    if (!bf) return ((const float *)R)[i];
    uint32_t u = (uint32_t)((const uint16_t *)R)[i] << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

// NG whole groups of columns from y, R on (a constant in each use, so the sums
// stay in registers); with `sum`, also *sum += p[i] in the same pass
static inline __attribute__((always_inline)) void row_sum_groups(float *restrict y, const void *restrict R,
                                                                 size_t ld, const float *restrict p, size_t n,
                                                                 size_t NG, float *restrict sum, int bf) {
    RowSumVec acc[ROW_SUM_GROUPS], r;
    for (size_t g = 0; g < NG; g++) memcpy(&acc[g], y + g * ROW_SUM_LANES, sizeof acc[g]);
    float s = sum ? *sum : 0.0f;
    for (size_t i = 0; i < n; i++) {
        if (sum) s += p[i];
        for (size_t g = 0; g < NG; g++) {
            r = row_sum_load(R, i * ld + g * ROW_SUM_LANES, bf);
            acc[g] += p[i] * r;
        }
    }
    for (size_t g = 0; g < NG; g++) memcpy(y + g * ROW_SUM_LANES, &acc[g], sizeof acc[g]);
    if (sum) *sum = s;
}

// row_sum_add_and_sum over floats (bf = 0) or bf16 values (bf = 1), R's
// columns from column j0 on
static inline __attribute__((always_inline)) void row_sum_any(float *restrict y, const void *restrict R,
                                                              size_t ld, const float *restrict p, size_t n,
                                                              size_t cols, float *restrict sum, int bf) {
    size_t j0 = 0;
    for (; cols - j0 >= ROW_SUM_GROUPS * ROW_SUM_LANES; j0 += ROW_SUM_GROUPS * ROW_SUM_LANES, sum = NULL)
        row_sum_groups(y + j0, bf ? (const void *)((const uint16_t *)R + j0) : (const void *)((const float *)R + j0),
                       ld, p, n, ROW_SUM_GROUPS, sum, bf);
    const void *Rj = bf ? (const void *)((const uint16_t *)R + j0) : (const void *)((const float *)R + j0);
    switch ((cols - j0) / ROW_SUM_LANES) {
    case 3: row_sum_groups(y + j0, Rj, ld, p, n, 3, sum, bf); break;
    case 2: row_sum_groups(y + j0, Rj, ld, p, n, 2, sum, bf); break;
    case 1: row_sum_groups(y + j0, Rj, ld, p, n, 1, sum, bf); break;
    default: row_sum_groups(y + j0, Rj, ld, p, n, 0, sum, bf); break;  // the sum alone, if asked
    }
    j0 += (cols - j0) / ROW_SUM_LANES * ROW_SUM_LANES;
    size_t w = cols - j0;  // < ROW_SUM_LANES columns left
    if (w == 0) return;
    float acc[ROW_SUM_LANES];
    memcpy(acc, y + j0, w * sizeof(float));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < w; j++) acc[j] += p[i] * row_sum_elem(R, i * ld + j0 + j, bf);
    memcpy(y + j0, acc, w * sizeof(float));
}

// y[0 .. cols) += sum over i < n, ascending, of p[i] R[i * ld + j]; with sum
// non-NULL, also *sum += p[0] + p[1] + ... + p[n-1], in that order
static inline void row_sum_add_and_sum(float *restrict y, const float *restrict R, size_t ld,
                                       const float *restrict p, size_t n, size_t cols, float *restrict sum) {
    row_sum_any(y, R, ld, p, n, cols, sum, 0);
}

// The same with R in bf16 (uint16_t, ld in elements): the sums of its floats
static inline void row_sum_add_and_sum_bf16(float *restrict y, const uint16_t *restrict R, size_t ld,
                                            const float *restrict p, size_t n, size_t cols,
                                            float *restrict sum) {
    row_sum_any(y, R, ld, p, n, cols, sum, 1);
}

// y[0 .. cols) += sum over i < n, ascending, of p[i] R[i * ld + j]
static inline void row_sum_add(float *restrict y, const float *restrict R, size_t ld,
                               const float *restrict p, size_t n, size_t cols) {
    row_sum_add_and_sum(y, R, ld, p, n, cols, NULL);
}
