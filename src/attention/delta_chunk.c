// delta_chunk.c — the delta rule, token by token: forward, chunked recompute, backward.
//
// Notation (see the header): d = dh, chunk = the chunk length, L = this chunk's length,
// r = position inside the chunk, t = t0 + r. P = S_{t-1} (the state a position
// reads), G = dL/dS_t (what flows back into the state a position writes).
#include "delta_chunk.h"

#include <math.h>
#include <string.h>

#include "attention/feature_map.h"

// The AVX2 path (-mavx2 without AVX-512) has its own forms of the kernels
// whose 64-byte vectors it would keep on the stack (below: SLANES and
// STRIP_LOAD, transpose8f, the row sums, rows_fast, dloglam_8); the same float
// operations in the same order (tests/attention/test_delta_bits.c).
#if defined(__AVX2__) && !defined(__AVX512F__)
#define DELTA_AVX2 1
#else
#define DELTA_AVX2 0
#endif
#if defined(__AVX512F__) || DELTA_AVX2
#include <immintrin.h>
#endif
// The portable path on x86-64 (SSE2 without AVX) has 16 registers of 4
// floats: its strips are 4 wide (SLANES), and its backward passes go row by
// row (rows_any, the same values) rather than through rows_fast, whose 64-byte
// vectors went through the stack there. Measured, forced portable on the
// Emerald Rapids Xeon, baby delta step: attention forward 35.6 -> 5.5 ms,
// backward 60.1 -> 24.6 ms.
#if defined(__SSE2__) && !defined(__AVX__)
#define DELTA_SSE2 1
#else
#define DELTA_SSE2 0
#endif

// The 64-byte vectors below pass between static functions only: gcc's note
// that their ABI differs without AVX-512 concerns no caller outside this file.
#pragma GCC diagnostic ignored "-Wpsabi"

// sub-buffers start on 16-float (64-byte) boundaries
static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }
static size_t n_chunks(const DeltaSlab *p) { return p->chunk ? (p->T + p->chunk - 1) / p->chunk : 0; }

// ---- vector kernels ----
//
// Dot products over a row keep LANES = 16 partial sums (lane l takes the
// elements j ≡ l mod 16) and add them pairwise in a fixed order at the end
// (l += l+8, then +4, +2, +1): a plain float `acc += a*b` loop cannot be
// vectorised without -ffast-math, and a chain of 16 dependent scalar adds per
// row cost more than the arithmetic. Sᵀx keeps one column block in registers
// over all rows instead of re-storing the output row by row.
// The AVX-512 and AVX2 versions do exactly the plain versions' float operations in the
// same order (separate multiply and add, as the plain C compiles without FMA
// contraction under -std=c11), so all give the same bits; results depend on d,
// never on the thread count.
#define LANES 16
typedef float DeltaVec __attribute__((vector_size(LANES * sizeof(float))));

// Column strips (token_strip, step_strip) are SLANES columns wide: their
// values are per column (λS_ij + (βk̂_i) e_j, sums over i), so the width only
// sets how many columns share a vector. AVX2 has 16 registers of 8 floats: a
// 64-byte vector there is two registers that gcc keeps on the stack, so its
// strips are 8 wide (up to 4 strips: 12 accumulators in registers).
#if DELTA_AVX2
#define SLANES 8
#elif DELTA_SSE2
#define SLANES 4
#else
#define SLANES LANES
#endif
typedef float StripVec __attribute__((vector_size(SLANES * sizeof(float))));
// STRIP_LOAD(r, x): r = the strip's SLANES floats at x (any alignment);
// STRIP_STORE(x, r) back. On AVX2 one 32-byte load or store: gcc copied some
// by memcpy as two 16-byte halves into the stack and read them back whole,
// which the store buffer cannot forward.
#if DELTA_AVX2
#define STRIP_LOAD(r, x) ((r) = (StripVec)_mm256_loadu_ps(x))
#define STRIP_STORE(x, r) _mm256_storeu_ps((x), (__m256)(r))
#else
#define STRIP_LOAD(r, x) memcpy(&(r), (x), sizeof(r))
#define STRIP_STORE(x, r) memcpy((x), &(r), sizeof(r))
#endif

// ---- 8 x 8 blocks: sums of 8 rows side by side ----
//
// Where each of 8 rows needs its own chain of sums over its elements (i
// ascending, as the plain per-row loop), a block of 8 elements of the 8 rows
// is transposed so that vector j holds element i0 + j of every row; adding the
// vectors in j order is then each row's chain in its own lane, op for op, and
// 8 chains cost about what one does. (Used by the normalisations' row sums and
// the dλ sums.)
#define SHUF(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
typedef float FVec8 __attribute__((vector_size(8 * sizeof(float))));
typedef double DVec8 __attribute__((vector_size(8 * sizeof(double))));

// x[0, m) (m <= 8), zero past m
static inline FVec8 load8(const float *x, size_t m) {
    FVec8 f = {0};
    if (m == 8) memcpy(&f, x, sizeof f);
    else
        for (size_t j = 0; j < m; j++) f[j] = x[j];
    return f;
}

// a[j][k] <- a[k][j] (V: FVec8 or DVec8): pairs of rows interleaved, then
// pairs of pairs, then halves
#define TRANSPOSE8(V, a)                                                                              \
    do {                                                                                              \
        V lo_[4], hi_[4], c_[4], e_[4];                                                               \
        for (size_t k_ = 0; k_ < 4; k_++) { /* lo_: even columns of rows 2k, 2k+1; hi_: odd */        \
            lo_[k_] = SHUF(a[2 * k_], a[2 * k_ + 1], 0, 8, 2, 10, 4, 12, 6, 14);                      \
            hi_[k_] = SHUF(a[2 * k_], a[2 * k_ + 1], 1, 9, 3, 11, 5, 13, 7, 15);                      \
        }                                                                                             \
        for (size_t h_ = 0; h_ < 2; h_++) { /* rows 4h..4h+3: c_ columns (0, 4), (2, 6); e_ (1, 5), (3, 7) */ \
            c_[2 * h_] = SHUF(lo_[2 * h_], lo_[2 * h_ + 1], 0, 1, 8, 9, 4, 5, 12, 13);                \
            c_[2 * h_ + 1] = SHUF(lo_[2 * h_], lo_[2 * h_ + 1], 2, 3, 10, 11, 6, 7, 14, 15);          \
            e_[2 * h_] = SHUF(hi_[2 * h_], hi_[2 * h_ + 1], 0, 1, 8, 9, 4, 5, 12, 13);                \
            e_[2 * h_ + 1] = SHUF(hi_[2 * h_], hi_[2 * h_ + 1], 2, 3, 10, 11, 6, 7, 14, 15);          \
        }                                                                                             \
        a[0] = SHUF(c_[0], c_[2], 0, 1, 2, 3, 8, 9, 10, 11), a[4] = SHUF(c_[0], c_[2], 4, 5, 6, 7, 12, 13, 14, 15); \
        a[2] = SHUF(c_[1], c_[3], 0, 1, 2, 3, 8, 9, 10, 11), a[6] = SHUF(c_[1], c_[3], 4, 5, 6, 7, 12, 13, 14, 15); \
        a[1] = SHUF(e_[0], e_[2], 0, 1, 2, 3, 8, 9, 10, 11), a[5] = SHUF(e_[0], e_[2], 4, 5, 6, 7, 12, 13, 14, 15); \
        a[3] = SHUF(e_[1], e_[3], 0, 1, 2, 3, 8, 9, 10, 11), a[7] = SHUF(e_[1], e_[3], 4, 5, 6, 7, 12, 13, 14, 15); \
    } while (0)
#if DELTA_AVX2
// the same movement in AVX2's shuffles (within 128-bit halves, then across)
static inline void transpose8f(FVec8 a[8]) {
    __m256 t[8], u[8];
    for (size_t k = 0; k < 4; k++) {  // rows 2k, 2k+1: columns (0, 1, 4, 5) interleaved; (2, 3, 6, 7)
        t[2 * k] = _mm256_unpacklo_ps((__m256)a[2 * k], (__m256)a[2 * k + 1]);
        t[2 * k + 1] = _mm256_unpackhi_ps((__m256)a[2 * k], (__m256)a[2 * k + 1]);
    }
    for (size_t h = 0; h < 2; h++) {  // rows 4h..4h+3: u[4h + c] = column c | column c + 4
        u[4 * h] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (size_t c = 0; c < 4; c++) {
        a[c] = (FVec8)_mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        a[c + 4] = (FVec8)_mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
}
#else
static inline void transpose8f(FVec8 a[8]) { TRANSPOSE8(FVec8, a); }
static inline void transpose8d(DVec8 a[8]) { TRANSPOSE8(DVec8, a); }
#endif

#if defined(__AVX512F__) || DELTA_AVX2
// the pairwise lane sum described above, of lanes 0-7 (lo) and 8-15 (hi)
static inline __attribute__((always_inline)) float hsum_halves(__m256 lo, __m256 hi) {
    __m256 a = _mm256_add_ps(lo, hi);                                               // l += l+8
    __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));  // += l+4
    __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));                                  // += l+2
    __m128 e = _mm_add_ss(c, _mm_shuffle_ps(c, c, 1));                              // += l+1
    return _mm_cvtss_f32(e);
}
#endif

#if defined(__AVX512F__)
// tail mask for the n - j0 < 16 remaining floats
static inline __mmask16 tail_mask(size_t rest) { return (__mmask16)((1u << rest) - 1u); }

static inline float hsum16(__m512 v) {
    __m256 lo = _mm512_castps512_ps256(v);
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return hsum_halves(lo, hi);
}

static float dot(const float *a, const float *b, size_t n) {
    __m512 acc = _mm512_setzero_ps();
    for (size_t j0 = 0; j0 < n; j0 += LANES) {
        __mmask16 m = n - j0 >= LANES ? (__mmask16)0xffff : tail_mask(n - j0);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, a + j0),
                                               _mm512_maskz_loadu_ps(m, b + j0)));
    }
    return hsum16(acc);
}

static void mat_t_vec(size_t d, float *restrict out, const float *restrict S,
                      const float *restrict x) {
    for (size_t j0 = 0; j0 < d; j0 += LANES) {
        __mmask16 m = d - j0 >= LANES ? (__mmask16)0xffff : tail_mask(d - j0);
        __m512 acc = _mm512_setzero_ps();
        for (size_t i = 0; i < d; i++)
            acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(x[i]),
                                                   _mm512_maskz_loadu_ps(m, S + i * d + j0)));
        _mm512_mask_storeu_ps(out + j0, m, acc);
    }
}

static void pass_a_row(size_t d, float *restrict Gi, const float *restrict Pi,
                       const float *restrict dy, const float *restrict u, float *restrict du,
                       float qi, float ki, float out[3]) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, vq = _mm512_set1_ps(qi),
           vk = _mm512_set1_ps(ki);
    for (size_t j0 = 0; j0 < d; j0 += LANES) {
        __mmask16 m = d - j0 >= LANES ? (__mmask16)0xffff : tail_mask(d - j0);
        __m512 g = _mm512_maskz_loadu_ps(m, Gi + j0), p = _mm512_maskz_loadu_ps(m, Pi + j0);
        __m512 y = _mm512_maskz_loadu_ps(m, dy + j0), uu = _mm512_maskz_loadu_ps(m, u + j0);
        g = _mm512_add_ps(g, _mm512_mul_ps(vq, y));
        _mm512_mask_storeu_ps(Gi + j0, m, g);
        __m512 dd = _mm512_add_ps(_mm512_maskz_loadu_ps(m, du + j0), _mm512_mul_ps(vk, g));
        _mm512_mask_storeu_ps(du + j0, m, dd);
        a0 = _mm512_add_ps(a0, _mm512_mul_ps(p, y));
        a1 = _mm512_add_ps(a1, _mm512_mul_ps(g, uu));
        a2 = _mm512_add_ps(a2, _mm512_mul_ps(p, g));
    }
    out[0] = hsum16(a0);
    out[1] = hsum16(a1);
    out[2] = hsum16(a2);
}

static float pass_b_row(size_t d, float *restrict Gi, const float *restrict Pi,
                        const float *restrict du, float lam, float c) {
    __m512 acc = _mm512_setzero_ps(), vl = _mm512_set1_ps(lam), vc = _mm512_set1_ps(c);
    for (size_t j0 = 0; j0 < d; j0 += LANES) {
        __mmask16 m = d - j0 >= LANES ? (__mmask16)0xffff : tail_mask(d - j0);
        __m512 g = _mm512_maskz_loadu_ps(m, Gi + j0), p = _mm512_maskz_loadu_ps(m, Pi + j0);
        __m512 dd = _mm512_maskz_loadu_ps(m, du + j0);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(p, dd));
        g = _mm512_sub_ps(_mm512_mul_ps(vl, g), _mm512_mul_ps(vc, dd));
        _mm512_mask_storeu_ps(Gi + j0, m, g);
    }
    return hsum16(acc);
}

#elif DELTA_AVX2
// Each 16-lane sum is two __m256: lanes 0-7 (lo, h = 0) and 8-15 (hi, h = 1)
// of each block of 16 elements. The last block's elements past the end load
// as 0 (maskload), as the AVX-512 masks do: a lane sum starts at +0 and can
// never be -0, so an added 0 leaves it as the plain code's untouched lane.

// lanes [0, rest) of 8
static inline __m256i mask8(size_t rest) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(rest < 8 ? rest : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static float dot(const float *a, const float *b, size_t n) {
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t j = 0; j < n; j += 8) {
        __m256i m = mask8(n - j);
        size_t h = j / 8 % 2;
        acc[h] = _mm256_add_ps(acc[h], _mm256_mul_ps(_mm256_maskload_ps(a + j, m), _mm256_maskload_ps(b + j, m)));
    }
    return hsum_halves(acc[0], acc[1]);
}

static void mat_t_vec(size_t d, float *restrict out, const float *restrict S,
                      const float *restrict x) {
    for (size_t j0 = 0; j0 < d; j0 += 8) {
        __m256i m = mask8(d - j0);
        __m256 acc = _mm256_setzero_ps();
        for (size_t i = 0; i < d; i++)
            acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(x[i]), _mm256_maskload_ps(S + i * d + j0, m)));
        _mm256_maskstore_ps(out + j0, m, acc);
    }
}

static void pass_a_row(size_t d, float *restrict Gi, const float *restrict Pi,
                       const float *restrict dy, const float *restrict u, float *restrict du,
                       float qi, float ki, float out[3]) {
    __m256 z = _mm256_setzero_ps(), a0[2] = {z, z}, a1[2] = {z, z}, a2[2] = {z, z};
    __m256 vq = _mm256_set1_ps(qi), vk = _mm256_set1_ps(ki);
    for (size_t j = 0; j < d; j += 8) {
        __m256i m = mask8(d - j);
        size_t h = j / 8 % 2;
        __m256 g = _mm256_maskload_ps(Gi + j, m), p = _mm256_maskload_ps(Pi + j, m);
        __m256 y = _mm256_maskload_ps(dy + j, m), uu = _mm256_maskload_ps(u + j, m);
        g = _mm256_add_ps(g, _mm256_mul_ps(vq, y));
        _mm256_maskstore_ps(Gi + j, m, g);
        _mm256_maskstore_ps(du + j, m, _mm256_add_ps(_mm256_maskload_ps(du + j, m), _mm256_mul_ps(vk, g)));
        a0[h] = _mm256_add_ps(a0[h], _mm256_mul_ps(p, y));
        a1[h] = _mm256_add_ps(a1[h], _mm256_mul_ps(g, uu));
        a2[h] = _mm256_add_ps(a2[h], _mm256_mul_ps(p, g));
    }
    out[0] = hsum_halves(a0[0], a0[1]);
    out[1] = hsum_halves(a1[0], a1[1]);
    out[2] = hsum_halves(a2[0], a2[1]);
}

static float pass_b_row(size_t d, float *restrict Gi, const float *restrict Pi,
                        const float *restrict du, float lam, float c) {
    __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()}, vl = _mm256_set1_ps(lam), vc = _mm256_set1_ps(c);
    for (size_t j = 0; j < d; j += 8) {
        __m256i m = mask8(d - j);
        size_t h = j / 8 % 2;
        __m256 g = _mm256_maskload_ps(Gi + j, m), p = _mm256_maskload_ps(Pi + j, m);
        __m256 dd = _mm256_maskload_ps(du + j, m);
        acc[h] = _mm256_add_ps(acc[h], _mm256_mul_ps(p, dd));
        g = _mm256_sub_ps(_mm256_mul_ps(vl, g), _mm256_mul_ps(vc, dd));
        _mm256_maskstore_ps(Gi + j, m, g);
    }
    return hsum_halves(acc[0], acc[1]);
}

#else  // portable C: the same operations, in the same order

static float lane_sum(float *acc) {
    for (size_t w = LANES / 2; w >= 1; w /= 2)
        for (size_t l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0];
}

static float dot(const float *a, const float *b, size_t n) {
    float acc[LANES] = {0};
    size_t j0 = 0;
    for (; j0 + LANES <= n; j0 += LANES)
        for (size_t l = 0; l < LANES; l++) acc[l] += a[j0 + l] * b[j0 + l];
    for (size_t j = j0; j < n; j++) acc[j - j0] += a[j] * b[j];
    return lane_sum(acc);
}

static void mat_t_vec(size_t d, float *restrict out, const float *restrict S,
                      const float *restrict x) {
    // out_j = Σ_i x_i S_ij, over i in order (row axpys: the same sums)
    for (size_t j = 0; j < d; j++) out[j] = 0.0f;
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++) out[j] += x[i] * S[i * d + j];
}

// row i of pass A: G_i += q̂_i dy; du += k̂_i G_i; out = (P_i·dy, G_i·u, P_i·G_i)
static void pass_a_row(size_t d, float *restrict Gi, const float *restrict Pi,
                       const float *restrict dy, const float *restrict u, float *restrict du,
                       float qi, float ki, float out[3]) {
    float a0[LANES] = {0}, a1[LANES] = {0}, a2[LANES] = {0};
    size_t j0 = 0;
    for (; j0 + LANES <= d; j0 += LANES)
        for (size_t l = 0; l < LANES; l++) {
            size_t j = j0 + l;
            float g = Gi[j] + qi * dy[j];
            Gi[j] = g;
            du[j] += ki * g;
            a0[l] += Pi[j] * dy[j];
            a1[l] += g * u[j];
            a2[l] += Pi[j] * g;
        }
    for (size_t j = j0; j < d; j++) {
        size_t l = j - j0;
        float g = Gi[j] + qi * dy[j];
        Gi[j] = g;
        du[j] += ki * g;
        a0[l] += Pi[j] * dy[j];
        a1[l] += g * u[j];
        a2[l] += Pi[j] * g;
    }
    out[0] = lane_sum(a0);
    out[1] = lane_sum(a1);
    out[2] = lane_sum(a2);
}

// row i of pass B: returns P_i·du; G_i = λ G_i − c du (c = λβ k̂_i)
static float pass_b_row(size_t d, float *restrict Gi, const float *restrict Pi,
                        const float *restrict du, float lam, float c) {
    float acc[LANES] = {0};
    size_t j0 = 0;
    for (; j0 + LANES <= d; j0 += LANES)
        for (size_t l = 0; l < LANES; l++) {
            size_t j = j0 + l;
            acc[l] += Pi[j] * du[j];
            Gi[j] = lam * Gi[j] - c * du[j];
        }
    for (size_t j = j0; j < d; j++) {
        acc[j - j0] += Pi[j] * du[j];
        Gi[j] = lam * Gi[j] - c * du[j];
    }
    return lane_sum(acc);
}

#endif

// ---- per token ----

float delta_features(const DeltaSlab *p, float *out, const float *x) {
    fmap_forward(p->fmap, out, x, p->dh);
    float s = 1.0f;
    delta_normalize_n(p, out, 1, &s);
    return s;
}

// s[c] = Σ_i x[c][i]² (l2) or Σ_i x[c][i] for n rows of d floats ld apart,
// one float chain per row from 0, i ascending, a product then a sum. Inlined
// with n a constant, the n chains stay in registers (with n variable they
// went through the stack, a store-to-load forward per term).
static inline __attribute__((always_inline)) void row_sums(const float *x, size_t ld, size_t d, size_t n, int l2,
                                                           float *s) {
    float acc[DELTA_FEATURES_MAX] = {0};
    for (size_t i = 0; i < d; i++)
        for (size_t c = 0; c < n; c++) {
            float xi = x[c * ld + i];
            acc[c] += l2 ? xi * xi : xi;
        }
    for (size_t c = 0; c < n; c++) s[c] = acc[c];
}

// row_sums' values for 8 rows, one lane each ("8 x 8 blocks" above)
_Static_assert(DELTA_FEATURES_MAX == 8, "row_sums8 sums DELTA_FEATURES_MAX rows");
static inline __attribute__((always_inline)) void row_sums8(const float *x, size_t ld, size_t d, int l2,
                                                            float *s) {
    FVec8 acc = {0};
    for (size_t i0 = 0; i0 < d; i0 += 8) {
        size_t m = d - i0 < 8 ? d - i0 : 8;
        FVec8 r[8];
        for (size_t c = 0; c < 8; c++) r[c] = load8(x + c * ld + i0, m);
        transpose8f(r);
        for (size_t j = 0; j < m; j++) acc += l2 ? r[j] * r[j] : r[j];
    }
    memcpy(s, &acc, sizeof acc);
}

// out (n, d) = the normalised rows of phi (n rows of d floats ld apart: φ(x)
// already applied; phi may be out with ld = d, in place)
static void normalize_rows(const DeltaSlab *p, float *out, const float *phi, size_t ld, size_t n,
                           float *divisors) {
    size_t d = p->dh;
    float s[DELTA_FEATURES_MAX];
    int l2 = p->key_norm == KEYNORM_L2;
    if (n == DELTA_FEATURES_MAX) {  // the training forms' case: full groups of rows
        if (l2) row_sums8(phi, ld, d, 1, s);
        else row_sums8(phi, ld, d, 0, s);
    } else {
        row_sums(phi, ld, d, n, l2, s);
    }
    for (size_t c = 0; c < n; c++) {
        // + eps: φ = 0 (relu may give Σφ = 0) gives k̂ = 0 (no write, no read), not 0/0
        s[c] = p->key_norm == KEYNORM_L2 ? sqrtf(s[c] + p->eps) : s[c] + p->eps;
        for (size_t i = 0; i < d; i++) out[c * d + i] = phi[c * ld + i] / s[c];
        if (divisors) divisors[c] = s[c];
    }
}

void delta_normalize_n(const DeltaSlab *p, float *out, size_t n, float *divisors) {
    if (p->normalize) normalize_rows(p, out, out, p->dh, n, divisors);
}

void delta_beta(float a, float *beta, float *one_minus_beta) {
    // sigmoid(±a) in double, each rounded once: 1 − β is exact-ish even when β
    // rounds to 1 (its gradient factor β(1 − β) must not become 0 too early)
    double x = a, e = exp(-fabs(x));
    double big = 1.0 / (1.0 + e), small = e / (1.0 + e);
    *beta = (float)(x >= 0 ? big : small);
    *one_minus_beta = (float)(x >= 0 ? small : big);
}

// Columns [j0, j0 + SLANES NG) of delta_token_inplace (NG a constant in each use,
// so the sums stay in registers). Only these columns of S are read for these
// columns of e, and only e's own columns are needed to update them, so each
// strip goes through both passes on its own.
static inline __attribute__((always_inline)) void token_strip(size_t d, size_t j0, size_t NG, float lam, float beta,
                                                              float *restrict S, const float *restrict kh,
                                                              const float *restrict qh, float *restrict y,
                                                              const float *restrict v) {
    StripVec acc[4], ev[4], r, vv;
    for (size_t g = 0; g < NG; g++) acc[g] = (StripVec){0};
    for (size_t i = 0; i < d; i++)  // e = Sᵀk̂, i ascending from 0 (mat_t_vec's order)
        for (size_t g = 0; g < NG; g++) {
            STRIP_LOAD(r, S + i * d + j0 + SLANES * g);
            acc[g] += kh[i] * r;
        }
    for (size_t g = 0; g < NG; g++) {
        STRIP_LOAD(vv, v + j0 + SLANES * g);
        ev[g] = vv - lam * acc[g];  // e = v − λ Sᵀk̂
        acc[g] = (StripVec){0};
    }
    for (size_t i = 0; i < d; i++) {  // S_i = λ S_i + (β k̂_i) e, then y += q̂_i S_i
        float c = beta * kh[i];
        for (size_t g = 0; g < NG; g++) {
            float *s = S + i * d + j0 + SLANES * g;
            STRIP_LOAD(r, s);
            r = lam * r + c * ev[g];
            STRIP_STORE(s, r);
            acc[g] += qh[i] * r;
        }
    }
    for (size_t g = 0; g < NG; g++) STRIP_STORE(y + j0 + SLANES * g, acc[g]);
}

void delta_token_inplace(size_t d, float lam, float beta, float *S, const float *kh, const float *qh, float *y,
                         const float *v) {
    size_t j0 = 0;
    for (; d - j0 >= 4 * SLANES; j0 += 4 * SLANES) token_strip(d, j0, 4, lam, beta, S, kh, qh, y, v);
    switch ((d - j0) / SLANES) {
    case 3: token_strip(d, j0, 3, lam, beta, S, kh, qh, y, v); break;
    case 2: token_strip(d, j0, 2, lam, beta, S, kh, qh, y, v); break;
    case 1: token_strip(d, j0, 1, lam, beta, S, kh, qh, y, v); break;
    default: break;
    }
    for (j0 += (d - j0) / SLANES * SLANES; j0 < d; j0++) {  // the last columns one at a time
        float e = 0.0f, yj = 0.0f;
        for (size_t i = 0; i < d; i++) e += kh[i] * S[i * d + j0];
        e = v[j0] - lam * e;
        for (size_t i = 0; i < d; i++) {
            float *s = S + i * d + j0;
            *s = lam * *s + (beta * kh[i]) * e;
            yj += qh[i] * *s;
        }
        y[j0] = yj;
    }
}

// ---- the training form's kernels ----
//
// The forward and the backward's recompute run one pass over S per position:
// the write S' = λS + (βk̂) eᵀ fused with the reads that follow it, y = S'ᵀq̂
// and the next position's e' = v' − λ' S'ᵀk̂'. Every value is the same chain of
// float operations as delta_token_inplace's (λS_ij + (βk̂_i) e_j, then sums from
// 0 over i ascending), so forward, recompute and generation round alike; S is
// read once per position instead of three times and the two read-outs' sums
// run side by side.
typedef struct {
    float lam, beta;
    const float *kh, *e;    // (d) this position's k̂ and e
    const float *qh;        // (d) q̂ (with y)
    float *y;               // (d) y = S'ᵀq̂
    const float *kn, *vn;   // (d) the next position's k̂ and v (with e')
    float lamn;             // its λ
    float *en;              // (d) its e
} TokenStep;

// Columns [j0, j0 + SLANES NG) (NG a constant in each use). hy, hn (constants):
// compute y, e'. Sin and Sout may be the same rows (in place).
static inline __attribute__((always_inline)) void step_strip(size_t d, size_t j0, size_t NG, const TokenStep *ts,
                                                             const float *Sin, float *Sout, int hy, int hn) {
    // the step's scalars and vectors in locals: S's stores cannot change them
    const float *restrict kh = ts->kh, *restrict qh = ts->qh, *restrict kn = ts->kn;
    float lam = ts->lam, beta = ts->beta;
    StripVec ev[4], ay[4], an[4], r;
    for (size_t g = 0; g < NG; g++) {
        STRIP_LOAD(ev[g], ts->e + j0 + SLANES * g);
        ay[g] = an[g] = (StripVec){0};
    }
    for (size_t i = 0; i < d; i++) {
        float c = beta * kh[i], qi = hy ? qh[i] : 0.0f, ki = hn ? kn[i] : 0.0f;
        for (size_t g = 0; g < NG; g++) {
            STRIP_LOAD(r, Sin + i * d + j0 + SLANES * g);
            r = lam * r + c * ev[g];
            STRIP_STORE(Sout + i * d + j0 + SLANES * g, r);
            if (hy) ay[g] += qi * r;
            if (hn) an[g] += ki * r;
        }
    }
    for (size_t g = 0; g < NG; g++) {
        if (hy) STRIP_STORE(ts->y + j0 + SLANES * g, ay[g]);
        if (hn) {
            STRIP_LOAD(r, ts->vn + j0 + SLANES * g);
            r = r - ts->lamn * an[g];
            STRIP_STORE(ts->en + j0 + SLANES * g, r);
        }
    }
}

static inline __attribute__((always_inline)) void step_columns(size_t d, const TokenStep *ts, const float *Sin,
                                                               float *Sout, int hy, int hn) {
    size_t j0 = 0;
    for (; d - j0 >= 4 * SLANES; j0 += 4 * SLANES) step_strip(d, j0, 4, ts, Sin, Sout, hy, hn);
    switch ((d - j0) / SLANES) {
    case 3: step_strip(d, j0, 3, ts, Sin, Sout, hy, hn); break;
    case 2: step_strip(d, j0, 2, ts, Sin, Sout, hy, hn); break;
    case 1: step_strip(d, j0, 1, ts, Sin, Sout, hy, hn); break;
    default: break;
    }
    for (j0 += (d - j0) / SLANES * SLANES; j0 < d; j0++) {  // the last columns one at a time
        float ej = ts->e[j0], ay = 0.0f, an = 0.0f;
        for (size_t i = 0; i < d; i++) {
            float s = ts->lam * Sin[i * d + j0] + (ts->beta * ts->kh[i]) * ej;
            Sout[i * d + j0] = s;
            if (hy) ay += ts->qh[i] * s;
            if (hn) an += ts->kn[i] * s;
        }
        if (hy) ts->y[j0] = ay;
        if (hn) ts->en[j0] = ts->vn[j0] - ts->lamn * an;
    }
}

// forward: y, and e' unless the position is its chunk's last
static void step_forward(size_t d, const TokenStep *ts, float *S) {
    if (ts->kn) step_columns(d, ts, S, S, 1, 1);
    else step_columns(d, ts, S, S, 1, 0);
}
// the recompute: the next state and its e' (no y)
static void step_recompute(size_t d, const TokenStep *ts, const float *S, float *Sn) {
    step_columns(d, ts, S, Sn, 0, 1);
}

// e = v − λ Sᵀk̂: a chunk's first position (the others get theirs from the step before)
static void first_e(size_t d, float lam, const float *S, const float *kh, const float *v, float *e) {
    mat_t_vec(d, e, S, kh);
    for (size_t j = 0; j < d; j++) e[j] = v[j] - lam * e[j];
}

// The backward's two passes over the rows of G and P (see "backward" below)
// for d = 16 NV, NV <= 4: du stays in registers over all rows, and the lane
// sums of 16 rows (8 on AVX2) are reduced together, one shuffle-and-add tree for
// them instead of one per row: level by level it is each row's own pairwise order
// (l += l+8, then +4, +2, +1), so every row sum has the bits of the per-row one.
enum { FAST_MAX_NV = 4 };
// (not on the portable x86-64 path: see DELTA_SSE2)
static int fast_rows(size_t d) { return !DELTA_SSE2 && d > 0 && d % LANES == 0 && d / LANES <= FAST_MAX_NV; }

// Pass B of one position (row i: pd_i = P_i·du; G_i = λ G_i − (λβ k̂_i) du)
// and pass A of one position (row i: G_i += q̂_i dy; du += k̂_i G_i, du from 0;
// o0_i = P_i·dy, o1_i = G_i·u, o2_i = P_i·G_i with G_i after the update). The
// sweep runs pass B of position r and pass A of r − 1 in one pass over G's
// rows: row i of A needs only row i of B's result, so each row of G is loaded
// and stored once per position, and the values are those of the two passes
// run one after the other.
typedef struct {
    const float *P, *du, *kh;  // (d, d) P; (d) du, k̂
    float lam, lb;             // λ and λβ
    float *pd;                 // (d) out
} PassB;
typedef struct {
    const float *P, *dy, *u, *qh, *kh;  // (d, d) P; (d) dy, u, q̂, k̂
    float *du, *o0, *o1, *o2;           // (d) out
} PassA;

#if !DELTA_AVX2

// a, b: two rows' 16 lane sums (JOIN8) or the groups of earlier levels; each
// level adds every row's upper half of lanes to its lower half and packs two
// inputs' halves into one vector.
// (macros, not functions: gcc notes an ABI change for 64-byte vector arguments
// without AVX-512 even where every call is inlined; SHUF is defined above)
// a, b one row each -> lanes 0-7 a's, 8-15 b's
#define JOIN8(a, b) (SHUF(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) + \
                     SHUF(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31))
// 2 rows each -> 4 rows of 4 lanes
#define JOIN4(a, b) (SHUF(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) + \
                     SHUF(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31))
// 4 rows each -> group m (lanes 4m..4m+3): a's row m, then b's row m, 2 lanes each
#define JOIN2(a, b) (SHUF(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29) + \
                     SHUF(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31))
// -> lane 4m + k holds row 4k + m
#define JOIN1(a, b) (SHUF(a, b, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30) + \
                     SHUF(a, b, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31))

// The lane sums of 16 rows, in row order, from their 8 row pairs' JOIN8 h_0..h_7:
//   JOIN1(JOIN2(JOIN4(h_0, h_1), JOIN4(h_2, h_3)), JOIN2(JOIN4(h_4, h_5), JOIN4(h_6, h_7)))
// with its lanes put in row order. Built as the pairs come (join16_add of
// pair pr), so that at most three partial vectors wait per sum instead of all
// eight JOIN8s: with four sums at once (pass B's and pass A's three) the
// eight each did not fit in the registers and went through the stack.
typedef struct {
    DeltaVec h, j4, j2;  // waiting: h_pr of an even pr, JOIN4 of the quad's first half, JOIN2 of the first half
} Join16;

// adds *h, h_pr; at pr = 7 returns 1 with the 16 sums in *out. (By pointer:
// a 64-byte vector passed by value draws gcc's psabi note on the portable build.)
static inline int join16_add(Join16 *t, size_t pr, const DeltaVec *h, DeltaVec *out) {
    if (pr % 2 == 0) {
        t->h = *h;
        return 0;
    }
    DeltaVec j4 = JOIN4(t->h, *h);
    if (pr % 4 == 1) {
        t->j4 = j4;
        return 0;
    }
    DeltaVec j2 = JOIN2(t->j4, j4);
    if (pr == 3) {
        t->j2 = j2;
        return 0;
    }
    DeltaVec s = JOIN1(t->j2, j2);
    *out = SHUF(s, s, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return 1;
}
#endif

#if DELTA_AVX2
// rows_fast on AVX2. A row's 16 lane sums are two vectors: lanes 0-7 (lo,
// fed by the row's 8-float vectors 0, 2, 4, ...: elements j mod 16 < 8) and
// lanes 8-15 (hi: vectors 1, 3, 5, ...); lo + hi is the first level (l += l+8).
// The other three run for 8 rows at once: join4 (2 rows' 8 lanes -> 4 each:
// l += l+4), join2 (4 rows, 2 lanes each: += l+2), join1 (8 rows: += l+1,
// then put in row order).
// a, b: rows -> lanes 0-3 a's, 4-7 b's
static inline __m256 join4(__m256 a, __m256 b) {
    return _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x20), _mm256_permute2f128_ps(a, b, 0x31));
}
// x = join4(r0, r1), y = join4(r2, r3) -> lanes r0 r0 r2 r2 | r1 r1 r3 r3
static inline __m256 join2(__m256 x, __m256 y) {
    return _mm256_add_ps(_mm256_shuffle_ps(x, y, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(x, y, _MM_SHUFFLE(3, 2, 3, 2)));
}
// x = join2 of rows 0-3, y of rows 4-7 -> lanes r0 r2 r4 r6 | r1 r3 r5 r7 -> r0 .. r7
static inline __m256 join1(__m256 x, __m256 y) {
    __m256 s = _mm256_add_ps(_mm256_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0)), _mm256_shuffle_ps(x, y, _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm256_permutevar8x32_ps(s, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Row i of pass B and/or A (rows_fast's loop body, d = 8 NV8): G's row
// updated; sb (B's P_i·du) and sa (A's three) at the first level (lo + hi).
// du of A (dua) adds over the rows in order.
static inline __attribute__((always_inline)) void row_fast8(size_t NV8, size_t i, float *G, const PassB *B,
                                                            const PassA *A, __m256 *dua, __m256 *sb,
                                                            __m256 sa[3]) {
    size_t d = 8 * NV8;
    float *Gi = G + i * d;
    __m256 g[2 * FAST_MAX_NV];
    for (size_t v = 0; v < NV8; v++) g[v] = _mm256_loadu_ps(Gi + 8 * v);
    if (B) {
        const float *Pi = B->P + i * d;
        __m256 acc[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
        __m256 vl = _mm256_set1_ps(B->lam), c = _mm256_set1_ps(B->lb * B->kh[i]);
        for (size_t v = 0; v < NV8; v++) {
            __m256 du = _mm256_loadu_ps(B->du + 8 * v);
            acc[v % 2] = _mm256_add_ps(acc[v % 2], _mm256_mul_ps(_mm256_loadu_ps(Pi + 8 * v), du));
            g[v] = _mm256_sub_ps(_mm256_mul_ps(vl, g[v]), _mm256_mul_ps(c, du));
        }
        *sb = _mm256_add_ps(acc[0], acc[1]);
    }
    if (A) {
        const float *Pi = A->P + i * d;
        __m256 a0[2], a1[2], a2[2], qi = _mm256_set1_ps(A->qh[i]), ki = _mm256_set1_ps(A->kh[i]);
        a0[0] = a0[1] = a1[0] = a1[1] = a2[0] = a2[1] = _mm256_setzero_ps();
        for (size_t v = 0; v < NV8; v++) {
            __m256 pv = _mm256_loadu_ps(Pi + 8 * v), y = _mm256_loadu_ps(A->dy + 8 * v);
            g[v] = _mm256_add_ps(g[v], _mm256_mul_ps(qi, y));
            dua[v] = _mm256_add_ps(dua[v], _mm256_mul_ps(ki, g[v]));
            a0[v % 2] = _mm256_add_ps(a0[v % 2], _mm256_mul_ps(pv, y));
            a1[v % 2] = _mm256_add_ps(a1[v % 2], _mm256_mul_ps(g[v], _mm256_loadu_ps(A->u + 8 * v)));
            a2[v % 2] = _mm256_add_ps(a2[v % 2], _mm256_mul_ps(pv, g[v]));
        }
        sa[0] = _mm256_add_ps(a0[0], a0[1]);
        sa[1] = _mm256_add_ps(a1[0], a1[1]);
        sa[2] = _mm256_add_ps(a2[0], a2[1]);
    }
    for (size_t v = 0; v < NV8; v++) _mm256_storeu_ps(Gi + 8 * v, g[v]);
}

// d = 16 NV; B, A each NULL or not, constants in each use
static inline __attribute__((always_inline)) void rows_fast(size_t NV, float *G, const PassB *B, const PassA *A) {
    size_t NV8 = 2 * NV, d = 8 * NV8;
    // the passes' fields in locals: G's stores cannot change them
    PassB bl = B ? *B : (PassB){0};
    PassA al = A ? *A : (PassA){0};
    const PassB *Bl = B ? &bl : NULL;
    const PassA *Al = A ? &al : NULL;
    float *out[4] = {bl.pd, al.o0, al.o1, al.o2};  // sum q: B's, then A's three
    size_t q0 = B ? 0 : 1, q1 = A ? 4 : 1;
    __m256 dua[2 * FAST_MAX_NV];
    for (size_t v = 0; v < NV8; v++) dua[v] = _mm256_setzero_ps();
    for (size_t i0 = 0; i0 < d; i0 += 8) {
        // per sum, waiting: the join4 of a quad's first row pair, the join2 of rows 0-3
        __m256 w4[4], w2[4];
        for (size_t q = 0; q < 4; q++) w4[q] = w2[q] = _mm256_setzero_ps();
#pragma GCC unroll 4
        for (size_t pr = 0; pr < 4; pr++) {
            __m256 s0[4], s1[4];
            row_fast8(NV8, i0 + 2 * pr, G, Bl, Al, dua, &s0[0], s0 + 1);
            row_fast8(NV8, i0 + 2 * pr + 1, G, Bl, Al, dua, &s1[0], s1 + 1);
            for (size_t q = q0; q < q1; q++) {
                __m256 j = join4(s0[q], s1[q]);
                if (pr % 2 == 0) {
                    w4[q] = j;
                    continue;
                }
                j = join2(w4[q], j);
                if (pr == 1) w2[q] = j;
                else _mm256_storeu_ps(out[q] + i0, join1(w2[q], j));
            }
        }
    }
    if (A)
        for (size_t v = 0; v < NV8; v++) _mm256_storeu_ps(al.du + 8 * v, dua[v]);
}
#else

// d = 16 NV; B, A each NULL or not, constants in each use
static inline __attribute__((always_inline)) void rows_fast(size_t NV, float *G, const PassB *B, const PassA *A) {
    size_t d = NV * LANES;
    DeltaVec dub[FAST_MAX_NV], yv[FAST_MAX_NV], uv[FAST_MAX_NV], dua[FAST_MAX_NV];
    const float *restrict Pb = B ? B->P : NULL, *restrict kb = B ? B->kh : NULL;
    const float *restrict Pa = A ? A->P : NULL, *restrict qa = A ? A->qh : NULL, *restrict ka = A ? A->kh : NULL;
    float lam = B ? B->lam : 0.0f, lb = B ? B->lb : 0.0f;
    for (size_t v = 0; v < NV; v++) {
        if (B) memcpy(&dub[v], B->du + LANES * v, sizeof dub[v]);
        if (A) {
            memcpy(&yv[v], A->dy + LANES * v, sizeof yv[v]);
            memcpy(&uv[v], A->u + LANES * v, sizeof uv[v]);
            dua[v] = (DeltaVec){0};
        }
    }
    for (size_t i0 = 0; i0 < d; i0 += LANES) {
        // B's P·du; A's three sums. (Zeroed only because gcc cannot see that pr
        // runs 0..7 in order; unrolling this loop measured slower, spilling again.)
        const Join16 none = {{0}, {0}, {0}};
        Join16 tb = none, ta[3] = {none, none, none};
        DeltaVec rb = {0}, ra[3] = {{0}, {0}, {0}};
        for (size_t pr = 0; pr < 8; pr++) {
            DeltaVec b[2], a[2][3];
            for (size_t w = 0; w < 2; w++) {
                size_t i = i0 + 2 * pr + w;
                DeltaVec g[FAST_MAX_NV], pv;
                for (size_t v = 0; v < NV; v++) memcpy(&g[v], G + i * d + LANES * v, sizeof g[v]);
                if (B) {
                    DeltaVec acc = {0};
                    float c = lb * kb[i];
                    for (size_t v = 0; v < NV; v++) {
                        memcpy(&pv, Pb + i * d + LANES * v, sizeof pv);
                        acc = acc + pv * dub[v];
                        g[v] = lam * g[v] - c * dub[v];
                    }
                    b[w] = acc;
                }
                if (A) {
                    DeltaVec a0 = {0}, a1 = {0}, a2 = {0};
                    float qi = qa[i], ki = ka[i];
                    for (size_t v = 0; v < NV; v++) {
                        memcpy(&pv, Pa + i * d + LANES * v, sizeof pv);
                        g[v] = g[v] + qi * yv[v];
                        dua[v] = dua[v] + ki * g[v];
                        a0 = a0 + pv * yv[v];
                        a1 = a1 + g[v] * uv[v];
                        a2 = a2 + pv * g[v];
                    }
                    a[w][0] = a0, a[w][1] = a1, a[w][2] = a2;
                }
                for (size_t v = 0; v < NV; v++) memcpy(G + i * d + LANES * v, &g[v], sizeof g[v]);
            }
            if (B) {
                DeltaVec h = JOIN8(b[0], b[1]);
                join16_add(&tb, pr, &h, &rb);
            }
            if (A)
                for (size_t q = 0; q < 3; q++) {
                    DeltaVec h = JOIN8(a[0][q], a[1][q]);
                    join16_add(&ta[q], pr, &h, &ra[q]);
                }
        }
        if (B) memcpy(B->pd + i0, &rb, sizeof rb);
        if (A) {
            memcpy(A->o0 + i0, &ra[0], sizeof ra[0]);
            memcpy(A->o1 + i0, &ra[1], sizeof ra[1]);
            memcpy(A->o2 + i0, &ra[2], sizeof ra[2]);
        }
    }
    if (A)
        for (size_t v = 0; v < NV; v++) memcpy(A->du + LANES * v, &dua[v], sizeof dua[v]);
}

#endif

// the same for any d: row by row (pass B's rows before pass A's: the same values)
static void rows_any(size_t d, float *G, const PassB *B, const PassA *A) {
    if (B)
        for (size_t i = 0; i < d; i++)
            B->pd[i] = pass_b_row(d, G + i * d, B->P + i * d, B->du, B->lam, B->lb * B->kh[i]);
    if (A) {
        memset(A->du, 0, d * sizeof(float));
        for (size_t i = 0; i < d; i++) {
            float o[3];
            pass_a_row(d, G + i * d, A->P + i * d, A->dy, A->u, A->du, A->qh[i], A->kh[i], o);
            A->o0[i] = o[0], A->o1[i] = o[1], A->o2[i] = o[2];
        }
    }
}

#define ROWS_CASES(B, A)                                  \
    switch (fast_rows(d) ? d / LANES : 0) {               \
    case 1: rows_fast(1, G, B, A); return;                \
    case 2: rows_fast(2, G, B, A); return;                \
    case 3: rows_fast(3, G, B, A); return;                \
    case 4: rows_fast(4, G, B, A); return;                \
    default: rows_any(d, G, B, A); return;                \
    }
static void rows_a(size_t d, float *G, const PassA *A) { ROWS_CASES(NULL, A) }
static void rows_b(size_t d, float *G, const PassB *B) { ROWS_CASES(B, NULL) }
static void rows_ba(size_t d, float *G, const PassB *B, const PassA *A) { ROWS_CASES(B, A) }
#undef ROWS_CASES

// ---- saved: the state entering each chunk ----

size_t delta_saved_floats(const DeltaSlab *p) { return round16(n_chunks(p) * p->dh * p->dh); }

// ---- scratch ----
typedef struct {
    float *states;          // (chunk, d, d) backward: P for each position of the chunk
    float *G;               // (d, d) forward: the running S; backward: dL/dS
    float *kh, *qh, *e;     // (chunk, d) k̂, q̂, e of the chunk
    float *pg, *pd;         // (chunk, d) backward: per row P_i·G_i and P_i·du (the dλ terms)
    float *sk, *sq;         // (chunk) the divisors of k̂, q̂
    float *beta, *omb;      // (chunk) β and 1 − β
    float *u, *du;          // (2, d) u = β e and dL/du of two positions (the sweep's r and r − 1)
    float *dkh, *dqh;       // (2, d) dL/dk̂, dL/dq̂ of the same two
} Scratch;

static Scratch scratch_at(const DeltaSlab *p, float *base) {
    size_t chunk = p->chunk, d = p->dh;
    Scratch s;
    float *f = base;
    s.states = f; f += round16(chunk * d * d);
    s.G = f;      f += round16(d * d);
    s.kh = f;     f += round16(chunk * d);
    s.qh = f;     f += round16(chunk * d);
    s.e = f;      f += round16(chunk * d);
    s.pg = f;     f += round16(chunk * d);
    s.pd = f;     f += round16(chunk * d);
    s.sk = f;     f += round16(chunk);
    s.sq = f;     f += round16(chunk);
    s.beta = f;   f += round16(chunk);
    s.omb = f;    f += round16(chunk);
    s.u = f;      f += round16(2 * d);
    s.du = f;     f += round16(2 * d);
    s.dkh = f;    f += round16(2 * d);
    s.dqh = f;
    return s;
}

size_t delta_scratch_floats(const DeltaSlab *p) {
    size_t chunk = p->chunk, d = p->dh;
    return round16(chunk * d * d) + round16(d * d) + 5 * round16(chunk * d) + 4 * round16(chunk) +
           4 * round16(2 * d);
}

void delta_prefetch_rows(const float *x, size_t ld, size_t n, size_t d, int write) {
    if (ld == d) return;  // one contiguous stream: the hardware's job
    for (size_t r = 0; r < n; r++) {
        // every 16th float and the last: a slice need not start on a line
        for (size_t i = 0; i < d; i += 16) {
            if (write) __builtin_prefetch(x + r * ld + i, 1);
            else __builtin_prefetch(x + r * ld + i, 0);
        }
        if (write) __builtin_prefetch(x + r * ld + d - 1, 1);
        else __builtin_prefetch(x + r * ld + d - 1, 0);
    }
}

// ---- the chunk ahead (delta_chunk.h: delta_ahead) ----

static size_t chunk_len(const DeltaSlab *p, size_t c) {
    size_t t0 = c * p->chunk;
    return p->T - t0 < p->chunk ? p->T - t0 : p->chunk;
}

DeltaAhead delta_ahead(const DeltaSlab *p, size_t c, int backward) {
    size_t nch = n_chunks(p);
    if (!backward && c + 1 < nch) return (DeltaAhead){0, 0, (c + 1) * p->chunk, chunk_len(p, c + 1)};
    if (backward && c > 0) return (DeltaAhead){0, 0, (c - 1) * p->chunk, chunk_len(p, c - 1)};
    if (!p->has_next || nch == 0) return (DeltaAhead){0, 0, 0, 0};
    size_t cn = backward ? nch - 1 : 0;  // the next slab's first chunk in the order it runs them
    return (DeltaAhead){p->next, p->next_y, cn * p->chunk, chunk_len(p, cn)};
}

// the lines of one row slice x[0, d): every 16th float and the last (a slice
// need not start on a line)
static void prefetch_slice(const float *x, size_t d, int write) {
    for (size_t i = 0; i < d; i += 16) {
        if (write) __builtin_prefetch(x + i, 1, 2);
        else __builtin_prefetch(x + i, 0, 2);
    }
    if (write) __builtin_prefetch(x + d - 1, 1, 2);
    else __builtin_prefetch(x + d - 1, 0, 2);
}

// Step s of L of the current chunk asks for its rows of the chunk ahead
// (delta_ahead_rows): of q, k, v (read), then of y (write: forward) or of dy
// (read) and dq, dk, dv (write: backward, dq non-NULL).
static void prefetch_ahead(const DeltaSlab *p, const DeltaAhead *A, size_t s, size_t L, const float *q,
                           const float *k, const float *v, const float *y, float *dq, float *dk, float *dv) {
    size_t d = p->dh, ld = delta_ld(p), ldy = delta_ldy(p), lo, hi;
    if (A->L == 0 || ld == d) return;  // nothing ahead, or head-major slabs (one stream)
    delta_ahead_rows(A->L, s, L, &lo, &hi);
    for (size_t j = lo; j < hi; j++) {
        ptrdiff_t o = A->off + (ptrdiff_t)((A->t0 + j) * ld), oy = A->off_y + (ptrdiff_t)((A->t0 + j) * ldy);
        prefetch_slice(q + o, d, 0), prefetch_slice(k + o, d, 0), prefetch_slice(v + o, d, 0);
        prefetch_slice(y + oy, d, !dq);
        if (dq) prefetch_slice(dq + o, d, 1), prefetch_slice(dk + o, d, 1), prefetch_slice(dv + o, d, 1);
    }
}

// k̂, q̂, β of positions [t0, t0+L): φ over the chunk at once (element-wise),
// the normalisations DELTA_FEATURES_MAX rows side by side (delta_features'
// values: one float chain per row, i ascending)
// In place (ld > d) with φ = identity and normalize, the normalisation reads
// the projection's rows themselves: no copy of each row into k̂, q̂ first.
static void load_chunk(const DeltaSlab *p, const Scratch *s, size_t t0, size_t L, const float *q,
                       const float *k, const float *a) {
    size_t d = p->dh, ld = delta_ld(p);
    int direct = ld != d && p->fmap == FMAP_IDENTITY && p->normalize;
    if (ld == d) {
        fmap_forward(p->fmap, s->kh, k + t0 * d, L * d);
        fmap_forward(p->fmap, s->qh, q + t0 * d, L * d);
    } else if (!direct) {
        for (size_t r = 0; r < L; r++) {
            fmap_forward(p->fmap, s->kh + r * d, k + (t0 + r) * ld, d);
            fmap_forward(p->fmap, s->qh + r * d, q + (t0 + r) * ld, d);
        }
    }
    for (size_t r = 0; r < L; r += DELTA_FEATURES_MAX) {
        size_t n = L - r < DELTA_FEATURES_MAX ? L - r : DELTA_FEATURES_MAX;
        for (size_t c = 0; c < n; c++) s->sk[r + c] = s->sq[r + c] = 1.0f;  // without normalize
        if (direct) {
            normalize_rows(p, s->kh + r * d, k + (t0 + r) * ld, ld, n, s->sk + r);
            normalize_rows(p, s->qh + r * d, q + (t0 + r) * ld, ld, n, s->sq + r);
        } else {
            delta_normalize_n(p, s->kh + r * d, n, s->sk + r);
            delta_normalize_n(p, s->qh + r * d, n, s->sq + r);
        }
    }
    for (size_t r = 0; r < L; r++) delta_beta(a[t0 + r], &s->beta[r], &s->omb[r]);
}

static float lam_at(const DeltaSlab *p, size_t t) { return p->lam_t ? p->lam_t[t] : p->lam; }

static void state_init(const DeltaSlab *p, float *S) {
    size_t d = p->dh;
    memset(S, 0, d * d * sizeof(float));
    if (p->state_identity)
        for (size_t i = 0; i < d; i++) S[i * d + i] = 1.0f;
}

// ---- forward ----

double delta_chunk_forward(const DeltaSlab *p, float *y, float *saved, float *scratch,
                           const float *q, const float *k, const float *v, const float *a) {
    size_t T = p->T, d = p->dh, chunk = p->chunk, nch = n_chunks(p), ld = delta_ld(p), ldy = delta_ldy(p);
    Scratch s = scratch_at(p, scratch);
    float *S = s.G;  // (d, d) the running state
    state_init(p, S);
    for (size_t c = 0; c < nch; c++) {
        size_t t0 = c * chunk, L = T - t0 < chunk ? T - t0 : chunk;
        memcpy(saved + c * d * d, S, d * d * sizeof(float));  // for backward's recompute
        delta_prefetch_rows(q + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(k + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(v + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(y + t0 * ldy, ldy, L, d, 1);
        load_chunk(p, &s, t0, L, q, k, a);
        first_e(d, lam_at(p, t0), S, s.kh, v + t0 * ld, s.e);
        DeltaAhead ah = delta_ahead(p, c, 0);
        for (size_t r = 0; r < L; r++) {
            size_t t = t0 + r;
            prefetch_ahead(p, &ah, r, L, q, k, v, y, NULL, NULL, NULL);
            TokenStep ts = {.lam = lam_at(p, t), .beta = s.beta[r], .kh = s.kh + r * d, .e = s.e + r * d,
                            .qh = s.qh + r * d, .y = y + t * ldy};
            if (r + 1 < L)
                ts.kn = s.kh + (r + 1) * d, ts.vn = v + (t + 1) * ld, ts.lamn = lam_at(p, t + 1),
                ts.en = s.e + (r + 1) * d;
            step_forward(d, &ts, S);
        }
    }
    double ss = 0;
    for (size_t i = 0; i < d * d; i++) ss += (double)S[i] * S[i];
    return sqrt(ss);
}

// ---- backward ----
//
// Per position, in reverse, with G = dL/dS_t on entry and dL/dS_{t-1} on exit:
//   y = S_tᵀ q̂, S_t = λP + k̂ uᵀ (u = β e)
//       dq̂ = S_t dy = λ P dy + k̂ (u·dy);   G += q̂ dyᵀ
//   S_t = λP + k̂ uᵀ
//       dk̂ = G u;  du = Gᵀ k̂;  dλ += <P, G>;  dP = λ G
//   u = β e:            dβ = du·e;  de = β du
//   e = v − λ Pᵀk̂:      dv = de;  dλ −= de·(Pᵀk̂) = β k̂ᵀ(P du);
//                       dk̂ −= λβ P du;  dP −= λβ k̂ duᵀ
// Pass A does the first two lines (du needs all of G), pass B the last one.

// out = φ(x)/s; dx += dφ · φ'(x) with (dout is overwritten with dφ)
//   sum: s = Σφ + eps,        ds/dφ_m = 1      =>  dφ_m = (dout_m − dout·out) / s
//   l2:  s = sqrt(Σφ² + eps), ds/dφ_m = out_m  =>  dφ_m = (dout_m − (dout·out) out_m) / s
//   without normalize: dφ = dout
void delta_features_backward(const DeltaSlab *p, float *dx, float *dout, const float *out, float s,
                             const float *x) {
    size_t d = p->dh;
    if (p->normalize) {
        float proj = dot(dout, out, d);
        if (p->key_norm == KEYNORM_L2)
            for (size_t i = 0; i < d; i++) dout[i] = (dout[i] - proj * out[i]) / s;
        else
            for (size_t i = 0; i < d; i++) dout[i] = (dout[i] - proj) / s;
    }
    fmap_backward(p->fmap, dx, dout, x, d);
}

// pass A of position r of the chunk (dyt: its dy): u = β e and u·dy first
static PassA sweep_a(const Scratch *s, size_t d, size_t r, const float *dyt, float ud[2]) {
    size_t x = (r & 1) * d;
    float *u = s->u + x, beta = s->beta[r];
    const float *e = s->e + r * d;
    for (size_t j = 0; j < d; j++) u[j] = beta * e[j];
    ud[r & 1] = dot(u, dyt, d);
    return (PassA){.P = s->states + r * d * d, .dy = dyt, .u = u, .qh = s->qh + r * d, .kh = s->kh + r * d,
                   .du = s->du + x, .o0 = s->dqh + x, .o1 = s->dkh + x, .o2 = s->pg + r * d};
}

// dL/dlog λ of position t = t0 + r from pass A's row sums P_i·G_i and pass B's
// P_i·du, summed in double over i ascending: (Σ P·G − β Σ k̂_i (P du)_i) λ.
// Each position's two sums are chains of d dependent double adds; one after
// another they cost their latency, so 8 positions' chains run side by side,
// one lane each: a block of 8 i of the 8 rows is widened to double (and k̂_i
// (P du)_i multiplied, exact in double: float x float needs 48 bits) and
// transposed, so that vector j holds element i0 + j of every position, then
// added in i order. Each lane is the one position's chain, op for op
// (transpose8d, "8 x 8 blocks" above).
// out[k] = dL/dlog λ of position r0 + k < r0 + n (n <= 8) of chunk t0
#if DELTA_AVX2
// On AVX2 the 8 positions' chains are two vectors of 4 doubles each (positions
// 0-3, 4-7), and the blocks are transposed as floats before they are widened
// (the transpose moves the same values; the products are the same products).
static void dloglam_8(const DeltaSlab *p, const Scratch *s, size_t t0, size_t r0, size_t n, double out[8]) {
    size_t d = p->dh;
    __m256d a_lo = _mm256_setzero_pd(), a_hi = a_lo, b_lo = a_lo, b_hi = a_lo;
    for (size_t i0 = 0; i0 < d; i0 += 8) {
        size_t m = d - i0 < 8 ? d - i0 : 8;
        FVec8 pg[8], kh[8], pd[8];
        for (size_t k = 0; k < 8; k++) {
            size_t o = (r0 + (k < n ? k : 0)) * d + i0;  // (lanes past n: a copy of the first, unused)
            pg[k] = load8(s->pg + o, m), kh[k] = load8(s->kh + o, m), pd[k] = load8(s->pd + o, m);
        }
        transpose8f(pg), transpose8f(kh), transpose8f(pd);
        for (size_t j = 0; j < m; j++) {
            __m256 g = (__m256)pg[j], x = (__m256)kh[j], y = (__m256)pd[j];
            a_lo = _mm256_add_pd(a_lo, _mm256_cvtps_pd(_mm256_castps256_ps128(g)));
            a_hi = _mm256_add_pd(a_hi, _mm256_cvtps_pd(_mm256_extractf128_ps(g, 1)));
            b_lo = _mm256_add_pd(b_lo, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)),
                                                     _mm256_cvtps_pd(_mm256_castps256_ps128(y))));
            b_hi = _mm256_add_pd(b_hi, _mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)),
                                                     _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1))));
        }
    }
    double dl_a[8], dl_b[8];
    _mm256_storeu_pd(dl_a, a_lo), _mm256_storeu_pd(dl_a + 4, a_hi);
    _mm256_storeu_pd(dl_b, b_lo), _mm256_storeu_pd(dl_b + 4, b_hi);
    for (size_t k = 0; k < n; k++)  // dL/dlog λ_t = λ_t dL/dλ_t (a product, never a division by λ)
        out[k] = (dl_a[k] - (double)s->beta[r0 + k] * dl_b[k]) * lam_at(p, t0 + r0 + k);
}
#else
static void dloglam_8(const DeltaSlab *p, const Scratch *s, size_t t0, size_t r0, size_t n, double out[8]) {
    size_t d = p->dh;
    DVec8 dl_a = {0}, dl_b = {0};
    for (size_t i0 = 0; i0 < d; i0 += 8) {
        size_t m = d - i0 < 8 ? d - i0 : 8;
        DVec8 pg[8], kp[8];
        for (size_t k = 0; k < 8; k++) {
            size_t o = (r0 + (k < n ? k : 0)) * d + i0;  // (lanes past n: a copy of the first, unused)
            pg[k] = __builtin_convertvector(load8(s->pg + o, m), DVec8);
            kp[k] = __builtin_convertvector(load8(s->kh + o, m), DVec8) * __builtin_convertvector(load8(s->pd + o, m), DVec8);
        }
        transpose8d(pg), transpose8d(kp);
        for (size_t j = 0; j < m; j++) dl_a += pg[j], dl_b += kp[j];
    }
    for (size_t k = 0; k < n; k++)  // dL/dlog λ_t = λ_t dL/dλ_t (a product, never a division by λ)
        out[k] = (dl_a[k] - (double)s->beta[r0 + k] * dl_b[k]) * lam_at(p, t0 + r0 + k);
}
#endif

double delta_chunk_backward(const DeltaSlab *p, float *dq, float *dk, float *dv, float *da,
                            float *dlam_t, const float *dy, const float *saved, float *scratch,
                            const float *q, const float *k, const float *v, const float *a) {
    size_t T = p->T, d = p->dh, chunk = p->chunk, nch = n_chunks(p), ld = delta_ld(p), ldy = delta_ldy(p);
    Scratch s = scratch_at(p, scratch);
    float *G = s.G;
    double dlam = 0;
    memset(G, 0, d * d * sizeof(float));  // the final state feeds nothing
    for (size_t c = nch; c-- > 0;) {
        size_t t0 = c * chunk, L = T - t0 < chunk ? T - t0 : chunk;
        // recompute: states[r] = S_{t0+r-1} and e_r, exactly as forward did
        delta_prefetch_rows(q + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(k + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(v + t0 * ld, ld, L, d, 0);
        delta_prefetch_rows(dy + t0 * ldy, ldy, L, d, 0);
        load_chunk(p, &s, t0, L, q, k, a);
        memcpy(s.states, saved + c * d * d, d * d * sizeof(float));
        first_e(d, lam_at(p, t0), s.states, s.kh, v + t0 * ld, s.e);
        for (size_t r = 0; r + 1 < L; r++) {
            size_t t = t0 + r;
            TokenStep ts = {.lam = lam_at(p, t), .beta = s.beta[r], .kh = s.kh + r * d, .e = s.e + r * d,
                            .kn = s.kh + (r + 1) * d, .vn = v + (t + 1) * ld, .lamn = lam_at(p, t + 1),
                            .en = s.e + (r + 1) * d};
            step_recompute(d, &ts, s.states + r * d * d, s.states + (r + 1) * d * d);
        }

        // the sweep, positions in reverse: pass A of the last, then pass B of
        // each position r together with pass A of r − 1; per-position vectors
        // alternate between two buffers by the parity of r
        float ud[2];
        PassA A = sweep_a(&s, d, L - 1, dy + (t0 + L - 1) * ldy, ud);
        rows_a(d, G, &A);
        DeltaAhead ah = delta_ahead(p, c, 1);
        for (size_t r = L; r-- > 0;) {
            size_t t = t0 + r, x = (r & 1) * d;
            prefetch_ahead(p, &ah, L - 1 - r, L, q, k, v, dy, dq, dk, dv);
            const float *kh = s.kh + r * d, *qh = s.qh + r * d, *e = s.e + r * d;
            float beta = s.beta[r], lam = lam_at(p, t), lb = lam * beta;
            float *du = s.du + x, *dqh = s.dqh + x, *dkh = s.dkh + x, *pd = s.pd + r * d;
            // after pass A: dq̂ = λ P dy + k̂ (u·dy) (dqh holds P dy, dkh G u)
            for (size_t i = 0; i < d; i++) dqh[i] = lam * dqh[i] + kh[i] * ud[r & 1];
            // u = β e, β = sigmoid(a): da += (du·e) β (1 − β); de = β du = dv
            if (da) da[t] += dot(du, e, d) * beta * s.omb[r];
            float *dvt = dv + t * ld;
            for (size_t j = 0; j < d; j++) dvt[j] += beta * du[j];
            PassB B = {.P = s.states + r * d * d, .du = du, .kh = kh, .lam = lam, .lb = lb, .pd = pd};
            if (r > 0) {
                A = sweep_a(&s, d, r - 1, dy + (t - 1) * ldy, ud);
                rows_ba(d, G, &B, &A);
            } else {
                rows_b(d, G, &B);
            }
            // after pass B: dk̂ −= λβ P du
            for (size_t i = 0; i < d; i++) dkh[i] -= lb * pd[i];
            delta_features_backward(p, dq + t * ld, dqh, qh, s.sq[r], q + t * ld);
            delta_features_backward(p, dk + t * ld, dkh, kh, s.sk[r], k + t * ld);
        }
        // dλ after the sweep (its double sums off the sweep's critical path),
        // 8 positions at a time, added to dlam in reverse as the sweep ran
        for (size_t hi = L; hi > 0;) {
            size_t lo = hi > 8 ? hi - 8 : 0;
            double dll[8];
            dloglam_8(p, &s, t0, lo, hi - lo, dll);
            for (size_t r = hi; r-- > lo;) {
                dlam += dll[r - lo];
                if (dlam_t) dlam_t[t0 + r] += (float)dll[r - lo];
            }
            hi = lo;
        }
    }
    return dlam;
}
