// bench_flops.c — FLOPs of one training forward + backward, per token, counted
// from what the kernels actually execute (a multiply-add is 2 FLOPs).
//
// Dense part: every matrix multiply outside attention, y = x Wᵀ with W (out, in):
//   forward  y = x Wᵀ          2·out·in per token
//   backward dx = dy W, dW += dyᵀ x   2 x 2·out·in per token
// so 6 FLOPs per weight per token, over
//   N_mm = L·[(3C + H·n_aux)·C  (qkv)  +  C·C  (proj)  +  2·F·C  (fc, fc_proj)]  +  V·C (tied head)
// (n_aux: the rows per head the kind owns in the qkv projection, attention/params.h)
// The token and position embeddings are lookups (no multiplies); LayerNorm,
// GELU, residual adds, the cross-entropy and AdamW are O(C) per token and
// element-wise: not counted (under 1% here), nor are exp() calls.
//
// Attention: each kind counts its own kernels (AttnKind.flops, next to the
// code it counts: softmax.c, linear.c, delta.c); a kind without a count gives
// NaN, and bench prints "-".
#include <math.h>

#include "bench/bench.h"

BenchFlops bench_flops_per_token(const Model *m, size_t T) {
    double C = (double)m->C, F = (double)m->F, L = (double)m->L, V = (double)m->V;
    double qkv_rows = (double)m->layer[0].qkv->rows;  // q | k | v and the kind's own rows
    double n_mm = L * (qkv_rows * C + C * C + 2 * F * C) + V * C;
    BenchFlops f = {.dense = 6 * n_mm, .attention = NAN, .attention_fwd = NAN};
    if (!m->kind->flops) return f;
    double fwd, per_seq_head = m->kind->flops(&m->acfg, T, &fwd);
    f.attention = L * (double)m->H * per_seq_head / (double)T;
    f.attention_fwd = L * (double)m->H * fwd / (double)T;
    return f;
}
