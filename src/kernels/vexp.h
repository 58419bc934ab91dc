// vexp.h — the program's one float exp: plain C that gcc vectorises (libm's
// expf is a call it cannot vectorise without -ffast-math). Every float exp of a
// training step goes through it: GELU, the softmax of cross-entropy, softmax
// attention (vexpf16 below, the same function on 16 lanes), the elu+1 feature
// map and the decay masks of the chunkwise fast-weight forms.
//
// vexpf(x) = exp(x) within 1 ulp for x in [-87, 88] where the target has FMA
// (every float of the range checked once: worst 0.94 ulp), within 2 ulp
// without (1.17 seen); 0 below -87 (where exp
// would leave the normal floats anyway); exp(88) = 1.65e38 above 88, never
// inf, so callers can form e / (1 + e) without inf / inf. NaN stays NaN.
// Every lane computes the same IEEE operations as the scalar code, so a value
// does not depend on where it falls in a vector (or on the thread split).
//
// Its bits depend on the path (fused multiply-adds or not), so the inline
// vexpf below exists in the kernel files only (kernels/isa.h); the rest of the
// program and the tests call the chosen path's vexpf through vexpf_one (one
// call per value: for cold code and references) or vexpf_n (one call per row).
#pragma once
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/kernel_names.h"

// vexpf(x), the chosen path's bits
extern float vexpf_one(float x);
// y[i] = vexpf(x[i]) for i < n; y may be x (kernels/vexp.c)
extern void vexpf_n(float *y, const float *x, size_t n);

#if !defined(KERNEL_ISA)
#define vexpf vexpf_one
#else

// a * b + c: one fused rounding where the target has fast FMA (then also the
// scalar tail uses it, so every position still agrees), two elsewhere.
#ifdef FP_FAST_FMAF
#define VEXP_MADD(a, b, c) fmaf(a, b, c)
#else
#define VEXP_MADD(a, b, c) ((a) * (b) + (c))
#endif

static inline float vexpf(float x) {
    float xc = x < -87.0f ? -87.0f : x;
    xc = xc > 88.0f ? 88.0f : xc;
    // x = n ln2 + r, |r| <= ln2 / 2, exp(x) = 2^n exp(r).
    // n = round(x / ln2) by the 1.5 * 2^23 trick: adding it leaves n in the
    // low mantissa bits of t (round to nearest), with no float -> int conversion
    const float magic = 12582912.0f;
    float t = VEXP_MADD(xc, 1.44269504088896341f, magic);
    float n = t - magic;
    // Cody-Waite: ln2_hi has 15 significant bits, so n * ln2_hi is exact
    float r = VEXP_MADD(-n, 0.693145751953125f, xc);
    r = VEXP_MADD(-n, 1.428606820309417e-6f, r);
    // Taylor to r^7: truncation error r^8 / 8! < 1e-8 relative for |r| <= 0.347
    float p = 1.0f / 5040.0f;
    p = VEXP_MADD(p, r, 1.0f / 720.0f);
    p = VEXP_MADD(p, r, 1.0f / 120.0f);
    p = VEXP_MADD(p, r, 1.0f / 24.0f);
    p = VEXP_MADD(p, r, 1.0f / 6.0f);
    p = VEXP_MADD(p, r, 0.5f);
    p = VEXP_MADD(p, r, 1.0f);
    p = VEXP_MADD(p, r, 1.0f);
    // 2^n: bits(t) - bits(magic) = n; the biased exponent n + 127 is in [1, 254]
    uint32_t tb, sb;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb - 0x4B400000u + 127u) << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    float e = p * s;
    return x < -87.0f ? 0.0f : e;
}

#if defined(__AVX512F__) && defined(FP_FAST_FMAF)
#include <immintrin.h>
// vexpf on 16 lanes, for kernels that hold their data in AVX-512 registers
// (softmax attention's row sums): the same IEEE operations in the same order
// as vexpf, lane by lane (VEXP_MADD is fmaf here), so that every lane gives
// vexpf's bits (tests/kernels/test_vexp.c compares them).
static inline __m512 vexpf16(__m512 x) {
    const __m512 lo = _mm512_set1_ps(-87.0f), hi = _mm512_set1_ps(88.0f);
    const __m512 magic = _mm512_set1_ps(12582912.0f);
    __mmask16 below = _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ);  // false for NaN, as in vexpf
    __m512 xc = _mm512_mask_blend_ps(below, x, lo);
    xc = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(xc, hi, _CMP_GT_OQ), xc, hi);
    __m512 t = _mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269504088896341f), magic);
    __m512 n = _mm512_sub_ps(t, magic);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), xc);  // fma(-n, c, xc)
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606820309417e-6f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512i sb = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4B400000));
    sb = _mm512_slli_epi32(_mm512_add_epi32(sb, _mm512_set1_epi32(127)), 23);
    __m512 e = _mm512_mul_ps(p, _mm512_castsi512_ps(sb));
    return _mm512_mask_blend_ps(below, e, _mm512_setzero_ps());
}
#endif

#if defined(__AVX2__) && defined(FP_FAST_FMAF) && !defined(__AVX512F__)
#include <immintrin.h>
// vexpf on 8 lanes, for the AVX2 path (no AVX-512): vexpf16's operations on
// half the lanes, so again vexpf's bits lane by lane (tests/kernels/test_vexp.c
// compares them on every path). gcc's own vectorisation of the scalar loops
// that call vexpf ran GELU at 1.5-2 GB/s on this path, a fifth of the step.
// The comparisons are ordered and quiet (false for NaN), as vexpf's.
static inline __m256 vexpf8(__m256 x) {
    const __m256 lo = _mm256_set1_ps(-87.0f), hi = _mm256_set1_ps(88.0f);
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    __m256 below = _mm256_cmp_ps(x, lo, _CMP_LT_OQ);
    __m256 xc = _mm256_blendv_ps(x, lo, below);
    xc = _mm256_blendv_ps(xc, hi, _mm256_cmp_ps(xc, hi, _CMP_GT_OQ));
    __m256 t = _mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), magic);
    __m256 n = _mm256_sub_ps(t, magic);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), xc);  // fma(-n, c, xc)
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606820309417e-6f), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i sb = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000));
    sb = _mm256_slli_epi32(_mm256_add_epi32(sb, _mm256_set1_epi32(127)), 23);
    __m256 e = _mm256_mul_ps(p, _mm256_castsi256_ps(sb));
    return _mm256_blendv_ps(e, _mm256_setzero_ps(), below);
}
#endif

#if !defined(FP_FAST_FMAF) && !defined(__AVX2__)
#define VEXP_HAVE_4 1  // vexpf4 below exists (callers test this, not the condition)
#include "kernels/vec4.h"
// vexpf on 4 lanes, for the portable path where the target has no fast FMA
// (x86-64's baseline): vexpf's operations lane by lane, VEXP_MADD a multiply
// then an add there, so every lane gives vexpf's bits (test_vexp compares
// them). The comparisons are ordered (false for NaN), as vexpf's.
static inline v4f vexpf4(v4f x) {
    const v4f lo = v4f_set1(-87.0f), hi = v4f_set1(88.0f), magic = v4f_set1(12582912.0f);
    v4i below = x < lo;
    v4f xc = v4f_select(below, lo, x);
    xc = v4f_select(xc > hi, hi, xc);
    v4f t = xc * v4f_set1(1.44269504088896341f) + magic;
    v4f n = t - magic;
    v4f r = -n * v4f_set1(0.693145751953125f) + xc;
    r = -n * v4f_set1(1.428606820309417e-6f) + r;
    v4f p = v4f_set1(1.0f / 5040.0f);
    p = p * r + v4f_set1(1.0f / 720.0f);
    p = p * r + v4f_set1(1.0f / 120.0f);
    p = p * r + v4f_set1(1.0f / 24.0f);
    p = p * r + v4f_set1(1.0f / 6.0f);
    p = p * r + v4f_set1(0.5f);
    p = p * r + v4f_set1(1.0f);
    p = p * r + v4f_set1(1.0f);
    v4i sb = ((v4i)t - 0x4B400000 + 127) << 23;  // 2^n, as vexpf's bits
    v4f e = p * (v4f)sb;
    return v4f_select(below, v4f_set1(0.0f), e);
}
#endif
#endif  // KERNEL_ISA
