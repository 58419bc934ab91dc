// matvec_i8.c — generation's one-token product over int8 weights (the
// quantisation, layout and arithmetic contracts are in matvec_i8.h).
//
// Why int8: a one-token step is bound by how fast the core pulls the weights
// in (about 100 GB/s here, the same from L2 as from L3: docs/speed.md), so the
// bytes per token set its floor; int8 halves bf16's. vpdpbusd multiplies 64
// unsigned input bytes with 64 signed weight bytes and adds each group of four
// into an int32 lane, so a 64-byte load of weights is one instruction, as in
// the bf16 kernel, but covers 4 k per output instead of 2.
#include "kernels/matvec_i8.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cpu.h"
#include "kernels/gelu.h"

#if (defined(__x86_64__) || defined(__i386__)) && \
    ((defined(__clang__) && __clang_major__ >= 9) || (!defined(__clang__) && __GNUC__ >= 10))
// Compiled in every x86-64 build whatever its -march (KERNELS=avx2 and
// portable too), through a function target attribute, and gated by the run-time
// check alone: the same arrangement as kernels/bf16.h.
#define I8_HAVE_KERNELS 1
#define I8_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#include <immintrin.h>
#endif

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
static size_t width_of(size_t n) { return (n + 15) / 16 * 16; }  // outputs of a panel, padded
static size_t quads(size_t K) { return (K + 3) / 4; }

// bytes of one panel of `width` outputs: the quads, then s_o and c_o
static size_t panel_bytes(size_t K, size_t width) { return 4 * width * (quads(K) + 2); }

size_t matvec_i8_packed_bytes(size_t K, size_t OC) {
    size_t total = 0;
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) total += panel_bytes(K, width_of(min_sz(MATVEC_PANEL, OC - r)));
    return total;
}

size_t matvec_i8_scratch_bytes(size_t K) { return (K + 63) / 64 * 64; }

// v * inv rounded to the nearest integer, ties to even (the default rounding
// mode; cvtps2dq in the vector path rounds the same way), clamped to ±127.
static int quantize_value(float v, float inv) {
    float t = v * inv;
    t = t > 127.0f ? 127.0f : t < -127.0f ? -127.0f : t;
    return (int)nearbyintf(t);
}

void matvec_i8_pack(void *dst, const float *w, size_t OC, size_t K) {
    assert(K <= MATVEC_I8_MAX_K);
    unsigned char *d = dst;
    size_t Q = quads(K);
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), width = width_of(n);
        int8_t *q = (int8_t *)d;
        float *scale = (float *)(void *)(d + 4 * width * Q);
        int32_t *corr = (int32_t *)(void *)(d + 4 * width * (Q + 1));
        memset(d, 0, panel_bytes(K, width));
        for (size_t j = 0; j < n; j++) {
            const float *row = w + (r + j) * K;
            float m = 0, zero = 0;
            for (size_t k = 0; k < K; k++) {
                m = fabsf(row[k]) > m ? fabsf(row[k]) : m;
                zero += row[k] * 0.0f;  // NaN if any weight is infinite or NaN
            }
            if (zero != 0.0f) {  // its outputs NaN, as fp32's would be
                scale[j] = NAN;
                continue;
            }
            if (!(m >= MATVEC_I8_TINY)) continue;  // a zero row: q = 0, s_o = 0
            float inv = 127.0f / m;
            int32_t sum = 0;
            for (size_t k = 0; k < K; k++) {
                int v = quantize_value(row[k], inv);
                q[4 * ((k / 4) * width + j) + k % 4] = (int8_t)v;
                sum += v;
            }
            scale[j] = m / 127.0f;
            corr[j] = 128 * sum;
        }
        d += panel_bytes(K, width);
    }
}

// ---------------------------------------------------------------- the input

// What the input goes through before it is quantised (matvec.h's MatvecInput)
static inline float act_value(MatvecInput act, float x) { return act == MATVEC_IN_GELU ? gelu_value(x) : x; }

// a (matvec_i8.h): max |x| for a plain input; for GELU's, max(max x, 0.17),
// which bounds |GELU(x)| to within half a quantisation step (GELU(x) <= x for
// x > 0; the tanh form's dip is -0.170041) without computing GELU first. NaN
// if any x is infinite or NaN.
static float range_of(float amax, float xmax, float zero, MatvecInput act) {
    if (zero != 0.0f) return NAN;  // the sum of x * 0: NaN if any value is infinite or NaN
    if (act == MATVEC_IN_GELU) return xmax > MATVEC_I8_GELU_FLOOR ? xmax : MATVEC_I8_GELU_FLOOR;
    return amax;
}

static float range_plain(const float *x, size_t K, MatvecInput act) {
    float amax = 0, xmax = -INFINITY, zero = 0;
    for (size_t k = 0; k < K; k++) {
        amax = fabsf(x[k]) > amax ? fabsf(x[k]) : amax;
        xmax = x[k] > xmax ? x[k] : xmax;
        zero += x[k] * 0.0f;
    }
    return range_of(amax, xmax, zero, act);
}

// Quantises the input with scale a (u = 128 throughout when a is zero or NaN,
// see the header); returns s_x.
static float scale_of(float a) { return a >= MATVEC_I8_TINY ? a / 127.0f : a != a ? NAN : 0.0f; }

static void quantize_plain(uint8_t *u, const float *x, size_t K, MatvecInput act, float a) {
    size_t padded = matvec_i8_scratch_bytes(K);
    memset(u, 128, padded);
    if (!(a >= MATVEC_I8_TINY)) return;
    float inv = 127.0f / a;
    for (size_t k = 0; k < K; k++) u[k] = (uint8_t)(quantize_value(act_value(act, x[k]), inv) + 128);
}

#if defined(I8_HAVE_KERNELS)
static inline __mmask16 first_n(size_t n) { return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u); }

// range_plain 16 at a time: max is exact in any order, so the same value.
// Only the max the input's kind needs (|x| or x) is reduced.
I8_TARGET static float range_avx512(const float *x, size_t K, MatvecInput act) {
    __m512 mx = act == MATVEC_IN_GELU ? _mm512_set1_ps(-INFINITY) : _mm512_setzero_ps(), zero = _mm512_setzero_ps();
    for (size_t k = 0; k < K; k += 16) {
        __mmask16 m = first_n(K - k);
        __m512 v = _mm512_maskz_loadu_ps(m, x + k);
        mx = act == MATVEC_IN_GELU ? _mm512_mask_max_ps(mx, m, mx, v) : _mm512_max_ps(mx, _mm512_abs_ps(v));
        zero = _mm512_add_ps(zero, _mm512_mul_ps(v, _mm512_setzero_ps()));
    }
    float r = _mm512_reduce_max_ps(mx);
    return range_of(r, r, _mm512_reduce_add_ps(zero), act);
}

// The block of MATVEC_I8_BLOCK inputs from k0 quantised into u (u = 128 past
// K): quantize_plain's values (gelu_value in a loop the compiler vectorises,
// the same operations; cvtps2dq rounds to nearest even as nearbyintf does).
I8_TARGET static inline __attribute__((always_inline)) void quantize_block(uint8_t *u, const float *x, size_t K,
                                                                           size_t k0, MatvecInput act, __m512 inv) {
    float blk[MATVEC_I8_BLOCK];
    size_t nb = K - k0 < MATVEC_I8_BLOCK ? K - k0 : MATVEC_I8_BLOCK;
    if (nb == MATVEC_I8_BLOCK && act == MATVEC_IN_GELU) {  // whole blocks: loops that vectorise
        for (size_t k = 0; k < MATVEC_I8_BLOCK; k++) blk[k] = gelu_value(x[k0 + k]);
    } else if (nb == MATVEC_I8_BLOCK) {
        memcpy(blk, x + k0, sizeof blk);
    } else {
        for (size_t k = 0; k < MATVEC_I8_BLOCK; k++) blk[k] = k < nb ? act_value(act, x[k0 + k]) : 0.0f;
    }
    __m512 hi = _mm512_set1_ps(127.0f), lo = _mm512_set1_ps(-127.0f);
    __m512i off = _mm512_set1_epi32(128);
#pragma GCC unroll 4
    for (size_t k = 0; k < MATVEC_I8_BLOCK; k += 16) {
        __m512 t = _mm512_mul_ps(_mm512_loadu_ps(blk + k), inv);
        t = _mm512_max_ps(_mm512_min_ps(t, hi), lo);
        __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(t), off);
        _mm_store_si128((__m128i *)(void *)(u + k0 + k), _mm512_cvtepi32_epi8(v));
    }
}

I8_TARGET static void quantize_avx512(uint8_t *u, const float *x, size_t K, MatvecInput act, float a) {
    if (!(a >= MATVEC_I8_TINY)) {
        memset(u, 128, matvec_i8_scratch_bytes(K));
        return;
    }
    __m512 inv = _mm512_set1_ps(127.0f / a);
    for (size_t k0 = 0; k0 < K; k0 += MATVEC_I8_BLOCK) quantize_block(u, x, K, k0, act, inv);
}
#endif

// ---------------------------------------------------------------- the product

static void finish(float *out, const int32_t *acc, const int32_t *corr, const float *scale, float sx, size_t n,
                   MatvecMode mode) {
    for (size_t j = 0; j < n; j++) {
        float v = (float)(acc[j] - corr[j]) * (scale[j] * sx);
        out[j] = mode == MATVEC_ADD ? out[j] + v : v;
    }
}

// Plain C: per output, the int32 sum of u_k q_ok, k ascending.
static void panel_plain(float *out, const uint8_t *u, const unsigned char *panel, size_t Q, size_t n,
                        size_t width, float sx, MatvecMode mode) {
    int32_t acc[MATVEC_PANEL] = {0};
    const int8_t *q = (const int8_t *)panel;
    for (size_t p = 0; p < Q; p++)
        for (size_t j = 0; j < n; j++)
            for (size_t b = 0; b < 4; b++) acc[j] += (int32_t)u[4 * p + b] * q[4 * (p * width + j) + b];
    const float *scale = (const float *)(const void *)(panel + 4 * width * Q);
    const int32_t *corr = (const int32_t *)(const void *)(panel + 4 * width * (Q + 1));
    finish(out, acc, corr, scale, sx, n, mode);
}

#if defined(I8_HAVE_KERNELS)
// acc + the four products u_i q_i of each 32-bit lane (vpdpbusd: s unsigned,
// *w signed).
I8_TARGET static inline __attribute__((always_inline)) __m512i dpbusd(__m512i acc, __m512i s, const __m512i *w) {
    return _mm512_dpbusd_epi32(acc, s, _mm512_load_si512(w));
}

// One panel. NQ (vectors of 16 outputs) is a constant in each instantiation,
// so the accumulators stay in registers and the quad loop has no branches.
// The first panel of a product also quantises the input (`x` non-NULL), a
// block of MATVEC_I8_BLOCK values just before its quads are used, into u for
// the later panels: that work (GELU's exp, the scaling) then runs between the
// weight loads, whose wait leaves the arithmetic units idle, not in a pass of
// its own before the product. The quad loop runs a block at a time with that
// work between blocks, not inside it: with a branch in the quad loop GCC 12
// copied every accumulator to another register each step.
I8_TARGET static inline __attribute__((always_inline)) void panel_core(
    float *out, uint8_t *u, const float *x, size_t K, MatvecInput act, __m512 inv, const unsigned char *panel,
    size_t Q, size_t n, size_t NQ, float sx, MatvecMode mode) {
    __m512i acc[16];
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) acc[q] = _mm512_setzero_si512();
    const __m512i *w = (const __m512i *)(const void *)panel;
    const uint32_t *u4 = (const uint32_t *)(const void *)u;
    for (size_t p0 = 0; p0 < Q; p0 += MATVEC_I8_BLOCK / 4) {
        if (x) quantize_block(u, x, K, 4 * p0, act, inv);
        size_t p1 = min_sz(Q, p0 + MATVEC_I8_BLOCK / 4);
        for (size_t p = p0; p < p1; p++, w += NQ) {
            __m512i s = _mm512_set1_epi32((int)u4[p]);
#pragma GCC unroll 16
            for (size_t q = 0; q < NQ; q++) acc[q] = dpbusd(acc[q], s, w + q);
        }
    }
    const float *scale = (const float *)(const void *)w;
    const int32_t *corr = (const int32_t *)(const void *)(w + NQ);
    __m512 vsx = _mm512_set1_ps(sx);
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) {  // finish()'s operations, 16 outputs at a time
        __mmask16 m = first_n(n - 16 * q);
        __m512 d = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[q], _mm512_load_si512(corr + 16 * q)));
        __m512 v = _mm512_mul_ps(d, _mm512_mul_ps(_mm512_load_ps(scale + 16 * q), vsx));
        float *o = out + 16 * q;
        if (mode == MATVEC_ADD) v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, o), v);
        _mm512_mask_storeu_ps(o, m, v);
    }
}

#define PANEL_I8_CASE(nq)                                                       \
    case nq:                                                                    \
        panel_core(out, u, x, K, act, inv, panel, Q, n, nq, sx, mode);          \
        break;

I8_TARGET static void panel_avx512(float *out, uint8_t *u, const float *x, size_t K, MatvecInput act, float a,
                                   const unsigned char *panel, size_t Q, size_t n, size_t nq, float sx,
                                   MatvecMode mode) {
    __m512 inv = _mm512_set1_ps(x ? 127.0f / a : 0.0f);
    switch (nq) {
        PANEL_I8_CASE(1) PANEL_I8_CASE(2) PANEL_I8_CASE(3) PANEL_I8_CASE(4) PANEL_I8_CASE(5) PANEL_I8_CASE(6)
        PANEL_I8_CASE(7) PANEL_I8_CASE(8) PANEL_I8_CASE(9) PANEL_I8_CASE(10) PANEL_I8_CASE(11) PANEL_I8_CASE(12)
        PANEL_I8_CASE(13) PANEL_I8_CASE(14) PANEL_I8_CASE(15) PANEL_I8_CASE(16)
    }
}

// cpuid says VNNI with the zmm state saved, and the process runs the avx512
// path (a forced narrower one behaves as a CPU without VNNI: kernels/cpu.h)
static int cpu_has_vnni(void) { return cpu_info()->vnni && kernel_isa() == KERNEL_AVX512; }
#endif

const char *matvec_i8_cpu_missing(void) {
    const char *hook = getenv("LMTRAIN_CPU_NO_VNNI");
    if (hook && *hook) return "this CPU has no AVX-512 VNNI (LMTRAIN_CPU_NO_VNNI is set: the test hook)";
#if defined(I8_HAVE_KERNELS)
    if (cpu_info()->vnni && !cpu_has_vnni())
        return "LMTRAIN_ISA forces a kernel path without AVX-512 VNNI (this CPU has avx512_vnni: unset LMTRAIN_ISA, "
               "or set avx512)";
    if (!cpu_has_vnni()) return "this CPU has no AVX-512 VNNI (avx512_vnni in /proc/cpuinfo)";
    return NULL;
#else
    return "this build has no int8 kernels (they need an x86-64 compiler: GCC >= 10 or Clang >= 9)";
#endif
}

static int force_plain;
void matvec_i8_force_plain(int on) { force_plain = on; }

// The CPU check once per process (it reads the environment for its test hook).
static int use_vnni(void) {
    static int have = -1;
    if (have < 0) have = matvec_i8_cpu_missing() == NULL;
    return have && !force_plain;
}

const char *matvec_i8_kernel(void) { return use_vnni() ? "avx512-vnni" : "plain-c"; }

float matvec_i8_quantize_input(uint8_t *u, const float *inp, MatvecInput act, size_t K) {
#if defined(I8_HAVE_KERNELS)
    if (use_vnni()) {
        float a = range_avx512(inp, K, act);
        quantize_avx512(u, inp, K, act, a);
        return scale_of(a);
    }
#endif
    float a = range_plain(inp, K, act);
    quantize_plain(u, inp, K, act, a);
    return scale_of(a);
}

void matvec_i8_in(float *out, const float *inp, MatvecInput act, const void *packed, size_t K, size_t OC,
                  MatvecMode mode, uint8_t *scratch) {
    assert(K <= MATVEC_I8_MAX_K);
    const unsigned char *panel = packed;
    size_t Q = quads(K);
#if defined(I8_HAVE_KERNELS)
    if (use_vnni()) {
        float a = range_avx512(inp, K, act), sx = scale_of(a);
        // the first panel quantises the input as it goes, unless there is no
        // scale to quantise with (then u = 128: x = 0 throughout)
        const float *x = a >= MATVEC_I8_TINY ? inp : NULL;
        if (!x) memset(scratch, 128, matvec_i8_scratch_bytes(K));
        for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
            size_t n = min_sz(MATVEC_PANEL, OC - r), width = width_of(n);
            panel_avx512(out + r, scratch, r == 0 ? x : NULL, K, act, a, panel, Q, n, width / 16, sx, mode);
            panel += panel_bytes(K, width);
        }
        return;
    }
#endif
    float sx = matvec_i8_quantize_input(scratch, inp, act, K);
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), width = width_of(n);
        panel_plain(out + r, scratch, panel, Q, n, width, sx, mode);
        panel += panel_bytes(K, width);
    }
}

void matvec_i8(float *out, const float *inp, const void *packed, size_t K, size_t OC, MatvecMode mode,
               uint8_t *scratch) {
    matvec_i8_in(out, inp, MATVEC_IN_PLAIN, packed, K, OC, mode, scratch);
}
