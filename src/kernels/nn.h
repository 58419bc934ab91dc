// nn.h — the dense kernels of the model, llm.c style.
//
// Each is a forward/backward pair: outputs first, shapes last. Every backward
// ADDS into its gradient buffers (+=), so a tensor used twice (tied embedding,
// residual stream) needs no special case; one zero_grad clears them. Gradient
// pointers may be NULL when that gradient is not wanted. All threaded through
// the pool with output-partitioned, thread-count-independent results.
#pragma once
#include "kernels/kernel_names.h"
#include <stddef.h>

#include "kernels/bf16.h"

// ---- matmul (no bias): out = inp @ w^T ----
// out (N, OC), inp (N, C), w (OC, C)
void matmul_forward(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC);
// dinp (N, C) += dout @ w ; dw (OC, C) += dout^T @ inp
void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                     size_t N, size_t C, size_t OC);
// The same two at a precision (bf16.h): PRECISION_BF16 runs all three products
// through gemm_bf16 (operands rounded to bf16, fp32 accumulation into fp32
// out, dinp and dw); PRECISION_FP32 is exactly the two above.
void matmul_forward_prec(float *out, const float *inp, const float *w, size_t N, size_t C, size_t OC,
                         Precision p);
// dinp_store: dinp = 0 + dout @ w instead of +=, without reading dinp: the
// same bits as the add into a zeroed buffer (autograd/tape.h: grad_store).
void matmul_backward_prec(float *dinp, float *dw, const float *dout, const float *inp, const float *w,
                          size_t N, size_t C, size_t OC, Precision p, int dinp_store);

// ---- token (+ position) embedding ----
// out (B, T, C) = wte[tokens[b,t]] + wpe[t]   (wpe may be NULL: pos = none)
// tokens (B, T) must lie in [0, V); the backward skips any that do not rather
// than write out of bounds. dwte (V, C), dwpe (T, C).
void embed_forward(float *out, const int *tokens, const float *wte, const float *wpe, size_t B,
                   size_t T, size_t C);
void embed_backward(float *dwte, float *dwpe, const float *dout, const int *tokens, size_t B,
                    size_t T, size_t C, size_t V);

// ---- LayerNorm over the last dim, eps 1e-5, affine w, b of size C ----
// out, inp (N, C); mean, rstd (N) saved for backward (cheap: 2 floats a row,
// and they spare the backward a second reduction pass); either may be NULL
// when no backward follows. Biased variance, as PyTorch.
extern void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, size_t N, size_t C);
// One row (N = 1, no mean/rstd saved), for generation: layernorm_forward's
// values bit for bit, faster for a single row. out must not overlap x.
extern void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t C);
extern void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                        const float *w, const float *mean, const float *rstd, size_t N, size_t C);

// ---- GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) ----
// out, inp (n) must not overlap; dinp, inp, dout (n) likewise.
extern void gelu_forward(float *out, const float *inp, size_t n);
// dinp += dout * gelu'(inp)
extern void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n);
// dinp = 0 + dout * gelu'(inp): the bits gelu_backward leaves in a zeroed dinp,
// without reading it (autograd/tape.h: grad_store)
extern void gelu_backward_store(float *dinp, const float *inp, const float *dout, size_t n);

// ---- residual: out = a + b (out may be a or b) ----
void add_forward(float *out, const float *a, const float *b, size_t n);

// ---- cross-entropy fused with softmax ----
// logits (N, V); targets (N), a target < 0 is not scored. probs (N, V) saved.
// Returns the mean loss over scored positions (0 if none); *n_scored gets the count.
// losses (N) gets per-position loss (0 where not scored); may be NULL.
// A target >= V is a caller bug: its loss is NaN (so it is caught), never an
// out-of-bounds access.
extern double crossentropy_forward(float *probs, float *losses, const float *logits, const int *targets,
                            size_t N, size_t V, size_t *n_scored);
// dlogits (N, V) += (probs - onehot(target)) * dloss / n_scored, for scored rows.
extern void crossentropy_backward(float *dlogits, const float *probs, const int *targets, size_t N,
                           size_t V, size_t n_scored, float dloss);

// ---- optimiser helpers ----
// sqrt(sum g^2) accumulated in double, deterministic.
extern double global_norm(const float *g, size_t n);
// One AdamW step on n values: m, v moments; decoupled weight decay `wd` is
// applied only when the caller passes nonzero (matrices and embeddings).
// step is 1-based for bias correction. In PyTorch's order, with g' = g * grad_scale:
//   p *= 1 - lr wd;  m = b1 m + (1-b1) g';  v = b2 v + (1-b2) g'^2;
//   p -= lr / (1 - b1^step) * m / (sqrt(v) / sqrt(1 - b2^step) + eps)
extern void adamw_update(float *p, const float *g, float *m, float *v, size_t n, float lr, float beta1,
                  float beta2, float eps, float wd, float grad_scale, long step);
// The same step on several runs of one parameter block in one pool dispatch
// (not one per tensor): span s covers [offset, offset + n) of p, g, m, v, with
// the decay `wd` where `decay` is set and none elsewhere. Element-wise, so
// every element gets the bits adamw_update gives it.
typedef struct {
    size_t offset, n;
    int decay;
} AdamSpan;
extern void adamw_update_spans(float *p, const float *g, float *m, float *v, const AdamSpan *spans, size_t n_spans,
                        float lr, float beta1, float beta2, float eps, float wd, float grad_scale, long step);
