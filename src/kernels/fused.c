// fused.c — element-wise ops in the epilogues of the products beside them
// (fused.h). The GEMM hands each epilogue a finished strip of C (gemm.h); the
// epilogue applies the separate kernel's per-element step to it: the residual
// add's a + b (residual.c). So the bits are those of the unfused sequence; what
// changes is that the strip is read from L1 instead of memory, and that no
// pass of its own is dispatched.
#include "kernels/fused.h"

#include <stdio.h>
#include <stdlib.h>

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

static void residual_strip(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n) {
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
    GemmEpilogue e = {residual_strip, &k};
    // out[n, o] = res[n, o] + sum_c inp[n, c] * w[o, c]
    product(p, 0, 1, N, OC, C, inp, C, w, C, 0.0f, out, OC, &e);
}
