// test_bf16_step.c — one training step's loss and gradients with
// [train] precision = bf16 against the fp32 step, same weights, same batch.
//
// Tolerance. bf16 touches only the matmuls: each of the D = 4L + 1 matmul
// nodes (q/k/v, attention output, two MLP, the tied head) rounds its operands
// to bf16 in forward and in both backward products; attention, LayerNorm,
// GELU, the loss and every accumulation stay fp32. Rounding to bf16 moves a
// value by at most 2^-8 of itself, so a product of two rounded operands by at
// most 2^-7 (first order), and a matmul's output by at most 2^-7 of
// sum_k |a_k b_k| — a bound that assumes every error points the same way
// (measured errors, below, are ~10x smaller: they point every which way). A
// gradient depends on the forward matmuls (D), the backward products that
// carry d(loss) down to its layer (at most 2D), and its own product: taking
// each of those 3D + 1 as contributing 2^-7 of the gradient's size, in the
// same direction, gives the bound
//     ||g_bf16 - g_fp32|| / ||g_fp32|| <= (3D + 1) 2^-7  per parameter tensor,
// and for the loss, whose error comes from the forward's D matmuls through
// the logits (|d loss / d logit| <= 1 per position, logits of O(1) here):
//     |loss_bf16 - loss_fp32| <= D 2^-7.
// Both are worst-case sums, not fits to what was measured; a wrong transpose,
// a dropped accumulation or a gradient not added is an O(1) error and fails
// by orders of magnitude. The measured values print for the record.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "small_model.h"
#include "test.h"
#include "util/pool.h"

typedef struct {
    double loss;
    float *grad;  // copy of the model's gradient block
} Step;

static Step one_step(Model *m, Precision p, size_t B, size_t T) {
    Graph g;
    graph_build_prec(&g, m, B, T, p);
    small_batch(&g, m->V, 2024);
    Step r;
    r.loss = graph_forward_backward(&g, m);
    r.grad = malloc(m->n_floats * sizeof(float));
    memcpy(r.grad, m->grad, m->n_floats * sizeof(float));
    graph_free(&g);
    return r;
}

static double rel_err(const float *a, const float *b, size_t n) {
    double d = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        double e = (double)a[i] - (double)b[i];
        d += e * e;
        nb += (double)b[i] * (double)b[i];
    }
    return nb > 0 ? sqrt(d / nb) : (d > 0 ? INFINITY : 0);
}

static void check_kind(const char *kind) {
    Config c;
    small_config(&c, (SmallModel){kind, .layers = 2, .heads = 2, .d_model = 64, .block_size = 32, .chunk = 16});
    const size_t V = 65, B = 4, T = 32;
    Model m;
    model_build(&m, &c, V);
    CHECK(!strcmp(m.kind->name, kind));  // the set-up built the kind asked for
    Step f = one_step(&m, PRECISION_FP32, B, T);
    Step h = one_step(&m, PRECISION_BF16, B, T);
    double D = 4.0 * (double)m.L + 1.0;
    double tol_loss = D * 0x1p-7, tol_grad = (3.0 * D + 1.0) * 0x1p-7;
    double worst = 0;
    const char *worst_name = "";
    int differs = 0;
    for (size_t i = 0; i < m.n_params; i++) {
        const Param *p = &m.params[i];
        if (!p->t.grad) continue;
        const float *gh = h.grad + p->offset, *gf = f.grad + p->offset;
        double e = rel_err(gh, gf, p->t.n);
        differs |= memcmp(gh, gf, p->t.n * sizeof(float)) != 0;
        if (!(e <= worst)) {
            worst = e;
            worst_name = p->t.name;
        }
        if (!(e <= tol_grad)) fprintf(stderr, "  %s: %s relative error %.3g > %.3g\n", kind, p->t.name, e, tol_grad);
        CHECK(e <= tol_grad);
    }
    printf("  %s: loss fp32 %.6f bf16 %.6f (|diff| %.2g, bound %.3g); worst gradient %s %.3g (bound %.3g)\n",
           kind, f.loss, h.loss, fabs(h.loss - f.loss), tol_loss, worst_name, worst, tol_grad);
    CHECK_NEAR(h.loss, f.loss, tol_loss);
    CHECK(differs);  // the step really ran in bf16 (not the fp32 graph under another name)
    CHECK(h.loss != f.loss);
    free(f.grad);
    free(h.grad);
    model_free(&m);
}

static void bf16_step_near_fp32(void) {
    const char *missing = bf16_cpu_missing();
    if (missing) {
        SKIP("avx512_bf16", "%s", missing);
        return;
    }
    check_kind("softmax");
    check_kind("linear_decay");
    check_kind("delta");
}

// fp32 through graph_build_prec is graph_build, bit for bit.
static void fp32_prec_is_graph_build(void) {
    Config c;
    small_config(&c, (SmallModel){.layers = 1, .d_model = 32, .block_size = 16});
    Model m;
    model_build(&m, &c, 65);
    Step a = one_step(&m, PRECISION_FP32, 2, 16);
    Graph g;
    graph_build(&g, &m, 2, 16);
    small_batch(&g, m.V, 2024);
    double loss = graph_forward_backward(&g, &m);
    CHECK(loss == a.loss);
    CHECK(memcmp(a.grad, m.grad, m.n_floats * sizeof(float)) == 0);
    graph_free(&g);
    free(a.grad);
    model_free(&m);
}

int main(void) {
    pool_init(2);
    TEST(bf16_step_near_fp32);
    TEST(fp32_prec_is_graph_build);
    pool_shutdown();
    return test_summary();
}
