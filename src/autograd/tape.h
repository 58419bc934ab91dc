// tape.h — reverse-mode autograd as a Wengert list over float32 tensors.
//
// The model's graph is the same every step, so the tape is recorded once
// (ops append nodes and declare the sizes they need), then tape_finalize()
// makes ONE allocation for all activations, one for their gradients and one
// for saved intermediates. After that a training step is
//     tape_forward(t);  tape_backward(t);
// with no allocation at all: forward replays the nodes in order, backward
// replays them in reverse, each op's backward ADDING into its inputs' grads.
#pragma once
#include <stddef.h>

// A 2-D view (rows x cols) of a float buffer and its gradient. Parameters
// live in the model's parameter block; activations in the tape's blocks.
typedef struct Tensor {
    float *data;       // (rows, cols)
    float *grad;       // (rows, cols); NULL when no gradient flows to it
    size_t rows, cols, n;
    const char *name;  // for error messages ("h.2.attn.qkv.weight", "h.2.ffn.gelu")
} Tensor;

typedef struct Node Node;

// One op kind: a name and its two directions. A missing backward is not
// silently skipped: tape_backward fails loudly naming the op.
// The sharded passes (tape_set_batches) run an op a share of rows at a time:
// rows [r0, r1), whole sequences (r0, r1 multiples of the sequence length).
// forward_rows (NULL if the op has none): the forward of those output rows
//   only, reading no other rows of its row-indexed inputs.
// backward_rows (NULL if none): backward's part for those rows: the
//   gradients of those rows of the row-indexed inputs, from those rows of
//   out's gradient. backward_params (NULL: backward_rows is all of it): the
//   rest, run once every share is done: the gradients that sum over every
//   row (a weight's, a LayerNorm's gain and bias, θ).
// Each writes nothing else, and every value is the same bits as forward /
// backward compute.
// grad_store: bit j set if every backward form, told so by its node's
//   grad_store bit j, can STORE in[j]'s gradient instead of adding to it:
//   it then writes each element it is responsible for (of its rows, in the
//   row forms) as 0 + its contribution, the bits the add into a zeroed
//   buffer gives, without reading the old value. The tape sets the node's
//   bit only where the node is the gradient's first writer, and then does
//   not zero that gradient: one pass less over it, and no zeros read back
//   from memory (the large model's products' outputs are megabytes).
typedef struct {
    const char *name;
    void (*forward)(Node *n);
    void (*backward)(Node *n);
    void (*forward_rows)(Node *n, size_t r0, size_t r1);
    void (*backward_rows)(Node *n, size_t r0, size_t r1);
    void (*backward_params)(Node *n);
    unsigned grad_store;
} OpDef;

#define NODE_MAX_IN 4
#define NODE_MAX_SAVED 8

struct Node {
    const OpDef *op;
    Tensor *out;
    Tensor *in[NODE_MAX_IN];         // NULL-padded
    size_t dim[4];                   // op-specific sizes (documented per op)
    float *saved[NODE_MAX_SAVED];    // op-specific saved buffers / scratch
    size_t saved_n[NODE_MAX_SAVED];  // their sizes in floats (declared at record time)
    const int *ints;                 // token ids or targets, owned by the caller
    const void *attr;                // op-specific attributes, owned by the op
    double value;                    // scalar result (loss ops)
    size_t count;                    // scalar ops: how many positions were scored
    unsigned grad_store;             // bit j: store in[j]'s gradient, not add (OpDef.grad_store; set at finalize)
};

// 1 if n's backward stores in[j]'s gradient rather than adding to it
static inline int node_stores_grad(const Node *n, int j) { return (n->grad_store >> j) & 1u; }

// Per-node clocks for `bench --part profile`: seconds accumulated over the
// replays since tape_profile_start, one entry per node and direction.
typedef struct {
    double wall, cpu;  // wall clock; CPU time of the whole process (every pool thread)
    double wait;       // wall time the calling thread spent waiting for pool workers
    long calls;
} NodeClock;

typedef struct {
    Node *nodes;
    size_t n_nodes, cap_nodes;
    Tensor **acts;                   // activations owned by the tape
    size_t n_acts, cap_acts;
    float *act, *act_grad, *saved;   // the three blocks
    size_t act_floats, saved_floats;
    // Where tape_backward zeroes the activation gradients (tape_finalize):
    // each one just before the first node to write it runs its backward (the
    // zeros are then in cache when it adds to them), those of node i being
    // zero_list[zero_start[i] .. zero_start[i + 1]); one no node writes
    // (the loss, an unused output) at the start, zero_list[zero_start[n_nodes] ..].
    // A gradient whose first writer stores it (OpDef.grad_store) is in no list.
    Tensor **zero_list;
    size_t *zero_start;              // (n_nodes + 2): where each run above starts, and the last one ends
    int finalized;
    int no_grad_store;               // set before tape_finalize: zero every gradient, store none (tests compare)
    // NULL unless profiling: then (n_nodes) forward and (n_nodes) backward
    // clocks, and the zeroing of the gradients no node writes (the others are
    // zeroed inside their first writer's backward clock).
    // The replay loops test it once per pass, so the hot path stays clock-free.
    NodeClock *clock_fwd, *clock_bwd;
    NodeClock clock_zero;
    // The sharded passes (tape_set_batches): the activations' rows are
    // `batches` sequences of `batch_rows` rows. The first `shard_nodes` nodes
    // have forward_rows; the nodes from `shard_bwd_from` on have
    // backward_rows (shard_bwd_from = n_nodes: none). The outputs of the
    // first, and the gradients the second zero first, have batches *
    // batch_rows rows.
    size_t batches, batch_rows, shard_nodes, shard_bwd_from;
    // The sharded backward's backward_params (tape_shards.c): the nodes that
    // have one, largest first, their work (rows x parameter floats), and per
    // node the thread it runs on; NULL when they run node by node.
    size_t *param_nodes, n_param_nodes;
    double *param_cost;
    int *param_owner;
} Tape;

// 1 if a gradient flows to one of n's inputs (else the backward skips n)
static inline int tape_wants_grad(const Node *n) {
    for (int i = 0; i < NODE_MAX_IN; i++)
        if (n->in[i] && n->in[i]->grad) return 1;
    return 0;
}

void tape_init(Tape *t);
void tape_free(Tape *t);

// Declares an activation (storage assigned at finalize). `needs_grad`: whether
// a gradient buffer is reserved for it.
Tensor *tape_tensor(Tape *t, const char *name, size_t rows, size_t cols, int needs_grad);
// Appends a node; returns it so the op constructor can fill dims and saved sizes.
// An op's backward may write (add to) the gradients of its in[] tensors only:
// the lazy zeroing above finds each gradient's first writer through in[].
// Refused (abort) after tape_finalize.
Node *tape_node(Tape *t, const OpDef *op, Tensor *out);
void tape_finalize(Tape *t);

// The activations' rows are B sequences of T rows each (before tape_finalize).
// Then the leading nodes with forward_rows run as one sharded forward: each
// pool thread takes a run of whole sequences through all of them, one
// dispatch in all where node by node each op would wake the workers and read
// rows another core wrote. Backward likewise: the trailing nodes with
// backward_rows run as one sharded pass, each thread its sequences from the
// loss down, and then their backward_params, each node's on one thread
// (those of different nodes write different parameters). Every value is the
// same as node by node (the ops' row forms say so). Without this call, or on
// one thread, or while profiling (whose clocks time each node across the
// threads), node by node.
void tape_set_batches(Tape *t, size_t B, size_t T);

// Replays the nodes in order: the sharded run first, then the rest.
void tape_forward(Tape *t);
// Zeroes every activation gradient (each just before the node that writes it
// first), seeds d(loss)/d(loss) = 1 on `loss` (a 1x1 tensor no node reads),
// replays the nodes in reverse.
void tape_backward(Tape *t, Tensor *loss);

// Starts (or restarts from zero) the per-node clocks; tape_profile_stop frees
// them. Only a finalized tape can be profiled.
void tape_profile_start(Tape *t);
void tape_profile_stop(Tape *t);

// The first node (in forward order) whose output holds a NaN or Inf, or NULL.
const Node *tape_first_nonfinite(const Tape *t);
int tensor_is_finite(const float *x, size_t n);
