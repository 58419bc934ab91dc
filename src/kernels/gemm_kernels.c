// gemm_kernels.c — operand packing and the register-blocked micro-kernel of
// gemm.c, for AVX-512, AVX2+FMA and plain C.
//
// Packing is either a strided copy (the source already runs along the panel's
// contiguous direction: op(A) = A^T, op(B) = B) or a transpose (op(A) = A,
// op(B) = B^T). The AVX-512 build transposes through 16 x 16 register blocks,
// which matters: for the small per-head products a scalar transpose costs as
// much as the multiply.
#include "gemm_kernels.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif
#if defined(__AVX512F__)
#include "kernels/avx512_tile.h"
#endif

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

#if defined(GEMM_HAS_MICRO_COLS)
// op(A) = Aᵀ read in place (gemm_micro_cols): each step reads a new row lda
// floats on, a stride the hardware prefetchers do not follow, so the tile
// asks for the row this many steps ahead (one line, the tile's first float's).
// Measured on the Emerald Rapids Xeon, with it: the baby model's dW products
// 6-12 % faster than packed on AVX-512, 5-8 % on AVX2 (without it, in place
// ran level with packed there).
#define PREFETCH_A_STEPS 8

// row i of the tile at step k: A[k*lda + i], or for i >= mr column mr-1 again (read, unused)
static void tile_cols(const float *a[GEMM_MR], const float *A, size_t mr) {
    for (size_t i = 0; i < GEMM_MR; i++) a[i] = A + (i < mr ? i : mr - 1);
}
#endif

#if defined(__AVX512F__)
// ================================================================ AVX-512 (8 x 32)

// Loads rows (<= 16) source rows, columns c0 .. c0+w (w <= 16), zeros for the
// missing rows and columns, and returns them transposed in r.
static inline void load_transposed(__m512 r[16], const float *src, size_t lds, size_t rows,
                                   size_t c0, size_t w) {
    __mmask16 m = mask_first(w);
    for (size_t i = 0; i < 16; i++)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(m, src + i * lds + c0) : _mm512_setzero_ps();
    transpose16(r);
}

void gemm_pack_a(float *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                 size_t k0, size_t kc) {
    if (transA) {
        // A is (K, M): panel row k is mr contiguous floats of A's row k0 + k.
        // Sliver by sliver: row by row (the AVX2 form) measured 9 % slower at
        // the baby model on the Emerald Rapids Xeon, the large within noise
        for (size_t p = 0; p < mc; p += GEMM_MR) {
            __mmask16 m = mask_first(min_sz(GEMM_MR, mc - p));
            const float *src = A + k0 * lda + i0 + p;
            float *dst = ap + p * kc;
            for (size_t k = 0; k < kc; k++)
                _mm256_store_ps(dst + k * GEMM_MR,
                                _mm512_castps512_ps256(_mm512_maskz_loadu_ps(m, src + k * lda)));
        }
        return;
    }
    // A is (M, K): 16 rows at a time through the register transpose; column k
    // of the block is k-row of two 8-row panels (low half, high half).
    for (size_t p = 0; p < mc; p += 16) {
        size_t rows = min_sz(16, mc - p);
        const float *src = A + (i0 + p) * lda + k0;
        float *lo = ap + p * kc, *hi = ap + (p + 8) * kc;  // hi exists only if rows > 8
        for (size_t c0 = 0; c0 < kc; c0 += 16) {
            size_t w = min_sz(16, kc - c0);
            __m512 r[16];
            load_transposed(r, src, lda, rows, c0, w);
            for (size_t c = 0; c < w; c++) {
                _mm256_store_ps(lo + (c0 + c) * GEMM_MR, _mm512_castps512_ps256(r[c]));
                if (rows > 8)
                    _mm256_store_ps(hi + (c0 + c) * GEMM_MR,
                                    _mm512_castps512_ps256(_mm512_shuffle_f32x4(r[c], r[c], 0xEE)));
            }
        }
    }
}

void gemm_pack_b(float *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                 size_t j0, size_t nc) {
    for (size_t q = 0; q < nc; q += GEMM_NR) {
        size_t nr = min_sz(GEMM_NR, nc - q);
        float *dst = bp + q * kc;  // (kc, 32)
        if (!transB) {
            // B is (K, N): panel row k is nr contiguous floats of B's row k0 + k
            const float *src = B + k0 * ldb + j0 + q;
            __mmask16 m0 = mask_first(nr), m1 = mask_first(nr > 16 ? nr - 16 : 0);
            for (size_t k = 0; k < kc; k++) {
                _mm512_store_ps(dst + k * GEMM_NR, _mm512_maskz_loadu_ps(m0, src + k * ldb));
                _mm512_store_ps(dst + k * GEMM_NR + 16,
                                m1 ? _mm512_maskz_loadu_ps(m1, src + k * ldb + 16)
                                   : _mm512_setzero_ps());
            }
        } else {
            // B is (N, K): the panel's two 16-column halves, each a register transpose
            for (size_t h = 0; h < GEMM_NR; h += 16) {
                size_t rows = nr > h ? min_sz(16, nr - h) : 0;
                const float *src = B + (j0 + q + h) * ldb + k0;
                for (size_t c0 = 0; c0 < kc; c0 += 16) {
                    size_t w = min_sz(16, kc - c0);
                    __m512 r[16];
                    if (rows)
                        load_transposed(r, src, ldb, rows, c0, w);
                    else
                        for (int i = 0; i < 16; i++) r[i] = _mm512_setzero_ps();
                    for (size_t c = 0; c < w; c++) _mm512_store_ps(dst + (c0 + c) * GEMM_NR + h, r[c]);
                }
            }
        }
    }
}

// The tile's arithmetic, for three ways of reading A: row i of the tile at
// step k is a[i][k * astep] (packed: a[i] = ap + i, astep = GEMM_MR; op(A) = A
// in place: a[i] = row i of A, astep = 1; op(A) = Aᵀ in place: a[i] = column i
// of A, astep = lda). `half`: an edge tile at most 16 columns wide
// (N = 33 leaves one per row block: the fast-weight kinds' [v | 1] width)
// computes only the first 16 of the 32 columns. B likewise: ldb == 0 reads a
// packed sliver (step GEMM_NR, zero-padded), ldb > 0 reads row k of op(B) in
// place at bp + k*ldb, its columns past nr masked to the same zeros. Every
// variant runs the same per-element chain, so results never depend on which
// one ran. `prefetch_a`: Aᵀ in place, its row PREFETCH_A_STEPS steps ahead
// asked for.
static inline __attribute__((always_inline)) void micro_core(size_t kc, const float *const a[8], size_t astep,
                                                             int prefetch_a, int half, const float *bp, size_t ldb,
                                                             float *c, size_t ldc, size_t mr, size_t nr, float alpha,
                                                             float beta) {
    __m512 acc[8][2];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    tile_prefetch(c, ldc, mr, half);
    __mmask16 m0 = mask_first(nr), m1 = mask_first(nr > 16 ? nr - 16 : 0);
    for (size_t k = 0; k < kc; k++) {
        if (prefetch_a) _mm_prefetch((const char *)(a[0] + (k + PREFETCH_A_STEPS) * astep), _MM_HINT_T0);
        __m512 b0, b1;
        if (ldb) {
            b0 = _mm512_maskz_loadu_ps(m0, bp + k * ldb);
            b1 = half ? b0 : _mm512_maskz_loadu_ps(m1, bp + k * ldb + 16);
        } else {
            b0 = _mm512_load_ps(bp + k * 32);
            b1 = half ? b0 : _mm512_load_ps(bp + k * 32 + 16);
        }
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            __m512 ai = _mm512_set1_ps(a[i][k * astep]);
            acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
            if (!half) acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
    tile_store(acc, half, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    const float *a[8] = {ap, ap + 1, ap + 2, ap + 3, ap + 4, ap + 5, ap + 6, ap + 7};
    if (nr <= 16)
        micro_core(kc, a, GEMM_MR, 0, 1, bp, 0, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, GEMM_MR, 0, 0, bp, 0, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro_b(size_t kc, const float *ap, const float *B, size_t ldb, float *c, size_t ldc, size_t mr,
                  size_t nr, float alpha, float beta) {
    const float *a[8] = {ap, ap + 1, ap + 2, ap + 3, ap + 4, ap + 5, ap + 6, ap + 7};
    if (nr <= 16)
        micro_core(kc, a, GEMM_MR, 0, 1, B, ldb, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, GEMM_MR, 0, 0, B, ldb, c, ldc, mr, nr, alpha, beta);
}

// row i of the tile: row i of A, or for i >= mr row mr-1 again (read, unused)
static void tile_rows(const float *a[8], const float *A, size_t lda, size_t mr) {
    for (size_t i = 0; i < 8; i++) a[i] = A + (i < mr ? i : mr - 1) * lda;
}

void gemm_micro_rows(size_t kc, const float *A, size_t lda, const float *bp, float *c, size_t ldc,
                     size_t mr, size_t nr, float alpha, float beta) {
    const float *a[8];
    tile_rows(a, A, lda, mr);
    if (nr <= 16)
        micro_core(kc, a, 1, 0, 1, bp, 0, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, 1, 0, 0, bp, 0, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro_rows_b(size_t kc, const float *A, size_t lda, const float *B, size_t ldb, float *c, size_t ldc,
                       size_t mr, size_t nr, float alpha, float beta) {
    const float *a[8];
    tile_rows(a, A, lda, mr);
    if (nr <= 16)
        micro_core(kc, a, 1, 0, 1, B, ldb, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, 1, 0, 0, B, ldb, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro_cols(size_t kc, const float *A, size_t lda, const float *bp, float *c, size_t ldc, size_t mr,
                     size_t nr, float alpha, float beta) {
    const float *a[8];
    tile_cols(a, A, mr);
    if (nr <= 16)
        micro_core(kc, a, lda, 1, 1, bp, 0, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, lda, 1, 0, bp, 0, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro_cols_b(size_t kc, const float *A, size_t lda, const float *B, size_t ldb, float *c, size_t ldc,
                       size_t mr, size_t nr, float alpha, float beta) {
    const float *a[8];
    tile_cols(a, A, mr);
    if (nr <= 16)
        micro_core(kc, a, lda, 1, 1, B, ldb, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kc, a, lda, 1, 0, B, ldb, c, ldc, mr, nr, alpha, beta);
}

// Up to 256 outputs at a time (16 zmm accumulators), K blocks as in gemm.c.
// Each k then reads one contiguous run of up to 1 KiB of x's row k: for a
// matrix-vector product over a k-major weight (generation) that streams the
// weight through once, in order, which the hardware prefetcher follows.
#define VEC_Q 16
void gemm_vec(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x, size_t ldx,
              const float *s, size_t incs, float beta, float *y, size_t incy) {
    __m512 va = _mm512_set1_ps(alpha);
    for (size_t r = r0; r < r1; r += 16 * VEC_Q) {
        size_t n = min_sz(16 * VEC_Q, r1 - r);
        size_t nq = (n + 15) / 16;  // accumulators in use
        __mmask16 m[VEC_Q];
        float out[16 * VEC_Q] __attribute__((aligned(64)));  // running results
        for (size_t q = 0; q < VEC_Q; q++) m[q] = mask_first(n > 16 * q ? n - 16 * q : 0);
        if (beta != 0.0f)
            for (size_t i = 0; i < n; i++) out[i] = y[(r + i) * incy];
        for (size_t k0 = 0; k0 < K; k0 += kb) {
            size_t k1 = min_sz(K, k0 + kb);
            __m512 acc[VEC_Q];
#pragma GCC unroll 16
            for (size_t q = 0; q < VEC_Q; q++) acc[q] = _mm512_setzero_ps();
            for (size_t k = k0; k < k1; k++) {
                __m512 sk = _mm512_set1_ps(s[k * incs]);
                const float *xk = x + k * ldx + r;
#pragma GCC unroll 16
                for (size_t q = 0; q < VEC_Q; q++)
                    if (q < nq) acc[q] = _mm512_fmadd_ps(sk, _mm512_maskz_loadu_ps(m[q], xk + 16 * q), acc[q]);
            }
            float b = k0 == 0 ? beta : 1.0f;
            __m512 vb = _mm512_set1_ps(b);
#pragma GCC unroll 16
            for (size_t q = 0; q < VEC_Q; q++) {
                if (q >= nq) break;
                __m512 t = _mm512_mul_ps(va, acc[q]);
                if (b != 0.0f) t = _mm512_fmadd_ps(vb, _mm512_load_ps(out + 16 * q), t);
                _mm512_store_ps(out + 16 * q, t);
            }
        }
        for (size_t i = 0; i < n; i++) y[(r + i) * incy] = out[i];
    }
}

// Outputs 32 at a time: two groups of 16 rows, each transposed 16 k at a
// time so that one zmm holds 16 outputs' values at one k; two independent
// FMA chains hide the FMA latency.
void gemm_vec_t(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x,
                size_t ldx, const float *s, size_t incs, float beta, float *y, size_t incy) {
    __m512 va = _mm512_set1_ps(alpha);
    for (size_t r = r0; r < r1; r += 32) {
        size_t n = min_sz(32, r1 - r);
        size_t rows[2] = {min_sz(16, n), n > 16 ? n - 16 : 0};
        float tmp[32];
        __m512 out[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
        if (beta != 0.0f) {
            for (size_t i = 0; i < 32; i++) tmp[i] = i < n ? y[(r + i) * incy] : 0.0f;
            out[0] = _mm512_loadu_ps(tmp);
            out[1] = _mm512_loadu_ps(tmp + 16);
        }
        for (size_t k0 = 0; k0 < K; k0 += kb) {
            size_t k1 = min_sz(K, k0 + kb);
            __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
            for (size_t kk = k0; kk < k1; kk += 16) {
                size_t w = min_sz(16, k1 - kk);
                __m512 t0[16], t1[16];
                load_transposed(t0, x + r * ldx, ldx, rows[0], kk, w);
                if (rows[1]) load_transposed(t1, x + (r + 16) * ldx, ldx, rows[1], kk, w);
                for (size_t c = 0; c < w; c++) {
                    __m512 sk = _mm512_set1_ps(s[(kk + c) * incs]);
                    acc[0] = _mm512_fmadd_ps(sk, t0[c], acc[0]);
                    if (rows[1]) acc[1] = _mm512_fmadd_ps(sk, t1[c], acc[1]);
                }
            }
            float b = k0 == 0 ? beta : 1.0f;
            __m512 vb = _mm512_set1_ps(b);
            for (int g = 0; g < 2; g++) {
                __m512 t = _mm512_mul_ps(va, acc[g]);
                out[g] = b != 0.0f ? _mm512_fmadd_ps(vb, out[g], t) : t;
            }
        }
        _mm512_storeu_ps(tmp, out[0]);
        _mm512_storeu_ps(tmp + 16, out[1]);
        for (size_t i = 0; i < n; i++) y[(r + i) * incy] = tmp[i];
    }
}

#elif defined(__AVX2__) && defined(__FMA__)
// ================================================================ AVX2 + FMA (6 x 16)

// The tile's arithmetic: row i of the tile at step k is a[i][k * astep]
// (packed: a[i] = ap + i, astep = 6; op(A) = Aᵀ in place: a[i] = column i of
// A, astep = lda, its row PREFETCH_A_STEPS steps ahead asked for, as on
// AVX-512). Either way the same chain per element.
static inline __attribute__((always_inline)) void micro_core(size_t kc, const float *const a[6], size_t astep,
                                                             int prefetch_a, const float *bp, float *c,
                                                             size_t ldc, size_t mr, size_t nr, float alpha,
                                                             float beta) {
    __m256 acc[6][2];
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    // The C tile is read (beta != 0) and written only after the k loop, its
    // rows ldc apart, a pattern the hardware prefetcher does not follow: ask
    // for them now, so the misses overlap the arithmetic (as the AVX-512 tile
    // does). Measured on the Emerald Rapids Xeon: the large FFN-down dX, whose
    // C (12 MiB) comes from memory, 2-7 % faster.
    for (size_t i = 0; i < mr; i++) _mm_prefetch((const char *)(c + i * ldc), _MM_HINT_T0);
#pragma GCC unroll 4
    for (size_t k = 0; k < kc; k++) {
        if (prefetch_a) _mm_prefetch((const char *)(a[0] + (k + PREFETCH_A_STEPS) * astep), _MM_HINT_T0);
        __m256 b0 = _mm256_load_ps(bp + k * 16), b1 = _mm256_load_ps(bp + k * 16 + 8);
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++) {
            __m256 ai = _mm256_broadcast_ss(a[i] + k * astep);
            acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
            acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
    }
    // Edge tiles go through a scratch tile (AVX2 has no masked float stores
    // worth the trouble); the arithmetic is the same as for full tiles.
    int full = mr == 6 && nr == 16;
    float tile[6 * 16] __attribute__((aligned(32)));
    float *dst = c;
    size_t ldd = ldc;
    if (!full) {
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++) tile[i * 16 + j] = beta != 0.0f ? c[i * ldc + j] : 0.0f;
        dst = tile;
        ldd = 16;
    }
    __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int i = 0; i < 6; i++) {
        if (full || (size_t)i < mr) {  // rows past mr of the scratch tile are never read
            float *di = dst + (size_t)i * ldd;
            __m256 t0 = _mm256_mul_ps(va, acc[i][0]), t1 = _mm256_mul_ps(va, acc[i][1]);
            if (beta != 0.0f) {
                t0 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(di), t0);
                t1 = _mm256_fmadd_ps(vb, _mm256_loadu_ps(di + 8), t1);
            }
            _mm256_storeu_ps(di, t0);
            _mm256_storeu_ps(di + 8, t1);
        }
    }
    if (!full)
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++) c[i * ldc + j] = tile[i * 16 + j];
}

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    const float *a[6] = {ap, ap + 1, ap + 2, ap + 3, ap + 4, ap + 5};
    micro_core(kc, a, 6, 0, bp, c, ldc, mr, nr, alpha, beta);
}

void gemm_micro_cols(size_t kc, const float *A, size_t lda, const float *bp, float *c, size_t ldc, size_t mr,
                     size_t nr, float alpha, float beta) {
    const float *a[6];
    tile_cols(a, A, mr);
    micro_core(kc, a, lda, 1, bp, c, ldc, mr, nr, alpha, beta);
}

#elif !(defined(__aarch64__) && defined(__ARM_NEON))  // NEON: gemm_neon.c
// ================================================================ plain C (6 x 8)

#include "kernels/vec4.h"
// Four lanes through GCC's vector extension (kernels/vec4.h): gcc's own
// vectoriser turned the plain loops into shuffles and stack traffic. A 6 x 8
// tile: 12 accumulators, 2 B vectors and a broadcast fit x86-64's 16 xmm
// registers. Each step is a multiply then an add (no FMA contraction under
// -std=c11): one fixed order per element, lane by lane.
enum { NV = GEMM_NR / 4 };

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    v4f acc[GEMM_MR][NV];
    for (int i = 0; i < GEMM_MR; i++)
        for (int v = 0; v < NV; v++) acc[i][v] = v4f_set1(0.0f);
    for (size_t k = 0; k < kc; k++) {
        v4f b[NV];
        for (int v = 0; v < NV; v++) b[v] = v4f_load(bp + k * GEMM_NR + 4 * v);
        for (int i = 0; i < GEMM_MR; i++) {
            v4f av = v4f_set1(ap[k * GEMM_MR + i]);
            for (int v = 0; v < NV; v++) acc[i][v] += av * b[v];
        }
    }
    for (size_t i = 0; i < mr; i++) {
        float row[GEMM_NR];
        for (int v = 0; v < NV; v++) v4f_store(row + 4 * v, acc[i][v]);
        for (size_t j = 0; j < nr; j++) {
            float t = alpha * row[j];
            c[i * ldc + j] = beta != 0.0f ? t + beta * c[i * ldc + j] : t;
        }
    }
}

#endif

#if !defined(__AVX512F__)
// ================================================================ portable packing (AVX2, NEON, plain C)

#if defined(__AVX2__) && defined(__FMA__)
// A full sliver of op(A) = A (each of the 6 rows contiguous in k): 8 k at a
// time, the rows loaded as vectors and transposed in registers (rows 6 and 7
// zero), each k's 6 values stored under a mask. Data movement only. gcc's code
// for the plain loop gathered one float at a time: an eighth of the AVX2
// path's product time on the baby model's shapes.
static size_t pack_a_rows6(float *dst, const float *A, size_t lda, size_t kc) {
    const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    size_t k = 0;
    for (; k + 8 <= kc; k += 8) {
        __m256 r[8], t[8], u[8];
        for (int i = 0; i < 6; i++) r[i] = _mm256_loadu_ps(A + (size_t)i * lda + k);
        r[6] = r[7] = _mm256_setzero_ps();
        for (int i = 0; i < 8; i += 2) {  // pairs of rows interleaved
            t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
            t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
        }
        for (int i = 0; i < 8; i += 4) {  // then pairs of pairs: rows i..i+3, columns 0,4 / 1,5 / 2,6 / 3,7
            u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
            u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
            u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
            u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
        }
        for (int c = 0; c < 4; c++) {  // then halves: column c and c + 4 of all 8 rows
            _mm256_maskstore_ps(dst + (k + c) * 6, six, _mm256_permute2f128_ps(u[c], u[c + 4], 0x20));
            _mm256_maskstore_ps(dst + (k + c + 4) * 6, six, _mm256_permute2f128_ps(u[c], u[c + 4], 0x31));
        }
    }
    return k;
}
#endif

#if defined(__AVX2__) && defined(__FMA__)
// The full slivers of op(A) = A^T (A is (K, M): a sliver's 6 values of step k
// are contiguous in A's row k): row by row, so each row of the block is read
// once, in order, as the prefetcher likes; sliver by sliver, each step read
// a new row lda floats on (at the large model, a page a step). Returns the
// rows of the block done (a multiple of 6). Data movement only. Measured on
// the Emerald Rapids Xeon: the dW products 2-11 % faster than sliver by sliver.
static size_t pack_a_cols6(float *ap, const float *A, size_t lda, size_t mc, size_t kc) {
    const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    size_t full = mc / 6 * 6;
    for (size_t k = 0; k < kc; k++) {
        const float *src = A + k * lda;
        for (size_t p = 0; p < full; p += 6)
            _mm256_maskstore_ps(ap + p * kc + k * 6, six, _mm256_maskload_ps(src + p, six));
    }
    return full;
}
#endif

void gemm_pack_a(float *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                 size_t k0, size_t kc) {
    size_t p0 = 0;
#if defined(__AVX2__) && defined(__FMA__)
    if (transA) p0 = pack_a_cols6(ap, A + k0 * lda + i0, lda, mc, kc);
#endif
    for (size_t p = p0; p < mc; p += GEMM_MR) {
        size_t mr = min_sz(GEMM_MR, mc - p);
        float *dst = ap + p * kc;  // (kc, GEMM_MR)
        size_t k = 0;
#if defined(__AVX2__) && defined(__FMA__)
        if (!transA && mr == 6) k = pack_a_rows6(dst, A + (i0 + p) * lda + k0, lda, kc);
#endif
        for (; k < kc; k++) {
            for (size_t i = 0; i < mr; i++)
                dst[k * GEMM_MR + i] = transA ? A[(k0 + k) * lda + i0 + p + i]
                                              : A[(i0 + p + i) * lda + k0 + k];
            for (size_t i = mr; i < GEMM_MR; i++) dst[k * GEMM_MR + i] = 0.0f;
        }
    }
}

void gemm_pack_b(float *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                 size_t j0, size_t nc) {
    for (size_t q = 0; q < nc; q += GEMM_NR) {
        size_t nr = min_sz(GEMM_NR, nc - q);
        float *dst = bp + q * kc;  // (kc, GEMM_NR)
        for (size_t k = 0; k < kc; k++) {
            for (size_t j = 0; j < nr; j++)
                dst[k * GEMM_NR + j] = transB ? B[(j0 + q + j) * ldb + k0 + k]
                                              : B[(k0 + k) * ldb + j0 + q + j];
            for (size_t j = nr; j < GEMM_NR; j++) dst[k * GEMM_NR + j] = 0.0f;
        }
    }
}
#endif
