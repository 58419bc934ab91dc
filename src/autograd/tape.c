// tape.c — recording, one-shot allocation, forward and reverse replay.
#include "tape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "autograd/tape_shards.h"
#include "util/err.h"
#include "util/pool.h"

void tape_init(Tape *t) { memset(t, 0, sizeof *t); }

void tape_free(Tape *t) {
    for (size_t i = 0; i < t->n_acts; i++) {
        free((char *)t->acts[i]->name);
        free(t->acts[i]);
    }
    free(t->acts);
    free(t->nodes);
    free(t->act);
    free(t->act_grad);
    free(t->saved);
    free(t->zero_list);
    free(t->zero_start);
    shards_free(t);
    tape_profile_stop(t);
    memset(t, 0, sizeof *t);
}

Tensor *tape_tensor(Tape *t, const char *name, size_t rows, size_t cols, int needs_grad) {
    if (t->finalized) {
        fprintf(stderr, "lmtrain: internal error: tensor %s declared after tape_finalize\n", name);
        abort();
    }
    Tensor *x = xcalloc(1, sizeof *x);
    x->name = xstrdup(name);
    x->rows = rows;
    x->cols = cols;
    if (!size_mul(rows, cols, &x->n)) {
        fprintf(stderr, "lmtrain: tensor %s: size overflow\n", name);
        exit(ERR_RUNTIME);
    }
    // grad is a non-NULL marker until finalize assigns real storage
    x->grad = needs_grad ? (float *)x : NULL;
    if (t->n_acts == t->cap_acts) {
        t->cap_acts = t->cap_acts ? 2 * t->cap_acts : 64;
        t->acts = xrealloc(t->acts, t->cap_acts * sizeof *t->acts);
    }
    t->acts[t->n_acts++] = x;
    return x;
}

Node *tape_node(Tape *t, const OpDef *op, Tensor *out) {
    // finalize sized zero_start (and the profile clocks) by n_nodes: a node
    // added later would be replayed without its gradients zeroed
    if (t->finalized) {
        fprintf(stderr, "lmtrain: internal error: op %s recorded after tape_finalize\n", op->name);
        abort();
    }
    if (t->n_nodes == t->cap_nodes) {
        t->cap_nodes = t->cap_nodes ? 2 * t->cap_nodes : 64;
        t->nodes = xrealloc(t->nodes, t->cap_nodes * sizeof *t->nodes);
    }
    Node *n = &t->nodes[t->n_nodes++];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->out = out;
    return n;
}

// Rounds a float count up to a 64-byte boundary so every buffer starts aligned
// for AVX-512 loads.
static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

static float *alloc_block(size_t floats) {
    void *p = NULL;
    size_t bytes;
    if (!size_mul(floats ? floats : 1, sizeof(float), &bytes) || posix_memalign(&p, 64, bytes) != 0) {
        fprintf(stderr, "lmtrain: out of memory allocating %zu floats of activations\n", floats);
        exit(ERR_RUNTIME);
    }
    return p;
}

// The slot of x in n's inputs if it is there exactly once, else -1
static int single_slot(const Node *n, const Tensor *x) {
    int slot = -1;
    for (int j = 0; j < NODE_MAX_IN; j++)
        if (n->in[j] == x) {
            if (slot >= 0) return -1;
            slot = j;
        }
    return slot;
}

// The first node of the backward (the last in forward order) to write each
// activation gradient: it stores the gradient if its op can (OpDef.grad_store:
// x read once by the node, so its one contribution is the whole first write),
// else the gradient is zeroed right before it, not all up front, so the
// zeroed lines are still in cache when the node adds to them.
static void plan_zeroing(Tape *t) {
    size_t N = t->n_nodes, none = N;
    size_t *first = xcalloc(t->n_acts ? t->n_acts : 1, sizeof *first);
    for (size_t i = 0; i < N; i++) t->nodes[i].grad_store = 0;
    for (size_t a = 0; a < t->n_acts; a++) {
        first[a] = none;
        if (!t->acts[a]->grad) continue;
        for (size_t i = N; i-- > 0 && first[a] == none;)
            for (int j = 0; j < NODE_MAX_IN; j++)
                if (t->nodes[i].in[j] == t->acts[a]) first[a] = i;
        if (first[a] == none || t->no_grad_store) continue;
        Node *n = &t->nodes[first[a]];
        int j = single_slot(n, t->acts[a]);
        if (j >= 0 && (n->op->grad_store >> j) & 1u) {
            n->grad_store |= 1u << j;
            first[a] = none + 1;  // in no zero list
        }
    }
    t->zero_start = xcalloc(N + 2, sizeof *t->zero_start);
    t->zero_list = xcalloc(t->n_acts ? t->n_acts : 1, sizeof *t->zero_list);
    size_t n = 0;
    for (size_t i = 0; i <= N; i++) {  // i == N: the ones written by no node
        t->zero_start[i] = n;
        for (size_t a = 0; a < t->n_acts; a++)
            if (t->acts[a]->grad && first[a] == i) t->zero_list[n++] = t->acts[a];
    }
    t->zero_start[N + 1] = n;
    free(first);
}

static void zero_grads(Tape *t, size_t i) {
    for (size_t z = t->zero_start[i]; z < t->zero_start[i + 1]; z++)
        memset(t->zero_list[z]->grad, 0, t->zero_list[z]->n * sizeof(float));
}

void tape_finalize(Tape *t) {
    size_t act = 0, saved = 0;
    for (size_t i = 0; i < t->n_acts; i++) act += align16(t->acts[i]->n);
    for (size_t i = 0; i < t->n_nodes; i++)
        for (int s = 0; s < NODE_MAX_SAVED; s++) saved += align16(t->nodes[i].saved_n[s]);
    t->act = alloc_block(act);
    t->act_grad = alloc_block(act);
    t->saved = alloc_block(saved);
    memset(t->act, 0, act * sizeof(float));
    memset(t->act_grad, 0, act * sizeof(float));
    memset(t->saved, 0, saved * sizeof(float));
    t->act_floats = act;
    t->saved_floats = saved;
    size_t off = 0;
    for (size_t i = 0; i < t->n_acts; i++) {
        Tensor *x = t->acts[i];
        x->data = t->act + off;
        x->grad = x->grad ? t->act_grad + off : NULL;
        off += align16(x->n);
    }
    off = 0;
    for (size_t i = 0; i < t->n_nodes; i++)
        for (int s = 0; s < NODE_MAX_SAVED; s++) {
            Node *n = &t->nodes[i];
            n->saved[s] = n->saved_n[s] ? t->saved + off : NULL;
            off += align16(n->saved_n[s]);
        }
    plan_zeroing(t);
    t->finalized = 1;
    shards_plan(t);
}

// ---- profiling clocks (bench --part profile)

static double secs(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tape_profile_start(Tape *t) {
    tape_profile_stop(t);
    t->clock_fwd = xcalloc(t->n_nodes ? 2 * t->n_nodes : 1, sizeof *t->clock_fwd);
    t->clock_bwd = t->clock_fwd + t->n_nodes;
    memset(&t->clock_zero, 0, sizeof t->clock_zero);
    pool_profile(1);
}

void tape_profile_stop(Tape *t) {
    if (!t->clock_fwd) return;
    free(t->clock_fwd);
    t->clock_fwd = t->clock_bwd = NULL;
    pool_profile(0);
}

typedef struct {
    double wall, cpu, wait;
} Stamp;

static Stamp stamp(void) {
    return (Stamp){secs(CLOCK_MONOTONIC), secs(CLOCK_PROCESS_CPUTIME_ID), pool_wait_seconds()};
}

static void clock_add(NodeClock *c, Stamp a) {
    Stamp b = stamp();
    c->wall += b.wall - a.wall;
    c->cpu += b.cpu - a.cpu;
    c->wait += b.wait - a.wait;
    c->calls++;
}

// ---- replay

void tape_set_batches(Tape *t, size_t B, size_t T) {
    if (t->finalized) {
        fprintf(stderr, "lmtrain: internal error: tape_set_batches after tape_finalize\n");
        abort();
    }
    t->batches = B;
    t->batch_rows = T;
}

void tape_forward(Tape *t) {
    if (t->clock_fwd) {
        for (size_t i = 0; i < t->n_nodes; i++) {
            Stamp s = stamp();
            t->nodes[i].op->forward(&t->nodes[i]);
            clock_add(&t->clock_fwd[i], s);
        }
        return;
    }
    for (size_t i = shards_forward(t); i < t->n_nodes; i++) t->nodes[i].op->forward(&t->nodes[i]);
}

void tape_backward(Tape *t, Tensor *loss) {
    Stamp s0 = t->clock_bwd ? stamp() : (Stamp){0, 0, 0};
    for (size_t z = 0; z < t->zero_start[t->n_nodes]; z++)
        if (t->zero_list[z] == loss) {  // its seed would be zeroed by a node's turn
            fprintf(stderr, "lmtrain: internal error: the loss '%s' is read by a node\n", loss->name);
            abort();
        }
    zero_grads(t, t->n_nodes);  // the gradients no node writes (the loss's among them)
    if (t->clock_bwd) clock_add(&t->clock_zero, s0);
    loss->grad[0] = 1.0f;
    size_t end = t->clock_bwd ? t->n_nodes : shards_backward(t);  // node by node: the nodes below end
    for (size_t i = end; i-- > 0;) {
        Node *n = &t->nodes[i];
        if (!tape_wants_grad(n)) continue;
        if (!n->op->backward) {
            fprintf(stderr, "lmtrain: internal error: op '%s' has no backward\n", n->op->name);
            abort();
        }
        if (t->clock_bwd) {
            Stamp s = stamp();
            zero_grads(t, i);
            n->op->backward(n);
            clock_add(&t->clock_bwd[i], s);
        } else {
            zero_grads(t, i);
            n->op->backward(n);
        }
    }
}

int tensor_is_finite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

const Node *tape_first_nonfinite(const Tape *t) {
    for (size_t i = 0; i < t->n_nodes; i++) {
        const Node *n = &t->nodes[i];
        if (!tensor_is_finite(n->out->data, n->out->n)) return n;
    }
    return NULL;
}
