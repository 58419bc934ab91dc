// op_attention.c — the attention op: layout changes around an attention kind.
//
// The model projects the block input to one (B*T, 3C + H*n_aux) matrix. A
// kind with forward_io / backward_io reads q, k, v from it where they are
// (rows W apart) and writes y straight into the (B*T, C) output; backward
// likewise reads dy from the output's gradient and adds dq, dk, dv into the
// projection's. Only the small aux channels are copied, into (B, H, n_aux, T).
// Otherwise — a kind that wants head-major slabs (B, H, T, dh), or the
// one-token key shift, whose key at position t is another row's — this op
// scatters the projection into slabs (shifting keys on the way), calls the
// kind, and gathers the result back to (B*T, C); backward is the same three
// steps reversed. Both give the same bits (tests/autograd/test_attention_io.c):
// the kinds' arithmetic per element does not depend on where rows lie.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "autograd/ops.h"
#include "util/err.h"
#include "util/pool.h"

enum { S_Q, S_K, S_V, S_AUX, S_Y, S_WORK, S_GRADS, S_DTHETA };

typedef struct {
    const AttnOp *a;
    float *qkv;          // (B*T, W)
    float *q, *k, *v, *aux;  // (B, H, T, dh), aux (B, H, n_aux, T)
    int to_heads;        // 1: qkv -> slabs (forward), 0: slab grads -> qkv grad (backward, +=)
    int aux_only;        // 1: only the aux channels (q, k, v are read in place)
} Scatter;

static void scatter_rows(void *ctx, size_t lo, size_t hi) {
    const Scatter *s = ctx;
    const AttnOp *a = s->a;
    size_t H = (size_t)a->cfg.heads, dh = (size_t)a->cfg.dh, C = H * dh, T = a->T;
    size_t na = attn_aux(a->kind, &a->cfg), W = 3 * C + H * na;
    for (size_t r = lo; r < hi; r++) {  // r = b*T + t
        size_t b = r / T, t = r % T;
        float *row = s->qkv + r * W;
        for (size_t h = 0; h < H; h++) {
            if (s->aux_only) {
                float *aux = s->aux + (b * H + h) * na * T + t, *col = row + 3 * C + h * na;
                for (size_t j = 0; j < na; j++) {
                    if (s->to_heads) aux[j * T] = col[j];
                    else col[j] += aux[j * T];
                }
                continue;
            }
            size_t slab = ((b * H + h) * T + t);
            float *q = s->q + slab * dh, *v = s->v + slab * dh;
            // key shift: the slab at t holds the key projected from t-1
            float *k = s->k + slab * dh;
            const float *krow = row + C + h * dh;  // this row's key, used at slab t (or t+1 shifted)
            if (s->to_heads) {
                memcpy(q, row + h * dh, dh * sizeof(float));
                memcpy(v, row + 2 * C + h * dh, dh * sizeof(float));
                if (!a->key_shift) memcpy(k, krow, dh * sizeof(float));
                else if (t == 0) memset(k, 0, dh * sizeof(float));
                else memcpy(k, krow - W, dh * sizeof(float));  // previous row's key
                for (size_t j = 0; j < na; j++) s->aux[((b * H + h) * na + j) * T + t] = row[3 * C + h * na + j];
            } else {
                for (size_t d = 0; d < dh; d++) row[h * dh + d] += q[d];
                for (size_t d = 0; d < dh; d++) row[2 * C + h * dh + d] += v[d];
                if (!a->key_shift) {
                    for (size_t d = 0; d < dh; d++) row[C + h * dh + d] += k[d];
                } else if (t + 1 < T) {
                    // this row's key was used at position t+1
                    const float *kn = k + dh;
                    for (size_t d = 0; d < dh; d++) row[C + h * dh + d] += kn[d];
                }
                for (size_t j = 0; j < na; j++) row[3 * C + h * na + j] += s->aux[((b * H + h) * na + j) * T + t];
            }
        }
    }
}

typedef struct {
    const AttnOp *a;
    float *y;         // (B*T, C)
    float *yh;        // (B, H, T, dh)
    int to_heads;     // 1: y -> yh (copy), 0: yh -> y (copy)
} Gather;

static void gather_rows(void *ctx, size_t lo, size_t hi) {
    const Gather *g = ctx;
    size_t H = (size_t)g->a->cfg.heads, dh = (size_t)g->a->cfg.dh, T = g->a->T;
    for (size_t r = lo; r < hi; r++) {
        size_t b = r / T, t = r % T;
        for (size_t h = 0; h < H; h++) {
            float *row = g->y + r * H * dh + h * dh;
            float *slab = g->yh + ((b * H + h) * T + t) * dh;
            if (g->to_heads) memcpy(slab, row, dh * sizeof(float));
            else memcpy(row, slab, dh * sizeof(float));
        }
    }
}

// Rows per task of the copies above: a scatter or gather moves `floats` per
// row each way (read and written; the backward's += reads its target too,
// counted alike: a grain, not an exact count).
static size_t copy_grain(size_t floats) { return pool_grain_bytes(8 * floats); }
static size_t aux_width(const AttnOp *a) { return (size_t)a->cfg.heads * attn_aux(a->kind, &a->cfg); }
static size_t y_width(const AttnOp *a) { return (size_t)a->cfg.heads * a->cfg.dh; }
static size_t qkv_width(const AttnOp *a) { return 3 * y_width(a) + aux_width(a); }

static size_t slab_floats(const AttnOp *a) { return a->B * a->T * (size_t)a->cfg.heads * a->cfg.dh; }
static size_t aux_floats(const AttnOp *a) {
    return a->B * a->T * (size_t)a->cfg.heads * attn_aux(a->kind, &a->cfg);
}

// q, k, v read in place from the projection and y written in place: this
// node was recorded that way (op_attention: dim[0])
static int in_place(const Node *n) { return n->dim[0] != 0; }
int op_attention_in_place(const Node *n) { return in_place(n); }

// The projection (B*T, W) and the output (B*T, C) as the kind's io
static AttnIO io_in_place(const AttnOp *a) {
    size_t H = (size_t)a->cfg.heads, dh = (size_t)a->cfg.dh, C = H * dh;
    size_t W = 3 * C + H * attn_aux(a->kind, &a->cfg);
    return (AttnIO){a->B, a->T, W, dh, a->T * W, C, dh, a->T * C, 0, a->B};
}

// The aux channels of sequences [b0, b1) copied as s says: across the pool for
// the whole batch, on this thread for a share of the sharded passes
static void scatter_aux(Scatter *s, size_t b0, size_t b1) {
    const AttnOp *a = s->a;
    if (b0 == 0 && b1 == a->B) parallel_for(a->B * a->T, copy_grain(aux_width(a)), scatter_rows, s);
    else scatter_rows(s, b0 * a->T, b1 * a->T);
}

// Sequences [b0, b1): all of them from attn_fwd, a shard's from attn_rows
static void fwd_in_place(Node *n, const float *theta, size_t b0, size_t b1) {
    const AttnOp *a = n->attr;
    size_t C = (size_t)a->cfg.heads * a->cfg.dh;
    if (n->saved_n[S_AUX]) {
        Scatter s = {.a = a, .qkv = n->in[0]->data, .aux = n->saved[S_AUX], .to_heads = 1, .aux_only = 1};
        scatter_aux(&s, b0, b1);
    }
    AttnIO io = io_in_place(a);
    io.b0 = b0;
    io.b1 = b1;
    const float *qkv = n->in[0]->data;
    a->kind->forward_io(&a->cfg, &io, n->out->data, n->saved[S_WORK], qkv, qkv + C, qkv + 2 * C,
                        n->saved[S_AUX], theta);
}

// Sequences [b0, b1): all of them, dθ added (attn_bwd), or a shard's, dtheta
// NULL (attn_bwd_rows; attn_bwd_params adds dθ)
static void bwd_in_place(Node *n, float *dtheta, const float *theta, size_t b0, size_t b1) {
    const AttnOp *a = n->attr;
    size_t C = (size_t)a->cfg.heads * a->cfg.dh;
    float *daux = n->saved[S_GRADS];  // NULL without aux channels
    size_t aux_seq = aux_floats(a) / a->B;  // daux is (B, H, n_aux, T)
    if (daux) memset(daux + b0 * aux_seq, 0, (b1 - b0) * aux_seq * sizeof(float));
    AttnIO io = io_in_place(a);
    io.b0 = b0;
    io.b1 = b1;
    const float *qkv = n->in[0]->data;
    // The kind ADDS straight onto the projection's gradient. Its partial sums
    // (softmax's dq over key tiles, ...) then add onto the old value one by
    // one, where the slab route summed them from zero first: the same bits
    // when that gradient is zero, as in the model (this op is the
    // projection's only reader), otherwise the same sum in another order.
    float *dqkv = n->in[0]->grad;
    a->kind->backward_io(&a->cfg, &io, dqkv, dqkv + C, dqkv + 2 * C, daux, dtheta, n->out->grad,
                         n->saved[S_WORK], qkv, qkv + C, qkv + 2 * C, n->saved[S_AUX], theta,
                         n->out->data);
    if (daux) {
        Scatter s = {.a = a, .qkv = dqkv, .aux = daux, .to_heads = 0, .aux_only = 1};
        scatter_aux(&s, b0, b1);
    }
}

static void attn_fwd(Node *n) {
    const AttnOp *a = n->attr;
    const float *theta = n->in[1] ? n->in[1]->data : NULL;
    if (in_place(n)) {
        fwd_in_place(n, theta, 0, a->B);
        return;
    }
    Scatter s = {a, n->in[0]->data, n->saved[S_Q], n->saved[S_K], n->saved[S_V], n->saved[S_AUX], 1, 0};
    parallel_for(a->B * a->T, copy_grain(qkv_width(a)), scatter_rows, &s);
    a->kind->forward(&a->cfg, a->B, a->T, n->saved[S_Y], n->saved[S_WORK], s.q, s.k, s.v, s.aux, theta);
    Gather g = {a, n->out->data, n->saved[S_Y], 0};
    parallel_for(a->B * a->T, copy_grain(y_width(a)), gather_rows, &g);
}

static void attn_bwd(Node *n) {
    // y = gather(kind(scatter(qkv), theta))
    const AttnOp *a = n->attr;
    Tensor *theta = n->in[1];
    float *dtheta = theta && theta->grad ? theta->grad : n->saved[S_DTHETA];
    if (in_place(n)) {
        bwd_in_place(n, dtheta, theta ? theta->data : NULL, 0, a->B);
        return;
    }
    size_t S = slab_floats(a);
    float *dq = n->saved[S_GRADS], *dk = dq + S, *dv = dk + S, *dy = dv + S, *daux = dy + S;
    memset(dq, 0, 3 * S * sizeof(float));
    memset(daux, 0, aux_floats(a) * sizeof(float));
    Gather g = {a, n->out->grad, dy, 1};
    parallel_for(a->B * a->T, copy_grain(y_width(a)), gather_rows, &g);
    a->kind->backward(&a->cfg, a->B, a->T, dq, dk, dv, daux, dtheta, dy, n->saved[S_WORK],
                      n->saved[S_Q], n->saved[S_K], n->saved[S_V], n->saved[S_AUX],
                      theta ? theta->data : NULL, n->saved[S_Y]);
    if (!n->in[0]->grad) return;
    Scatter s = {a, n->in[0]->grad, dq, dk, dv, daux, 0, 0};
    parallel_for(a->B * a->T, copy_grain(qkv_width(a)), scatter_rows, &s);
}

// A sharded forward's rows r0 .. r1: whole sequences (tape.h)
static void attn_rows(Node *n, size_t r0, size_t r1) {
    const AttnOp *a = n->attr;
    fwd_in_place(n, n->in[1] ? n->in[1]->data : NULL, r0 / a->T, r1 / a->T);
}

static void attn_bwd_rows(Node *n, size_t r0, size_t r1) {
    const AttnOp *a = n->attr;
    bwd_in_place(n, NULL, n->in[1] ? n->in[1]->data : NULL, r0 / a->T, r1 / a->T);
}

// dθ: a sum over every sequence, once the shards are done (attn_bwd's order)
static void attn_bwd_params(Node *n) {
    const AttnOp *a = n->attr;
    Tensor *theta = n->in[1];
    if (!theta || !a->kind->add_dtheta) return;
    float *dtheta = theta->grad ? theta->grad : n->saved[S_DTHETA];
    a->kind->add_dtheta(&a->cfg, a->B, n->saved[S_WORK], theta->data, dtheta);
}

// In place, the kind's forward_io and backward_io compute any run of
// sequences (AttnIO.b0, b1); the slab route's copies and its kind's forward
// and backward run on the whole batch.
static const OpDef ATTENTION_IN_PLACE = {"attention", attn_fwd, attn_bwd, attn_rows, attn_bwd_rows, attn_bwd_params, 0};
static const OpDef ATTENTION = {"attention", attn_fwd, attn_bwd, NULL, NULL, NULL, 0};

const float *op_attention_work(const Node *n) { return n->saved[S_WORK]; }

Tensor *op_attention(Tape *t, const char *name, Tensor *qkv, Tensor *theta, const AttnOp *a) {
    size_t C = (size_t)a->cfg.heads * a->cfg.dh;
    size_t W = 3 * C + (size_t)a->cfg.heads * attn_aux(a->kind, &a->cfg);
    if (qkv->cols != W || qkv->rows != a->B * a->T) {
        fprintf(stderr, "lmtrain: internal error: %s: qkv is (%zu,%zu), expected (%zu,%zu)\n", name,
                qkv->rows, qkv->cols, a->B * a->T, W);
        abort();
    }
    // In place when the kind can and the keys are not shifted; that needs the
    // projection's gradient to add into (a tensor recorded with one has a
    // non-NULL grad before finalize too). No slabs then.
    int direct = a->kind->forward_io && a->kind->backward_io && !a->key_shift && qkv->grad;
    Tensor *out = tape_tensor(t, name, a->B * a->T, C, 1);
    Node *n = tape_node(t, direct ? &ATTENTION_IN_PLACE : &ATTENTION, out);
    n->in[0] = qkv;
    n->in[1] = theta;
    n->attr = a;
    n->dim[0] = (size_t)direct;
    size_t S = direct ? 0 : slab_floats(a);
    n->saved_n[S_Q] = n->saved_n[S_K] = n->saved_n[S_V] = n->saved_n[S_Y] = S;
    n->saved_n[S_AUX] = aux_floats(a);
    n->saved_n[S_WORK] = a->kind->work_floats(&a->cfg, a->B, a->T);
    n->saved_n[S_GRADS] = 4 * S + aux_floats(a);
    n->saved_n[S_DTHETA] = (size_t)a->cfg.heads;
    return out;
}
