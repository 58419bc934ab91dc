// model.h — the nanoGPT-shaped model: parameters, init, and its tape.
//
// Model holds the weights (one contiguous block, plus a gradient block of the
// same layout) and knows their names, shapes and which get weight decay.
// Graph records the training-time forward for one (B, T) on a tape; the same
// Graph serves training, evaluation and the full-forward reference in tests.
#pragma once
#include <stddef.h>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "config/config.h"

typedef struct {
    Tensor t;          // data/grad point into the model's blocks; grad NULL if frozen
    int weight_decay;  // AdamW weight decay applies (matrices and embeddings)
    size_t offset;     // offset in floats inside the parameter block
} Param;

typedef struct {
    Tensor *ln1_w, *ln1_b;    // (C)
    Tensor *qkv;              // (3C + H*n_aux, C): rows q | k | v | aux (the kind's own rows)
    Tensor *theta;            // (H) decay logits, NULL unless the kind owns θ (attention/params.h)
    Tensor *lnh_w, *lnh_b;    // (dh) per-head output LayerNorm, NULL unless output_norm
    Tensor *proj;             // (C, C) attention output projection
    Tensor *ln2_w, *ln2_b;    // (C), NULL when ffn_mult = 0
    Tensor *fc;               // (F, C)
    Tensor *fc_proj;          // (C, F)
} Layer;

typedef struct {
    Config cfg;
    const AttnKind *kind;
    AttnConfig acfg;
    size_t V, C, H, dh, L, F, Tmax;  // F = ffn_mult * C; Tmax = block_size
    Param *params;
    size_t n_params;
    float *data, *grad;   // the parameter and gradient blocks
    size_t n_floats;      // floats in each block (with alignment padding)
    size_t n_weights;     // the parameter count users see (no padding)
    Tensor *wte, *wpe;    // (V, C), (Tmax, C) or NULL when pos = none
    Tensor *lnf_w, *lnf_b;
    Layer *layer;         // (L)
} Model;

// Sizes the model for cfg and vocabulary V, allocates, and initialises the
// weights from cfg->seed (each tensor from its own stream keyed by its name,
// so kinds share identical initial weights wherever their tensors coincide).
void model_build(Model *m, const Config *cfg, size_t V);
// The model has a decay λ = sigmoid(θ) per head (its kind owns θ).
static inline int model_has_decay(const Model *m) { return m->L > 0 && m->layer[0].theta != NULL; }
void model_free(Model *m);
void model_zero_grad(Model *m);
// Bytes a model and its training graph would need, for refusing impossible
// configs before allocating: weights, gradients and AdamW moments,
// activations, and every layer's attention work buffer (the kind's
// work_floats). An upper bound (tests/model/test_estimate.c measures a real
// step against it). Returns 0 on overflow.
size_t model_estimate_bytes(const Config *cfg, size_t V, size_t B, size_t T);

typedef struct {
    Tape tape;
    size_t B, T;
    int *tokens, *targets;      // (B, T), filled by the caller before forward
    Tensor *logits;             // (B*T, V)
    Tensor *loss;               // (1, 1)
    size_t loss_node;           // index of the cross-entropy node (per-position losses)
    AttnOp *attn;               // (L) attention attributes, owned here
    size_t *attn_node;          // (L) node indices of the attention ops
} Graph;

// The graph in fp32 (evaluation, sampling's references, tests).
void graph_build(Graph *g, Model *m, size_t B, size_t T);
// ... at a precision: PRECISION_BF16 rounds the operands of every matmul (the
// q/k/v, output, MLP and tied-head projections, forward and backward) to bf16;
// attention, LayerNorm, GELU, the loss and all gradients stay fp32. The caller
// checks bf16_cpu_missing() first.
void graph_build_prec(Graph *g, Model *m, size_t B, size_t T, Precision p);
void graph_free(Graph *g);
// forward only; returns the mean loss over scored positions
double graph_forward(Graph *g);
// forward + backward into the model's gradient block (which it zeroes first)
double graph_forward_backward(Graph *g, Model *m);
// per-position losses of the last forward: (B*T)
const float *graph_position_losses(const Graph *g);
size_t graph_scored(const Graph *g);
// mean ||S|| after the last position in layer l (fast-weight kinds), or -1
double graph_state_norm(const Graph *g, const Model *m, size_t l);

// Inference memory of one sequence of `len` tokens over all layers, in bytes:
// KV cache (softmax) or fixed fast-weight state.
size_t model_inference_bytes(const Model *m, size_t len);
