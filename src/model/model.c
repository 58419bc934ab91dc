// model.c — parameters, initialisation and the training-time graph.
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "attention/params.h"
#include "util/err.h"
#include "util/rng.h"

// ============================================================================
// Parameters
// ============================================================================

typedef enum { INIT_NORMAL, INIT_RESIDUAL, INIT_ONES, INIT_ZEROS, INIT_DECAY } InitKind;

typedef struct {
    const char *name;
    size_t rows, cols;
    InitKind init;
    int weight_decay, learnable;
    Tensor **slot;
} ParamSpec;

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

// Layout of every parameter, in a fixed order (the checkpoint and export order).
static size_t param_specs(Model *m, ParamSpec *out) {
    const Config *c = &m->cfg;
    size_t n = 0;
    char buf[96];
    AttnOwnParam own[ATTN_MAX_OWN];
    size_t n_own = attn_own_params(m->kind, &m->acfg, own), own_rows = attn_own_rows(own, n_own);
#define ADD(NAME, R, COLS, INIT, WD, LEARN, SLOT)                                              \
    do {                                                                                      \
        if (out) out[n] = (ParamSpec){xstrdup(NAME), (R), (COLS), (INIT), (WD), (LEARN), (SLOT)}; \
        n++;                                                                                  \
    } while (0)
    ADD("wte", m->V, m->C, INIT_NORMAL, 1, 1, &m->wte);
    if (c->pos == POS_LEARNED) ADD("wpe", m->Tmax, m->C, INIT_NORMAL, 1, 1, &m->wpe);
    for (size_t l = 0; l < m->L; l++) {
        Layer *y = out ? &m->layer[l] : NULL;
#define NAME(fmt) (snprintf(buf, sizeof buf, "h.%zu." fmt, l), buf)
        ADD(NAME("ln_1.weight"), 1, m->C, INIT_ONES, 0, 1, y ? &y->ln1_w : NULL);
        ADD(NAME("ln_1.bias"), 1, m->C, INIT_ZEROS, 0, 1, y ? &y->ln1_b : NULL);
        // q | k | v and the kind's own rows (attention/params.h), then its own tensors
        ADD(NAME("attn.qkv.weight"), 3 * m->C + m->H * own_rows, m->C, INIT_NORMAL, 1, 1, y ? &y->qkv : NULL);
        for (size_t i = 0; i < n_own; i++)
            if (own[i].place == ATTN_OWN_THETA)
                ADD((snprintf(buf, sizeof buf, "h.%zu.%s", l, own[i].name), buf), 1, m->H * own[i].per_head,
                    INIT_DECAY, 0, own[i].learnable, y ? &y->theta : NULL);
        if (c->output_norm) {
            ADD(NAME("attn.ln_head.weight"), 1, m->dh, INIT_ONES, 0, 1, y ? &y->lnh_w : NULL);
            ADD(NAME("attn.ln_head.bias"), 1, m->dh, INIT_ZEROS, 0, 1, y ? &y->lnh_b : NULL);
        }
        ADD(NAME("attn.proj.weight"), m->C, m->C, INIT_RESIDUAL, 1, 1, y ? &y->proj : NULL);
        if (m->F) {
            ADD(NAME("ln_2.weight"), 1, m->C, INIT_ONES, 0, 1, y ? &y->ln2_w : NULL);
            ADD(NAME("ln_2.bias"), 1, m->C, INIT_ZEROS, 0, 1, y ? &y->ln2_b : NULL);
            ADD(NAME("mlp.fc.weight"), m->F, m->C, INIT_NORMAL, 1, 1, y ? &y->fc : NULL);
            ADD(NAME("mlp.proj.weight"), m->C, m->F, INIT_RESIDUAL, 1, 1, y ? &y->fc_proj : NULL);
        }
#undef NAME
    }
    ADD("ln_f.weight", 1, m->C, INIT_ONES, 0, 1, &m->lnf_w);
    ADD("ln_f.bias", 1, m->C, INIT_ZEROS, 0, 1, &m->lnf_b);
#undef ADD
    return n;
}

static void init_tensor(const Model *m, Tensor *t, InitKind init) {
    Rng r;
    rng_seed(&r, m->cfg.seed ^ fnv1a(t->name));
    float std = 0.02f;
    switch (init) {
    case INIT_RESIDUAL:
        std = 0.02f / sqrtf(2.0f * (float)m->L);
        /* fall through */
    case INIT_NORMAL:
        for (size_t i = 0; i < t->n; i++) t->data[i] = std * rng_normal(&r);
        break;
    case INIT_ONES:
        for (size_t i = 0; i < t->n; i++) t->data[i] = 1.0f;
        break;
    case INIT_ZEROS:
        memset(t->data, 0, t->n * sizeof(float));
        break;
    case INIT_DECAY:  // theta = logit(decay_init), one value or one per head
        for (size_t h = 0; h < t->n; h++) {
            double d = m->cfg.n_decay_init == 1 ? m->cfg.decay_init[0] : m->cfg.decay_init[h];
            t->data[h] = (float)attn_logit(d);
        }
        break;
    }
}

static void model_dims(Model *m, const Config *cfg, size_t V) {
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->kind = attn_kind_find(cfg->kind);
    if (!m->kind) {
        fprintf(stderr, "lmtrain: internal error: unknown attention kind '%s'\n", cfg->kind);
        exit(ERR_USAGE);
    }
    m->V = V;
    m->C = (size_t)cfg->d_model;
    m->H = (size_t)cfg->heads;
    m->dh = m->C / m->H;
    m->L = (size_t)cfg->layers;
    m->F = (size_t)cfg->ffn_mult * m->C;
    m->Tmax = (size_t)cfg->block_size;
    m->acfg = config_attention(cfg);
}

void model_build(Model *m, const Config *cfg, size_t V) {
    model_dims(m, cfg, V);
    m->layer = xcalloc(m->L, sizeof *m->layer);
    size_t n = param_specs(m, NULL);
    ParamSpec *spec = xcalloc(n, sizeof *spec);
    param_specs(m, spec);
    m->params = xcalloc(n, sizeof *m->params);
    m->n_params = n;
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        m->params[i].offset = off;
        off += align16(spec[i].rows * spec[i].cols);
        m->n_weights += spec[i].rows * spec[i].cols;
    }
    m->n_floats = off;
    void *p = NULL, *g = NULL;
    if (posix_memalign(&p, 64, off * sizeof(float)) || posix_memalign(&g, 64, off * sizeof(float))) {
        fprintf(stderr, "lmtrain: out of memory allocating %zu parameters\n", off);
        exit(ERR_RUNTIME);
    }
    m->data = p;
    m->grad = g;
    memset(m->data, 0, off * sizeof(float));
    memset(m->grad, 0, off * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        Param *pp = &m->params[i];
        pp->weight_decay = spec[i].weight_decay;
        pp->t = (Tensor){.data = m->data + pp->offset,
                         .grad = spec[i].learnable ? m->grad + pp->offset : NULL,
                         .rows = spec[i].rows,
                         .cols = spec[i].cols,
                         .n = spec[i].rows * spec[i].cols,
                         .name = spec[i].name};
        *spec[i].slot = &pp->t;
        init_tensor(m, &pp->t, spec[i].init);
    }
    free(spec);
}

void model_free(Model *m) {
    for (size_t i = 0; i < m->n_params; i++) free((char *)m->params[i].t.name);
    free(m->params);
    free(m->layer);
    free(m->data);
    free(m->grad);
    memset(m, 0, sizeof *m);
}

void model_zero_grad(Model *m) { memset(m->grad, 0, m->n_floats * sizeof(float)); }

size_t model_estimate_bytes(const Config *cfg, size_t V, size_t B, size_t T) {
    // Parameters x 4 (weights, grads, two Adam moments), plus activations and
    // their gradients: about (12 + 4*ffn_mult) floats of width C per position
    // per layer, plus the logits and probabilities. A bound, not an exact count.
    double C = cfg->d_model, L = cfg->layers, F = (double)cfg->ffn_mult * C;
    double params = V * C + (double)cfg->block_size * C + L * (4 * C * C + 2 * C * F + 8 * C);
    double per_pos = L * (14 * C + 3 * F) + 3 * (double)V + 4 * C;
    Model dims;
    memset(&dims, 0, sizeof dims);
    model_dims(&dims, cfg, V);
    // what the kind owns besides (attention/params.h): rows of the projection, θ
    AttnOwnParam own[ATTN_MAX_OWN];
    size_t n_own = attn_own_params(dims.kind, &dims.acfg, own);
    for (size_t i = 0; i < n_own; i++)
        params += L * (double)dims.H * (double)own[i].per_head * (own[i].place == ATTN_OWN_QKV_ROWS ? C : 1);
    // Each layer's attention work buffer, sized by the kind itself: softmax's
    // scores grow as T^2, the fast-weight kinds keep a (dh, dh) state per chunk;
    // neither is covered by the per-position count above.
    double work = L * (double)dims.kind->work_floats(&dims.acfg, B, T);
    double bytes = 4.0 * (4 * params + 2.2 * per_pos * (double)B * (double)T + work);
    if (!(bytes < 1e18)) return 0;
    return (size_t)bytes;
}

// ============================================================================
// The training-time graph
// ============================================================================

void graph_build(Graph *g, Model *m, size_t B, size_t T) { graph_build_prec(g, m, B, T, PRECISION_FP32); }

void graph_build_prec(Graph *g, Model *m, size_t B, size_t T, Precision p) {
    memset(g, 0, sizeof *g);
    g->B = B;
    g->T = T;
    g->tokens = xcalloc(B * T, sizeof(int));
    g->targets = xcalloc(B * T, sizeof(int));
    g->attn = xcalloc(m->L, sizeof *g->attn);
    g->attn_node = xcalloc(m->L, sizeof *g->attn_node);
    Tape *t = &g->tape;
    tape_init(t);
    tape_set_batches(t, B, T);  // the forward up to the loss runs sharded by sequence
    char nm[96];
#define N(fmt) (snprintf(nm, sizeof nm, "h.%zu." fmt, l), nm)
    Tensor *x = op_embed(t, "embed", g->tokens, m->wte, m->wpe, B, T);  // (B*T, C)
    for (size_t l = 0; l < m->L; l++) {
        Layer *y = &m->layer[l];
        // x += proj(Attn(LN(x)))
        Tensor *h = op_layernorm(t, N("ln_1"), x, y->ln1_w, y->ln1_b);
        Tensor *qkv = op_matmul_prec(t, N("attn.qkv"), h, y->qkv, p);  // (B*T, 3C + H*n_aux)
        g->attn[l] = (AttnOp){m->kind, m->acfg, B, T, m->cfg.key_shift};
        Tensor *a = op_attention(t, N("attn"), qkv, y->theta, &g->attn[l]);  // (B*T, C)
        g->attn_node[l] = t->n_nodes - 1;
        if (y->lnh_w) a = op_layernorm(t, N("attn.ln_head"), a, y->lnh_w, y->lnh_b);
        // the residual adds run in the products' epilogues (ops.h: op_matmul_residual)
        x = op_matmul_residual(t, N("attn.proj+residual"), x, a, y->proj, p);
        if (m->F) {
            // x += W2 gelu(W1 LN(x))
            h = op_layernorm(t, N("ln_2"), x, y->ln2_w, y->ln2_b);
            h = op_gelu(t, N("mlp.gelu"), op_matmul_prec(t, N("mlp.fc"), h, y->fc, p));  // (B*T, F)
            x = op_matmul_residual(t, N("mlp.proj+residual"), x, h, y->fc_proj, p);
        }
    }
#undef N
    x = op_layernorm(t, "ln_f", x, m->lnf_w, m->lnf_b);
    g->logits = op_matmul_prec(t, "logits", x, m->wte, p);  // tied head: (B*T, V)
    g->loss = op_crossentropy(t, "loss", g->logits, g->targets);
    g->loss_node = t->n_nodes - 1;
    tape_finalize(t);
}

void graph_free(Graph *g) {
    tape_free(&g->tape);
    free(g->tokens);
    free(g->targets);
    free(g->attn);
    free(g->attn_node);
    memset(g, 0, sizeof *g);
}

double graph_forward(Graph *g) {
    tape_forward(&g->tape);
    return g->tape.nodes[g->loss_node].value;
}

double graph_forward_backward(Graph *g, Model *m) {
    double loss = graph_forward(g);
    model_zero_grad(m);
    tape_backward(&g->tape, g->loss);
    return loss;
}

const float *graph_position_losses(const Graph *g) { return g->tape.nodes[g->loss_node].saved[1]; }
size_t graph_scored(const Graph *g) { return g->tape.nodes[g->loss_node].count; }

double graph_state_norm(const Graph *g, const Model *m, size_t l) {
    if (!m->kind->last_state_norm) return -1;
    const Node *n = &g->tape.nodes[g->attn_node[l]];
    return m->kind->last_state_norm(&m->acfg, g->B, g->T, op_attention_work(n));
}

size_t model_inference_bytes(const Model *m, size_t len) {
    return m->L * m->kind->memory_bytes(&m->acfg, len);
}
