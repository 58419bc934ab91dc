// test_generate_weights.c — the generator's packed weights (model/generate.h,
// kernels/matvec.h).
//
// fp32: generator_step must be bit-identical to the one-token step written op
// by op with the training kernels (matmul_forward at N = 1 on the model's own
// matrices, add_forward for the residual adds) — the step generation had
// before the weights were packed, so `sample` output cannot change by a bit.
// bf16: the same step with half the bytes; its logits against fp32's within
// the tolerance derived at head_bound. int8: a quarter of the bytes, within
// the tolerance derived at head_bound_i8, and the same bits from either int8
// kernel.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "decisive_weights.h"
#include "attention/decay.h"
#include "kernels/matvec.h"
#include "kernels/matvec_i8.h"
#include "kernels/nn.h"
#include "model/generate.h"
#include "model/model.h"
#include "small_model.h"
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
    small_config(&c, (SmallModel){v->kind, .layers = v->layers, .heads = 2, .d_model = v->d_model,
                                  .block_size = v->block, .pos = v->pos, .key_shift = v->key_shift,
                                  .output_norm = v->output_norm, .decay = v->decay});
    c.ffn_mult = v->ffn_mult;
    c.seed = seed;
    model_build(m, &c, VOCAB);
    CHECK(!strcmp(m->kind->name, v->kind) && m->C == (size_t)v->d_model);  // the set-up built what was asked
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

// bf16 against fp32, teacher-forced on the same tokens. Per product the bf16
// error is bounded (kernels/matvec.h, tests/kernels/test_matvec.c): both
// operands rounded, relative 2^-9 each, plus the fp32 sum, so
// |dy_o| <= EPS * S_o with S_o = sum_k |w_ok x_k| and EPS = 2^-8 (1 + 2^-10 + K 2^-16).
// For the head (logits) S_v is computed from the fp32 step's final LayerNorm
// output (g.h) and wte. The errors of the 2L products before it reach the
// logits through LayerNorms and attention, where no useful rigorous bound
// exists; the tolerance gives each of the 2L + 1 products on the path one
// head-sized budget: |dlogit_v| <= (2L + 1) EPS max_v S_v. Measured on these
// models: the worst step uses 0.31 of it (VERBOSE=1 prints it).
static double head_bound(const Model *m, const float *h) {
    double eps = 0x1p-8 * (1 + 0x1p-10 + (double)m->C * 0x1p-16), worst = 0;
    for (size_t v = 0; v < m->V; v++) {
        double S = 0;
        for (size_t c = 0; c < m->C; c++) S += fabs((double)m->wte->data[v * m->C + c] * h[c]);
        if (S > worst) worst = S;
    }
    return eps * worst;
}

static int argmax(const float *x, size_t n) {
    int best = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = (int)i;
    return best;
}

// One teacher-forced step of a rounded path (b) against fp32 (a): the largest
// logit difference within tol (a NaN fails), whether any logit differs, the
// share of tol used, and whether the greedy choices agree.
typedef struct {
    int ok, differ;
    double worst_use;
    size_t agree, steps;
} Closeness;

static void compare_step(Closeness *c, const float *a, const float *b, size_t V, double tol) {
    double d = 0;
    for (size_t v = 0; v < V; v++) {
        double e = fabs((double)a[v] - b[v]);
        if (!(e <= d)) d = e;
        c->differ |= a[v] != b[v];
    }
    c->ok &= d <= tol;
    if (d / tol > c->worst_use) c->worst_use = d / tol;
    c->agree += argmax(a, V) == argmax(b, V);
    c->steps++;
}

// both bf16 kernels: vdpbf16ps where the CPU has it, and plain C
static void test_bf16_close_to_fp32(void) {
    Closeness all = {.ok = 1};
    for (size_t i = 0; i < 2 * N_VARIANTS; i++) {
        matvec_bf16_force_plain(i >= N_VARIANTS);
        Model m;
        make_model(&m, &VARIANTS[i % N_VARIANTS], 700 + i % N_VARIANTS);
        Generator g32, g16;
        generator_init(&g32, &m);
        generator_init_weights(&g16, &m, GEN_WEIGHTS_BF16);
        size_t len = 2 * (size_t)VARIANTS[i % N_VARIANTS].block + 5;
        Closeness c = {.ok = 1, .worst_use = all.worst_use};
        for (size_t t = 0; t < len; t++) {
            const float *a = generator_step(&g32, token_at(t), t), *b = generator_step(&g16, token_at(t), t);
            compare_step(&c, a, b, m.V, (2.0 * (double)m.L + 1) * head_bound(&m, g32.h));
        }
        all.worst_use = c.worst_use, all.agree += c.agree, all.steps += c.steps;
        if (!c.ok)
            printf("  %s (variant %zu, %s): bf16 logits outside the tolerance\n", VARIANTS[i % N_VARIANTS].kind,
                   i % N_VARIANTS, matvec_bf16_kernel());
        CHECK(c.ok);
        CHECK(c.differ);  // the bf16 path really is another computation
        generator_free(&g16);
        generator_free(&g32);
        model_free(&m);
    }
    matvec_bf16_force_plain(0);
    if (getenv("VERBOSE"))
        printf("  bf16 vs fp32: worst step uses %.3f of its tolerance; greedy choice agrees at %zu of %zu steps\n",
               all.worst_use, all.agree, all.steps);
}

// int8 against fp32, the same way. Per product (kernels/matvec_i8.h) the
// error of output o is at most sum_k s_o / 2 (|x_k| + s_x / 2) + |w_ok| s_x / 2
// with s_o = max_k |w_ok| / 127 and s_x = max_k |x_k| / 127, plus fp32
// rounding (a relative 2^-20 covers it at these sizes). For the head it is
// computed from the fp32 step's final LayerNorm output (g.h) and wte; as for
// bf16, no useful rigorous bound crosses LayerNorm and attention, so each of
// the 2L + 1 products on the path gets one head-sized budget. The int8
// generator also keeps softmax's KV cache in bf16 (relative 2^-9 on each
// cached k and v, less than the 2^-8 of max |x| that quantising the qkv
// product's input costs the same values); no budget is added for it: the
// worst step went from 0.110 to 0.123 of this tolerance with it (VERBOSE=1).
static double head_bound_i8(const Model *m, const float *h) {
    double a = 0, worst = 0;
    for (size_t c = 0; c < m->C; c++) a = fmax(a, fabs(h[c]));
    double sx = a / 127;
    for (size_t v = 0; v < m->V; v++) {
        const float *w = m->wte->data + v * m->C;
        double mo = 0, B = 0, S = 0;
        for (size_t c = 0; c < m->C; c++) mo = fmax(mo, fabs(w[c]));
        for (size_t c = 0; c < m->C; c++) {
            B += mo / 127 / 2 * (fabs(h[c]) + sx / 2) + fabs(w[c]) * sx / 2;
            S += fabs((double)w[c] * h[c]);
        }
        B += 0x1p-20 * S;
        if (B > worst) worst = B;
    }
    return worst;
}

// Both int8 kernels (vpdpbusd where the CPU has it, and plain C) give the same
// logits bit for bit (they compute the same integers and the same fp32
// operations), and those are within the tolerance of fp32's.
static void test_int8_close_to_fp32(void) {
    Closeness all = {.ok = 1};
    int have_vnni = matvec_i8_cpu_missing() == NULL;
    if (!have_vnni) printf("  no AVX-512 VNNI here: the plain C int8 kernel only\n");
    for (size_t i = 0; i < N_VARIANTS; i++) {
        Model m;
        make_model(&m, &VARIANTS[i], 900 + i);
        Generator g32, g8, g8c;
        generator_init(&g32, &m);
        generator_init_weights(&g8, &m, GEN_WEIGHTS_INT8);
        generator_init_weights(&g8c, &m, GEN_WEIGHTS_INT8);
        size_t len = 2 * (size_t)VARIANTS[i].block + 5;
        Closeness c = {.ok = 1, .worst_use = all.worst_use};
        int same_kernels = 1;
        for (size_t t = 0; t < len; t++) {
            const float *a = generator_step(&g32, token_at(t), t), *b = generator_step(&g8, token_at(t), t);
            matvec_i8_force_plain(1);
            const float *p = generator_step(&g8c, token_at(t), t);
            matvec_i8_force_plain(0);
            same_kernels &= memcmp(b, p, m.V * sizeof(float)) == 0;
            compare_step(&c, a, b, m.V, (2.0 * (double)m.L + 1) * head_bound_i8(&m, g32.h));
        }
        all.worst_use = c.worst_use, all.agree += c.agree, all.steps += c.steps;
        if (!c.ok) printf("  %s (variant %zu): int8 logits outside the tolerance\n", VARIANTS[i].kind, i);
        if (!same_kernels) printf("  %s (variant %zu): the two int8 kernels differ\n", VARIANTS[i].kind, i);
        CHECK(c.ok);
        CHECK(same_kernels);
        CHECK(c.differ);  // the int8 path really is another computation
        generator_free(&g8c);
        generator_free(&g8);
        generator_free(&g32);
        model_free(&m);
    }
    if (getenv("VERBOSE"))
        printf("  int8 vs fp32: worst step uses %.3f of its tolerance; greedy choice agrees at %zu of %zu steps\n",
               all.worst_use, all.agree, all.steps);
}

// int8 keeps softmax's KV cache in bf16 (generate.h): the state holds, and
// reports, half the fp32 generator's bytes; the fast-weight kinds' state is
// the same either way. (The bf16 cache's values: tests/attention/test_softmax.c;
// its effect on the logits is inside test_int8_close_to_fp32's tolerance.)
static void test_int8_kv_cache_bf16(void) {
    for (size_t i = 0; i < N_VARIANTS; i++) {
        Model m;
        make_model(&m, &VARIANTS[i], 950 + i);
        Generator g32, g8;
        generator_init(&g32, &m);
        generator_init_weights(&g8, &m, GEN_WEIGHTS_INT8);
        for (size_t t = 0; t < 5; t++) generator_step(&g32, token_at(t), t), generator_step(&g8, token_at(t), t);
        int cache = !strcmp(m.kind->name, "softmax");
        size_t u32 = generator_state_bytes_used(&g32), u8 = generator_state_bytes_used(&g8);
        CHECK(g8.acfg.kv_bf16 == 1 && g32.acfg.kv_bf16 == 0);
        CHECK(cache ? 2 * u8 == u32 : u8 == u32);
        CHECK(u32 == model_inference_bytes(&m, 5 < m.Tmax ? 5 : m.Tmax) || !cache);
        size_t a32 = generator_state_bytes_allocated(&g32), a8 = generator_state_bytes_allocated(&g8);
        CHECK(cache ? 2 * a8 == a32 : a8 == a32);  // even element counts here: exactly half
        generator_free(&g8);
        generator_free(&g32);
        model_free(&m);
    }
}

int main(void) {
    TEST(test_fp32_bit_identical);
    TEST(test_bf16_close_to_fp32);
    TEST(test_int8_close_to_fp32);
    TEST(test_int8_kv_cache_bf16);
    return test_summary();
}
