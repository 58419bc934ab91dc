// inspect_probe.h — the measurements behind `lmtrain inspect` (SPEC §7).
// Each runs the trained model and returns numbers; inspect.c formats them.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

// Teacher-forces tokens[0..n) through a fresh generator; after each token,
// per layer, the mean over heads of ||S||_F and of ||z||_2 (NaN without z).
// s_norm, z_norm: (n, L). Needs a kind with state_layout.
void probe_state_norms(const Model *m, const int *tokens, size_t n, double *s_norm, double *z_norm);

// The same stream; after tokens at[0..n_at) (increasing, each in 1..n) a copy
// of S of one head of one layer: S (n_at, dh, dh). Needs a kind with state_layout.
void probe_state_snapshots(const Model *m, const int *tokens, size_t n, size_t layer, size_t head,
                           const size_t *at, size_t n_at, float *S);

// One head's attention on one window from a fresh state: q, k, v, y (T, dh)
// and aux (T, attn_aux: the kind's own inputs, then with decay = data the
// gate logit) of layer `layer`, head `head`, exactly as its step saw and
// produced them (y before output_norm).
typedef struct {
    float *q, *k, *v, *y, *aux;
} ProbeHeadTrace;
void probe_head_trace(const Model *m, const int *tokens, size_t T, size_t layer, size_t head,
                      ProbeHeadTrace *tr);

// Teacher-forces tokens[0..n) through two generators: one with the float32
// state, one whose state is stored as float16 between tokens (rounded after
// every update; each step's arithmetic stays float32). At the token counts
// at[0..n_at): the mean next-token loss of each over the tokens since the
// previous count (at[i] < n: the last token has no successor). loss32,
// loss16: (n_at). Needs a kind with state_layout.
void probe_fp16_loss(const Model *m, const int *tokens, size_t n, const size_t *at, size_t n_at,
                     double *loss32, double *loss16, void (*progress)(size_t done, size_t n));

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
// Needs a kind with state_layout.
void probe_fp16_drift(const Model *m, int start, size_t n, uint64_t seed, const size_t *at,
                      size_t n_at, double *s_err, double *z_err,
                      void (*progress)(size_t done, size_t n));
