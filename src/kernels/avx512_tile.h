// avx512_tile.h — internal to the GEMM kernels: the AVX-512 pieces that the
// fp32 kernels (gemm_kernels.c, built with -march=native) and the bf16 ones
// (gemm_bf16.c, built for any x86-64 with a target attribute) share: edge
// masks, the 16 x 16 register transpose, and the tile epilogue.
//
// Each function carries target("avx512f") so it compiles in either file; a
// caller's own target always includes AVX-512F, so it is inlined.
#pragma once
#include <immintrin.h>
#include <stddef.h>

#define AVX512_TILE_FN static inline __attribute__((always_inline, target("avx512f")))

AVX512_TILE_FN __mmask16 mask_first(size_t n) {
    return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

// r[i] = row i (16 floats)  ->  r[c] = column c = (r0[c], r1[c], ..., r15[c])
AVX512_TILE_FN void transpose16(__m512 r[16]) {
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {  // t: rows (2i, 2i+1) interleaved per 64-bit pair
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 4; g++) {  // u[4g + q], 128-bit lane l: rows 4g..4g+3 at column 4l + q
        __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 2]);
        __m512d c = _mm512_castps_pd(t[4 * g + 1]), d = _mm512_castps_pd(t[4 * g + 3]);
        u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int q = 0; q < 4; q++) {  // gather lane l of the four row groups: column 4l + q
        __m512 v01 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88);       // lanes 0, 2
        __m512 w01 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xDD);       // lanes 1, 3
        __m512 v23 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88);
        __m512 w23 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xDD);
        r[q] = _mm512_shuffle_f32x4(v01, v23, 0x88);
        r[4 + q] = _mm512_shuffle_f32x4(w01, w23, 0x88);
        r[8 + q] = _mm512_shuffle_f32x4(v01, v23, 0xDD);
        r[12 + q] = _mm512_shuffle_f32x4(w01, w23, 0xDD);
    }
}

// The end of an 8 x 32 tile: for i < mr, j < nr,
//   c[i*ldc + j] = alpha*acc[i][j] + beta*c[i*ldc + j]   (beta == 0: c is not read)
// `half`: only the first 16 columns were accumulated (acc[i][1] unused).
AVX512_TILE_FN void tile_store(__m512 acc[8][2], int half, float *c, size_t ldc, size_t mr, size_t nr,
                               float alpha, float beta) {
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    __mmask16 m0 = mask_first(nr), m1 = half ? 0 : mask_first(nr > 16 ? nr - 16 : 0);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        if ((size_t)i >= mr) break;
        float *ci = c + (size_t)i * ldc;
        __m512 t0 = _mm512_mul_ps(va, acc[i][0]);
        if (beta != 0.0f) t0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), t0);
        _mm512_mask_storeu_ps(ci, m0, t0);
        if (m1) {
            __m512 t1 = _mm512_mul_ps(va, acc[i][1]);
            if (beta != 0.0f) t1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), t1);
            _mm512_mask_storeu_ps(ci + 16, m1, t1);
        }
    }
}

// The C tile is read (beta != 0) or written only after the k loop; its 8 rows
// lie ldc apart, a pattern the hardware prefetcher does not follow, so ask for
// them before the loop and let the misses overlap the arithmetic.
AVX512_TILE_FN void tile_prefetch(const float *c, size_t ldc, size_t mr, int half) {
    for (size_t i = 0; i < mr; i++) {
        _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
        if (!half) _mm_prefetch((const char *)(c + i * ldc + 16), _MM_HINT_T0);
    }
}
