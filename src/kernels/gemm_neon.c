// gemm_neon.c — gemm.c's register-blocked micro-kernel and matrix-vector
// products for AArch64 Advanced SIMD (NEON). NEON is part of every AArch64
// CPU, so an aarch64 build always takes this path: nothing to detect.
//
// The arithmetic is the contract of gemm_kernels.h, with fused multiply-adds
// as on the x86 SIMD paths: per element, per K block, acc from zero, one FMA
// per k in ascending order, then t = alpha*acc and c = fma(beta, c, t) (or t
// where beta is 0). vfmaq_laneq_f32, vfmaq_n_f32 and the scalar fmaf of the
// edges all round once, so every element is the same chain whichever of them
// computed it (tests/kernels/test_gemm.c and test_gemm_micro.c write it out).
//
// Packing is gemm_kernels.c's portable packing, at this file's tile sizes.
#include "gemm_kernels.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#include <math.h>

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

// ================================================================ 8 x 12 tile

// 24 accumulators (8 rows x 3 vectors of 4 columns) of the 32 q registers;
// per k 2 loads of A (8 floats, one lane per row) and 3 of B, 24 FMAs.
#define ROW(i, a, lane)                                           \
    acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0, a, lane);          \
    acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1, a, lane);          \
    acc[i][2] = vfmaq_laneq_f32(acc[i][2], b2, a, lane);

void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta) {
    float32x4_t acc[8][3];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) acc[i][0] = acc[i][1] = acc[i][2] = vdupq_n_f32(0.0f);
    for (size_t k = 0; k < kc; k++) {
        float32x4_t a0 = vld1q_f32(ap + k * 8), a1 = vld1q_f32(ap + k * 8 + 4);
        float32x4_t b0 = vld1q_f32(bp + k * 12), b1 = vld1q_f32(bp + k * 12 + 4), b2 = vld1q_f32(bp + k * 12 + 8);
        ROW(0, a0, 0) ROW(1, a0, 1) ROW(2, a0, 2) ROW(3, a0, 3)
        ROW(4, a1, 0) ROW(5, a1, 1) ROW(6, a1, 2) ROW(7, a1, 3)
    }
    // Edge tiles go through a scratch tile (c may end anywhere); the
    // arithmetic is the same as for full tiles.
    int full = mr == 8 && nr == 12;
    float tile[8 * 12];
    float *dst = c;
    size_t ldd = ldc;
    if (!full) {
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++) tile[i * 12 + j] = beta != 0.0f ? c[i * ldc + j] : 0.0f;
        dst = tile;
        ldd = 12;
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        if (!full && (size_t)i >= mr) break;  // rows past mr of the scratch tile are never read
        float *di = dst + (size_t)i * ldd;
#pragma GCC unroll 3
        for (int q = 0; q < 3; q++) {
            float32x4_t t = vmulq_n_f32(acc[i][q], alpha);
            if (beta != 0.0f) t = vfmaq_n_f32(t, vld1q_f32(di + 4 * q), beta);
            vst1q_f32(di + 4 * q, t);
        }
    }
    if (!full)
        for (size_t i = 0; i < mr; i++)
            for (size_t j = 0; j < nr; j++) c[i * ldc + j] = tile[i * 12 + j];
}
#undef ROW

// ================================================================ matrix-vector

// One output's whole chain, scalar: the edges of gemm_vec and gemm_vec_t
// (fmaf rounds once, as the vector FMAs do, so the values are theirs).
//   acc = sum_k x[k*xstep] * s[k*incs] per K block; y = alpha*acc + b*y
static float chain_one(size_t K, size_t kb, float alpha, const float *x, size_t xstep, const float *s,
                       size_t incs, float beta, float y) {
    for (size_t k0 = 0; k0 < K; k0 += kb) {
        size_t k1 = min_sz(K, k0 + kb);
        float acc = 0.0f;
        for (size_t k = k0; k < k1; k++) acc = fmaf(x[k * xstep], s[k * incs], acc);
        float t = alpha * acc, b = k0 == 0 ? beta : 1.0f;
        y = b != 0.0f ? fmaf(b, y, t) : t;
    }
    return y;
}

// y[r*incy] = alpha * acc + b * y for NQ vectors (4 NQ outputs) kept in `out`.
static inline __attribute__((always_inline)) void vec_finish(float32x4_t *acc, size_t NQ, float alpha, float b,
                                                             float *out) {
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) {
        float32x4_t t = vmulq_n_f32(acc[q], alpha);
        if (b != 0.0f) t = vfmaq_n_f32(t, vld1q_f32(out + 4 * q), b);
        vst1q_f32(out + 4 * q, t);
    }
}

// gemm_vec for 4 NQ outputs starting at r (NQ a constant in each use, so the
// accumulators stay in registers): per k one broadcast of s[k] and NQ
// contiguous loads of x's row k.
static inline __attribute__((always_inline)) void vec_block(size_t r, size_t NQ, size_t K, size_t kb, float alpha,
                                                            const float *x, size_t ldx, const float *s, size_t incs,
                                                            float beta, float *y, size_t incy) {
    float out[64];
    if (beta != 0.0f)
        for (size_t i = 0; i < 4 * NQ; i++) out[i] = y[(r + i) * incy];
    for (size_t k0 = 0; k0 < K; k0 += kb) {
        size_t k1 = min_sz(K, k0 + kb);
        float32x4_t acc[16];
#pragma GCC unroll 16
        for (size_t q = 0; q < NQ; q++) acc[q] = vdupq_n_f32(0.0f);
        for (size_t k = k0; k < k1; k++) {
            float sk = s[k * incs];
            const float *xk = x + k * ldx + r;
#pragma GCC unroll 16
            for (size_t q = 0; q < NQ; q++) acc[q] = vfmaq_n_f32(acc[q], vld1q_f32(xk + 4 * q), sk);
        }
        vec_finish(acc, NQ, alpha, k0 == 0 ? beta : 1.0f, out);
    }
    for (size_t i = 0; i < 4 * NQ; i++) y[(r + i) * incy] = out[i];
}

void gemm_vec(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x, size_t ldx,
              const float *s, size_t incs, float beta, float *y, size_t incy) {
    size_t r = r0;
    for (; r1 - r >= 64; r += 64) vec_block(r, 16, K, kb, alpha, x, ldx, s, incs, beta, y, incy);
    if (r1 - r >= 32) vec_block(r, 8, K, kb, alpha, x, ldx, s, incs, beta, y, incy), r += 32;
    if (r1 - r >= 16) vec_block(r, 4, K, kb, alpha, x, ldx, s, incs, beta, y, incy), r += 16;
    if (r1 - r >= 8) vec_block(r, 2, K, kb, alpha, x, ldx, s, incs, beta, y, incy), r += 8;
    if (r1 - r >= 4) vec_block(r, 1, K, kb, alpha, x, ldx, s, incs, beta, y, incy), r += 4;
    for (; r < r1; r++) y[r * incy] = chain_one(K, kb, alpha, x + r, ldx, s, incs, beta, y[r * incy]);
}

// 4 x 4 in-register transpose: row i of the result is column i of the input.
static inline void transpose4(float32x4_t v[4]) {
    float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);  // a0 b0 a2 b2 | a1 b1 a3 b3
    float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);  // c0 d0 c2 d2 | c1 d1 c3 d3
    v[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    v[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

// gemm_vec_t for 4 G outputs starting at r (G = 1 or 2 groups of 4 rows, two
// independent chains for the FMA latency): 4 k at a time, each group's 4 x 4
// block transposed so that one vector holds its 4 outputs' values at one k;
// the K block's last k % 4 steps gather their 4 values one by one.
static inline __attribute__((always_inline)) void vec_t_block(size_t r, size_t G, size_t K, size_t kb, float alpha,
                                                              const float *x, size_t ldx, const float *s,
                                                              size_t incs, float beta, float *y, size_t incy) {
    float out[8];
    if (beta != 0.0f)
        for (size_t i = 0; i < 4 * G; i++) out[i] = y[(r + i) * incy];
    for (size_t k0 = 0; k0 < K; k0 += kb) {
        size_t k1 = min_sz(K, k0 + kb), k = k0;
        float32x4_t acc[2] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
        for (; k1 - k >= 4; k += 4) {
            float32x4_t v[2][4];
#pragma GCC unroll 2
            for (size_t g = 0; g < G; g++) {
                for (size_t i = 0; i < 4; i++) v[g][i] = vld1q_f32(x + (r + 4 * g + i) * ldx + k);
                transpose4(v[g]);
            }
#pragma GCC unroll 4
            for (size_t c = 0; c < 4; c++) {
                float sk = s[(k + c) * incs];
#pragma GCC unroll 2
                for (size_t g = 0; g < G; g++) acc[g] = vfmaq_n_f32(acc[g], v[g][c], sk);
            }
        }
        for (; k < k1; k++) {
            float sk = s[k * incs];
            for (size_t g = 0; g < G; g++) {
                float col[4];
                for (size_t i = 0; i < 4; i++) col[i] = x[(r + 4 * g + i) * ldx + k];
                acc[g] = vfmaq_n_f32(acc[g], vld1q_f32(col), sk);
            }
        }
        vec_finish(acc, G, alpha, k0 == 0 ? beta : 1.0f, out);
    }
    for (size_t i = 0; i < 4 * G; i++) y[(r + i) * incy] = out[i];
}

void gemm_vec_t(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x,
                size_t ldx, const float *s, size_t incs, float beta, float *y, size_t incy) {
    size_t r = r0;
    for (; r1 - r >= 8; r += 8) vec_t_block(r, 2, K, kb, alpha, x, ldx, s, incs, beta, y, incy);
    if (r1 - r >= 4) vec_t_block(r, 1, K, kb, alpha, x, ldx, s, incs, beta, y, incy), r += 4;
    for (; r < r1; r++) y[r * incy] = chain_one(K, kb, alpha, x + r * ldx, 1, s, incs, beta, y[r * incy]);
}

#endif
