// test_fused_ops.c — the fused op (ops.h) against the plain ops it stands
// for, on the tape, forward and backward, bit for bit:
//   op_matmul_residual(res, x, w)                      vs op_add(res, op_matmul(x, w))
//   the same after a GELU, as in the model's MLP:      res + gelu(x @ w1^T) @ w2^T
// Each graph ends in a dot product with fixed random weights; the leaves' grads
// hold random values before the backward (it adds to them). The output and
// every leaf's gradient must be the same bits. Shapes: edge tiles (nothing a
// multiple of the 8 x 32 tile), the row, column and K blocks of gemm.c crossed
// (MC = 192, NC = 512, KC = 256), one row (the matrix-vector path), width 1;
// 1 and 3 threads; fp32 and, where the CPU has it, bf16 (the same products,
// so the same bits too).
#include <string.h>

#include "../test.h"
#include "autograd/ops.h"
#include "kernels/bf16.h"
#include "util/pool.h"
#include "util/rng.h"

enum { RESIDUAL, MLP };
static const char *const WHAT[] = {"matmul+residual", "mlp+residual"};

typedef struct {
    size_t N, C, F;
} Shape;

typedef struct {
    Tensor t;
    float *g0;  // the gradient before the backward
} Leaf;

static void leaf_init(Leaf *l, Rng *r, const char *name, size_t rows, size_t cols, float scale) {
    size_t n = rows * cols;
    l->t = (Tensor){.data = malloc(n * sizeof(float)), .grad = malloc(n * sizeof(float)), .rows = rows,
                    .cols = cols, .n = n, .name = name};
    l->g0 = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) l->t.data[i] = scale * rng_normal(r);
    for (size_t i = 0; i < n; i++) l->g0[i] = rng_normal(r);
}

static void leaf_free(Leaf *l) { free(l->t.data), free(l->t.grad), free(l->g0); }

// Runs the graph (fused or plain) once; copies its output and the leaves'
// gradients into out (y, then each leaf's grad in order).
static void run(int what, int fused, Precision p, Leaf *L, size_t nl, const float *r, float *out) {
    Tape t;
    tape_init(&t);
    Tensor *x = &L[0].t, *w1 = &L[1].t, *res = &L[2].t, *w2 = &L[3].t, *y;
    if (what == RESIDUAL) {
        y = fused ? op_matmul_residual(&t, "y", res, x, w1, p) : op_add(&t, "y", res, op_matmul_prec(&t, "c", x, w1, p));
    } else {
        Tensor *h = op_gelu(&t, "h", op_matmul_prec(&t, "fc", x, w1, p));
        y = fused ? op_matmul_residual(&t, "y", res, h, w2, p) : op_add(&t, "y", res, op_matmul_prec(&t, "proj", h, w2, p));
    }
    Tensor *loss = op_dot(&t, "loss", y, r);
    tape_finalize(&t);
    for (size_t i = 0; i < nl; i++) memcpy(L[i].t.grad, L[i].g0, L[i].t.n * sizeof(float));
    tape_forward(&t);
    tape_backward(&t, loss);
    memcpy(out, y->data, y->n * sizeof(float));
    out += y->n;
    for (size_t i = 0; i < nl; i++) {
        memcpy(out, L[i].t.grad, L[i].t.n * sizeof(float));
        out += L[i].t.n;
    }
    tape_free(&t);
}

// 1 if fused and plain agree bit for bit
static int one_case(int what, const Shape *s, int threads, Precision p) {
    pool_init(threads);
    Rng rng;
    rng_seed(&rng, 1000 * s->N + 10 * s->C + s->F);
    size_t N = s->N, C = s->C, F = s->F, out_cols = what == MLP ? C : F;
    Leaf L[4];
    leaf_init(&L[0], &rng, "x", N, C, 1.0f);
    leaf_init(&L[1], &rng, "w1", F, C, 1.0f);
    leaf_init(&L[2], &rng, "res", N, out_cols, 1.0f);
    leaf_init(&L[3], &rng, "w2", C, F, 0.5f);
    size_t nl = what == MLP ? 4 : 3;
    size_t total = N * out_cols;
    for (size_t i = 0; i < nl; i++) total += L[i].t.n;
    float *r = malloc(N * out_cols * sizeof(float));
    for (size_t i = 0; i < N * out_cols; i++) r[i] = rng_normal(&rng);
    float *a = malloc(total * sizeof(float)), *b = malloc(total * sizeof(float));
    run(what, 1, p, L, nl, r, a);
    run(what, 0, p, L, nl, r, b);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < total; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    if (bad)
        fprintf(stderr, "  %s %s N=%zu C=%zu F=%zu, %d threads: %zu of %zu values differ, first at %zu: %.9g vs %.9g\n",
                WHAT[what], precision_names[p], N, C, F, threads, bad, total, first, a[first], b[first]);
    for (int i = 0; i < 4; i++) leaf_free(&L[i]);
    free(r), free(a), free(b);
    return bad == 0;
}

static const Shape SHAPES[] = {{37, 45, 70}, {203, 300, 545}, {1, 45, 70}, {9, 1, 1}, {20, 600, 33}};

static void suite(Precision p) {
    if (p == PRECISION_BF16 && bf16_cpu_missing()) {
        SKIP("avx512_bf16", "%s", bf16_cpu_missing());
        return;
    }
    for (int what = RESIDUAL; what <= MLP; what++)
        for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
            for (int threads = 1; threads <= 3; threads += 2) CHECK(one_case(what, &SHAPES[s], threads, p));
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
