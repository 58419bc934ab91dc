// matmul.c — the bias-free linear layer, out = inp @ w^T, on top of gemm()
// (generation's one-token form is kernels/matvec.h).
//
// Weights are stored (OC, C) like torch.nn.Linear, so a row of w is one output
// channel's filter. All threading and determinism come from gemm().
#include "kernels/gemm.h"
#include "kernels/nn.h"

// out (N, OC), inp (N, C), w (OC, C)
void matmul_forward(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC) {
    if (N == 0 || OC == 0) return;
    // out[n, o] = sum_c inp[n, c] * w[o, c]; beta 0: out is overwritten, not read
    gemm(0, 1, N, OC, C, 1.0f, inp, C, w, C, 0.0f, out, OC);
}

// dinp (N, C) += dout @ w ; dw (OC, C) += dout^T @ inp
void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                     size_t N, size_t C, size_t OC) {
    // forward: out[n, o] = sum_c inp[n, c] * w[o, c]
    if (N == 0 || C == 0 || OC == 0) return;
    // dinp[n, c] += sum_o dout[n, o] * w[o, c]         dout (N, OC), w (OC, C)
    if (dinp) gemm(0, 0, N, C, OC, 1.0f, dout, OC, w, C, 1.0f, dinp, C);
    // dw[o, c] += sum_n dout[n, o] * inp[n, c]         dout^T: dout stored (N, OC) = K x M
    if (dw) gemm(1, 0, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dw, C);
}
