// generate.c — one token through the model, reusing the training kernels at N = 1.
//
// The block is graph_build's, line for line:
//   x = wte[token] + wpe[min(pos, block_size-1)]
//   per layer:  x += proj(Attn(LN1(x)))       (Attn = the kind's one-token step)
//               x += fc_proj(gelu(fc(LN2(x))))  (when ffn_mult > 0)
//   logits = wte @ LN_f(x)                      (tied head)
// matvec_forward runs gemm's one-row path on a transposed copy of each weight
// (contiguous loads, no transposes while stepping); gemm computes each output
// element by the same chain of operations whatever the row count or operand
// layout, so these projections are bit-identical to the training forward's rows. Only attention differs in
// form (recurrent vs chunkwise / tiled), hence only rounding-level differences.
#include "generate.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "kernels/nn.h"
#include "util/err.h"

static float *alloc_floats(size_t n) { return xcalloc(n ? n : 1, sizeof(float)); }

void generator_init(Generator *g, const Model *m) {
    memset(g, 0, sizeof *g);
    g->m = m;
    g->window = m->Tmax;
    g->state_floats = m->kind->state_floats(&m->acfg, g->window);
    size_t total;
    if (!size_mul(m->L, g->state_floats, &total)) {
        fprintf(stderr, "lmtrain: generation state too large (%zu layers x %zu floats)\n", m->L,
                g->state_floats);
        exit(ERR_RUNTIME);
    }
    size_t C = m->C, W = 3 * C + m->H * attn_aux(m->kind, &m->acfg);
    g->state = alloc_floats(total);
    g->prev_k = m->cfg.key_shift ? alloc_floats(m->L * C) : NULL;
    g->x = alloc_floats(C);
    g->h = alloc_floats(C);
    g->qkv = alloc_floats(W);
    g->k = alloc_floats(C);
    g->att = alloc_floats(C);
    g->att2 = alloc_floats(C);
    g->proj = alloc_floats(C);
    g->fc = alloc_floats(m->F);
    g->fc_act = alloc_floats(m->F);
    g->logits = alloc_floats(m->V);
    // transposed weight copies: qkv, proj (and fc, fc_proj) per layer, the head
    size_t per_layer = C * W + C * C + 2 * C * m->F, total_wt;
    if (!size_mul(m->L, per_layer, &total_wt) || total_wt + C * m->V < total_wt) {
        fprintf(stderr, "lmtrain: generation weights too large\n");
        exit(ERR_RUNTIME);
    }
    g->wt = alloc_floats(total_wt + C * m->V);
    g->lw = xcalloc(m->L ? m->L : 1, sizeof *g->lw);
    float *p = g->wt;
    for (size_t l = 0; l < m->L; l++) {
        GenLayerWeights *lw = &g->lw[l];
        lw->qkv = p, p += C * W;
        lw->proj = p, p += C * C;
        if (m->F) lw->fc = p, p += C * m->F, lw->fc_proj = p, p += m->F * C;
    }
    g->head = p;
    generator_refresh(g);
    generator_reset(g);
}

void generator_refresh(Generator *g) {
    const Model *m = g->m;
    for (size_t l = 0; l < m->L; l++) {
        const Layer *y = &m->layer[l];
        GenLayerWeights *lw = &g->lw[l];
        transpose_copy(lw->qkv, y->qkv->data, y->qkv->rows, y->qkv->cols);
        transpose_copy(lw->proj, y->proj->data, y->proj->rows, y->proj->cols);
        if (lw->fc) {
            transpose_copy(lw->fc, y->fc->data, y->fc->rows, y->fc->cols);
            transpose_copy(lw->fc_proj, y->fc_proj->data, y->fc_proj->rows, y->fc_proj->cols);
        }
    }
    transpose_copy(g->head, m->wte->data, m->wte->rows, m->wte->cols);
}

void generator_free(Generator *g) {
    free(g->wt);
    free(g->lw);
    free(g->state);
    free(g->prev_k);
    free(g->x);
    free(g->h);
    free(g->qkv);
    free(g->k);
    free(g->att);
    free(g->att2);
    free(g->proj);
    free(g->fc);
    free(g->fc_act);
    free(g->logits);
    memset(g, 0, sizeof *g);
}

void generator_reset(Generator *g) {
    const Model *m = g->m;
    for (size_t l = 0; l < m->L; l++)
        m->kind->state_reset(&m->acfg, generator_layer_state(g, l), g->window);
    if (g->prev_k) memset(g->prev_k, 0, m->L * m->C * sizeof(float));
    g->pos = 0;
}

float *generator_layer_state(Generator *g, size_t l) { return g->state + l * g->state_floats; }

int generator_extend(Generator *g, size_t pos) {
    const Model *m = g->m;
    if (!m->kind->state_extend || g->pos == 0 || pos < g->pos) return 0;
    size_t have = g->pos < g->window ? g->pos : g->window;
    for (size_t l = 0; l < m->L; l++)
        m->kind->state_extend(&m->acfg, generator_layer_state(g, l), g->window, have, pos);
    g->pos = pos;
    return 1;
}

size_t generator_state_bytes_used(const Generator *g) {
    size_t len = g->pos < g->window ? g->pos : g->window;
    return model_inference_bytes(g->m, len);
}

size_t generator_state_bytes_allocated(const Generator *g) {
    return g->m->L * g->state_floats * sizeof(float);
}

// x += Attn(LN1(x)) projected, for layer l
static void attention_block(Generator *g, size_t l, size_t pos) {
    const Model *m = g->m;
    const Layer *y = &m->layer[l];
    size_t C = m->C, W = y->qkv->rows;
    layernorm_forward(g->h, NULL, NULL, g->x, y->ln1_w->data, y->ln1_b->data, 1, C);
    matvec_forward(g->qkv, g->h, g->lw[l].qkv, C, W);  // (W) = q | k | v | aux
    const float *q = g->qkv, *k = g->qkv + C, *v = g->qkv + 2 * C, *aux = g->qkv + 3 * C;
    if (g->prev_k) {
        // k_t = W_k x_{t-1}: read the previous token's key, keep this one for the next
        float *prev = g->prev_k + l * C;
        memcpy(g->k, prev, C * sizeof(float));
        memcpy(prev, k, C * sizeof(float));
        k = g->k;
    }
    const float *theta = y->theta ? y->theta->data : NULL;
    m->kind->step(&m->acfg, generator_layer_state(g, l), g->window, pos, g->att, q, k, v, aux,
                  theta);
    if (g->hook) g->hook(g->hook_ctx, l, pos, q, k, v, aux, g->att);
    const float *a = g->att;
    if (y->lnh_w) {  // LayerNorm on each head's output: H groups of dh
        layernorm_forward(g->att2, NULL, NULL, g->att, y->lnh_w->data, y->lnh_b->data, m->H, m->dh);
        a = g->att2;
    }
    matvec_forward(g->proj, a, g->lw[l].proj, C, C);
    add_forward(g->x, g->x, g->proj, C);
}

// x += W2 gelu(W1 LN2(x)), for layer l
static void ffn_block(Generator *g, size_t l) {
    const Model *m = g->m;
    const Layer *y = &m->layer[l];
    size_t C = m->C, F = m->F;
    layernorm_forward(g->h, NULL, NULL, g->x, y->ln2_w->data, y->ln2_b->data, 1, C);
    matvec_forward(g->fc, g->h, g->lw[l].fc, C, F);
    gelu_forward(g->fc_act, g->fc, F);
    matvec_forward(g->proj, g->fc_act, g->lw[l].fc_proj, F, C);
    add_forward(g->x, g->x, g->proj, C);
}

const float *generator_step(Generator *g, int token, size_t pos) {
    const Model *m = g->m;
    assert(pos == g->pos && token >= 0 && (size_t)token < m->V);
    size_t C = m->C;
    size_t p = pos < m->Tmax ? pos : m->Tmax - 1;  // see "Positions" in generate.h
    const float *wpe = m->wpe ? m->wpe->data + p * C : NULL;
    embed_forward(g->x, &token, m->wte->data, wpe, 1, 1, C);
    for (size_t l = 0; l < m->L; l++) {
        attention_block(g, l, pos);
        if (m->F) ffn_block(g, l);
    }
    layernorm_forward(g->h, NULL, NULL, g->x, m->lnf_w->data, m->lnf_b->data, 1, C);
    matvec_forward(g->logits, g->h, g->head, C, m->V);  // tied head
    g->pos = pos + 1;
    return g->logits;
}
