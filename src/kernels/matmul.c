// matmul.c — the bias-free linear layer, out = inp @ w^T, on top of gemm()
// (generation's one-token form is kernels/matvec.h).
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

// dinp (N, C) += dout @ w (dinp_store: =) ; dw (OC, C) += dout^T @ inp
void matmul_backward_prec(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                          size_t N, size_t C, size_t OC, Precision p, int dinp_store) {
    // forward: out[n, o] = sum_c inp[n, c] * w[o, c]
    if (N == 0 || C == 0 || OC == 0) return;
    // dinp[n, c] += sum_o dout[n, o] * w[o, c]         dout (N, OC), w (OC, C)
    // Stored (beta 0), the same bits as added to zeros (beta 1 on +0: s + 0):
    // gemm's fp32 sums start from +0 and add products, so none is -0, and
    // s + 0 = s for every other s. bf16's dot-product instruction flushes a
    // tiny result to a zero of its sign, so there -0 can come out: + 0 turns
    // it into the +0 the add gives.
    if (dinp) {
        gemm_for(p)(0, 0, N, C, OC, 1.0f, dout, OC, w, C, dinp_store ? 0.0f : 1.0f, dinp, C);
        if (dinp_store && p == PRECISION_BF16)
            for (size_t i = 0; i < N * C; i++) dinp[i] += 0.0f;
    }
    // dw[o, c] += sum_n dout[n, o] * inp[n, c]         dout^T: dout stored (N, OC) = K x M
    if (dw) gemm_for(p)(1, 0, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dw, C);
}

void matmul_forward(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC) {
    matmul_forward_prec(out, inp, w, N, C, OC, PRECISION_FP32);
}

void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                     size_t N, size_t C, size_t OC) {
    matmul_backward_prec(dinp, dw, dout, inp, w, N, C, OC, PRECISION_FP32, 0);
}
