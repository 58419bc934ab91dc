// fma_chains.c — bench/peak.c's kernel (fma_chains.h): acc_i = acc_i * x + y
// for i < CHAINS, repeated, each chain pulled towards the fixed point
// y / (1 - x) ~ 1 so the values stay normal however long it runs.
#include "kernels/fma_chains.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
// 32 zmm registers: 24 accumulators + x, y. FMA latency 4 cycles x 2 pipes
// needs >= 8 chains in flight; 24 leaves margin for a wider core.
enum { CHAINS = 24, LANES = 16 };
static const char *ISA = "AVX-512";
float fma_chains_run(long iters) {
    __m512 acc[CHAINS], x = _mm512_set1_ps(0.99999994f), y = _mm512_set1_ps(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_set1_ps(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    __m512 s = acc[0];
    for (int i = 1; i < CHAINS; i++) s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}
#elif defined(__AVX2__) && defined(__FMA__)
// 16 ymm registers: 12 accumulators + x, y.
enum { CHAINS = 12, LANES = 8 };
static const char *ISA = "AVX2+FMA";
float fma_chains_run(long iters) {
    __m256 acc[CHAINS], x = _mm256_set1_ps(0.99999994f), y = _mm256_set1_ps(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_set1_ps(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    float lanes[8], sum = 0.0f;
    __m256 s = acc[0];
    for (int i = 1; i < CHAINS; i++) s = _mm256_add_ps(s, acc[i]);
    _mm256_storeu_ps(lanes, s);
    for (int i = 0; i < 8; i++) sum += lanes[i];
    return sum;
}
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
// 32 q registers: 24 accumulators + x, y. Cores with 4 FMA pipes of 4-cycle
// latency (Apple M-class, Neoverse V2) need 16 chains in flight; 24 leave margin.
enum { CHAINS = 24, LANES = 4 };
static const char *ISA = "NEON";
float fma_chains_run(long iters) {
    float32x4_t acc[CHAINS], x = vdupq_n_f32(0.99999994f), y = vdupq_n_f32(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = vdupq_n_f32(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < CHAINS; i++) acc[i] = vfmaq_f32(y, acc[i], x);  // y + acc*x, fused
    }
    float32x4_t s = acc[0];
    for (int i = 1; i < CHAINS; i++) s = vaddq_f32(s, acc[i]);
    return vaddvq_f32(s);
}
#else
// Plain C: the 4-lane vectors of the plain-C products (gemm_kernels.c,
// kernels/vec4.h: SSE2 on x86-64), a multiply and an add per step (C11 does
// not contract them into an FMA), still 2 FLOPs a lane. 12 chains + x, y fit
// x86-64's 16 xmm registers and cover a multiply's and an add's latency on
// two pipes.
#include "kernels/vec4.h"
enum { CHAINS = 12, LANES = 4 };
static const char *ISA = "4-lane vectors";
float fma_chains_run(long iters) {
    v4f acc[CHAINS], x = v4f_set1(0.99999994f), y = v4f_set1(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = v4f_set1(1.0f + (float)i);
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < CHAINS; i++) acc[i] = acc[i] * x + y;
    v4f s = acc[0];
    for (int i = 1; i < CHAINS; i++) s += acc[i];
    return s[0] + s[1] + s[2] + s[3];
}
#endif


void fma_chains_shape(int *chains, int *lanes, const char **isa) {
    *chains = CHAINS;
    *lanes = LANES;
    *isa = ISA;
}
