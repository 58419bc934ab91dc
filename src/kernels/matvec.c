// matvec.c — generation's one-token products over panel-packed weights
// (layout and arithmetic contracts in matvec.h).
//
// Why panels: a one-token step is bound by reading the weights (0.8 M
// parameters, 3.2 MB in fp32, past the 1 MiB L2), so what matters is reading
// them once, in one front-to-back stream, with whole aligned vectors. A panel
// of up to 256 outputs keeps 16 accumulators in registers while its K rows go
// by; the next panel and the next matrix start where it ends.
#include "kernels/matvec.h"

#include <string.h>

#include "kernels/bf16.h"
#include "kernels/gelu.h"
#include "kernels/gemm.h"

#if defined(__AVX512F__) || defined(BF16_HAVE_KERNELS)
#include <immintrin.h>
#endif

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
static size_t vecs(size_t n) { return (n + 15) / 16; }  // 16-float vectors for n outputs

size_t matvec_f32_packed_size(size_t K, size_t OC) {
    size_t total = 0;
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) total += K * 16 * vecs(min_sz(MATVEC_PANEL, OC - r));
    return total;
}

void matvec_f32_pack(float *dst, const float *w, size_t OC, size_t K) {
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), width = 16 * vecs(n);
        for (size_t k = 0; k < K; k++, dst += width)
            for (size_t j = 0; j < width; j++) dst[j] = j < n ? w[(r + j) * K + k] : 0.0f;
    }
}

// ---------------------------------------------------------------- fp32

#if defined(__AVX512F__)
static inline __mmask16 mask_first(size_t n) {
    return n >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << n) - 1u);
}

// One panel: NQ vectors of outputs (a constant in each instantiation, so the
// accumulators stay in registers and the k loop has no branches). Per K block
// of GEMM_KC: acc = FMA chain from zero, k ascending; the first block's sum is
// the result, later ones are added to it: gemm_vec's arithmetic exactly (its
// alpha = 1 multiply and beta = 1 FMA are the identity and a plain add).
static inline __attribute__((always_inline)) void panel_f32(float *out, const float *inp, const float *w,
                                                            size_t K, size_t n, size_t NQ, MatvecMode mode) {
    __m512 res[16];
    for (size_t k0 = 0; k0 < K; k0 += GEMM_KC) {
        size_t k1 = min_sz(K, k0 + GEMM_KC);
        __m512 acc[16];
#pragma GCC unroll 16
        for (size_t q = 0; q < NQ; q++) acc[q] = _mm512_setzero_ps();
        for (size_t k = k0; k < k1; k++) {
            __m512 s = _mm512_set1_ps(inp[k]);
            const float *wk = w + k * 16 * NQ;
#pragma GCC unroll 16
            for (size_t q = 0; q < NQ; q++) acc[q] = _mm512_fmadd_ps(s, _mm512_load_ps(wk + 16 * q), acc[q]);
        }
#pragma GCC unroll 16
        for (size_t q = 0; q < NQ; q++) res[q] = k0 == 0 ? acc[q] : _mm512_add_ps(res[q], acc[q]);
    }
    if (K == 0)
        for (size_t q = 0; q < NQ; q++) res[q] = _mm512_setzero_ps();
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) {
        __mmask16 m = mask_first(n - 16 * q);
        float *o = out + 16 * q;
        __m512 v = mode == MATVEC_ADD ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, o), res[q]) : res[q];
        _mm512_mask_storeu_ps(o, m, v);
    }
}

#define PANEL_CASE(nq)                                         \
    case nq:                                                   \
        panel_f32(out + r, inp, w, K, n, nq, mode);            \
        break;

void matvec_f32(float *out, const float *inp, const float *packed, size_t K, size_t OC,
                MatvecMode mode) {
    const float *w = packed;
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r);
        switch (vecs(n)) {
            PANEL_CASE(1) PANEL_CASE(2) PANEL_CASE(3) PANEL_CASE(4) PANEL_CASE(5) PANEL_CASE(6)
            PANEL_CASE(7) PANEL_CASE(8) PANEL_CASE(9) PANEL_CASE(10) PANEL_CASE(11) PANEL_CASE(12)
            PANEL_CASE(13) PANEL_CASE(14) PANEL_CASE(15) PANEL_CASE(16)
        }
        w += K * 16 * vecs(n);
    }
}
#else
// Other instruction sets: gemm's own one-row path reads the panel in place
// (op(B) = B, leading dimension the padded width), so the values are gemm's.
void matvec_f32(float *out, const float *inp, const float *packed, size_t K, size_t OC,
                MatvecMode mode) {
    const float *w = packed;
    float tmp[MATVEC_PANEL];
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), width = 16 * vecs(n);
        gemm_serial(0, 0, 1, n, K, 1.0f, inp, K, w, width, 0.0f, tmp, n);
        for (size_t j = 0; j < n; j++) out[r + j] = mode == MATVEC_ADD ? out[r + j] + tmp[j] : tmp[j];
        w += K * width;
    }
}
#endif

// ---------------------------------------------------------------- bf16

static size_t pairs(size_t K) { return (K + 1) / 2; }

size_t matvec_bf16_packed_size(size_t K, size_t OC) {
    size_t total = 0;
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) total += 2 * pairs(K) * 16 * vecs(min_sz(MATVEC_PANEL, OC - r));
    return total;
}

// whole blocks: the first panel stores the rounded input a block at a time
size_t matvec_bf16_scratch_size(size_t K) { return (K + MATVEC_BLOCK - 1) / MATVEC_BLOCK * (MATVEC_BLOCK / 2); }

// Panel layout: for each pair of k (2p, 2p+1), per output a 32-bit word with
// bf16(W[o][2p]) in the low half and bf16(W[o][2p+1]) in the high half (what
// vdpbf16ps pairs with the input's word); a missing k or output is zero.
void matvec_bf16_pack(uint16_t *dst, const float *w, size_t OC, size_t K) {
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), width = 16 * vecs(n);
        for (size_t p = 0; p < pairs(K); p++, dst += 2 * width)
            for (size_t j = 0; j < width; j++)
                for (size_t h = 0; h < 2; h++) {
                    size_t k = 2 * p + h;
                    dst[2 * j + h] = j < n && k < K ? bf16_from_float(w[(r + j) * K + k]) : 0;
                }
    }
}

// What a product's input goes through before it is rounded (matvec.h)
static inline float act_value(MatvecInput act, float x) { return act == MATVEC_IN_GELU ? gelu_value(x) : x; }

// the input as bf16 pairs, one word per (2p, 2p+1): the bf16 values in order
// (little-endian, so value 2p is the low half of word p), zero past K
static void round_input(uint32_t *x2, const float *inp, size_t K, MatvecInput act) {
    uint16_t *h = (uint16_t *)(void *)x2;
    if (act == MATVEC_IN_PLAIN) {
        bf16_from_floats(h, inp, K);
    } else {
        float blk[MATVEC_BLOCK];
        for (size_t k0 = 0; k0 < K; k0 += MATVEC_BLOCK) {
            size_t nb = min_sz(MATVEC_BLOCK, K - k0);
            for (size_t k = 0; k < nb; k++) blk[k] = act_value(act, inp[k0 + k]);
            bf16_from_floats(h + k0, blk, nb);
        }
    }
    if (K % 2) h[K] = 0;
}

static void finish(float *out, const float *res, size_t n, MatvecMode mode) {
    for (size_t j = 0; j < n; j++) out[j] = mode == MATVEC_ADD ? out[j] + res[j] : res[j];
}

// Plain C: per output, the pair's two exact products added to an fp32 sum.
static void panel_bf16_plain(float *out, const uint32_t *x2, const uint32_t *w, size_t P, size_t n,
                             size_t width, MatvecMode mode) {
    float acc[MATVEC_PANEL] = {0};
    for (size_t p = 0; p < P; p++) {
        float x0 = bf16_to_float((uint16_t)(x2[p] & 0xFFFFu)), x1 = bf16_to_float((uint16_t)(x2[p] >> 16));
        const uint32_t *wp = w + p * width;
        for (size_t j = 0; j < n; j++) {
            acc[j] += bf16_to_float((uint16_t)(wp[j] & 0xFFFFu)) * x0;
            acc[j] += bf16_to_float((uint16_t)(wp[j] >> 16)) * x1;
        }
    }
    finish(out, acc, n, mode);
}

#if defined(BF16_HAVE_KERNELS)
// Compiled for AVX-512 BF16 whatever the build's -march (BF16_TARGET, see
// kernels/bf16.h) and only called when bf16_cpu_missing() says the CPU has it.
// NQ is a constant in each instantiation (see panel_bf16_avx512), so the
// accumulators stay in registers.
//
// The first panel of a product also rounds the input (`inp` non-NULL), a
// block of MATVEC_BLOCK values (MATVEC_BLOCK / 2 pairs) just before the block's
// pairs are used, into x2 for the later panels: the input's work (GELU's exp,
// the rounding) then runs between the weight loads of the block before,
// whose wait for memory leaves the arithmetic units idle, instead of in a
// pass of its own before the product.
BF16_TARGET static inline __attribute__((always_inline)) void round_block(uint32_t *x2, const float *inp, size_t K,
                                                                          size_t k0, MatvecInput act) {
    float blk[MATVEC_BLOCK];
    size_t nb = min_sz(MATVEC_BLOCK, K - k0);
    const float *x = inp + k0;
    if (nb == MATVEC_BLOCK && act == MATVEC_IN_GELU) {  // whole blocks: loops that vectorise
        for (size_t k = 0; k < MATVEC_BLOCK; k++) blk[k] = gelu_value(x[k]);
    } else if (nb == MATVEC_BLOCK) {
        memcpy(blk, x, sizeof blk);
    } else {
        for (size_t k = 0; k < MATVEC_BLOCK; k++) blk[k] = k < nb ? act_value(act, x[k]) : 0.0f;
    }
    // vcvtne2ps2bf16: the second operand's 16 values become the low half, so
    // the 32 bf16 come out in k order, two a word (round_input's layout)
    __m512bh h = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(blk + 16), _mm512_loadu_ps(blk));
    _mm512_store_si512((void *)(x2 + k0 / 2), (__m512i)h);
}

BF16_TARGET static inline __attribute__((always_inline)) void panel_bf16_core(
    float *out, const float *inp, size_t K, MatvecInput act, uint32_t *x2, const uint32_t *w, size_t P, size_t n,
    size_t NQ, MatvecMode mode) {
    __m512 acc[16];
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) acc[q] = _mm512_setzero_ps();
    for (size_t p = 0; p < P; p++) {
        if (inp && p % (MATVEC_BLOCK / 2) == 0) round_block(x2, inp, K, 2 * p, act);
        __m512bh s = (__m512bh)_mm512_set1_epi32((int)x2[p]);
        const uint32_t *wp = w + p * 16 * NQ;
#pragma GCC unroll 16
        for (size_t q = 0; q < NQ; q++)
            acc[q] = _mm512_dpbf16_ps(acc[q], s, (__m512bh)_mm512_load_si512((const void *)(wp + 16 * q)));
    }
#pragma GCC unroll 16
    for (size_t q = 0; q < NQ; q++) {  // NQ = ceil(n / 16): n - 16 q >= 1
        size_t left = n - 16 * q;
        __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        float *o = out + 16 * q;
        __m512 v = mode == MATVEC_ADD ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, o), acc[q]) : acc[q];
        _mm512_mask_storeu_ps(o, m, v);
    }
}

#define PANEL_BF16_CASE(nq)                                             \
    case nq:                                                            \
        panel_bf16_core(out, inp, K, act, x2, w, P, n, nq, mode);       \
        break;

BF16_TARGET static void panel_bf16_avx512(float *out, const float *inp, size_t K, MatvecInput act, uint32_t *x2,
                                          const uint32_t *w, size_t P, size_t n, size_t nq, MatvecMode mode) {
    switch (nq) {
        PANEL_BF16_CASE(1) PANEL_BF16_CASE(2) PANEL_BF16_CASE(3) PANEL_BF16_CASE(4) PANEL_BF16_CASE(5)
        PANEL_BF16_CASE(6) PANEL_BF16_CASE(7) PANEL_BF16_CASE(8) PANEL_BF16_CASE(9) PANEL_BF16_CASE(10)
        PANEL_BF16_CASE(11) PANEL_BF16_CASE(12) PANEL_BF16_CASE(13) PANEL_BF16_CASE(14) PANEL_BF16_CASE(15)
        PANEL_BF16_CASE(16)
    }
}
#endif

static int force_plain;
void matvec_bf16_force_plain(int on) { force_plain = on; }

// The CPU check once per process (it reads the environment for its test hook).
static int use_avx512_bf16(void) {
#if defined(BF16_HAVE_KERNELS)
    static int have = -1;
    if (have < 0) have = bf16_cpu_missing() == NULL;
    return have && !force_plain;
#else
    return 0;
#endif
}

const char *matvec_bf16_kernel(void) { return use_avx512_bf16() ? "avx512-bf16" : "plain-c"; }

void matvec_bf16_in(float *out, const float *inp, MatvecInput act, const uint16_t *packed, size_t K, size_t OC,
                    MatvecMode mode, uint32_t *scratch) {
    size_t P = pairs(K);
    const uint32_t *w = (const uint32_t *)(const void *)packed;
    int fast = use_avx512_bf16();
    if (!fast || OC == 0) round_input(scratch, inp, K, act);
    for (size_t r = 0; r < OC; r += MATVEC_PANEL) {
        size_t n = min_sz(MATVEC_PANEL, OC - r), nq = vecs(n);
#if defined(BF16_HAVE_KERNELS)
        if (fast)  // the first panel rounds the input as it goes
            panel_bf16_avx512(out + r, r == 0 ? inp : NULL, K, act, scratch, w, P, n, nq, mode);
        else
#endif
            panel_bf16_plain(out + r, scratch, w, P, n, 16 * nq, mode);
        w += P * 16 * nq;
    }
    (void)fast;
}

void matvec_bf16(float *out, const float *inp, const uint16_t *packed, size_t K, size_t OC, MatvecMode mode,
                 uint32_t *scratch) {
    matvec_bf16_in(out, inp, MATVEC_IN_PLAIN, packed, K, OC, mode, scratch);
}
