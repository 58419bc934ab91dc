// fused.h — element-wise ops run in the epilogue of the product beside them
// (gemm.h: GemmEpilogue), on each strip of rows as it is stored, instead of as
// passes of their own over the whole tensor: no second trip through memory, no
// pool dispatch and no tensor of their own. Each computes, per element, exactly
// what the product followed by the separate kernel computes (the same float
// operations on the same values: tests/kernels/test_fused.c compares the bits),
// at either matmul precision (bf16.h: the product's operands; the epilogue
// stays fp32). GELU was fused the same way (forward into mlp.fc, backward into
// mlp.proj's dX product) and measured 4-7 % slower on the large model's
// products (docs/speed-log.md): its exp and division make it compute-bound,
// and between the strips of a large product it pushes the GEMM's operands out
// of L1; so it stays a pass of its own.
#pragma once
#include <stddef.h>

#include "kernels/bf16.h"

// out (N, OC) = res + inp @ w^T: a projection and the residual add after it,
// add_forward(out, res, matmul(inp, w)). inp (N, C), w (OC, C), res (N, OC);
// out must not overlap res or inp.
void matmul_residual_forward(float *out, const float *res, const float *inp, const float *w, size_t N, size_t C,
                             size_t OC, Precision p);
