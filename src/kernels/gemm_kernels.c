// gemm_kernels.c — packing and the register-blocked micro-kernel of gemm.c.
//
// The micro-kernel keeps a GEMM_MR x GEMM_NR tile of C in registers and, per
// k, loads one row of the packed B panel and broadcasts GEMM_MR values of the
// packed A panel: GEMM_MR*GEMM_NR/width FMAs for GEMM_MR + GEMM_NR/width loads.
#include "gemm_kernels.h"

#include <string.h>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

// ---------------------------------------------------------------- packing
//
// Two kinds of copy: a strided copy when the source already runs along the
// panel's contiguous direction (A^T: rows of A^T are the i direction; B: rows
// are the j direction), and a transpose otherwise. With AVX-512 the transpose
// goes through 16 x 16 register blocks; elsewhere it is a plain loop.

#if defined(__AVX512F__)

static inline __mmask16 mask_first(size_t n) {
    return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

// rows r[0..15] (16 floats each) -> r[c] = column c, i.e. (r0[c], ..., r15[c])
static inline void transpose16(__m512 r[16]) {
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    // u[4g + q], lane l: rows 4g..4g+3 at column 4l + q
    for (int g = 0; g < 4; g++) {
        __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 2]);
        __m512d c = _mm512_castps_pd(t[4 * g + 1]), d = _mm512_castps_pd(t[4 * g + 3]);
        u[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
        u[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        u[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
        u[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int q = 0; q < 4; q++) {
        // v*: lanes (g0 L0, g0 L2, g1 L0, g1 L2) and (g0 L1, g0 L3, g1 L1, g1 L3)
        __m512 v01 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x88);
        __m512 w01 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xDD);
        __m512 v23 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x88);
        __m512 w23 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xDD);
        r[q] = _mm512_shuffle_f32x4(v01, v23, 0x88);
        r[8 + q] = _mm512_shuffle_f32x4(v01, v23, 0xDD);
        r[4 + q] = _mm512_shuffle_f32x4(w01, w23, 0x88);
        r[12 + q] = _mm512_shuffle_f32x4(w01, w23, 0xDD);
    }
}

// Transposes `rows` (<= 16) source rows of length n, row stride lds, into
// dst[c * ldd + r] for c < n, r < 16 (rows past `rows` become zeros).
// `half` = 1 writes only r < 8 at dst and r >= 8 at dst2 (two 8-wide panels).
static void transpose_rows(float *dst, float *dst2, size_t ldd, int half, const float *src,
                           size_t lds, size_t rows, size_t n) {
    for (size_t c0 = 0; c0 < n; c0 += 16) {
        size_t w = n - c0 < 16 ? n - c0 : 16;
        __mmask16 m = mask_first(w);
        __m512 r[16];
        for (size_t i = 0; i < 16; i++)
            r[i] = i < rows ? _mm512_maskz_loadu_ps(m, src + i * lds + c0) : _mm512_setzero_ps();
        transpose16(r);
        for (size_t c = 0; c < w; c++) {
            if (half) {
                _mm256_storeu_ps(dst + (c0 + c) * ldd, _mm512_castps512_ps256(r[c]));
                if (dst2)
                    _mm256_storeu_ps(dst2 + (c0 + c) * ldd,
                                     _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(r[c]), 1)));
            } else {
                _mm512_storeu_ps(dst + (c0 + c) * ldd, r[c]);
            }
        }
    }
}

#endif

void gemm_pack_a(float *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                 size_t k0, size_t kc) {
#if defined(__AVX512F__) && GEMM_MR == 8
    if (!transA) {
        // two 8-row panels per 16-row transpose
        for (size_t p = 0; p < mc; p += 16) {
            size_t rows = mc - p < 16 ? mc - p : 16;
            transpose_rows(ap + p * kc, rows > 8 ? ap + (p + 8) * kc : NULL, GEMM_MR, 1,
                           A + (i0 + p) * lda + k0, lda, rows, kc);
        }
        return;
    }
#endif
    for (size_t p = 0; p < mc; p += GEMM_MR) {
        size_t mr = mc - p < GEMM_MR ? mc - p : GEMM_MR;
        float *dst = ap + p * kc;  // this panel: (kc, GEMM_MR)
        if (transA) {
            // A is (K, M): row k of the panel is mr contiguous floats
#if defined(__AVX512F__) && GEMM_MR <= 16 && GEMM_MR % 8 == 0
            __mmask16 m = mask_first(mr);
            for (size_t k = 0; k < kc; k++) {
                __m512 x = _mm512_maskz_loadu_ps(m, A + (k0 + k) * lda + i0 + p);
#if GEMM_MR == 16
                _mm512_store_ps(dst + k * GEMM_MR, x);
#else
                _mm256_store_ps(dst + k * GEMM_MR, _mm512_castps512_ps256(x));
#endif
            }
            continue;
#endif
            for (size_t k = 0; k < kc; k++) {
                const float *src = A + (k0 + k) * lda + i0 + p;
                for (size_t i = 0; i < mr; i++) dst[k * GEMM_MR + i] = src[i];
                for (size_t i = mr; i < GEMM_MR; i++) dst[k * GEMM_MR + i] = 0.0f;
            }
        } else {
            // A is (M, K): transpose mr rows into the k-major panel
            for (size_t i = 0; i < mr; i++) {
                const float *src = A + (i0 + p + i) * lda + k0;
                for (size_t k = 0; k < kc; k++) dst[k * GEMM_MR + i] = src[k];
            }
            for (size_t i = mr; i < GEMM_MR; i++)
                for (size_t k = 0; k < kc; k++) dst[k * GEMM_MR + i] = 0.0f;
        }
    }
}

void gemm_pack_b(float *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                 size_t j0, size_t nc) {
    for (size_t q = 0; q < nc; q += GEMM_NR) {
        size_t nr = nc - q < GEMM_NR ? nc - q : GEMM_NR;
        float *dst = bp + q * kc;  // this panel: (kc, GEMM_NR)
        if (!transB) {
            // B is (K, N): row k of the panel is nr contiguous floats
#if defined(__AVX512F__) && GEMM_NR % 16 == 0
            __mmask16 m[GEMM_NR / 16];
            for (int v = 0; v < GEMM_NR / 16; v++)
                m[v] = mask_first(nr > 16 * (size_t)v ? nr - 16 * (size_t)v : 0);
            for (size_t k = 0; k < kc; k++) {
                const float *src = B + (k0 + k) * ldb + j0 + q;
                for (int v = 0; v < GEMM_NR / 16; v++)
                    _mm512_store_ps(dst + k * GEMM_NR + 16 * v,
                                    _mm512_maskz_loadu_ps(m[v], src + 16 * v));
            }
#else
            for (size_t k = 0; k < kc; k++) {
                const float *src = B + (k0 + k) * ldb + j0 + q;
                for (size_t j = 0; j < nr; j++) dst[k * GEMM_NR + j] = src[j];
                for (size_t j = nr; j < GEMM_NR; j++) dst[k * GEMM_NR + j] = 0.0f;
            }
#endif
        } else {
            // B is (N, K): transpose nr rows into the k-major panel
#if defined(__AVX512F__) && GEMM_NR % 16 == 0
            for (size_t v = 0; v < GEMM_NR; v += 16) {
                size_t rows = nr > v ? (nr - v < 16 ? nr - v : 16) : 0;
                transpose_rows(dst + v, NULL, GEMM_NR, 0, B + (j0 + q + v) * ldb + k0, ldb, rows,
                               kc);
            }
#else
            for (size_t j = 0; j < nr; j++) {
                const float *src = B + (j0 + q + j) * ldb + k0;
                for (size_t k = 0; k < kc; k++) dst[k * GEMM_NR + j] = src[k];
            }
            for (size_t j = nr; j < GEMM_NR; j++)
                for (size_t k = 0; k < kc; k++) dst[k * GEMM_NR + j] = 0.0f;
#endif
        }
    }
}

// ---------------------------------------------------------------- micro-kernel

#if defined(__AVX512F__)

#define NV (GEMM_NR / 16)

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    __m512 acc[GEMM_MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < GEMM_MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
    for (size_t k = 0; k < kc; k++) {
        __m512 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) b[v] = _mm512_load_ps(bp + k * GEMM_NR + 16 * v);
#pragma GCC unroll 16
        for (int i = 0; i < GEMM_MR; i++) {
            __m512 a = _mm512_set1_ps(ap[k * GEMM_MR + i]);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(a, b[v], acc[i][v]);
        }
    }
    __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    __mmask16 mask[NV];
    for (int v = 0; v < NV; v++) {
        size_t left = nr > 16 * (size_t)v ? nr - 16 * (size_t)v : 0;
        mask[v] = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
    }
#pragma GCC unroll 16
    for (int i = 0; i < GEMM_MR; i++) {
        if ((size_t)i >= mr) break;
        float *ci = c + (size_t)i * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m512 t = _mm512_mul_ps(va, acc[i][v]);
            if (beta != 0.0f) t = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(mask[v], ci + 16 * v), t);
            _mm512_mask_storeu_ps(ci + 16 * v, mask[v], t);
        }
    }
}

#elif defined(__AVX2__) && defined(__FMA__)

#define NV (GEMM_NR / 8)

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    __m256 acc[GEMM_MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < GEMM_MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[i][v] = _mm256_setzero_ps();
    for (size_t k = 0; k < kc; k++) {
        __m256 b[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) b[v] = _mm256_load_ps(bp + k * GEMM_NR + 8 * v);
#pragma GCC unroll 16
        for (int i = 0; i < GEMM_MR; i++) {
            __m256 a = _mm256_broadcast_ss(ap + k * GEMM_MR + i);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[i][v] = _mm256_fmadd_ps(a, b[v], acc[i][v]);
        }
    }
    __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    if (mr == GEMM_MR && nr == GEMM_NR) {
#pragma GCC unroll 16
        for (int i = 0; i < GEMM_MR; i++) {
            float *ci = c + (size_t)i * ldc;
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                __m256 t = _mm256_mul_ps(va, acc[i][v]);
                if (beta != 0.0f) t = _mm256_fmadd_ps(vb, _mm256_loadu_ps(ci + 8 * v), t);
                _mm256_storeu_ps(ci + 8 * v, t);
            }
        }
        return;
    }
    // edge tile: the same arithmetic through a scratch tile, then copy the valid part
    float tile[GEMM_MR * GEMM_NR] __attribute__((aligned(32)));
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) tile[i * GEMM_NR + j] = beta != 0.0f ? c[i * ldc + j] : 0.0f;
#pragma GCC unroll 16
    for (int i = 0; i < GEMM_MR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
            __m256 t = _mm256_mul_ps(va, acc[i][v]);
            if (beta != 0.0f) t = _mm256_fmadd_ps(vb, _mm256_load_ps(tile + i * GEMM_NR + 8 * v), t);
            _mm256_store_ps(tile + i * GEMM_NR + 8 * v, t);
        }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) c[i * ldc + j] = tile[i * GEMM_NR + j];
}

#else

// Portable: gcc vectorises the j loops. Without an FMA instruction set the
// step is a multiply then an add — still one fixed order for every element.
void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    float acc[GEMM_MR][GEMM_NR];
    for (int i = 0; i < GEMM_MR; i++)
        for (int j = 0; j < GEMM_NR; j++) acc[i][j] = 0.0f;
    for (size_t k = 0; k < kc; k++) {
        const float *b = bp + k * GEMM_NR;
        for (int i = 0; i < GEMM_MR; i++) {
            float a = ap[k * GEMM_MR + i];
            for (int j = 0; j < GEMM_NR; j++) acc[i][j] += a * b[j];
        }
    }
    for (size_t i = 0; i < mr; i++)
        for (size_t j = 0; j < nr; j++) {
            float t = alpha * acc[i][j];
            c[i * ldc + j] = beta != 0.0f ? t + beta * c[i * ldc + j] : t;
        }
}

#endif
