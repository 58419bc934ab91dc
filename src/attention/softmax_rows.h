// softmax_rows.h — the per-row pieces of softmax attention's training form
// (softmax.c), in a header of their own so that tests/attention/test_softmax.c
// can run the very same row arithmetic in its reference of the tile loops.
//
// row_max and row_exp_sum run once per score, as often as the tile products'
// inner loops, so they get an AVX-512 path; its exp is vexpf16, which gives
// vexpf's bits lane by lane, so the probabilities do not depend on the path.
// row_dots (the backward's D_i = dy_i . y_i) keeps one plain chain per row and
// runs 16 rows' chains side by side.
//
// row_max, row_exp_sum, row_dots and tile_transpose are kernels (one variant
// per path, attention/softmax_rows.c; kernels/isa.h): softmax.c calls them once
// per row or per tile through the chosen path's pointers. Their bodies below
// are compiled in the kernel file only.
#pragma once
#include <math.h>
#include <stddef.h>

#include "attention/attn_kernel_names.h"

// max of x[0..n), n >= 1
extern float row_max(const float *x, size_t n);
// x[i] = exp(x[i] - sub) for i < n (vexpf's bits); returns the sum of the new x
extern float row_exp_sum(float *x, size_t n, float sub);
// D[i] = row_dot_chain(a + i*ld, b + i*ld, n) for i < rows, bit for bit
extern void row_dots(float *D, const float *a, const float *b, size_t ld, size_t rows, size_t n);
// dst (n, rows) = the transpose of src (rows, n); rows ld apart in each
extern void tile_transpose(float *dst, size_t ldd, const float *src, size_t lds, size_t rows, size_t n);

// One row's dot product as the plain loop computes it: acc = 0, then
// acc = acc + a[d] * b[d] for d ascending, the product rounded before the add
// (ISO C does not contract them into an FMA).
static inline float row_dot_chain(const float *a, const float *b, size_t n) {
    float acc = 0.0f;
    for (size_t d = 0; d < n; d++) acc += a[d] * b[d];
    return acc;
}

#if defined(KERNEL_ISA)
#include "kernels/vexp.h"

#ifdef __AVX512F__
#include <immintrin.h>

#include "kernels/avx512_tile.h"
#endif

// max of x[0..n), n >= 1
static inline float row_max_impl(const float *x, size_t n) {
#ifdef __AVX512F__
    __m512 m = _mm512_set1_ps(-INFINITY);
    for (size_t i = 0; i < n; i += 16)
        m = _mm512_max_ps(m, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), mask_first(n - i), x + i));
    return _mm512_reduce_max_ps(m);
#else
    float m = x[0];
    for (size_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
    return m;
#endif
}

// x[i] = exp(x[i] - sub) for i < n; returns the sum of the new x
static inline float row_exp_sum_impl(float *x, size_t n, float sub) {
#if defined(__AVX512F__) && defined(FP_FAST_FMAF)
    __m512 acc = _mm512_setzero_ps(), s = _mm512_set1_ps(sub);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 mk = mask_first(n - i);
        __m512 e = vexpf16(_mm512_sub_ps(_mm512_maskz_loadu_ps(mk, x + i), s));
        _mm512_mask_storeu_ps(x + i, mk, e);
        acc = _mm512_mask_add_ps(acc, mk, acc, e);
    }
    return _mm512_reduce_add_ps(acc);
#else
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) {
        x[i] = vexpf(x[i] - sub);
        sum += x[i];
    }
    return sum;
#endif
}

// D[i] = row_dot_chain(a + i*ld, b + i*ld, n) for i < rows, bit for bit. One
// chain is n dependent adds, waiting on the add's latency each step; the
// AVX-512 path gives each of 16 rows a lane (16 x 16 blocks transposed in
// registers) and runs the 16 chains in one vector, the same operations in the
// same order per row.
static inline void row_dots_impl(float *D, const float *a, const float *b, size_t ld, size_t rows, size_t n) {
    size_t i = 0;
#ifdef __AVX512F__
    for (; i < rows; i += 16) {
        size_t nr = rows - i < 16 ? rows - i : 16;
        __m512 acc = _mm512_setzero_ps();
        for (size_t c0 = 0; c0 < n; c0 += 16) {
            size_t w = n - c0 < 16 ? n - c0 : 16;
            __mmask16 m = mask_first(w);
            __m512 ra[16], rb[16];
            for (size_t r = 0; r < 16; r++) {
                ra[r] = r < nr ? _mm512_maskz_loadu_ps(m, a + (i + r) * ld + c0) : _mm512_setzero_ps();
                rb[r] = r < nr ? _mm512_maskz_loadu_ps(m, b + (i + r) * ld + c0) : _mm512_setzero_ps();
            }
            transpose16(ra);
            transpose16(rb);
            for (size_t c = 0; c < w; c++) acc = _mm512_add_ps(acc, _mm512_mul_ps(ra[c], rb[c]));
        }
        _mm512_mask_storeu_ps(D + i, mask_first(nr), acc);
    }
#endif
    for (; i < rows; i++) D[i] = row_dot_chain(a + i * ld, b + i * ld, n);
}

// dst (n, rows), row d at dst + d*ldd: the transpose of rows (rows, n) of src,
// rows lds apart. Softmax's key and value tiles, transposed once per key tile
// so that the products over them read them in place (gemm packs a transposed
// operand again at every call).
static inline void tile_transpose_impl(float *dst, size_t ldd, const float *src, size_t lds, size_t rows, size_t n) {
#ifdef __AVX512F__
    for (size_t r0 = 0; r0 < rows; r0 += 16) {
        size_t nr = rows - r0 < 16 ? rows - r0 : 16;
        __mmask16 mr = mask_first(nr);
        for (size_t c0 = 0; c0 < n; c0 += 16) {
            size_t w = n - c0 < 16 ? n - c0 : 16;
            __mmask16 m = mask_first(w);
            __m512 t[16];
            for (size_t r = 0; r < 16; r++)
                t[r] = r < nr ? _mm512_maskz_loadu_ps(m, src + (r0 + r) * lds + c0) : _mm512_setzero_ps();
            transpose16(t);
            for (size_t c = 0; c < w; c++) _mm512_mask_storeu_ps(dst + (c0 + c) * ldd + r0, mr, t[c]);
        }
    }
#else
    for (size_t d = 0; d < n; d++)
        for (size_t r = 0; r < rows; r++) dst[d * ldd + r] = src[r * lds + d];
#endif
}
#endif  // KERNEL_ISA
