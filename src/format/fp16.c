// fp16.c — float32 <-> float16 by bit manipulation (see fp16.h).
//
// float32: 1 sign, 8 exponent (bias 127), 23 fraction bits.
// float16: 1 sign, 5 exponent (bias 15), 10 fraction bits.
#include "fp16.h"

#include <string.h>

static uint32_t bits_of(float x) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static float float_of(uint32_t b) {
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

uint16_t fp16_from_f32(float x) {
    uint32_t b = bits_of(x);
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    uint32_t a = b & 0x7fffffffu;  // |x|
    if (a > 0x7f800000u)  // NaN: keep the top payload bits, force quiet so it stays a NaN
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u)  // |x| >= 65520 = 65504 + half an ulp: rounds to infinity (inf too)
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) {  // |x| >= 2^-14: a normal half
        // Drop 13 fraction bits, rounding to nearest even: add 0xfff plus the
        // lowest kept bit, then truncate. A carry out of the fraction bumps the
        // exponent, which is the correct result (e.g. 2047.9 -> 2048).
        uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
        return (uint16_t)(sign | ((r - ((uint32_t)(127 - 15) << 23)) >> 13));
    }
    // |x| < 2^-14: a subnormal half, k * 2^-24 with k = round(|x| / 2^-24) in [0, 1024]
    // (1024 is the smallest normal, whose encoding is the same bits).
    if (a < 0x33000001u) return sign;  // |x| <= 2^-25: half of the smallest subnormal or less
    uint32_t e = a >> 23;                          // biased exponent, 102 .. 112 here
    uint32_t m = (a & 0x7fffffu) | 0x800000u;      // significand with its implicit bit
    uint32_t shift = 126u - e;                     // |x| = m * 2^(e - 150) = (m >> shift) * 2^-24
    uint32_t k = m >> shift, rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (k & 1u))) k++;
    return (uint16_t)(sign | k);
}

float fp16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13));  // inf, NaN
    if (e == 0) {  // zero or subnormal: m * 2^-24, exact in float
        float v = (float)m * 5.9604644775390625e-8f;  // 2^-24
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 127u - 15u) << 23) | (m << 13));
}

float fp16_round(float x) { return fp16_to_f32(fp16_from_f32(x)); }

void fp16_round_array(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = fp16_round(x[i]);
}
