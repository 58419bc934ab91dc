// ops.c — dense ops: thin adapters from tape nodes to the kernels of nn.h.
//
// Node fields used: in[] inputs, dim[] sizes, saved[] intermediates kept for
// backward (named at each op).
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/fused.h"
#include "kernels/nn.h"
#include "util/err.h"

// ---- embedding: in[0] = wte (V, C), in[1] = wpe (T, C) or NULL; dim = {B, T}
static void embed_fwd(Node *n) {
    embed_forward(n->out->data, n->ints, n->in[0]->data, n->in[1] ? n->in[1]->data : NULL, n->dim[0],
                  n->dim[1], n->in[0]->cols);
}
static void embed_bwd(Node *n) {
    // out = wte[tokens] + wpe[t]
    Tensor *wpe = n->in[1];
    embed_backward(n->in[0]->grad, wpe ? wpe->grad : NULL, n->out->grad, n->ints, n->dim[0], n->dim[1],
                   n->in[0]->cols, n->in[0]->rows);
}
// rows r0 .. r1: sequences r0 / T .. r1 / T, positions from 0 in each
static void embed_rows(Node *n, size_t r0, size_t r1) {
    size_t C = n->in[0]->cols, T = n->dim[1];
    embed_forward(n->out->data + r0 * C, n->ints + r0, n->in[0]->data, n->in[1] ? n->in[1]->data : NULL,
                  (r1 - r0) / T, T, C);
}
// backward: only parameters (wte, wpe), summed over every row: no row form
static const OpDef EMBED = {"embed", embed_fwd, embed_bwd, embed_rows, NULL, NULL, 0};

Tensor *op_embed(Tape *t, const char *name, const int *tokens, Tensor *wte, Tensor *wpe, size_t B,
                 size_t T) {
    Tensor *out = tape_tensor(t, name, B * T, wte->cols, 1);
    Node *n = tape_node(t, &EMBED, out);
    n->in[0] = wte;
    n->in[1] = wpe;
    n->ints = tokens;
    n->dim[0] = B;
    n->dim[1] = T;
    return out;
}

// ---- matmul: in[0] = x (N, C), in[1] = w (OC, C); dim[0] = Precision
static void matmul_fwd(Node *n) {
    matmul_forward_prec(n->out->data, n->in[0]->data, n->in[1]->data, n->in[0]->rows, n->in[0]->cols,
                        n->in[1]->rows, (Precision)n->dim[0]);
}
static void matmul_bwd(Node *n) {
    // out = x @ w^T
    matmul_backward_prec(n->in[0]->grad, n->in[1]->grad, n->out->grad, n->in[0]->data, n->in[1]->data,
                         n->in[0]->rows, n->in[0]->cols, n->in[1]->rows, (Precision)n->dim[0],
                         node_stores_grad(n, 0));
}
// each row of out is its row of x times w^T (gemm.h: any split of the rows, the same bits)
static void matmul_rows(Node *n, size_t r0, size_t r1) {
    size_t C = n->in[0]->cols, OC = n->in[1]->rows;
    matmul_forward_prec(n->out->data + r0 * OC, n->in[0]->data + r0 * C, n->in[1]->data, r1 - r0, C, OC,
                        (Precision)n->dim[0]);
}
// dx's rows from dout's; dw, a sum over every row, afterwards
static void matmul_bwd_rows(Node *n, size_t r0, size_t r1) {
    Tensor *x = n->in[0], *w = n->in[1];
    size_t C = x->cols, OC = w->rows;
    if (x->grad)
        matmul_backward_prec(x->grad + r0 * C, NULL, n->out->grad + r0 * OC, x->data + r0 * C, w->data, r1 - r0, C,
                             OC, (Precision)n->dim[0], node_stores_grad(n, 0));
}
static void matmul_bwd_params(Node *n) {
    Tensor *x = n->in[0], *w = n->in[1];
    matmul_backward_prec(NULL, w->grad, n->out->grad, x->data, w->data, x->rows, x->cols, w->rows,
                         (Precision)n->dim[0], 0);
}
// x's gradient can be stored (matmul_backward_prec's dinp_store)
static const OpDef MATMUL = {"matmul", matmul_fwd, matmul_bwd, matmul_rows, matmul_bwd_rows, matmul_bwd_params,
                             .grad_store = 1u};

Tensor *op_matmul_prec(Tape *t, const char *name, Tensor *x, Tensor *w, Precision p) {
    if (x->cols != w->cols) {
        fprintf(stderr, "lmtrain: internal error: %s: matmul shapes (%zu,%zu) x (%zu,%zu)^T\n", name,
                x->rows, x->cols, w->rows, w->cols);
        abort();
    }
    Tensor *out = tape_tensor(t, name, x->rows, w->rows, 1);
    Node *n = tape_node(t, &MATMUL, out);
    n->in[0] = x;
    n->in[1] = w;
    n->dim[0] = (size_t)p;
    return out;
}

Tensor *op_matmul(Tape *t, const char *name, Tensor *x, Tensor *w) {
    return op_matmul_prec(t, name, x, w, PRECISION_FP32);
}

// ---- layernorm: in = {x, w, b}; dim[0] = group size C; saved = {mean, rstd}
// mean and rstd are saved (2 floats per group) so backward needs no second
// reduction over x.
static void ln_fwd(Node *n) {
    layernorm_forward(n->out->data, n->saved[0], n->saved[1], n->in[0]->data, n->in[1]->data,
                      n->in[2]->data, n->in[0]->n / n->dim[0], n->dim[0]);
}
static void ln_bwd(Node *n) {
    // out = (x - mean) * rstd * w + b
    layernorm_backward(n->in[0]->grad, n->in[1]->grad, n->in[2]->grad, n->out->grad, n->in[0]->data,
                       n->in[1]->data, n->saved[0], n->saved[1], n->in[0]->n / n->dim[0], n->dim[0]);
}
// groups of dim[0] floats, cols / dim[0] to a row
static void ln_rows(Node *n, size_t r0, size_t r1) {
    size_t cols = n->in[0]->cols, G = cols / n->dim[0];
    layernorm_forward(n->out->data + r0 * cols, n->saved[0] + r0 * G, n->saved[1] + r0 * G,
                      n->in[0]->data + r0 * cols, n->in[1]->data, n->in[2]->data, (r1 - r0) * G, n->dim[0]);
}
static void ln_bwd_rows(Node *n, size_t r0, size_t r1) {
    Tensor *x = n->in[0];
    size_t cols = x->cols, G = cols / n->dim[0];
    if (x->grad)
        layernorm_backward(x->grad + r0 * cols, NULL, NULL, n->out->grad + r0 * cols, x->data + r0 * cols,
                           n->in[1]->data, n->saved[0] + r0 * G, n->saved[1] + r0 * G, (r1 - r0) * G, n->dim[0]);
}
static void ln_bwd_params(Node *n) {
    layernorm_backward(NULL, n->in[1]->grad, n->in[2]->grad, n->out->grad, n->in[0]->data, n->in[1]->data,
                       n->saved[0], n->saved[1], n->in[0]->n / n->dim[0], n->dim[0]);
}
static const OpDef LAYERNORM = {"layernorm", ln_fwd, ln_bwd, ln_rows, ln_bwd_rows, ln_bwd_params, 0};

Tensor *op_layernorm(Tape *t, const char *name, Tensor *x, Tensor *w, Tensor *b) {
    Tensor *out = tape_tensor(t, name, x->rows, x->cols, 1);
    Node *n = tape_node(t, &LAYERNORM, out);
    n->in[0] = x;
    n->in[1] = w;
    n->in[2] = b;
    n->dim[0] = w->n;
    n->saved_n[0] = n->saved_n[1] = x->n / w->n;
    return out;
}

// ---- gelu: in[0] = x
static void gelu_fwd(Node *n) { gelu_forward(n->out->data, n->in[0]->data, n->out->n); }
// gelu_backward, or its store form where this node writes x's gradient first
static void gelu_bwd_part(Node *n, size_t off, size_t count) {
    if (node_stores_grad(n, 0))
        gelu_backward_store(n->in[0]->grad + off, n->in[0]->data + off, n->out->grad + off, count);
    else
        gelu_backward(n->in[0]->grad + off, n->in[0]->data + off, n->out->grad + off, count);
}
static void gelu_bwd(Node *n) {
    // out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    gelu_bwd_part(n, 0, n->out->n);
}
static void gelu_rows(Node *n, size_t r0, size_t r1) {
    size_t cols = n->out->cols;
    gelu_forward(n->out->data + r0 * cols, n->in[0]->data + r0 * cols, (r1 - r0) * cols);
}
static void gelu_bwd_rows(Node *n, size_t r0, size_t r1) {
    size_t cols = n->out->cols;
    if (n->in[0]->grad) gelu_bwd_part(n, r0 * cols, (r1 - r0) * cols);
}
static const OpDef GELU = {"gelu", gelu_fwd, gelu_bwd, gelu_rows, gelu_bwd_rows, NULL, .grad_store = 1u};

Tensor *op_gelu(Tape *t, const char *name, Tensor *x) {
    Tensor *out = tape_tensor(t, name, x->rows, x->cols, 1);
    tape_node(t, &GELU, out)->in[0] = x;
    return out;
}

// ---- add: in = {a, b}
static void add_fwd(Node *n) { add_forward(n->out->data, n->in[0]->data, n->in[1]->data, n->out->n); }
static void acc(float *dst, const float *src, size_t count) {
    if (!dst) return;
    for (size_t i = 0; i < count; i++) dst[i] += src[i];
}
// acc, or (store) dst = 0 + src without reading dst: the bits acc leaves in zeros
static void acc_to(float *dst, const float *src, size_t count, int store) {
    if (!store) {
        acc(dst, src, count);
        return;
    }
    if (!dst) return;
    for (size_t i = 0; i < count; i++) dst[i] = 0.0f + src[i];
}
static void add_bwd(Node *n) {
    // out = a + b
    acc(n->in[0]->grad, n->out->grad, n->out->n);
    acc(n->in[1]->grad, n->out->grad, n->out->n);
}
static const OpDef ADD = {"add", add_fwd, add_bwd, NULL, NULL, NULL, 0};

Tensor *op_add(Tape *t, const char *name, Tensor *a, Tensor *b) {
    Tensor *out = tape_tensor(t, name, a->rows, a->cols, 1);
    Node *n = tape_node(t, &ADD, out);
    n->in[0] = a;
    n->in[1] = b;
    return out;
}

// ---- matmul + residual add: in = {x, w, res}; dim[0] = Precision
static void mmres_fwd(Node *n) {
    Tensor *x = n->in[0], *w = n->in[1];
    matmul_residual_forward(n->out->data, n->in[2]->data, x->data, w->data, x->rows, x->cols, w->rows,
                            (Precision)n->dim[0]);
}
// The plain ops' backward gave the product's backward the gradient of its
// output, 0 + dout (the add's += into a zeroed buffer); this one hands it dout
// itself. The same bits: the two differ only where dout is -0, and a residual
// stream's gradient never is (every contribution to it is added to a zeroed
// buffer, and in round-to-nearest a sum is -0 only if both terms are).
static void mmres_bwd(Node *n) {
    // out = res + x @ w^T   (d res = dout; x, w: the matmul's backward on dout)
    Tensor *x = n->in[0], *w = n->in[1], *res = n->in[2];
    acc_to(res->grad, n->out->grad, n->out->n, node_stores_grad(n, 2));
    matmul_backward_prec(x->grad, w->grad, n->out->grad, x->data, w->data, x->rows, x->cols, w->rows,
                         (Precision)n->dim[0], node_stores_grad(n, 0));
}
static void mmres_rows(Node *n, size_t r0, size_t r1) {
    Tensor *x = n->in[0], *w = n->in[1];
    size_t C = x->cols, OC = w->rows;
    matmul_residual_forward(n->out->data + r0 * OC, n->in[2]->data + r0 * OC, x->data + r0 * C, w->data,
                            r1 - r0, C, OC, (Precision)n->dim[0]);
}
// d res's rows, then the product's (in[0], in[1] and dim[0] as matmul's)
static void mmres_bwd_rows(Node *n, size_t r0, size_t r1) {
    Tensor *res = n->in[2];
    size_t OC = n->in[1]->rows;
    acc_to(res->grad ? res->grad + r0 * OC : NULL, n->out->grad + r0 * OC, (r1 - r0) * OC, node_stores_grad(n, 2));
    matmul_bwd_rows(n, r0, r1);
}
// x's and res's gradients can be stored
static const OpDef MATMUL_RESIDUAL = {"matmul+add", mmres_fwd, mmres_bwd, mmres_rows, mmres_bwd_rows,
                                      matmul_bwd_params, .grad_store = 1u | 4u};

Tensor *op_matmul_residual(Tape *t, const char *name, Tensor *res, Tensor *x, Tensor *w, Precision p) {
    if (x->cols != w->cols || res->rows != x->rows || res->cols != w->rows) {
        fprintf(stderr, "lmtrain: internal error: %s: (%zu,%zu) + (%zu,%zu) x (%zu,%zu)^T\n", name, res->rows,
                res->cols, x->rows, x->cols, w->rows, w->cols);
        abort();
    }
    Tensor *out = tape_tensor(t, name, x->rows, w->rows, 1);
    Node *n = tape_node(t, &MATMUL_RESIDUAL, out);
    n->in[0] = x;
    n->in[1] = w;
    n->in[2] = res;
    n->dim[0] = (size_t)p;
    return out;
}

// ---- cross-entropy: in[0] = logits (N, V); saved = {probs (N, V), losses (N)}
// probs are saved because the backward is exactly probs - onehot.
static void ce_fwd(Node *n) {
    Tensor *x = n->in[0];
    n->value = crossentropy_forward(n->saved[0], n->saved[1], x->data, n->ints, x->rows, x->cols,
                                    &n->count);
    n->out->data[0] = (float)n->value;
}
static void ce_bwd(Node *n) {
    // loss = mean over scored rows of -log softmax(logits)[target]
    Tensor *x = n->in[0];
    crossentropy_backward(x->grad, n->saved[0], n->ints, x->rows, x->cols, n->count, n->out->grad[0]);
}
// the logits' rows: each from its own row (and the scored count, fixed by the forward)
static void ce_bwd_rows(Node *n, size_t r0, size_t r1) {
    Tensor *x = n->in[0];
    size_t V = x->cols;
    crossentropy_backward(x->grad ? x->grad + r0 * V : NULL, n->saved[0] + r0 * V, n->ints + r0, r1 - r0, V,
                          n->count, n->out->grad[0]);
}
// no forward_rows: the loss is one sum over every row
static const OpDef CROSSENTROPY = {"crossentropy", ce_fwd, ce_bwd, NULL, ce_bwd_rows, NULL, 0};

Tensor *op_crossentropy(Tape *t, const char *name, Tensor *logits, const int *targets) {
    Tensor *out = tape_tensor(t, name, 1, 1, 1);
    Node *n = tape_node(t, &CROSSENTROPY, out);
    n->in[0] = logits;
    n->ints = targets;
    n->saved_n[0] = logits->n;
    n->saved_n[1] = logits->rows;
    return out;
}

// ---- dot with a fixed vector: in[0] = x; attr = r (x->n floats)
static void dot_fwd(Node *n) {
    const float *r = n->attr;
    double s = 0;
    for (size_t i = 0; i < n->in[0]->n; i++) s += (double)n->in[0]->data[i] * r[i];
    n->value = s;
    n->out->data[0] = (float)s;
}
static void dot_bwd(Node *n) {
    // out = sum_i x_i r_i
    const float *r = n->attr;
    float g = n->out->grad[0];
    for (size_t i = 0; i < n->in[0]->n; i++) n->in[0]->grad[i] += g * r[i];
}
static const OpDef DOT = {"dot", dot_fwd, dot_bwd, NULL, NULL, NULL, 0};

Tensor *op_dot(Tape *t, const char *name, Tensor *x, const float *r) {
    Tensor *out = tape_tensor(t, name, 1, 1, 1);
    Node *n = tape_node(t, &DOT, out);
    n->in[0] = x;
    n->attr = r;
    return out;
}
