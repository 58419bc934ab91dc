// ops.h — the differentiable ops, as tape constructors.
//
// Each op_x() declares its output tensor and records one node; the math runs
// later, in tape_forward / tape_backward, by calling the kernels of
// kernels/nn.h and the attention kinds. Names given here appear in NaN reports.
#pragma once
#include "attention/attention.h"
#include "autograd/tape.h"
#include "kernels/bf16.h"

// (B*T, C) = wte[tokens] + wpe[t]; tokens (B, T) is read at forward time.
Tensor *op_embed(Tape *t, const char *name, const int *tokens, Tensor *wte, Tensor *wpe, size_t B,
                 size_t T);
// (N, OC) = x (N, C) @ w (OC, C)^T
Tensor *op_matmul(Tape *t, const char *name, Tensor *x, Tensor *w);
// the same at a precision (kernels/bf16.h): bf16 rounds the operands of all
// three products (forward, and the two of backward) to bf16
Tensor *op_matmul_prec(Tape *t, const char *name, Tensor *x, Tensor *w, Precision p);
// A fused op (kernels/fused.h): the residual add runs in the product's
// epilogue; the node computes what the plain ops computed, bit for bit
// (tests/autograd/test_fused_ops.c), with no tensor for the product alone.
// (N, OC) = res (N, OC) + x (N, C) @ w (OC, C)^T: op_add(res, op_matmul(x, w)).
Tensor *op_matmul_residual(Tape *t, const char *name, Tensor *res, Tensor *x, Tensor *w, Precision p);
// LayerNorm over groups of w->n consecutive values (rows of x, or each head's slice).
Tensor *op_layernorm(Tape *t, const char *name, Tensor *x, Tensor *w, Tensor *b);
Tensor *op_gelu(Tape *t, const char *name, Tensor *x);
Tensor *op_add(Tape *t, const char *name, Tensor *a, Tensor *b);
// Mean cross-entropy over positions whose target >= 0; (1, 1). Per-position
// losses are kept (node->saved[1]) for eval's loss-by-position curve.
Tensor *op_crossentropy(Tape *t, const char *name, Tensor *logits, const int *targets);
// sum_i x_i * r_i with fixed r: a non-constant scalar reduction for gradient checks.
Tensor *op_dot(Tape *t, const char *name, Tensor *x, const float *r);

// Multi-head attention through an attention kind.
// qkv (B*T, 3*C + H*n_aux): q | k | v | aux columns, projections of the block input.
// theta (H) or NULL. Output (B*T, C). key_shift: k_t uses the projection of
// position t-1 (zero at t = 0).
typedef struct {
    const AttnKind *kind;
    AttnConfig cfg;
    size_t B, T;
    int key_shift;
} AttnOp;
Tensor *op_attention(Tape *t, const char *name, Tensor *qkv, Tensor *theta, const AttnOp *a);
// The kind's work buffer of an attention node (what its last forward saved).
const float *op_attention_work(const Node *n);
// 1 if the node reads q, k, v from the projection and writes y in place (the
// kind has forward_io and the keys are not shifted), 0 if it copies through
// head-major slabs (op_attention.c).
int op_attention_in_place(const Node *n);
