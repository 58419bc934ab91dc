// delta_wy.h — the (gated) delta rule, chunkwise in parallel: the WY/UT form.
//
// The same function as delta_chunk.h's token recurrence (Yang et al. 2024,
// "Parallelizing Linear Transformers with the Delta Rule over Sequence Length";
// with the decay, Gated DeltaNet, Yang et al. 2025), computed a chunk of L
// positions at a time with matrix products instead of L dependent rank-1 updates.
//
// Per chunk, with S the state entering it, k̂, q̂, β as in delta_chunk.h and
// b_r = Σ_{u<=r} log λ_{t0+u} (cumulative log-decays, kept in double):
//   the value each position writes, u_r = β_r (v_r − λ_r S_{r-1}ᵀ k̂_r), makes the
//   state S_r = λ_r S_{r-1} + k̂_r u_rᵀ, i.e. linear attention with values u:
//     S_r = e^{b_r} S + Σ_{s<=r} e^{b_r − b_s} k̂_s u_sᵀ
//   and substituting that into u_r gives one unit-lower-triangular system (the
//   UT transform):
//     (I + A) U = diag(β) (V − diag(e^b) K̂ S),   A_rs = β_r e^{b_r − b_s} (k̂_r·k̂_s), s < r
//   solved by forward substitution (O(L² d)); then, as for linear_decay,
//     Y = diag(e^b) Q̂ S + (Q̂ K̂ᵀ ⊙ D) U,       D_rs = e^{b_r − b_s} (s <= r)
//     S ← e^{b_{L-1}} S + K̂ᵀ diag(e^{b_{L-1} − b_s}) U.
// Every exponent is <= 0: no division by a product of λs, stable for λ near 0
// and 1. The products go through gemm_serial (one slab per task).
//
// Backward: the same chunks in reverse, recomputing each chunk from the saved
// state that entered it (memory as delta_chunk.h: n_chunks·d² saved), the
// triangular system transposed by back substitution. dL/db_r is collected and
// turned into dL/dlog λ_t (suffix sums inside the chunk).
//
// `saved` has the layout and size of delta_saved_floats (the state entering
// each chunk); scratch is delta_wy_scratch_floats. The token recurrence stays
// the reference this form is tested against, and the form generation runs.
#pragma once
#include "attention/attn_kernel_names.h"
#include <stddef.h>

#include "attention/delta_chunk.h"

extern size_t delta_wy_scratch_floats(const DeltaSlab *p);

// As delta_chunk_forward: y (T, dh) for q, k, v (T, dh), a (T) the β logits;
// rows of q, k, v (and dq, dk, dv) p->ld floats apart, of y (and dy) p->ldy
// (0: dh). Every value is the same chain whatever the strides.
// Decay: p->ll (log λ_t per position) or p->loglam. Returns ||S_{T-1}||_F.
extern double delta_wy_forward(const DeltaSlab *p, float *y, float *saved, float *scratch, const float *q,
                        const float *k, const float *v, const float *a);

// As delta_chunk_backward: ADDS dq, dk, dv, da (if da), dll (if given: dL/dlog λ_t
// per position); returns dL/dlog λ summed over positions in a fixed order.
extern double delta_wy_backward(const DeltaSlab *p, float *dq, float *dk, float *dv, float *da, float *dll,
                         const float *dy, const float *saved, float *scratch, const float *q,
                         const float *k, const float *v, const float *a);

// FLOPs of one slab's forward (*fwd) and forward + backward (returned), counted
// as the products and substitutions above run (tests/attention/test_flops.c)
extern double delta_wy_flops(size_t T, size_t d, size_t chunk, double *fwd);
