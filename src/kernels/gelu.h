// gelu.h — GELU's value and slope at one point, the one definition of each:
// gelu.c's forward and backward map them over a tensor (on AVX-512 as 16
// explicit lanes of the same operations); generation's bf16 products apply
// gelu_value to their input as they round it (matvec.h, MATVEC_IN_GELU). Plain
// C the vectoriser turns into SIMD (see gelu.c for the form and why), so every
// caller gets the same bits.
#pragma once
#include "kernels/vexp.h"

#define GELU_K 0.7978845608028654f  // sqrt(2 / pi)
#define GELU_A 0.044715f

// exp(-2z), z = GELU_K (x + GELU_A x^3): the value's and the slope's one exp
static inline float gelu_exp(float x) {
    float z = GELU_K * (x + GELU_A * x * x * x);
    return vexpf(-2.0f * z);
}

// 0.5 x (1 + tanh(GELU_K (x + GELU_A x^3))), written as x sigmoid(2z)
static inline float gelu_value(float x) { return x / (1.0f + gelu_exp(x)); }

// d gelu_value / dx, the backward's slope:
//   out = x * sig, sig = 1 / (1 + e), e = exp(-2z), z = K (x + A x^3)
//   d out / dx = sig + x * sig (1 - sig) * 2 dz/dx,  1 - sig = e * sig (no cancellation)
static inline float gelu_grad(float x) {
    // beyond |x| = 10 the derivative is 1 (x > 0) or 0 to float precision;
    // clamping keeps x^2 in dz finite there (inf * 0 would give NaN)
    x = x < -10.0f ? -10.0f : x;
    x = x > 10.0f ? 10.0f : x;
    float e = gelu_exp(x);
    float sig = 1.0f / (1.0f + e);
    float dz = GELU_K * (1.0f + 3.0f * GELU_A * x * x);
    return sig + 2.0f * x * sig * (e * sig) * dz;
}
