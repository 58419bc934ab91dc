// delta_chunk.h — the delta-rule fast-weight memory on one (b, h) slab.
//
// The kernel behind the `delta` kind (Schlag, Irie & Schmidhuber 2021, with an
// optional decay λ on top). Per position t, d = dh, from S_{-1} = S0 (0, or I
// with state_identity):
//   k̂_t = φ(k_t) / (Σ_i φ(k_t)_i + eps)        q̂_t likewise    (normalize, key_norm sum)
//   k̂_t = φ(k_t) / sqrt(Σ_i φ(k_t)_i² + eps)    q̂_t likewise    (normalize, key_norm l2)
//   k̂_t = φ(k_t),  q̂_t = φ(q_t)                                  (!normalize)
//   β_t = sigmoid(a_t)                           a_t: the β logit (the kind's aux input)
//   e_t = v_t − λ S_{t-1}ᵀ k̂_t                   what the decayed memory gets wrong for k̂_t
//   S_t = λ S_{t-1} + β_t k̂_t e_tᵀ               = λ (I − β_t k̂_t k̂_tᵀ) S_{t-1} + β_t k̂_t v_tᵀ
//   y_t = S_tᵀ q̂_t
// With λ_t per position (lam_t) every λ above is that position's λ_t.
// With λ = 1 this is the plain delta rule v̄_t = S_{t-1}ᵀ k̂_t,
// S_t = S_{t-1} + β_t k̂_t (v_t − v̄_t)ᵀ. With λ < 1 the memory is decayed
// before it is read for the correction (the "gated" delta rule), so the write
// corrects exactly what a read right after it would return.
// Sum-normalised keys have Σ k̂ < 1 and k̂ ≥ 0 (elu1, relu), hence ‖k̂‖² ≤ 1 and
// β‖k̂‖² < 2: the correction I − β k̂ k̂ᵀ never amplifies. L2-normalised keys
// have ‖k̂‖² < 1 for any φ; with β = 1 the write replaces the value stored
// along k̂ (sum-normalised keys have ‖k̂‖² ≤ 1/dh..1, so they only shrink it). Without normalize
// that bound is the caller's business.
//
// S is (d, d) row-major, row i = key coordinate, column j = value coordinate,
// so every inner loop runs over one contiguous row.
//
// Training form: token by token (the recurrence is exact, no approximation),
// in chunks of `chunk` positions. Forward saves only the state entering each
// chunk (n_chunks · d² floats). Backward walks the chunks from last to first:
// it recomputes the chunk's states from the saved one into scratch (chunk · d²
// floats) and runs the per-token backward over them in reverse. Memory per slab
// is O((T/chunk + chunk) · d²), never O(T · d²); the recompute runs exactly the
// forward's arithmetic, so the gradients are those of the forward as computed.
#pragma once
#include "attention/attn_kernel_names.h"
#include <stddef.h>

#include "attention/options.h"

typedef struct {
    size_t T;            // positions
    size_t dh;           // head size d
    size_t chunk;        // chunk length, 1 <= chunk <= T (callers clamp to T)
    FeatureMap fmap;
    float eps;           // added to Σφ (normalize only)
    int normalize;       // normalise φ(q), φ(k) (by key_norm)
    KeyNorm key_norm;    // sum: /(Σφ + eps); l2: /sqrt(Σφ² + eps)
    int state_identity;  // S0 = I
    float lam;           // λ in [0, 1]; 1 = no decay; used when lam_t is NULL
    const float *lam_t;  // (T) λ_t per position (decay = data: Gated DeltaNet), or NULL
    double loglam;       // log λ (the WY form's decay; λ = exp(loglam)); used when ll is NULL
    const float *ll;     // (T) log λ_t per position for the WY form, or NULL
    size_t ld, ldy;      // row strides of q, k, v, dq, dk, dv and of y, dy (rows of the
                         // model's projection read in place); 0 = dh (head-major slabs)
    int has_next;        // 1: the caller runs another slab of this shape next, whose q, k, v
    ptrdiff_t next;      // (dq, dk, dv) rows start `next` floats after this one's and y (dy)
    ptrdiff_t next_y;    // rows `next_y` after: the kernels ask for its first rows while they
                         // work on their last chunk (delta_ahead). Where, never what.
} DeltaSlab;

// the row strides DeltaSlab.ld, ldy mean
static inline size_t delta_ld(const DeltaSlab *p) { return p->ld ? p->ld : p->dh; }
static inline size_t delta_ldy(const DeltaSlab *p) { return p->ldy ? p->ldy : p->dh; }

// floats of `saved` (kept from forward to backward) and of `scratch` (free to
// reuse; forward and backward each overwrite it)
extern size_t delta_saved_floats(const DeltaSlab *p);
extern size_t delta_scratch_floats(const DeltaSlab *p);

// ---- per token: the training form and generation round alike ----

// out (d) = k̂ for raw x (d), as above. Returns the divisor (1 without normalize).
extern float delta_features(const DeltaSlab *p, float *out, const float *x);
// delta_features' normalisation, for n rows at once: phi (n, d) holds φ(x) of
// n inputs (fmap_forward) and becomes their k̂; with `divisors` (n) non-NULL,
// each row's divisor goes there (untouched without normalize). The n sums run
// side by side (one float chain each, i ascending), so n short rows cost about
// what one does rather than n chains' latency; delta_features is this at n = 1.
// n <= DELTA_FEATURES_MAX.
#define DELTA_FEATURES_MAX 8
extern void delta_normalize_n(const DeltaSlab *p, float *phi, size_t n, float *divisors);
// β = sigmoid(a) and 1 − β, each without cancellation
extern void delta_beta(float a, float *beta, float *one_minus_beta);
// One position in place, for generation: e = v − λ Sᵀk̂ (kept in registers),
// S = λS + β k̂ eᵀ and y (d) = Sᵀq̂, each sum from 0 over i ascending: the
// values the training form's kernels compute for the same position (tests:
// test_fw_step.c and test_delta_bits.c against tests/attention/delta_plain.h).
// Each column strip of S is read twice (e, then the update with the
// read-out) while it is in the near cache, rather than three times over S.
extern void delta_token_inplace(size_t d, float lam, float beta, float *S, const float *kh, const float *qh, float *y,
                         const float *v);

// dx += dL/dx for out = the normalised φ(x) (divisor s, as delta_features
// returned it) given dout = dL/dout (overwritten with dL/dφ)
extern void delta_features_backward(const DeltaSlab *p, float *dx, float *dout, const float *out, float s,
                             const float *x);

// Asks for the cache lines of n rows of d floats, ld apart (write: to be
// written). Rows read in place from the model's projection (ld > d) are a
// slice of each wide row, which the hardware prefetchers follow worse than the
// head-major slabs' one stream (measured, docs/speed.md); the training forms
// ask for a chunk's rows at once, ahead of the work that reads them. Nothing
// for ld == d (one stream).
extern void delta_prefetch_rows(const float *x, size_t ld, size_t n, size_t d, int write);

// A chunk's rows are slices of the projection's rows (ld > d): strided reads
// the hardware prefetchers miss, and in a training step they come from L3 or
// memory (the other layers ran in between). delta_prefetch_rows asks for them
// just before they are read, too late for a slab's first reads. So the
// kernels also ask, spread over the steps of the chunk they work on, for the
// rows of the chunk they work on next, into L2: forward chunk c + 1, backward
// c − 1, and past the slab's end the first one the caller's next slab runs
// (has_next). delta_ahead says which: positions [t0, t0 + L) (L = 0: none),
// their rows `off` floats from this slab's (q, k, v, dq, dk, dv) and `off_y`
// from its y (dy) rows; step s of a chunk of L positions asks for rows
// [lo, hi) of them (delta_ahead_rows: every row once over the L steps).
typedef struct {
    ptrdiff_t off, off_y;
    size_t t0, L;
} DeltaAhead;
extern DeltaAhead delta_ahead(const DeltaSlab *p, size_t c, int backward);
static inline void delta_ahead_rows(size_t L_ahead, size_t s, size_t L, size_t *lo, size_t *hi) {
    *lo = s * L_ahead / L, *hi = (s + 1) * L_ahead / L;
}

// ---- the token-recurrence training form on one slab (the reference of delta_wy.h) ----

// y (T, dh) for q, k, v (T, dh), a (T) the β logits; rows of q, k, v (and dq,
// dk, dv) p->ld floats apart, of y (and dy) p->ldy (0: dh). Returns ||S_{T-1}||_F.
extern double delta_chunk_forward(const DeltaSlab *p, float *y, float *saved, float *scratch,
                           const float *q, const float *k, const float *v, const float *a);

// ADDS dL/dq, dk, dv (T, dh) and dL/da (T, if da) for upstream dy (T, dh);
// `saved` as forward left it (read only). Returns dL/dlog λ summed over positions
// in a fixed order (the caller chains it to θ); if dlam (T) is given, ADDS
// dL/dlog λ_t per position there too.
extern double delta_chunk_backward(const DeltaSlab *p, float *dq, float *dk, float *dv, float *da,
                            float *dlam, const float *dy, const float *saved, float *scratch,
                            const float *q, const float *k, const float *v, const float *a);
