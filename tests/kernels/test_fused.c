// test_fused.c — the kernels of fused.h against the kernel sequences they
// stand for, bit for bit, with every accumulated output (dinp, dw, dpre)
// holding random values before the call (the backward adds to them):
//   matmul_residual_forward   vs matmul_forward_prec, add_forward
//   matmul_gelu_forward       vs matmul_forward_prec, gelu_forward
//   matmul_backward_gelu      vs matmul_backward_prec, gelu_backward
// Shapes with edge tiles, gemm.c's row, column and K blocks crossed, one row,
// width 1; 1 and 3 threads; fp32 and, where the CPU has it, bf16. (The ops on
// the tape: tests/autograd/test_fused_ops.c.)
#include "kernels/bf16.h"
#include "kernels/fused.h"
#include "kernels/nn.h"
#include "nn_check.h"

static float *rnd(Rng *r, size_t n, float scale) {
    float *x = xmalloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
    return x;
}

static float *copy(const float *x, size_t n) {
    float *y = xmalloc((n ? n : 1) * sizeof(float));
    memcpy(y, x, n * sizeof(float));
    return y;
}

static int same(const char *what, const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            fprintf(stderr, "  %s: [%zu] %.9g vs %.9g\n", what, i, a[i], b[i]);
            return 0;
        }
    return 1;
}

// inp (N, C), w (OC, C); the backward's inp is gelu(pre), pre (N, C)
static int one_case(size_t N, size_t C, size_t OC, int threads, Precision p) {
    pool_init(threads);
    Rng r;
    rng_seed(&r, 31 * N + 7 * C + OC);
    float *inp = rnd(&r, N * C, 1.0f), *w = rnd(&r, OC * C, 1.0f), *res = rnd(&r, N * OC, 1.0f);
    for (size_t o = 0; o < OC; o += 4)  // pre-activations past GELU's clamp at |x| = 10
        for (size_t c = 0; c < C; c++) w[o * C + c] *= 8.0f;
    int ok = 1;

    // residual: out = res + inp @ w^T
    float *a = rnd(&r, N * OC, 1.0f), *b = copy(a, N * OC);
    matmul_residual_forward(a, res, inp, w, N, C, OC, p);
    matmul_forward_prec(b, inp, w, N, C, OC, p);
    add_forward(b, res, b, N * OC);
    ok &= same("matmul_residual_forward", a, b, N * OC);

    // gelu: pre = inp @ w^T, out = gelu(pre)
    float *pa = rnd(&r, N * OC, 1.0f), *pb = copy(pa, N * OC);
    matmul_gelu_forward(a, pa, inp, w, N, C, OC, p);
    matmul_forward_prec(pb, inp, w, N, C, OC, p);
    gelu_forward(b, pb, N * OC);
    ok &= same("matmul_gelu_forward: pre", pa, pb, N * OC) && same("matmul_gelu_forward: out", a, b, N * OC);

    // backward through out = gelu(pre) @ w^T, pre (N, C)
    float *pre = rnd(&r, N * C, 4.0f), *h = xmalloc((N * C > 0 ? N * C : 1) * sizeof(float));
    gelu_forward(h, pre, N * C);
    float *dout = rnd(&r, N * OC, 1.0f);
    float *dh_a = rnd(&r, N * C, 1.0f), *dw_a = rnd(&r, OC * C, 1.0f), *dpre_a = rnd(&r, N * C, 1.0f);
    float *dh_b = copy(dh_a, N * C), *dw_b = copy(dw_a, OC * C), *dpre_b = copy(dpre_a, N * C);
    matmul_backward_gelu(dh_a, dw_a, dpre_a, pre, dout, h, w, N, C, OC, p);
    matmul_backward_prec(dh_b, dw_b, dout, h, w, N, C, OC, p);
    gelu_backward(dpre_b, pre, dh_b, N * C);
    ok &= same("matmul_backward_gelu: dinp", dh_a, dh_b, N * C) && same("matmul_backward_gelu: dw", dw_a, dw_b, OC * C) &&
          same("matmul_backward_gelu: dpre", dpre_a, dpre_b, N * C);
    if (!ok) fprintf(stderr, "  in N=%zu C=%zu OC=%zu, %d threads, %s\n", N, C, OC, threads, precision_names[p]);
    free(inp), free(w), free(res), free(a), free(b), free(pa), free(pb), free(pre), free(h), free(dout);
    free(dh_a), free(dw_a), free(dpre_a), free(dh_b), free(dw_b), free(dpre_b);
    return ok;
}

static void suite(Precision p) {
    if (p == PRECISION_BF16 && bf16_cpu_missing()) {
        SKIP("avx512_bf16", "%s", bf16_cpu_missing());
        return;
    }
    static const size_t shp[][3] = {{37, 45, 70}, {203, 300, 545}, {1, 45, 70}, {9, 1, 1}, {20, 600, 33}, {7, 5, 0}};
    for (size_t s = 0; s < sizeof shp / sizeof shp[0]; s++)
        for (int threads = 1; threads <= 3; threads += 2) CHECK(one_case(shp[s][0], shp[s][1], shp[s][2], threads, p));
    pool_init(1);
}

static void test_fp32(void) { suite(PRECISION_FP32); }
static void test_bf16(void) { suite(PRECISION_BF16); }

int main(void) {
    TEST(test_fp32);
    TEST(test_bf16);
    pool_shutdown();
    return test_summary();
}
