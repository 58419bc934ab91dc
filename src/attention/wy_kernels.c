// wy_kernels.c — the WY form's non-product loops (wy_kernels.h), each the
// chain of its plain loop, with independent chains run side by side.
#include "wy_kernels.h"

#include "kernels/gemm.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

// rows whose dot chains run side by side: enough independent double additions
// to cover an addition's latency at two per cycle
enum { CHAINS = 8 };

#if defined(__AVX512F__)
// The substitutions keep a strip of up to 64 columns (4 zmm) of a row in
// registers for the whole chain (the plain loop stores and reloads it for every
// j: the compiler cannot tell the row from the rows it reads). Lanes past the
// strip's width run on zeros and are never stored.
enum { STRIP = 64, VECS = STRIP / 16, BLOCK = 4 };

static inline __mmask16 lanes(size_t w, size_t v) {
    size_t n = w > 16 * v ? w - 16 * v : 0;
    return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

// u − c·x, lane by lane: a product, then a difference (no fused multiply-add:
// the plain loop rounds the product)
static inline __m512 sub_prod(__m512 u, float c, __m512 x) {
    return _mm512_sub_ps(u, _mm512_mul_ps(_mm512_set1_ps(c), x));
}

void wy_forward_subst(size_t L, size_t d, const float *A, const float *Z, float *U) {
    for (size_t c0 = 0; c0 < d; c0 += STRIP) {
        size_t w = d - c0 < STRIP ? d - c0 : STRIP;
        __mmask16 m[VECS];
        for (size_t v = 0; v < VECS; v++) m[v] = lanes(w, v);
        // BLOCK rows at a time: the terms j < r0 (finished rows) first, shared
        // loads of u_j for the block's rows, then the block's own triangle
        for (size_t r0 = 0; r0 < L; r0 += BLOCK) {
            size_t nr = L - r0 < BLOCK ? L - r0 : BLOCK;
            const float *a[BLOCK];  // row i of A (rows past nr: the last real one, unused)
            __m512 acc[BLOCK][VECS];
#pragma GCC unroll 4
            for (size_t i = 0; i < BLOCK; i++) {
                a[i] = A + (r0 + (i < nr ? i : nr - 1)) * L;
#pragma GCC unroll 4
                for (size_t v = 0; v < VECS; v++)
                    acc[i][v] = i < nr ? _mm512_maskz_loadu_ps(m[v], Z + (r0 + i) * d + c0 + 16 * v)
                                       : _mm512_setzero_ps();
            }
            for (size_t j = 0; j < r0; j++) {
                __m512 x[VECS];
#pragma GCC unroll 4
                for (size_t v = 0; v < VECS; v++) x[v] = _mm512_maskz_loadu_ps(m[v], U + j * d + c0 + 16 * v);
#pragma GCC unroll 4
                for (size_t i = 0; i < BLOCK; i++)
#pragma GCC unroll 4
                    for (size_t v = 0; v < VECS; v++) acc[i][v] = sub_prod(acc[i][v], a[i][j], x[v]);
            }
#pragma GCC unroll 4
            for (size_t i = 1; i < BLOCK; i++)
#pragma GCC unroll 4
                for (size_t j = 0; j < i; j++)
#pragma GCC unroll 4
                    for (size_t v = 0; v < VECS; v++) acc[i][v] = sub_prod(acc[i][v], a[i][r0 + j], acc[j][v]);
            for (size_t i = 0; i < nr; i++)
#pragma GCC unroll 4
                for (size_t v = 0; v < VECS; v++) _mm512_mask_storeu_ps(U + (r0 + i) * d + c0 + 16 * v, m[v], acc[i][v]);
        }
    }
}

void wy_back_subst(size_t L, size_t d, const float *A, const float *dU, float *dZ) {
    for (size_t c0 = 0; c0 < d; c0 += STRIP) {
        size_t w = d - c0 < STRIP ? d - c0 : STRIP;
        __mmask16 m[VECS];
        for (size_t v = 0; v < VECS; v++) m[v] = lanes(w, v);
        // every term of row r needs a finished later row, the first one row
        // r+1: one row at a time, its strip in registers
        for (size_t r = L; r-- > 0;) {
            __m512 acc[VECS];
#pragma GCC unroll 4
            for (size_t v = 0; v < VECS; v++) acc[v] = _mm512_maskz_loadu_ps(m[v], dU + r * d + c0 + 16 * v);
            for (size_t j = r + 1; j < L; j++) {
                float c = A[j * L + r];
#pragma GCC unroll 4
                for (size_t v = 0; v < VECS; v++)
                    acc[v] = sub_prod(acc[v], c, _mm512_maskz_loadu_ps(m[v], dZ + j * d + c0 + 16 * v));
            }
#pragma GCC unroll 4
            for (size_t v = 0; v < VECS; v++) _mm512_mask_storeu_ps(dZ + r * d + c0 + 16 * v, m[v], acc[v]);
        }
    }
}

#else
// Without AVX-512: the plain loops themselves.

void wy_forward_subst(size_t L, size_t d, const float *A, const float *Z, float *U) {
    for (size_t r = 0; r < L; r++) {
        float *ur = U + r * d;
        for (size_t i = 0; i < d; i++) ur[i] = Z[r * d + i];
        for (size_t j = 0; j < r; j++) {
            float c = A[r * L + j];
            const float *uj = U + j * d;
            for (size_t i = 0; i < d; i++) ur[i] -= c * uj[i];
        }
    }
}

void wy_back_subst(size_t L, size_t d, const float *A, const float *dU, float *dZ) {
    for (size_t r = L; r-- > 0;) {
        float *dzr = dZ + r * d;
        for (size_t i = 0; i < d; i++) dzr[i] = dU[r * d + i];
        for (size_t j = r + 1; j < L; j++) {
            float c = A[j * L + r];
            const float *dzj = dZ + j * d;
            for (size_t i = 0; i < d; i++) dzr[i] -= c * dzj[i];
        }
    }
}
#endif

// The products below are of two floats in double: exact, so only the order of
// the additions is the chain, and that is kept per accumulator.

#if defined(__AVX512F__)
// r[c] = row c (8 doubles)  ->  r[k] = column k = (r0[k], r1[k], ..., r7[k])
static inline void transpose8d(__m512d r[8]) {
    __m512d t[8], u[8];
    for (int i = 0; i < 4; i++) {  // t[2i]: rows 2i, 2i+1 at the even columns; t[2i+1]: odd
        t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++)  // rows 4h .. 4h+3: 128-bit lanes (0, 2) and (1, 3)
        for (int i = 0; i < 2; i++) {
            u[4 * h + i] = _mm512_shuffle_f64x2(t[4 * h + i], t[4 * h + 2 + i], 0x88);
            u[4 * h + 2 + i] = _mm512_shuffle_f64x2(t[4 * h + i], t[4 * h + 2 + i], 0xDD);
        }
    // u[0]: columns 0, 4 of rows 0-3; u[1]: 1, 5; u[2]: 2, 6; u[3]: 3, 7 (u[4..7]: rows 4-7)
    for (int i = 0; i < 4; i++) {
        r[i] = _mm512_shuffle_f64x2(u[i], u[4 + i], 0x88);
        r[4 + i] = _mm512_shuffle_f64x2(u[i], u[4 + i], 0xDD);
    }
}

// 8 rows, one double lane each: the products of 16 columns formed along the
// rows, turned into columns, then added to the 8 chains one column at a time
static void dotd8(size_t d, const float *a, size_t lda, const float *b, size_t ldb, double *out) {
    __m512d acc = _mm512_loadu_pd(out);
    for (size_t k0 = 0; k0 < d; k0 += 16) {
        size_t w = d - k0 < 16 ? d - k0 : 16;
        __mmask16 m = lanes(w, 0);
        __m512d lo[8], hi[8];
        for (int c = 0; c < 8; c++) {
            __m512 x = _mm512_maskz_loadu_ps(m, a + c * lda + k0), y = _mm512_maskz_loadu_ps(m, b + c * ldb + k0);
            lo[c] = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(x)),
                                  _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
            hi[c] = _mm512_mul_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))),
                                  _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1))));
        }
        transpose8d(lo);
        transpose8d(hi);
        for (size_t k = 0; k < w && k < 8; k++) acc = _mm512_add_pd(acc, lo[k]);
        for (size_t k = 8; k < w; k++) acc = _mm512_add_pd(acc, hi[k - 8]);
    }
    _mm512_storeu_pd(out, acc);
}
#endif

void wy_dotd_rows(size_t n, size_t d, const float *a, size_t lda, const float *b, size_t ldb,
                  double *out) {
    size_t r = 0;
#if defined(__AVX512F__)
    for (; r + 8 <= n; r += 8) dotd8(d, a + r * lda, lda, b + r * ldb, ldb, out + r);
#endif
    for (; r + CHAINS <= n; r += CHAINS) {
        double acc[CHAINS];
        for (size_t c = 0; c < CHAINS; c++) acc[c] = out[r + c];
        for (size_t i = 0; i < d; i++)
            for (size_t c = 0; c < CHAINS; c++) acc[c] += (double)a[(r + c) * lda + i] * b[(r + c) * ldb + i];
        for (size_t c = 0; c < CHAINS; c++) out[r + c] = acc[c];
    }
    for (; r < n; r++) {
        double acc = out[r];
        for (size_t i = 0; i < d; i++) acc += (double)a[r * lda + i] * b[r * ldb + i];
        out[r] = acc;
    }
}

static inline double pair_x(size_t L, const float *P, const float *G, size_t r, size_t j) {
    return (double)P[r * L + j] * G[r * L + j];
}

void wy_pairs_db(size_t L, const float *P, const float *G, double *db) {
    // db[m]'s gains all come before its losses (a loss of db[m] comes from a
    // row r > m, processed after row m): first every row's gains, rows side by
    // side (each row its own chain, j ascending) ...
    size_t r = 0;
    for (; r + CHAINS <= L; r += CHAINS) {
        // the columns j < r that all the block's rows have: their dot products
        wy_dotd_rows(CHAINS, r, P + r * L, L, G + r * L, L, db + r);
        double acc[CHAINS];
        for (size_t c = 0; c < CHAINS; c++) acc[c] = db[r + c];
        for (size_t c = 1; c < CHAINS; c++)  // the block's own triangle, j still ascending
            for (size_t j = r; j < r + c; j++) acc[c] += pair_x(L, P, G, r + c, j);
        for (size_t c = 0; c < CHAINS; c++) db[r + c] = acc[c];
    }
    for (; r < L; r++) {
        double acc = db[r];
        for (size_t j = 0; j < r; j++) acc += pair_x(L, P, G, r, j);
        db[r] = acc;
    }
    // ... then the losses, r ascending per db[j] (all j of a row in parallel lanes)
    for (r = 1; r < L; r++)
        for (size_t j = 0; j < r; j++) db[j] -= pair_x(L, P, G, r, j);
}

void wy_dbeta_rows(size_t L, const float *G, const float *D, const float *M, double *out) {
    // ((double)G·D exact) · M rounded, then the sum: the product's order is the plain loop's
    size_t r = 0;
    for (; r + CHAINS <= L; r += CHAINS) {
        double acc[CHAINS] = {0};
        for (size_t j = 0; j < r; j++)
            for (size_t c = 0; c < CHAINS; c++) {
                size_t e = (r + c) * L + j;
                acc[c] += (double)G[e] * D[e] * M[e];
            }
        for (size_t c = 1; c < CHAINS; c++)
            for (size_t j = r; j < r + c; j++) {
                size_t e = (r + c) * L + j;
                acc[c] += (double)G[e] * D[e] * M[e];
            }
        for (size_t c = 0; c < CHAINS; c++) out[r + c] = acc[c];
    }
    for (; r < L; r++) {
        double acc = 0;
        for (size_t j = 0; j < r; j++) acc += (double)G[r * L + j] * D[r * L + j] * M[r * L + j];
        out[r] = acc;
    }
}

void wy_gemm_lower(size_t L, size_t d, float alpha, const float *A, size_t lda, const float *B, size_t ldb,
                   float *C) {
    for (size_t r0 = 0; r0 < L; r0 += WY_LOWER_ROWS) {
        size_t m = L - r0 < WY_LOWER_ROWS ? L - r0 : WY_LOWER_ROWS;
        gemm_serial(0, 1, m, r0 + m, d, alpha, A + r0 * lda, lda, B, ldb, 0.0f, C + r0 * L, L);
    }
}

double wy_gemm_lower_flops(size_t L, size_t d) {
    double f = 0;
    for (size_t r0 = 0; r0 < L; r0 += WY_LOWER_ROWS) {
        size_t m = L - r0 < WY_LOWER_ROWS ? L - r0 : WY_LOWER_ROWS;
        f += 2.0 * (double)m * (double)(r0 + m) * (double)d;
    }
    return f;
}
