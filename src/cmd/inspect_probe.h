// inspect_probe.h — the measurements behind `lmtrain inspect` (SPEC §7).
// Each runs the trained model and returns numbers; inspect.c formats them.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

// 1 if the kind's generation state has the fast-weight layout, per layer
// H x [S (dh, dh) | z (dh)]: the kinds of linear.c (linear, linear_decay).
// Softmax (a KV cache) and kinds with another layout (delta) have not.
int probe_has_fw_state(const Model *m);

// Teacher-forces tokens[0..n) through a fresh generator; after each token,
// per layer, the mean over heads of ||S||_F and of ||z||_2.
// s_norm, z_norm: (n, L). Needs probe_has_fw_state.
void probe_state_norms(const Model *m, const int *tokens, size_t n, double *s_norm, double *z_norm);

typedef struct {
    double max_abs;  // max |parallel - recurrent|
    double ref_max;  // max |parallel|, the scale it is relative to
} ProbeDiff;

// Training form vs generation form on B windows tokens (B, T = block_size).
// Per layer: the attention op's output in the training graph against the
// kind's recurrent step (KV-cache step for softmax) fed the very same q, k, v
// (the graph's own projections, key shift applied as in training): the two
// forms of attention alone. Then the whole model: the graph's logits against
// the generator's, token by token.
// layers: (L); logits: one.
void probe_parallel_vs_recurrent(Model *m, const int *tokens, size_t B, ProbeDiff *layers,
                                 ProbeDiff *logits);

// Generates n tokens from `start` (temperature 1, seeded) with the float32
// state, while a shadow copy of every layer's state takes the same updates
// (the same q, k, v) and is rounded to float16 after each one. At the token
// counts at[0..n_at) (increasing, each in 1..n): per layer the relative error
// ||S16 - S32||_F / ||S32||_F over all heads, and the same for z.
// s_err, z_err: (n_at, L). progress (may be NULL) is called now and then.
// Needs probe_has_fw_state.
void probe_fp16_drift(const Model *m, int start, size_t n, uint64_t seed, const size_t *at,
                      size_t n_at, double *s_err, double *z_err,
                      void (*progress)(size_t done, size_t n));
