// vexp.h — exp(x) in plain C that gcc vectorises (libm's expf is a call it
// cannot vectorise without -ffast-math). Used by GELU and the softmax of
// cross-entropy, where it runs on every element.
//
// vexpf(x) = exp(x) within ~2 ulp for x in [-87, 88]; 0 below -87 (where exp
// would leave the normal floats anyway); exp(88) = 1.65e38 above 88, never
// inf, so callers can form e / (1 + e) without inf / inf. NaN stays NaN.
// Every lane computes the same IEEE operations as the scalar code, so a value
// does not depend on where it falls in a vector (or on the thread split).
#pragma once
#include <math.h>
#include <stdint.h>
#include <string.h>

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
