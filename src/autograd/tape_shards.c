// tape_shards.c — the sharded passes (tape.h: tape_set_batches).
//
// Node by node, every op wakes the pool workers for its own split of the
// work, and reads the rows another core wrote for the op before. On the
// development machine (a PVM guest) a syscall costs 1.2 µs of CPU
// (tests/bench_syscall.c) and waking the other vCPU tens of µs; the baby
// model's 2-thread step spent about a tenth of its CPU in the kernel
// (docs/speed.md). Sharded, each pool
// thread takes a run of whole sequences through every op of a pass, and the
// rows it writes are the rows it reads next:
//   forward   one dispatch for the leading nodes with forward_rows;
//   backward  one dispatch for the rows of the trailing nodes with
//             backward_rows (from the loss down), then one for their
//             parameters' gradients (backward_params), each node's on one
//             thread, largest first to the least loaded (those of different
//             nodes write different parameters: checked at the plan).
// Every value is what node by node computes: the ops' row forms and
// parameter parts say so (tape.h), and each parameter's gradient receives
// its nodes' parts in the same order.
#include "autograd/tape_shards.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/pool.h"

// ---------------------------------------------------------------- the plan

// The leading nodes the sharded forward runs
static size_t count_shard_nodes(const Tape *t) {
    if (t->batches < 2) return 0;
    size_t i = 0, rows = t->batches * t->batch_rows;
    while (i < t->n_nodes && t->nodes[i].op->forward_rows && t->nodes[i].out->rows == rows) i++;
    return i;
}

// The gradients node i zeroes or stores first are whole batches of rows (its
// output need not be: the loss's is one number, read whole by every share)
static int zeroes_batch_rows(const Tape *t, size_t i) {
    size_t rows = t->batches * t->batch_rows;
    for (size_t z = t->zero_start[i]; z < t->zero_start[i + 1]; z++)
        if (t->zero_list[z]->rows != rows) return 0;
    for (int j = 0; j < NODE_MAX_IN; j++)
        if (node_stores_grad(&t->nodes[i], j) && t->nodes[i].in[j]->rows != rows) return 0;
    return 1;
}

// The first of the trailing nodes the sharded backward runs
static size_t count_shard_bwd_from(const Tape *t) {
    if (t->batches < 2) return t->n_nodes;
    size_t i = t->n_nodes;
    while (i > 0 && t->nodes[i - 1].op->backward_rows && zeroes_batch_rows(t, i - 1)) i--;
    return i;
}

// A parameter: an input with a gradient that is not one of the tape's activations
static int is_param(const Tape *t, const Tensor *x) {
    return x && x->grad && !(x->data >= t->act && x->data < t->act + t->act_floats);
}

// 1 if nodes i and j have a parameter in common
static int share_param(const Tape *t, size_t i, size_t j) {
    for (int a = 0; a < NODE_MAX_IN; a++)
        for (int b = 0; b < NODE_MAX_IN; b++)
            if (is_param(t, t->nodes[i].in[a]) && t->nodes[i].in[a] == t->nodes[j].in[b]) return 1;
    return 0;
}

void shards_plan(Tape *t) {
    t->shard_nodes = count_shard_nodes(t);
    t->shard_bwd_from = count_shard_bwd_from(t);
    size_t from = t->shard_bwd_from, n = 0, rows = t->batches * t->batch_rows;
    size_t *list = xcalloc(t->n_nodes + 1, sizeof *list);
    for (size_t i = t->n_nodes; i-- > from;)
        if (t->nodes[i].op->backward_params) list[n++] = i;
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (share_param(t, list[a], list[b])) {  // one gradient, two writers: their order matters
                free(list);
                return;
            }
    double *cost = xcalloc(t->n_nodes + 1, sizeof *cost);
    for (size_t k = 0; k < n; k++)
        for (int a = 0; a < NODE_MAX_IN; a++) {
            const Tensor *x = t->nodes[list[k]].in[a];
            if (is_param(t, x)) cost[list[k]] += (double)x->n * (double)rows;
        }
    // largest first; among equals the later node first (its order node by node)
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && cost[list[b]] > cost[list[b - 1]]; b--) {
            size_t x = list[b];
            list[b] = list[b - 1];
            list[b - 1] = x;
        }
    t->param_nodes = list;
    t->n_param_nodes = n;
    t->param_cost = cost;
    t->param_owner = xcalloc(t->n_nodes + 1, sizeof *t->param_owner);
    for (size_t i = 0; i < t->n_nodes; i++) t->param_owner[i] = -1;  // no thread's until shards_backward
}

void shards_free(Tape *t) {
    free(t->param_nodes);
    free(t->param_cost);
    free(t->param_owner);
    t->param_nodes = NULL;
    t->param_cost = NULL;
    t->param_owner = NULL;
    t->n_param_nodes = 0;
}

// ---------------------------------------------------------------- the passes

static void forward_share(void *ctx, size_t b0, size_t b1) {
    Tape *t = ctx;
    size_t r0 = b0 * t->batch_rows, r1 = b1 * t->batch_rows;
    for (size_t i = 0; i < t->shard_nodes; i++) t->nodes[i].op->forward_rows(&t->nodes[i], r0, r1);
}

size_t shards_forward(Tape *t) {
    if (!t->shard_nodes || pool_threads_used() < 2) return 0;
    parallel_for(t->batches, 1, forward_share, t);
    return t->shard_nodes;
}

// zero_grads (tape.c) for rows [r0, r1) only
static void zero_grad_rows(Tape *t, size_t i, size_t r0, size_t r1) {
    for (size_t z = t->zero_start[i]; z < t->zero_start[i + 1]; z++) {
        Tensor *x = t->zero_list[z];
        memset(x->grad + r0 * x->cols, 0, (r1 - r0) * x->cols * sizeof(float));
    }
}

static void backward_share(void *ctx, size_t b0, size_t b1) {
    Tape *t = ctx;
    size_t r0 = b0 * t->batch_rows, r1 = b1 * t->batch_rows;
    for (size_t i = t->n_nodes; i-- > t->shard_bwd_from;) {
        Node *n = &t->nodes[i];
        if (!tape_wants_grad(n)) continue;
        zero_grad_rows(t, i, r0, r1);
        n->op->backward_rows(n, r0, r1);
    }
}

// Thread p's parameter parts (param_owner), from the last node down
static void params_share(void *ctx, size_t lo, size_t hi) {
    Tape *t = ctx;
    for (size_t p = lo; p < hi; p++)
        for (size_t i = t->n_nodes; i-- > t->shard_bwd_from;) {
            Node *n = &t->nodes[i];
            if (n->op->backward_params && t->param_owner[i] == (int)p && tape_wants_grad(n))
                n->op->backward_params(n);
        }
}

size_t shards_backward(Tape *t) {
    if (t->shard_bwd_from == t->n_nodes || pool_threads_used() < 2) return t->n_nodes;
    parallel_for(t->batches, 1, backward_share, t);
    if (!t->param_nodes) {  // node by node, in the order backward runs them
        for (size_t i = t->n_nodes; i-- > t->shard_bwd_from;) {
            Node *n = &t->nodes[i];
            if (tape_wants_grad(n) && n->op->backward_params) n->op->backward_params(n);
        }
        return t->shard_bwd_from;
    }
    // each node to the least loaded thread, largest first
    enum { MAX_THREADS = 256 };
    double load[MAX_THREADS] = {0};
    size_t P = (size_t)pool_threads_used();
    if (P > MAX_THREADS) P = MAX_THREADS;
    for (size_t k = 0; k < t->n_param_nodes; k++) {
        size_t i = t->param_nodes[k], best = 0;
        for (size_t p = 1; p < P; p++)
            if (load[p] < load[best]) best = p;
        t->param_owner[i] = (int)best;
        load[best] += t->param_cost[i];
    }
    if (t->n_param_nodes) parallel_for(P, 1, params_share, t);
    return t->shard_bwd_from;
}
