// bench_flops.c — FLOPs of one training forward + backward, per token, counted
// from what the kernels actually execute (a multiply-add is 2 FLOPs).
//
// Dense part: every matrix multiply outside attention, y = x Wᵀ with W (out, in):
//   forward  y = x Wᵀ          2·out·in per token
//   backward dx = dy W, dW += dyᵀ x   2 x 2·out·in per token
// so 6 FLOPs per weight per token, over
//   N_mm = L·[(3C + H·n_aux)·C  (qkv)  +  C·C  (proj)  +  2·F·C  (fc, fc_proj)]  +  V·C (tied head)
// The token and position embeddings are lookups (no multiplies); LayerNorm,
// GELU, residual adds, the cross-entropy and AdamW are O(C) per token and
// element-wise: not counted (under 1% here), nor are exp() calls.
//
// softmax (softmax.c, tiled FlashAttention-2 form, TILE = 64): per (b, h) and
// per (query tile of nq rows, key tile of nk rows) pair with key tile <= query
// tile — the diagonal tile is computed whole and masked afterwards —
//   forward   S = Q Kᵀ, Y += P V                          2 products: 4·nq·nk·dh
//   backward  S = Q Kᵀ again (P is recomputed, not stored),
//             dV += Pᵀ dY, dP = dY Vᵀ, dQ += dS K, dK += dSᵀ Q   5 products: 10·nq·nk·dh
// i.e. 14·nq·nk·dh per tile pair. Summed over the pairs and heads (H·dh = C)
// that is about 7·C·(T + 64) per token per layer; the textbook count for
// causal attention (6·C·T: 12·C·T for a full mask, halved) ignores the
// recomputation in the backward (+1/6) and the masked half of the diagonal tiles.
//
// linear, linear_decay (fastweight_chunk.c, chunkwise form): per (b, h) and per
// chunk of L positions (L = chunk, the last one possibly shorter), with
// d = dh and w = d + 1 when normalize (the normaliser rides along as one more
// value column), else w = d:
//   forward   A = Φq Φkᵀ          2·L·L·d
//             Φq S̃                2·L·d·w       (read-out of the carried state)
//             A Ṽ                 2·L·L·w       (intra-chunk; the mask zeroes half of
//                                               A but the product runs over all of it)
//             S̃ += Φkᵀ Ṽ          2·d·w·L       (state write)
//   backward  A again, G = dÑ Ṽᵀ, G Φk, Gᵀ Φq, Aᵀ dÑ      2·L·L·(3d + 2w)
//             dÑ S̃ᵀ, Ṽ dS̃ᵀ, Φk dS̃, Φqᵀ dÑ             4 x 2·L·d·w
// Per token (full chunks, w ≈ d, H·d = C) that is 4·c·C + 4·dh·C forward and
// 10·c·C + 8·dh·C backward: 14·c·C + 12·dh·C per layer, c = chunk. The decay
// only scales rows (O(L·w)), so linear and linear_decay count the same.
#include <math.h>
#include <string.h>

#include "attention/decay.h"
#include "bench/bench.h"

// Both return a whole forward + backward; *fwd gets the forward's share.
static double softmax_flops_per_seq(size_t T, size_t dh, double *fwd) {
    const size_t tile = 64;  // softmax.c's TILE
    double pairs = 0;        // sum over visited tile pairs of nq * nk
    for (size_t i0 = 0; i0 < T; i0 += tile) {
        double nq = (double)(T - i0 < tile ? T - i0 : tile);
        for (size_t j0 = 0; j0 <= i0; j0 += tile) pairs += nq * (double)(T - j0 < tile ? T - j0 : tile);
    }
    *fwd = 4.0 * pairs * (double)dh;
    return 14.0 * pairs * (double)dh;
}

static double chunk_flops_per_seq(size_t T, size_t dh, size_t chunk, int normalize, double *fwd_total) {
    double d = (double)dh, w = d + (normalize ? 1 : 0), total = 0;
    *fwd_total = 0;
    size_t c = chunk < 1 ? 1 : chunk;
    if (c > T) c = T;  // linear.c clamps the chunk to T
    for (size_t t0 = 0; t0 < T; t0 += c) {
        double L = (double)(T - t0 < c ? T - t0 : c);
        double fwd = 2 * L * L * d + 2 * L * d * w + 2 * L * L * w + 2 * d * w * L;
        double bwd = 2 * L * L * (3 * d + 2 * w) + 8 * L * d * w;
        total += fwd + bwd;
        *fwd_total += fwd;
    }
    return total;
}

BenchFlops bench_flops_per_token(const Model *m, size_t T) {
    double C = (double)m->C, F = (double)m->F, L = (double)m->L, V = (double)m->V;
    double qkv_rows = 3 * C + (double)m->H * (double)attn_aux(m->kind, &m->acfg);
    double n_mm = L * (qkv_rows * C + C * C + 2 * F * C) + V * C;
    BenchFlops f = {.dense = 6 * n_mm, .attention = NAN, .attention_fwd = NAN};
    double per_seq_head, fwd;
    if (!strcmp(m->kind->name, "softmax"))
        per_seq_head = softmax_flops_per_seq(T, m->dh, &fwd);
    else if (!strcmp(m->kind->name, "linear") || !strcmp(m->kind->name, "linear_decay"))
        per_seq_head = chunk_flops_per_seq(T, m->dh, (size_t)m->acfg.chunk, m->acfg.normalize, &fwd);
    else
        return f;  // a kind whose kernels this file has not been taught
    f.attention = L * (double)m->H * per_seq_head / (double)T;
    f.attention_fwd = L * (double)m->H * fwd / (double)T;
    return f;
}
