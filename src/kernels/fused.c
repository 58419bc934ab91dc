// fused.c — element-wise ops in the epilogues of the products beside them
// (fused.h). The GEMM hands each epilogue a finished tile of C (gemm.h); the
// epilogue applies the separate kernel's per-element step to it: the residual
// add's a + b (residual.c), GELU's value and derivative (gelu.h). So the bits
// are those of the unfused sequence; what changes is that the tile is read from
// L1 instead of memory, and that no pass of its own is dispatched.
#include "kernels/fused.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernels/gelu.h"
#include "kernels/gemm.h"

// the product at a precision, with an epilogue (matmul.c's choice of gemm)
static void product(Precision p, int transA, int transB, size_t M, size_t N, size_t K, const float *A, size_t lda,
                    const float *B, size_t ldb, float beta, float *C, size_t ldc, const GemmEpilogue *e) {
    if (p == PRECISION_BF16)
        gemm_bf16_epi(transA, transB, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc, e);
    else
        gemm_epi(transA, transB, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc, e);
}

// ---- residual: c = res + c -------------------------------------------------------

typedef struct {
    const float *res;  // (M, ld)
    size_t ld;
} ResidualEpi;

static void residual_tile(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n) {
    const ResidualEpi *k = e->ctx;
    for (size_t i = 0; i < m; i++) {
        float *restrict ci = c + i * ldc;
        const float *restrict ri = k->res + (i0 + i) * k->ld + j0;
        for (size_t j = 0; j < n; j++) ci[j] = ri[j] + ci[j];  // add_forward's a + b, a = res
    }
}

void matmul_residual_forward(float *out, const float *res, const float *inp, const float *w, size_t N, size_t C,
                             size_t OC, Precision p) {
    if (N == 0 || OC == 0) return;
    // the partial sums of a long K live in out between K blocks: res must be elsewhere
    if ((res < out + N * OC && out < res + N * OC) || (inp < out + N * OC && out < inp + N * C)) {
        fprintf(stderr, "lmtrain: internal error: matmul_residual_forward: out overlaps an input\n");
        abort();
    }
    ResidualEpi k = {res, OC};
    GemmEpilogue e = {residual_tile, &k};
    // out[n, o] = res[n, o] + sum_c inp[n, c] * w[o, c]
    product(p, 0, 1, N, OC, C, inp, C, w, C, 0.0f, out, OC, &e);
}

// ---- GELU forward: out = gelu(c), c kept ---------------------------------------

typedef struct {
    float *out;  // (M, ld)
    size_t ld;
} GeluEpi;

static void gelu_tile(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n) {
    const GeluEpi *k = e->ctx;
    for (size_t i = 0; i < m; i++) {
        const float *restrict ci = c + i * ldc;
        float *restrict oi = k->out + (i0 + i) * k->ld + j0;
        for (size_t j = 0; j < n; j++) oi[j] = gelu_value(ci[j]);  // gelu_forward's step
    }
}

void matmul_gelu_forward(float *out, float *pre, const float *inp, const float *w, size_t N, size_t C, size_t OC,
                         Precision p) {
    if (N == 0 || OC == 0) return;
    GeluEpi k = {out, OC};
    GemmEpilogue e = {gelu_tile, &k};
    // pre[n, o] = sum_c inp[n, c] * w[o, c]; out[n, o] = gelu(pre[n, o])
    product(p, 0, 1, N, OC, C, inp, C, w, C, 0.0f, pre, OC, &e);
}

// ---- GELU backward: dpre += c * gelu'(pre) -----------------------------------------

typedef struct {
    float *dpre;       // (M, ld)
    const float *pre;  // (M, ld)
    size_t ld;
} GeluBwdEpi;

static void gelu_bwd_tile(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n) {
    const GeluBwdEpi *k = e->ctx;
    for (size_t i = 0; i < m; i++) {
        const float *restrict ci = c + i * ldc;
        const float *restrict pi = k->pre + (i0 + i) * k->ld + j0;
        float *restrict di = k->dpre + (i0 + i) * k->ld + j0;
        for (size_t j = 0; j < n; j++) di[j] += ci[j] * gelu_grad(pi[j]);  // gelu_backward's step
    }
}

void matmul_backward_gelu(float *dinp, float *dw, float *dpre, const float *pre, const float *dout,
                          const float *inp, const float *w, size_t N, size_t C, size_t OC, Precision p) {
    // forward: out[n, o] = sum_c inp[n, c] * w[o, c],  inp = gelu(pre)
    if (N == 0 || C == 0) return;
    GeluBwdEpi k = {dpre, pre, C};
    GemmEpilogue e = {gelu_bwd_tile, &k};
    // dinp[n, c] += sum_o dout[n, o] * w[o, c], then dpre[n, c] += dinp[n, c] * gelu'(pre[n, c])
    product(p, 0, 0, N, C, OC, dout, OC, w, C, 1.0f, dinp, C, &e);
    // dw[o, c] += sum_n dout[n, o] * inp[n, c]
    if (dw && OC) product(p, 1, 0, OC, C, N, dout, OC, inp, C, 1.0f, dw, C, NULL);
}
