// test_attention_io.c — the attention op reading q, k, v and writing y in place
// (kinds with forward_io / backward_io) against the obvious route: the
// projection copied into head-major slabs by plain loops here, the kind's
// head-major forward and backward, the result copied back. Every output —
// y, the projection's gradient, dθ — must be the same bits (and the gradient,
// when it held something, that plus the slab route's within rounding), for every kind that has the in-place form, over shapes and options
// that reach every code path (several chunks and a short last one, T below
// and above a softmax tile, normalize on and off, each feature map, λ per
// token with its gate channel, odd head sizes).
#include <string.h>

#include "../test.h"
#include "../attention/attn_check.h"
#include "attention/attention.h"
#include "attention/decay.h"
#include "autograd/ops.h"
#include "util/pool.h"
#include "util/rng.h"

typedef struct {
    size_t B, T, H, dh;
    int chunk, normalize, data_decay;
    FeatureMap fmap;
} Shape;

static void fill(Rng *r, float *x, size_t n, float scale) {
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
}

// 1 if every output agrees bit for bit
// grad0: the projection's gradient holds random values before the backward
// (else zero, as in the model, where this op is the projection's only reader)
static int one_case(const AttnKind *kind, const Shape *s, int threads, int grad0) {
    pool_init(threads);
    AttnConfig cfg = {.heads = (int)s->H, .dh = (int)s->dh, .feature_map = s->fmap, .eps = 1e-6f,
                      .normalize = s->normalize, .chunk = s->chunk, .key_norm = KEYNORM_SUM,
                      .data_decay = s->data_decay, .decay_learned = 1};
    if (kind->uses_key_norm) cfg.key_norm = attn_default_key_norm(kind, s->normalize);
    size_t B = s->B, T = s->T, H = s->H, dh = s->dh, C = H * dh, na = attn_aux(kind, &cfg);
    size_t W = 3 * C + H * na, N = B * T;
    AttnOp a = {kind, cfg, B, T, 0};
    Rng r;
    rng_seed(&r, 7 + (unsigned)T);

    // the op under test, on a tape
    Tape t;
    tape_init(&t);
    Tensor *qkv = tape_tensor(&t, "qkv", N, W, 1);
    float thd[8], thg[8] = {0}, thg_ref[8] = {0};
    Tensor theta = {.data = thd, .grad = thg, .rows = 1, .cols = H, .n = H, .name = "theta"};
    for (size_t h = 0; h < H; h++) thd[h] = (float)attn_logit(0.55 + 0.4 * (double)h / (double)H);
    Tensor *y = op_attention(&t, "attn", qkv, kind->uses_decay ? &theta : NULL, &a);
    tape_finalize(&t);
    Node *node = &t.nodes[t.n_nodes - 1];
    int ok = op_attention_in_place(node);
    fill(&r, qkv->data, N * W, 0.8f);
    if (grad0) fill(&r, qkv->grad, N * W, 1.0f);  // backward adds to it
    float *g0 = malloc(N * W * sizeof(float));
    memcpy(g0, qkv->grad, N * W * sizeof(float));
    node->op->forward(node);
    fill(&r, y->grad, N * C, 1.0f);
    node->op->backward(node);

    // the reference: slabs by hand, the kind's head-major form
    size_t S = B * H * T * dh;
    float *q = malloc(S * sizeof(float)), *k = malloc(S * sizeof(float)), *v = malloc(S * sizeof(float));
    float *yh = malloc(S * sizeof(float)), *dyh = malloc(S * sizeof(float));
    float *dq = calloc(S, sizeof(float)), *dk = calloc(S, sizeof(float)), *dv = calloc(S, sizeof(float));
    float *aux = malloc((B * H * na * T + 1) * sizeof(float)), *daux = calloc(B * H * na * T + 1, sizeof(float));
    float *work = malloc(kind->work_floats(&cfg, B, T) * sizeof(float));
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++)
            for (size_t p = 0; p < T; p++) {
                const float *row = qkv->data + (b * T + p) * W;
                size_t sl = ((b * H + h) * T + p) * dh;
                for (size_t i = 0; i < dh; i++) {
                    q[sl + i] = row[h * dh + i];
                    k[sl + i] = row[C + h * dh + i];
                    v[sl + i] = row[2 * C + h * dh + i];
                    dyh[sl + i] = y->grad[(b * T + p) * C + h * dh + i];
                }
                for (size_t j = 0; j < na; j++) aux[((b * H + h) * na + j) * T + p] = row[3 * C + h * na + j];
            }
    const float *th = kind->uses_decay ? thd : NULL;
    kind->forward(&cfg, B, T, yh, work, q, k, v, aux, th);
    kind->backward(&cfg, B, T, dq, dk, dv, daux, kind->uses_decay ? thg_ref : NULL, dyh, work, q, k, v,
                   aux, th, yh);
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++)
            for (size_t p = 0; p < T; p++) {
                float *grow = g0 + (b * T + p) * W;
                size_t sl = ((b * H + h) * T + p) * dh;
                for (size_t i = 0; i < dh; i++) {
                    ok &= y->data[(b * T + p) * C + h * dh + i] == yh[sl + i];
                    grow[h * dh + i] += dq[sl + i];
                    grow[C + h * dh + i] += dk[sl + i];
                    grow[2 * C + h * dh + i] += dv[sl + i];
                }
                for (size_t j = 0; j < na; j++) grow[3 * C + h * na + j] += daux[((b * H + h) * na + j) * T + p];
            }
    if (grad0) {
        // added onto a gradient that held something: the kind's partial sums
        // (a softmax dq over key tiles, say) now add onto the old value one by
        // one, so the same sum in another order — close, not the same bits
        float *sum = malloc(N * W * sizeof(float));
        memcpy(sum, g0, N * W * sizeof(float));
        double *want = malloc(N * W * sizeof(double));
        for (size_t i = 0; i < N * W; i++) want[i] = sum[i];
        ok &= rel_err(qkv->grad, want, N * W) <= 1e-6;
        free(sum), free(want);
    } else {
        ok &= memcmp(g0, qkv->grad, N * W * sizeof(float)) == 0;
    }
    ok &= memcmp(thg, thg_ref, sizeof thg) == 0;
    if (!ok)
        fprintf(stderr, "  %s B%zu T%zu H%zu dh%zu chunk %d norm %d fmap %d data %d threads %d: differs\n",
                kind->name, B, T, H, dh, s->chunk, s->normalize, (int)s->fmap, s->data_decay, threads);
    free(q), free(k), free(v), free(yh), free(dyh), free(dq), free(dk), free(dv), free(aux), free(daux);
    free(work), free(g0);
    tape_free(&t);
    return ok;
}

static void test_in_place_matches_slabs(void) {
    const Shape shapes[] = {
        {2, 64, 4, 32, 64, 1, 0, FMAP_ELU1},   // the baby model's slab: one chunk, one tile
        {2, 150, 3, 8, 64, 1, 0, FMAP_ELU1},   // 3 chunks, a short last one; 3 softmax tiles
        {3, 37, 2, 5, 16, 0, 0, FMAP_RELU},    // odd head size, no normaliser
        {1, 70, 2, 16, 32, 1, 0, FMAP_IDENTITY},
        {2, 45, 2, 8, 16, 1, 1, FMAP_ELU1},    // λ per token: a gate channel per head
        {2, 100, 2, 64, 32, 1, 0, FMAP_IDENTITY},  // head size 64: delta's WY form (4 chunks, a short last)
        {1, 70, 3, 64, 64, 1, 1, FMAP_ELU1},   // the WY form with λ per token
    };
    int kinds = 0;
    for (int i = 0; attn_kinds[i]; i++) {
        const AttnKind *kind = attn_kinds[i];
        if (!kind->forward_io) continue;
        kinds++;
        for (size_t j = 0; j < sizeof shapes / sizeof shapes[0]; j++) {
            if (shapes[j].data_decay && !kind->data_decay) continue;
            CHECK(one_case(kind, &shapes[j], 1, 0));
            CHECK(one_case(kind, &shapes[j], 2, 0));
            CHECK(one_case(kind, &shapes[j], 3, 0));  // more threads than cores: another split of the slabs
            CHECK(one_case(kind, &shapes[j], 2, 1));
        }
    }
    CHECK(kinds >= 4);  // softmax, linear, linear_decay, delta
    pool_init(1);
}

// With the key shift the op must take the slab route (a key is another row's)
static void test_key_shift_copies(void) {
    AttnConfig cfg = {.heads = 2, .dh = 4, .feature_map = FMAP_ELU1, .eps = 1e-6f, .normalize = 1, .chunk = 8};
    for (int shift = 0; shift < 2; shift++) {
        AttnOp a = {attn_kind_find("linear"), cfg, 2, 8, shift};
        Tape t;
        tape_init(&t);
        Tensor *qkv = tape_tensor(&t, "qkv", 16, 24, 1);
        op_attention(&t, "attn", qkv, NULL, &a);
        tape_finalize(&t);
        CHECK(op_attention_in_place(&t.nodes[0]) == !shift);
        tape_free(&t);
    }
}

int main(void) {
    TEST(test_in_place_matches_slabs);
    TEST(test_key_shift_copies);
    return test_summary();
}
