// matmul.c — the bias-free linear layer, out = inp @ w^T, on top of gemm(),
// and its one-token form for generation (matvec_forward).
//
// Weights are stored (OC, C) like torch.nn.Linear, so a row of w is one output
// channel's filter. All threading and determinism come from gemm().
#include "kernels/bf16.h"
#include "kernels/gemm.h"
#include "kernels/nn.h"

typedef void GemmFn(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                    size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);

// the product every role of the layer goes through: fp32, or bf16 operands (gemm.h)
static GemmFn *gemm_for(Precision p) { return p == PRECISION_BF16 ? gemm_bf16 : gemm; }

// out (N, OC), inp (N, C), w (OC, C)
void matmul_forward_prec(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC,
                         Precision p) {
    if (N == 0 || OC == 0) return;
    // out[n, o] = sum_c inp[n, c] * w[o, c]; beta 0: out is overwritten, not read
    gemm_for(p)(0, 1, N, OC, C, 1.0f, inp, C, w, C, 0.0f, out, OC);
}

// dinp (N, C) += dout @ w ; dw (OC, C) += dout^T @ inp
void matmul_backward_prec(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                          size_t N, size_t C, size_t OC, Precision p) {
    // forward: out[n, o] = sum_c inp[n, c] * w[o, c]
    if (N == 0 || C == 0 || OC == 0) return;
    // dinp[n, c] += sum_o dout[n, o] * w[o, c]         dout (N, OC), w (OC, C)
    if (dinp) gemm_for(p)(0, 0, N, C, OC, 1.0f, dout, OC, w, C, 1.0f, dinp, C);
    // dw[o, c] += sum_n dout[n, o] * inp[n, c]         dout^T: dout stored (N, OC) = K x M
    if (dw) gemm_for(p)(1, 0, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dw, C);
}

void matmul_forward(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC) {
    matmul_forward_prec(out, inp, w, N, C, OC, PRECISION_FP32);
}

void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                     size_t N, size_t C, size_t OC) {
    matmul_backward_prec(dinp, dw, dout, inp, w, N, C, OC, PRECISION_FP32);
}

// out (OC) = inp (C) @ wt (C, OC). gemm's M == 1 shortcut with op(B) = B:
// the same per-element chain (k ascending per K block, FMA from 0) as the
// batched forward's row, without the pool or packing.
void matvec_forward(float *out, const float *inp, const float *wt, size_t C, size_t OC) {
    if (OC == 0) return;
    gemm_serial(0, 0, 1, OC, C, 1.0f, inp, C, wt, OC, 0.0f, out, OC);
}

// dst (cols, rows) = src (rows, cols)^T, in 32 x 32 blocks so both sides are
// read and written a cache line at a time
void transpose_copy(float *dst, const float *src, size_t rows, size_t cols) {
    const size_t blk = 32;
    for (size_t i0 = 0; i0 < rows; i0 += blk)
        for (size_t j0 = 0; j0 < cols; j0 += blk) {
            size_t i1 = i0 + blk < rows ? i0 + blk : rows, j1 = j0 + blk < cols ? j0 + blk : cols;
            for (size_t i = i0; i < i1; i++)
                for (size_t j = j0; j < j1; j++) dst[j * rows + i] = src[i * cols + j];
        }
}
