// fastweight_chunk.h — the chunkwise-parallel fast-weight memory on one (b, h) slab.
//
// The one kernel behind `linear` (λ = 1) and `linear_decay` (λ = sigmoid θ).
// Per position i (SPEC §4), from S_{-1} = S0, z_{-1} = z0:
//   S_i = λ S_{i-1} + φ(k_i) v_iᵀ,   z_i = λ z_{i-1} + φ(k_i)
//   y_i = φ(q_i)ᵀ S_i / (φ(q_i)ᵀ z_i + eps)        (no division if !normalize)
// S0, z0 are 0, or I and 1 with state_identity (then they decay like any term).
//
// Chunk form: positions [t0, t0+L) read the carried state S (= S_{t0-1}) as
//   Ñ = diag(λ^(r+1)) Φq S̃ + (Φq Φkᵀ ⊙ D) Ṽ,   D_rs = λ^(r-s) (s <= r), else 0
//   S̃ ← λ^L S̃ + Φkᵀ diag(λ^(L-1-s)) Ṽ
// where S̃ = [S | z] (dh x w) and Ṽ = [V | 1] (L x w): with normalize the
// normaliser z rides along as one extra value column (w = dh + 1), so numerator
// and denominator come out of the same products; without it w = dh.
// Powers are exp(n log λ), log λ given by the caller (stable for λ near 0 and 1,
// never a division by λ).
//
// With a decay per position (λ_t, `ll` = log λ_t, a scalar gate per head, as
// in Mamba-2 / simple GLA), S_i = λ_i S_{i-1} + φ(k_i) v_iᵀ, and inside a chunk
// every power of λ becomes a product of consecutive λs, taken as the exp of a
// difference of cumulative log-decays b_r = Σ_{u<=r} log λ_{t0+u}:
//   D_rs = exp(b_r − b_s) (s <= r),  diag(λ^(r+1)) -> exp(b_r),
//   λ^(L-1-s) -> exp(b_{L-1} − b_s),  λ^L -> exp(b_{L-1}).
// Every exponent is <= 0: nothing is divided by a product of λs, nothing
// overflows for λ near 0, nothing cancels for λ near 1 (b is kept in double).
//
// Saved by forward (in `saved`, read by backward, never overwritten by it):
//   the state S̃ entering each chunk (O(T/chunk · dh²), not per position) and,
//   with normalize, the denominator per position (T floats) for dy/den.
// φ(q), φ(k) are not saved: backward recomputes them chunk by chunk (cheap,
// elementwise, and it keeps the saved memory at O(T) + O(T/chunk · dh²)).
#pragma once
#include <stddef.h>

#include "attention/options.h"

typedef struct {
    size_t T;            // positions
    size_t dh;           // head size
    size_t chunk;        // chunk length, 1 <= chunk <= T (callers clamp to T)
    FeatureMap fmap;
    float eps;           // normaliser epsilon
    int normalize;       // divide by φ(q)ᵀ z + eps
    int state_identity;  // S0 = I, z0 = 1
    double loglam;       // log λ, <= 0 (0: no decay); used when ll is NULL
    const float *ll;     // (T) log λ_t per position (decay = data), or NULL: λ_t = λ
    int lambda_grad;     // 1: backward computes dL/dlog λ (its return value, dll); 0: it returns 0
                         // and leaves dll alone (linear: no λ to train)
    size_t ld;           // floats between positions of q, k, v, dq, dk, dv (>= dh)
    size_t ldy;          // the same for y, dy
} FwSlab;

// floats of `saved` (kept from forward to backward) and of `scratch` (free to
// reuse; forward and backward each overwrite it)
size_t fw_saved_floats(const FwSlab *p);
size_t fw_scratch_floats(const FwSlab *p);

// Whether, for head size d, a product along [v | 1]'s width w = d + 1 (K = w)
// equals the product over v alone (K = d) plus the ones column's term added
// after, bit for bit: while the K sum is one gemm block there (d < GEMM_KC, or
// d a multiple of it). Where not, the backward forms [v | 1] (fastweight_chunk.c).
int fw_ones_split_exact(size_t d);

// y (T, dh) = the read-outs above for q, k, v (T, dh), rows ld (y: ldy) apart. Returns ||S_{T-1}||_F
// (the dh x dh memory after the last position, not z).
double fw_chunk_forward(const FwSlab *p, float *y, float *saved, float *scratch, const float *q,
                        const float *k, const float *v);

// ADDS dL/dq, dL/dk, dL/dv (T, dh; rows ld apart) for upstream dy (T, dh; rows
// ldy apart, as y); y is forward's
// output, saved what forward left there. With lambda_grad, returns dL/d(log λ)
// summed over the positions in a fixed order (caller chains it to θ: dlogλ/dθ
// = 1 - λ) and, if dll (T) is given, ADDS dL/d(log λ_t) per position there too.
double fw_chunk_backward(const FwSlab *p, float *dq, float *dk, float *dv, float *dll,
                         const float *dy, const float *y, const float *saved, float *scratch,
                         const float *q, const float *k, const float *v);
