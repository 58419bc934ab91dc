// gelu.h — GELU's value at one point, the one definition of it: gelu.c's
// forward maps it over a tensor; generation's bf16 products apply it to their
// input as they round it (matvec.h, MATVEC_IN_GELU). Plain C the vectoriser
// turns into SIMD (see gelu.c for the form and why), so both give the same bits.
#pragma once
#include "kernels/vexp.h"

#define GELU_K 0.7978845608028654f  // sqrt(2 / pi)
#define GELU_A 0.044715f

// 0.5 x (1 + tanh(GELU_K (x + GELU_A x^3))), written as x sigmoid(2z)
static inline float gelu_value(float x) {
    float z = GELU_K * (x + GELU_A * x * x * x);
    return x / (1.0f + vexpf(-2.0f * z));
}
