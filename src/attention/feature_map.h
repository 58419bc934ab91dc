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
#include "attention/attn_kernel_names.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "attention/options.h"
#include "kernels/vexp.h"  // the one float exp; 0 below -87, NaN stays NaN

static inline float fmap_phi(FeatureMap m, float x) {
    switch (m) {
    case FMAP_ELU1: return x > 0.0f ? x + 1.0f : vexpf(x);
    case FMAP_RELU: return x < 0.0f ? 0.0f : x;  // NaN stays NaN
    default: return x;
    }
}

// dphi/dx at x (relu: 0 at x = 0, the usual subgradient)
static inline float fmap_dphi(FeatureMap m, float x) {
    switch (m) {
    case FMAP_ELU1: return x > 0.0f ? 1.0f : vexpf(x);
    case FMAP_RELU: return x > 0.0f ? 1.0f : 0.0f;
    default: return 1.0f;
    }
}

// out (n) = phi(x (n)). out may alias x.
extern void fmap_forward(FeatureMap m, float *out, const float *x, size_t n);
// dx (n) += dout (n) * phi'(x (n))
extern void fmap_backward(FeatureMap m, float *dx, const float *dout, const float *x, size_t n);
// The same, given phi = phi(x) already computed: elu1's slope is phi itself
// where x <= 0, so no exp is needed. Bit-identical to fmap_backward.
extern void fmap_backward_phi(FeatureMap m, float *dx, const float *dout, const float *x,
                       const float *phi, size_t n);

// The same over `rows` rows of n values whose dx and x rows lie ldx apart,
// dout and phi contiguous (rows, n), row by row.
extern void fmap_backward_phi_rows(FeatureMap m, float *dx, size_t ldx, const float *dout, const float *x,
                            const float *phi, size_t rows, size_t n);
