// fused.h — the element-wise ops that sit beside a product, run in its
// epilogue (gemm.h: GemmEpilogue) on each tile as it is stored, instead of as
// passes of their own over the whole tensor: no second trip through memory and
// no pool dispatch of their own. Each computes, per element, exactly what the
// product followed by the separate kernel computes (the same float operations
// on the same values: tests/kernels/test_fused.c compares the bits), at either
// matmul precision (bf16.h: the product's operands; the epilogue stays fp32).
#pragma once
#include <stddef.h>

#include "kernels/bf16.h"

// out (N, OC) = res + inp @ w^T: a projection and the residual add after it,
// add_forward(out, res, matmul(inp, w)). inp (N, C), w (OC, C), res (N, OC);
// out must not overlap res or inp.
void matmul_residual_forward(float *out, const float *res, const float *inp, const float *w, size_t N, size_t C,
                             size_t OC, Precision p);

// pre (N, OC) = inp @ w^T and out (N, OC) = gelu(pre): the MLP's first layer
// and its activation, gelu_forward(out, matmul(inp, w)). inp (N, C), w (OC, C).
void matmul_gelu_forward(float *out, float *pre, const float *inp, const float *w, size_t N, size_t C, size_t OC,
                         Precision p);

// The backward of out = inp @ w^T where inp = gelu(pre), carried on through the
// GELU: dinp (N, C) += dout @ w, then in the same product's epilogue
// dpre (N, C) += dinp * gelu'(pre) (gelu_backward's step, on dinp's final
// value: nothing else may add to dinp afterwards); dw (OC, C) += dout^T @ inp.
// dinp and dpre are required; dw may be NULL.
void matmul_backward_gelu(float *dinp, float *dw, float *dpre, const float *pre, const float *dout,
                          const float *inp, const float *w, size_t N, size_t C, size_t OC, Precision p);
