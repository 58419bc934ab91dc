// test_matmul.c — matmul_forward/backward (out = inp @ w^T) against a double
// reference, central-difference gradients of inp and w on odd shapes, NULL
// gradients, and bit-identical results for 1, 2 and 3 threads; the bf16
// precision rounds the operands of all three products.
#include "kernels/bf16.h"
#include "kernels/nn.h"
#include "nn_check.h"

typedef struct {
    double *x, *w, *R;
    size_t N, C, OC;
} MmLoss;

// L = sum over (n, o) of (sum_c x[n, c] w[o, c]) * R[n, o]
static double mm_loss(void *vctx) {
    MmLoss *k = vctx;
    double L = 0;
    for (size_t n = 0; n < k->N; n++)
        for (size_t o = 0; o < k->OC; o++) {
            double s = 0;
            for (size_t c = 0; c < k->C; c++) s += k->x[n * k->C + c] * k->w[o * k->C + c];
            L += s * k->R[n * k->OC + o];
        }
    return L;
}

static void check_shape(size_t N, size_t C, size_t OC, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    float *x = xmalloc(N * C * sizeof(float)), *w = xmalloc(OC * C * sizeof(float)),
          *out = xmalloc(N * OC * sizeof(float)), *R = xmalloc(N * OC * sizeof(float)),
          *dx = xmalloc(N * C * sizeof(float)), *dw = xmalloc(OC * C * sizeof(float)),
          *dx0 = xmalloc(N * C * sizeof(float)), *dw0 = xmalloc(OC * C * sizeof(float));
    fill_uniform(&rng, x, N * C, -1, 1);
    fill_uniform(&rng, w, OC * C, -1, 1);
    fill_uniform(&rng, R, N * OC, -1, 1);
    fill_uniform(&rng, dx0, N * C, -1, 1);
    fill_uniform(&rng, dw0, OC * C, -1, 1);
    for (size_t i = 0; i < N * OC; i++) out[i] = NAN;  // forward must overwrite, not add

    // forward: each output is a dot product of length C; the standard bound for
    // any summation order is C eps sum_c |x w|
    matmul_forward(out, x, w, N, C, OC);
    int ok = 1;
    for (size_t n = 0; n < N; n++)
        for (size_t o = 0; o < OC; o++) {
            double s = 0, sa = 0;
            for (size_t c = 0; c < C; c++) {
                s += (double)x[n * C + c] * w[o * C + c];
                sa += fabs((double)x[n * C + c] * w[o * C + c]);
            }
            ok &= fabs(out[n * OC + o] - s) <= (double)C * FLT_EPSILON * sa + 1e-30;
        }
    CHECK(ok);

    memcpy(dx, dx0, N * C * sizeof(float));
    memcpy(dw, dw0, OC * C * sizeof(float));
    matmul_backward(dx, dw, R, x, w, N, C, OC);

    double *xd = xmalloc(N * C * sizeof(double)), *wd = xmalloc(OC * C * sizeof(double)),
           *Rd = xmalloc(N * OC * sizeof(double)), *g = xmalloc((N + OC) * C * sizeof(double));
    to_double(xd, x, N * C);
    to_double(wd, w, OC * C);
    to_double(Rd, R, N * OC);
    MmLoss L = {xd, wd, Rd, N, C, OC};
    // dx sums OC terms, dw sums N terms, each <= 1 in size, plus the init (<= 1)
    fd_grad(g, xd, N * C, mm_loss, &L);
    double ex = grad_err(dx, dx0, g, N * C, 1.0);
    CHECK(ex <= (double)(OC + 1) * FLT_EPSILON);
    fd_grad(g, wd, OC * C, mm_loss, &L);
    double ew = grad_err(dw, dw0, g, OC * C, 1.0);
    CHECK(ew <= (double)(N + 1) * FLT_EPSILON);
    if (t_case_failed) fprintf(stderr, "    N=%zu C=%zu OC=%zu: dx %.3g dw %.3g\n", N, C, OC, ex, ew);

    // NULL gradients: the other comes out the same, bit for bit
    float *dx2 = xmalloc(N * C * sizeof(float)), *dw2 = xmalloc(OC * C * sizeof(float));
    memcpy(dx2, dx0, N * C * sizeof(float));
    matmul_backward(dx2, NULL, R, x, w, N, C, OC);
    CHECK(memcmp(dx2, dx, N * C * sizeof(float)) == 0);
    memcpy(dw2, dw0, OC * C * sizeof(float));
    matmul_backward(NULL, dw2, R, x, w, N, C, OC);
    CHECK(memcmp(dw2, dw, OC * C * sizeof(float)) == 0);

    free(x), free(w), free(out), free(R), free(dx), free(dw), free(dx0), free(dw0), free(dx2);
    free(dw2), free(xd), free(wd), free(Rd), free(g);
}

static void test_matmul_odd_shapes(void) {
    size_t Ns[] = {1, 3, 17}, Cs[] = {1, 5, 33}, OCs[] = {1, 4, 19};
    uint64_t seed = 100;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            for (size_t l = 0; l < 3; l++) check_shape(Ns[i], Cs[j], OCs[l], seed++);
    check_shape(2, 128, 48, seed++);  // model-like widths, vector paths with tails
}

typedef struct {
    size_t N, C, OC;
    float *x, *w, *dout;
} MmDet;

static void mm_det_run(void *vctx, unsigned char *bytes) {
    MmDet *k = vctx;
    float *out = (float *)bytes, *dx = out + k->N * k->OC, *dw = dx + k->N * k->C;
    matmul_forward(out, k->x, k->w, k->N, k->C, k->OC);
    matmul_backward(dx, dw, k->dout, k->x, k->w, k->N, k->C, k->OC);
}

// threading lives in gemm(); this checks the composition stays invariant.
// N = 797: each of the three products is 7 M FMAs, over 3 of gemm's 2 M-FMA
// tasks, so all three split at 3 threads.
static void test_matmul_thread_count_invariant(void) {
    MmDet k = {797, 67, 131, NULL, NULL, NULL};
    Rng rng;
    rng_seed(&rng, 31);
    k.x = xmalloc(k.N * k.C * sizeof(float));
    k.w = xmalloc(k.OC * k.C * sizeof(float));
    k.dout = xmalloc(k.N * k.OC * sizeof(float));
    fill_uniform(&rng, k.x, k.N * k.C, -1, 1);
    fill_uniform(&rng, k.w, k.OC * k.C, -1, 1);
    fill_uniform(&rng, k.dout, k.N * k.OC, -1, 1);
    size_t nfloats = k.N * k.OC + k.N * k.C + k.OC * k.C;
    CHECK(same_bits_for_1_2_3_threads(mm_det_run, &k, nfloats * sizeof(float), 3));
    free(k.x), free(k.w), free(k.dout);
}

// bf16: every one of the three products rounds its operands. Values 1 + 2^-9
// round to 1 in bf16 (half a bf16 ulp at 1 is 2^-8), so with inp, w and dout
// all 1 + 2^-9 each product sums C (or OC, or N) exact ones — while fp32
// would give (1 + 2^-9)^2 per term. A role left in fp32 misses by ~2^-8
// relative; sums of ones below 2^24 are exact, so equality is the check.
static void test_matmul_bf16_rounds_every_role(void) {
    if (bf16_cpu_missing()) {
        SKIP("avx512_bf16", "%s", bf16_cpu_missing());
        return;
    }
    const size_t N = 37, C = 45, OC = 53;
    const float v = 1.0f + 0x1p-9f;
    float *inp = malloc(N * C * sizeof(float)), *w = malloc(OC * C * sizeof(float));
    float *out = malloc(N * OC * sizeof(float)), *dout = malloc(N * OC * sizeof(float));
    float *dinp = calloc(N * C, sizeof(float)), *dw = calloc(OC * C, sizeof(float));
    for (size_t i = 0; i < N * C; i++) inp[i] = v;
    for (size_t i = 0; i < OC * C; i++) w[i] = v;
    for (size_t i = 0; i < N * OC; i++) dout[i] = v;
    matmul_forward_prec(out, inp, w, N, C, OC, PRECISION_BF16);
    matmul_backward_prec(dinp, dw, dout, inp, w, N, C, OC, PRECISION_BF16, 0);
    int fwd = 1, din = 1, dwt = 1;
    for (size_t i = 0; i < N * OC; i++) fwd &= out[i] == (float)C;
    for (size_t i = 0; i < N * C; i++) din &= dinp[i] == (float)OC;
    for (size_t i = 0; i < OC * C; i++) dwt &= dw[i] == (float)N;
    CHECK(fwd);
    CHECK(din);
    CHECK(dwt);
    // and fp32 does not round: the same call at fp32 gives more than C
    matmul_forward_prec(out, inp, w, N, C, OC, PRECISION_FP32);
    CHECK(out[0] > (float)C);
    free(inp), free(w), free(out), free(dout), free(dinp), free(dw);
}

int main(void) {
    TEST(test_matmul_odd_shapes);
    TEST(test_matmul_thread_count_invariant);
    TEST(test_matmul_bf16_rounds_every_role);
    pool_shutdown();
    return test_summary();
}
