// test_fused.c — the kernels of fused.h against the kernel sequences they
// stand for, bit for bit, the output holding random values (NaN-free garbage
// it must overwrite) before the call:
//   matmul_residual_forward   vs matmul_forward_prec, add_forward
// Shapes with edge tiles, gemm.c's row, column and K blocks crossed, one row,
// width 1, width 0; 1 and 3 threads; fp32 and, where the CPU has it, bf16.
// (The op on the tape: tests/autograd/test_fused_ops.c.)
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

// inp (N, C), w (OC, C), res (N, OC)
static int one_case(size_t N, size_t C, size_t OC, int threads, Precision p) {
    pool_init(threads);
    Rng r;
    rng_seed(&r, 31 * N + 7 * C + OC);
    float *inp = rnd(&r, N * C, 1.0f), *w = rnd(&r, OC * C, 1.0f), *res = rnd(&r, N * OC, 1.0f);
    int ok = 1;

    // residual: out = res + inp @ w^T
    float *a = rnd(&r, N * OC, 1.0f), *b = copy(a, N * OC);
    matmul_residual_forward(a, res, inp, w, N, C, OC, p);
    matmul_forward_prec(b, inp, w, N, C, OC, p);
    add_forward(b, res, b, N * OC);
    ok &= same("matmul_residual_forward", a, b, N * OC);

    if (!ok) fprintf(stderr, "  in N=%zu C=%zu OC=%zu, %d threads, %s\n", N, C, OC, threads, precision_names[p]);
    free(inp), free(w), free(res), free(a), free(b);
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
