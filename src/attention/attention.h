// attention.h — the attention-module boundary.
//
// An attention kind is a table of functions; the model never looks inside.
// Adding a kind = one new file defining a `const AttnKind attn_xxx` plus one
// line in registry.c.
//
// Layouts (all float32, contiguous, row-major):
//   q, k, v, y   (B, H, T, dh)   head-major, so each (b, h) is one T x dh slab
//   aux          (B, H, n_aux, T) extra per-head, per-token inputs projected by
//                                  the model (e.g. the delta rule's beta logit, the
//                                  decay gate logit), each channel one T-vector;
//                                  n_aux = attn_aux() of decay.h
//   theta        (H)               per-head decay logit, lambda = sigmoid(theta),
//                                  only read when kind->uses_decay
// The feature map phi, the normaliser and every per-kind detail live inside the
// kind. q, k, v arrive as raw projections (no phi applied, no 1/sqrt(dh)).
#pragma once
#include <stddef.h>

#include "attention/options.h"

typedef struct {
    int heads;            // H
    int dh;               // head size
    FeatureMap feature_map;
    float eps;            // normaliser epsilon
    int normalize;        // divide by phi(q)^T z + eps
    int chunk;            // chunk length of the chunkwise-parallel training form
    int state_identity;   // S_0 = I, z_0 = 1 (decays like any other term)
    KeyNorm key_norm;     // sum or l2 normalisation of φ(q), φ(k) (kinds with uses_key_norm)
    int data_decay;       // λ per token from an extra aux input (decay.h; kinds with data_decay)
    int decay_learned;    // θ is trained (decay = learned | data), else it stays at decay_init
    int kv_bf16;          // generation only, kinds with a KV cache (softmax): step()'s state holds
                          // K and V in bf16, each rounded to nearest even as it is inserted (half
                          // the bytes; scores and sums stay fp32). Set by the generator with int8
                          // weights (model/generate.h); 0 everywhere else, and ignored by training
} AttnConfig;

// Where a batch's q, k, v (and dq, dk, dv), and y (and dy) lie in memory, for
// forward_io / backward_io: element i of position t of head h of sequence b
// is at b * bs + h * hs + t * ld + i (i < dh, contiguous). The head-major
// layout above is one instance (attn_io_slabs); the model's projection is
// another: q, k, v read straight from its (B*T, 3C + H*n_aux) output (ld = W,
// hs = dh) and y written straight into the (B*T, C) output, so no layout copy.
// b0, b1: the sequences forward_io / backward_io compute, [b0, b1) of
// [0, B) (the attention op's share of a sharded pass, autograd/tape.h); all
// of them (0, B) everywhere else. Every other index and buffer keeps its
// place in the whole batch. backward_io adds dθ (a sum over every sequence)
// only for the whole batch; for a part it must be given dtheta = NULL, and
// add_dtheta adds it once every part is done.
typedef struct {
    size_t B, T;
    size_t ld, hs, bs;      // q, k, v, dq, dk, dv
    size_t ldy, hsy, bsy;   // y, dy
    size_t b0, b1;
} AttnIO;

// (B, H, T, dh) for everything: the layout of forward / backward
static inline AttnIO attn_io_slabs(const AttnConfig *c, size_t B, size_t T) {
    size_t dh = (size_t)c->dh, hs = T * dh, bs = (size_t)c->heads * hs;
    return (AttnIO){B, T, dh, hs, bs, dh, hs, bs, 0, B};
}

// Runs fn over the (b, h) slabs of io's sequences [b0, b1) (slab b * H + h),
// through parallel_for. A range outside [0, B) is a caller's bug: abort.
void attn_io_slabs_run(const AttnIO *io, size_t H, void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx);

// Where step()'s state keeps one head's fast-weight matrix S (dh, dh),
// row-major: head h's S starts at h * head_stride; with has_z its normaliser z
// (dh) follows S. (The rest of a head's stride, if any, is the kind's own.)
typedef struct {
    size_t head_stride;
    int has_z;
} AttnStateLayout;

// One configuration the finite-difference check (autograd/gradcheck.c) runs
// a kind's forward and backward through; each kind lists its own.
typedef struct {
    FeatureMap fmap;
    int normalize, identity, key_shift, chunk;
    float lam;            // λ of head 0 (kinds with uses_decay)
    KeyNorm key_norm;
    int data_decay;
} AttnCheckCase;

typedef struct AttnKind {
    const char *name;
    int uses_decay;       // 1: the model gives it one learnable theta per head
    int n_aux;            // the kind's own per-head per-token inputs (delta: β); decay = data adds
                          // one more, the gate (attn_aux() in decay.h counts both)
    const char *aux_what; // what those n_aux inputs are, in words (params.h lists what a kind owns)
    int uses_key_norm;    // 1: reads AttnConfig.key_norm ([attention] key_norm)
    KeyNorm default_key_norm;  // key_norm when the configuration names none (kinds with
                               // uses_key_norm; attn_default_key_norm)
    int data_decay;       // 1: supports [attention] decay = data (λ per token)
    const char *training_form;    // how forward computes it, in words (inspect prints it)
    const char *generation_form;  // how step keeps what it has read
    int phi_normalizer;   // 1: normalize = true divides by a sum of φ values (φ(q)ᵀz, or Σφ(k)
                          // with key_norm = sum), which only a φ >= 0 keeps away from zero

    // Size in floats of the work buffer for a (B, T) batch. The buffer is passed
    // to forward and then to backward: forward saves what backward needs there,
    // backward may use the rest as scratch. Allocated once by the model.
    size_t (*work_floats)(const AttnConfig *c, size_t B, size_t T);

    // y = Attn(q, k, v). Overwrites y. Parallel over (b, h) via parallel_for,
    // deterministic whatever the thread count.
    void (*forward)(const AttnConfig *c, size_t B, size_t T, float *y, float *work,
                    const float *q, const float *k, const float *v, const float *aux,
                    const float *theta);

    // Gradients: ADDS into dq, dk, dv, daux (if n_aux), dtheta (if uses_decay;
    // summed over the batch in a fixed order). y is forward's output.
    void (*backward)(const AttnConfig *c, size_t B, size_t T, float *dq, float *dk,
                     float *dv, float *daux, float *dtheta, const float *dy, float *work,
                     const float *q, const float *k, const float *v, const float *aux,
                     const float *theta, const float *y);

    // The same two with q, k, v, y and their gradients where io says (aux
    // stays (B, H, n_aux, T)); forward and backward are these at
    // attn_io_slabs, so both give the same bits. NULL for a kind that reads
    // only head-major slabs: the attention op then copies into slabs for it.
    void (*forward_io)(const AttnConfig *c, const AttnIO *io, float *y, float *work,
                       const float *q, const float *k, const float *v, const float *aux,
                       const float *theta);
    void (*backward_io)(const AttnConfig *c, const AttnIO *io, float *dq, float *dk,
                        float *dv, float *daux, float *dtheta, const float *dy, float *work,
                        const float *q, const float *k, const float *v, const float *aux,
                        const float *theta, const float *y);

    // Mean over (b, h) of the Frobenius norm of the fast-weight state after the
    // last position of the last forward; NULL for kinds without a state matrix.
    double (*last_state_norm)(const AttnConfig *c, size_t B, size_t T, const float *work);

    // ADDS dθ (H) from what backward_io's slabs left in work: what
    // backward_io does after its slabs when given dtheta. NULL for a kind
    // without θ, or whose backward_io adds none.
    void (*add_dtheta)(const AttnConfig *c, size_t B, float *work, const float *theta, float *dtheta);

    // ---- generation: one token at a time, one layer, all heads ----
    // Floats of state for one sequence. `window` is the KV-cache capacity for
    // kinds that cache (softmax); fast-weight kinds ignore it. With kv_bf16 the
    // cache's bf16 values live in this float array, two to a float.
    size_t (*state_floats)(const AttnConfig *c, size_t window);
    void (*state_reset)(const AttnConfig *c, float *state, size_t window);
    // q, k, v: (H, dh); aux: (H, n_aux); y: (H, dh). `pos` = tokens absorbed
    // before this one. A cache that is full drops its oldest entry.
    void (*step)(const AttnConfig *c, float *state, size_t window, size_t pos, float *y,
                 const float *q, const float *k, const float *v, const float *aux,
                 const float *theta);

    // For benchmarks at a far position (bench's generate part): make a state
    // that has absorbed `have` tokens (1 <= have <= window) cost a step what it
    // would after `pos` tokens (pos >= have), without stepping them: a cache
    // repeats its entries until it holds as many as it would at pos. NULL for a
    // kind whose state does not grow with the position (a step costs the same
    // at any position).
    void (*state_extend)(const AttnConfig *c, float *state, size_t window, size_t have, size_t pos);

    // Inference memory of one layer for a sequence of `len` tokens, in bytes:
    // the KV cache for softmax, the fixed state for fast-weight kinds.
    size_t (*memory_bytes)(const AttnConfig *c, size_t len);

    // ---- teaching (inspect): the attention matrix a kind implies ----
    // For one head over T positions: W (T, T) with W[i, j] the weight value v_j
    // has in output y_i (zero for j > i), and y0 (T, dh) the part of y that
    // comes from the initial state (zero unless state_identity), so that
    // y_i = Σ_j W[i, j] v_j + y0_i exactly, in double precision. q, k (T, dh)
    // raw projections, aux (T, attn_aux) each token's aux inputs as step()
    // reads them, lam (T) each token's λ_t (decay_lambda_at; all 1 without
    // decay): token t multiplies the state before it by λ_t.
    // NULL for a kind without such a form.
    const char *weights_formula;  // what W is, in words and symbols (for inspect)
    void (*value_weights)(const AttnConfig *c, size_t T, const float *q, const float *k,
                          const float *aux, const double *lam, double *W, double *y0);

    // ---- what the rest of the program asks, so that no code outside
    // src/attention/ needs to know a kind by its name ----
    // The layout of step()'s state; NULL for a kind without a fast-weight
    // state (a KV cache that grows with the sequence: softmax).
    void (*state_layout)(const AttnConfig *c, AttnStateLayout *lay);
    // FLOPs of one forward + backward over one (b, h) slab of T positions as
    // the kernels execute them (a multiply-add is 2); *fwd gets the forward's
    // share. Terms of order T·dh (feature maps, normalisers) are not counted.
    double (*flops)(const AttnConfig *c, size_t T, double *fwd);
    // The gradient-check configurations of this kind (gradcheck runs each).
    const AttnCheckCase *check_cases;
    size_t n_check_cases;
} AttnKind;

// NULL-terminated list of every kind, in registry.c.
extern const AttnKind *const attn_kinds[];
const AttnKind *attn_kind_find(const char *name);

// The defaults of the keys that depend on the kind, for a configuration that
// does not name them ([attention] key_norm, feature_map; config.c applies them):
// the kind's default_key_norm where it normalises its keys (normalize = true;
// l2 has no meaning without), else sum; and φ = identity with l2 keys (a norm,
// not a sum, is the denominator, so φ need not be positive: measured best,
// docs/delta.md), elu1 otherwise.
KeyNorm attn_default_key_norm(const AttnKind *k, int normalize);
FeatureMap attn_default_feature_map(const AttnKind *k, KeyNorm key_norm);

// The chunk length the chunkwise training forms run with for T positions:
// [attention] chunk, and a chunk longer than T is one chunk of T.
static inline size_t attn_chunk_length(const AttnConfig *c, size_t T) {
    size_t chunk = c->chunk > 0 ? (size_t)c->chunk : 1;
    return chunk < T ? chunk : T;
}

// ||S||_F and ||z||_2 (NaN without z) of head h in a layer's step() state
// (kinds with state_layout).
void attn_state_norms(const AttnKind *k, const AttnConfig *c, const float *state, size_t h, double *s_norm,
                      double *z_norm);
