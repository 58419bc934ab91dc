// feature_map.h — the feature map phi of the fast-weight kinds, and its slope.
//
// phi is applied elementwise to raw query/key projections (SPEC §4):
//   elu1      phi(x) = elu(x) + 1 = x + 1 (x > 0), exp(x) (x <= 0)   always > 0
//   relu      phi(x) = max(x, 0)
//   identity  phi(x) = x
// Shared by every kind that reads or writes a fast-weight memory (linear,
// linear_decay, and later delta), so that all use the very same phi, in the
// chunked training form and in the one-token generation step alike.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attention/options.h"

// exp(x) for x <= 0, within a few ulp of expf, as plain arithmetic so that
// loops over it vectorise (libm's expf is a call per element and was ~70% of
// the fast-weight kernels' time). Cody-Waite reduction x = n ln2 + r,
// |r| <= ln2/2, then the degree-7 Taylor polynomial of e^r (truncation
// r^8/8! < 3e-9) and the exponent n put into the float's bits.
// Below -87 (e^-87 ≈ 1.6e-38, the edge of normal floats) it returns 0;
// NaN returns NaN (NaN detection must keep working); x > 0 returns 1 (callers
// never pass it; clamped only so that no input can reach undefined behaviour).
static inline float fmap_exp_neg(float x) {
    float xc = x >= -87.0f ? (x <= 0.0f ? x : 0.0f) : -87.0f;  // NaN -> -87, finite
    // round(xc / ln2) by the 1.5·2^23 trick (exact in round-to-nearest; no -ffast-math)
    float n = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = xc - n * 0.693145752f;  // ln2 high part: n * hi is exact
    r = r - n * 1.42860677e-6f;       // ln2 low part
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits = ((int32_t)n + 127) << 23;  // 2^n, n in [-126, 0]: a normal float
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return x >= -87.0f ? p * scale : (x < -87.0f ? 0.0f : x);  // last: NaN
}

static inline float fmap_phi(FeatureMap m, float x) {
    switch (m) {
    case FMAP_ELU1: return x > 0.0f ? x + 1.0f : fmap_exp_neg(x);
    case FMAP_RELU: return x < 0.0f ? 0.0f : x;  // NaN stays NaN
    default: return x;
    }
}

// dphi/dx at x (relu: 0 at x = 0, the usual subgradient)
static inline float fmap_dphi(FeatureMap m, float x) {
    switch (m) {
    case FMAP_ELU1: return x > 0.0f ? 1.0f : fmap_exp_neg(x);
    case FMAP_RELU: return x > 0.0f ? 1.0f : 0.0f;
    default: return 1.0f;
    }
}

// out (n) = phi(x (n)). out may alias x.
void fmap_forward(FeatureMap m, float *out, const float *x, size_t n);
// dx (n) += dout (n) * phi'(x (n))
void fmap_backward(FeatureMap m, float *dx, const float *dout, const float *x, size_t n);
// The same, given phi = phi(x) already computed: elu1's slope is phi itself
// where x <= 0, so no exp is needed. Bit-identical to fmap_backward.
void fmap_backward_phi(FeatureMap m, float *dx, const float *dout, const float *x,
                       const float *phi, size_t n);
