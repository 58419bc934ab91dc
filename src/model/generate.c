// generate.c — one token through the model, reusing the training kernels at N = 1.
//
// The block is graph_build's, line for line:
//   x = wte[token] + wpe[min(pos, block_size-1)]
//   per layer:  x += proj(Attn(LN1(x)))       (Attn = the kind's one-token step)
//               x += fc_proj(gelu(fc(LN2(x))))  (when ffn_mult > 0)
//   logits = wte @ LN_f(x)                      (tied head)
// Each product reads its matrix from the generator's packed copy
// (kernels/matvec.h: all matrices back to back in step order, one stream per
// token), and the two residual adds are fused into the products that feed
// them. In fp32 every output element is gemm's chain of operations, so these
// projections are bit-identical to the training forward's rows; only attention
// differs in form (recurrent vs chunkwise / tiled), hence only rounding-level
// differences. In bf16 and int8 the products differ by the rounding or
// quantisation of their operands.
#include "generate.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "kernels/matvec.h"
#include "kernels/matvec_i8.h"
#include "kernels/nn.h"
#include "util/err.h"

const char *const GEN_WEIGHTS_NAME[] = {"fp32", "bf16", "int8", NULL};

int gen_weights_from_name(const char *name) {
    for (int i = 0; GEN_WEIGHTS_NAME[i]; i++)
        if (!strcmp(name, GEN_WEIGHTS_NAME[i])) return i;
    return -1;
}

// whole 64-byte lines, 64-byte aligned: the packed matrices are read as aligned vectors
static void *alloc_lines(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) {
        fprintf(stderr, "lmtrain: out of memory (%zu bytes for generation)\n", bytes);
        exit(ERR_RUNTIME);
    }
    return p;
}

// n floats, zero, from a 64-byte line on. Why aligned: the attention state and
// the one-token vectors are read and written as 64-byte vectors, and calloc's
// blocks start 16 bytes into a line (a large one at a page plus 16), so every
// such access to them touched two lines.
static float *alloc_floats(size_t n) {
    size_t bytes;
    if (!size_mul(n ? n : 1, sizeof(float), &bytes) || bytes > SIZE_MAX - 128) {
        fprintf(stderr, "lmtrain: generation state too large (%zu floats)\n", n);
        exit(ERR_RUNTIME);
    }
    float *p = alloc_lines(bytes);
    memset(p, 0, bytes);
    return p;
}

// the model's matrix number i in step order (GenWeights' enum), and its
// product's shape: out (OC) = W (OC, K) in
static const Tensor *matrix(const Model *m, size_t i) {
    if (i == m->L * GEN_PER_LAYER) return m->wte;  // the tied head
    const Layer *y = &m->layer[i / GEN_PER_LAYER];
    const Tensor *w[GEN_PER_LAYER] = {y->qkv, y->proj, y->fc, y->fc_proj};
    return w[i % GEN_PER_LAYER];
}

static size_t n_matrices(const Model *m) { return m->L * GEN_PER_LAYER + 1; }

// elements of a matrix's packed copy, and their size in bytes
static size_t packed_size(GenWeights w, const Tensor *p) {
    if (!p) return 0;
    switch (w) {
    case GEN_WEIGHTS_BF16: return matvec_bf16_packed_size(p->cols, p->rows);
    case GEN_WEIGHTS_INT8: return matvec_i8_packed_bytes(p->cols, p->rows);
    default: return matvec_f32_packed_size(p->cols, p->rows);
    }
}

static size_t packed_elem(GenWeights w) {
    return w == GEN_WEIGHTS_BF16 ? sizeof(uint16_t) : w == GEN_WEIGHTS_INT8 ? 1 : sizeof(float);
}

void generator_init(Generator *g, const Model *m) { generator_init_weights(g, m, GEN_WEIGHTS_FP32); }

void generator_init_weights(Generator *g, const Model *m, GenWeights weights) {
    generator_init_window(g, m, weights, m->Tmax);
}

void generator_init_window(Generator *g, const Model *m, GenWeights weights, size_t window) {
    assert(window >= m->Tmax);
    memset(g, 0, sizeof *g);
    g->m = m;
    g->weights = weights;
    g->acfg = m->acfg;
    g->acfg.kv_bf16 = weights == GEN_WEIGHTS_INT8;  // see generate.h
    g->window = window;
    g->state_floats = m->kind->state_floats(&g->acfg, g->window);
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
    g->fc = alloc_floats(m->F);
    g->fc_act = alloc_floats(m->F);
    g->logits = alloc_floats(m->V);
    // the packed matrices, back to back in step order; every packed matrix is
    // a whole number of 64-byte vectors, so each starts aligned
    size_t n = n_matrices(m), elems = 0, widest = C > m->F ? C : m->F;
    g->offset = xcalloc(n, sizeof *g->offset);
    for (size_t i = 0; i < n; i++) {
        g->offset[i] = elems;
        size_t add = packed_size(weights, matrix(m, i));
        if (elems + add < elems) {
            fprintf(stderr, "lmtrain: generation weights too large\n");
            exit(ERR_RUNTIME);
        }
        elems += add;
    }
    if (!size_mul(elems ? elems : 1, packed_elem(weights), &total) || total > SIZE_MAX - 64) {
        fprintf(stderr, "lmtrain: generation weights too large\n");
        exit(ERR_RUNTIME);
    }
    g->packed = alloc_lines(total);
    if (weights == GEN_WEIGHTS_BF16)
        g->x2 = alloc_lines(matvec_bf16_scratch_size(widest) * sizeof(uint32_t));
    if (weights == GEN_WEIGHTS_INT8) {
        if (widest > MATVEC_I8_MAX_K) {
            fprintf(stderr, "lmtrain: int8 generation: a product of %zu inputs is past the kernel's %d\n", widest,
                    MATVEC_I8_MAX_K);
            exit(ERR_RUNTIME);
        }
        g->xq = alloc_lines(matvec_i8_scratch_bytes(widest));
    }
    generator_refresh(g);
    generator_reset(g);
}

void generator_refresh(Generator *g) {
    const Model *m = g->m;
    for (size_t i = 0; i < n_matrices(m); i++) {
        const Tensor *p = matrix(m, i);
        if (!p) continue;
        if (g->weights == GEN_WEIGHTS_BF16)
            matvec_bf16_pack((uint16_t *)g->packed + g->offset[i], p->data, p->rows, p->cols);
        else if (g->weights == GEN_WEIGHTS_INT8)
            matvec_i8_pack((unsigned char *)g->packed + g->offset[i], p->data, p->rows, p->cols);
        else
            matvec_f32_pack((float *)g->packed + g->offset[i], p->data, p->rows, p->cols);
    }
}

void generator_free(Generator *g) {
    free(g->packed);
    free(g->offset);
    free(g->x2);
    free(g->xq);
    free(g->state);
    free(g->prev_k);
    free(g->x);
    free(g->h);
    free(g->qkv);
    free(g->k);
    free(g->att);
    free(g->att2);
    free(g->fc);
    free(g->fc_act);
    free(g->logits);
    memset(g, 0, sizeof *g);
}

void generator_reset(Generator *g) {
    const Model *m = g->m;
    for (size_t l = 0; l < m->L; l++)
        m->kind->state_reset(&g->acfg, generator_layer_state(g, l), g->window);
    if (g->prev_k) memset(g->prev_k, 0, m->L * m->C * sizeof(float));
    g->pos = 0;
}

float *generator_layer_state(Generator *g, size_t l) { return g->state + l * g->state_floats; }

int generator_extend(Generator *g, size_t pos) {
    const Model *m = g->m;
    if (!m->kind->state_extend || g->pos == 0 || pos < g->pos) return 0;
    size_t have = g->pos < g->window ? g->pos : g->window;
    for (size_t l = 0; l < m->L; l++)
        m->kind->state_extend(&g->acfg, generator_layer_state(g, l), g->window, have, pos);
    g->pos = pos;
    return 1;
}

size_t generator_state_bytes_used(const Generator *g) {
    size_t len = g->pos < g->window ? g->pos : g->window;
    return g->m->L * g->m->kind->memory_bytes(&g->acfg, len);  // model_inference_bytes, with the cache's format
}

size_t generator_state_bytes_allocated(const Generator *g) {
    return g->m->L * g->state_floats * sizeof(float);
}

// out (OC) = (or +=) matrix i (OC, K) act(in); act other than MATVEC_IN_PLAIN
// with bf16 or int8 weights only (their products apply it as they round or
// quantise their input)
static void project_act(Generator *g, float *out, const float *in, size_t i, MatvecMode mode, MatvecInput act) {
    const Tensor *p = matrix(g->m, i);
    if (g->weights == GEN_WEIGHTS_BF16)
        matvec_bf16_in(out, in, act, (const uint16_t *)g->packed + g->offset[i], p->cols, p->rows, mode, g->x2);
    else if (g->weights == GEN_WEIGHTS_INT8)
        matvec_i8_in(out, in, act, (const unsigned char *)g->packed + g->offset[i], p->cols, p->rows, mode, g->xq);
    else {
        assert(act == MATVEC_IN_PLAIN);
        matvec_f32(out, in, (const float *)g->packed + g->offset[i], p->cols, p->rows, mode);
    }
}

// out (OC) = (or +=) matrix i (OC, K) in
static void project(Generator *g, float *out, const float *in, size_t i, MatvecMode mode) {
    project_act(g, out, in, i, mode, MATVEC_IN_PLAIN);
}

// x += Attn(LN1(x)) projected, for layer l
static void attention_block(Generator *g, size_t l, size_t pos) {
    const Model *m = g->m;
    const Layer *y = &m->layer[l];
    size_t C = m->C, mat = l * GEN_PER_LAYER;
    layernorm_row(g->h, g->x, y->ln1_w->data, y->ln1_b->data, C);
    project(g, g->qkv, g->h, mat + GEN_QKV, MATVEC_STORE);  // q | k | v | aux
    const float *q = g->qkv, *k = g->qkv + C, *v = g->qkv + 2 * C, *aux = g->qkv + 3 * C;
    if (g->prev_k) {
        // k_t = W_k x_{t-1}: read the previous token's key, keep this one for the next
        float *prev = g->prev_k + l * C;
        memcpy(g->k, prev, C * sizeof(float));
        memcpy(prev, k, C * sizeof(float));
        k = g->k;
    }
    const float *theta = y->theta ? y->theta->data : NULL;
    m->kind->step(&g->acfg, generator_layer_state(g, l), g->window, pos, g->att, q, k, v, aux,
                  theta);
    if (g->hook) g->hook(g->hook_ctx, l, pos, q, k, v, aux, g->att);
    const float *a = g->att;
    if (y->lnh_w) {  // LayerNorm on each head's output: H groups of dh
        layernorm_forward(g->att2, NULL, NULL, g->att, y->lnh_w->data, y->lnh_b->data, m->H, m->dh);
        a = g->att2;
    }
    project(g, g->x, a, mat + GEN_PROJ, MATVEC_ADD);  // the residual add, fused
}

// x += W2 gelu(W1 LN2(x)), for layer l
static void ffn_block(Generator *g, size_t l) {
    const Model *m = g->m;
    const Layer *y = &m->layer[l];
    size_t mat = l * GEN_PER_LAYER;
    layernorm_row(g->h, g->x, y->ln2_w->data, y->ln2_b->data, m->C);
    project(g, g->fc, g->h, mat + GEN_FC, MATVEC_STORE);
    if (g->weights != GEN_WEIGHTS_FP32) {  // GELU inside the product that rounds or quantises its input
        project_act(g, g->x, g->fc, mat + GEN_FC_PROJ, MATVEC_ADD, MATVEC_IN_GELU);
        return;
    }
    gelu_forward(g->fc_act, g->fc, m->F);
    project(g, g->x, g->fc_act, mat + GEN_FC_PROJ, MATVEC_ADD);
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
    layernorm_row(g->h, g->x, m->lnf_w->data, m->lnf_b->data, C);
    project(g, g->logits, g->h, m->L * GEN_PER_LAYER, MATVEC_STORE);  // tied head
    g->pos = pos + 1;
    return g->logits;
}
