// softmax.c — the `softmax` attention kind: causal scaled dot-product attention.
//
//   y_i = sum_{j <= i} softmax_j(q_i . k_j / sqrt(dh)) v_j        per (b, h)
//
// Training form: tiled online softmax (FlashAttention-2 style). A T x T score
// matrix is never built: each query row meets the key tiles up to the
// diagonal in increasing order, keeping a running max m and running sum l and
// rescaling the partial output when m grows (key tiles outer, so that each key
// tile is transposed once for all the query tiles that read it). Only the per-row logsumexp
// lse_i = m_i + log(l_i) is saved (B, H, T) for the backward, which recomputes
// each probability tile as P = exp(S - lse) instead of storing it.
//
// Work buffer (floats):
//   lse     (B, H, T)         written by forward, read by backward
//   D       (B, H, T)         forward: the running sums l; backward: D_i = dy_i . y_i
//   tiles   (B, H, 2 TILE^2 + 2 dh TILE)   one private tile scratch per (b, h) slab
// so it is O(T) per (b, h), never O(T^2).
//
// Masking: inside a diagonal tile the hidden entries of P are set to 0,
// and the tile product still runs over the whole tile: with finite inputs that
// is exactly causal (0 * v = 0), but a NaN/Inf in a later v of the same tile
// reaches the earlier rows too (the loss would be NaN either way).
//
// Threads: one task per (b, h) slab, which owns its slab of every output and
// its own scratch, with fixed loop orders inside: results are bit-identical for
// any thread count.
//
// Generation: a ring-buffer KV cache of `window` entries per head (softmax_cache.c).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attention.h"
#include "attention/softmax_cache.h"
#include "attention/softmax_rows.h"
#include "attention/value_weights.h"
#include "kernels/gemm.h"
#include "kernels/vexp.h"
#include "util/pool.h"

#define TILE 64  // query and key tile size; equal, so tile (it, it) is the diagonal

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------
// Training form

// one (b, h) slab's tile scratch: S and dP tiles, then the key tile and (in
// the backward) the value tile transposed, (dh, TILE) each
static size_t scratch_floats(size_t dh) { return 2 * TILE * TILE + 2 * dh * TILE; }

static size_t sm_work_floats(const AttnConfig *c, size_t B, size_t T) {
    return B * (size_t)c->heads * (2 * T + scratch_floats((size_t)c->dh));
}

typedef struct {
    size_t B, H, T, dh;
    const AttnIO *io;                 // where q, k, v, y and their gradients are (attention.h)
    float *y, *work;                  // y forward only; work as above
    float *dq, *dk, *dv;              // backward only
    const float *yf, *dy;             // forward's y and its gradient, backward only
    const float *q, *k, *v;
} Slabs;

// offsets of slab s = b * H + h in q, k, v and their gradients (*x) and in y, dy (*xy)
static void slab_offsets(const Slabs *x, size_t s, size_t *o, size_t *oy) {
    size_t b = s / x->H, h = s % x->H;
    *o = b * x->io->bs + h * x->io->hs;
    *oy = b * x->io->bsy + h * x->io->hsy;
}

static float *slab_lse(const Slabs *x, size_t s) { return x->work + s * x->T; }
static float *slab_D(const Slabs *x, size_t s) { return x->work + (x->B * x->H + s) * x->T; }
static float *slab_scratch(const Slabs *x, size_t s) {
    return x->work + 2 * x->B * x->H * x->T + s * scratch_floats(x->dh);
}

// S (nq, nk) = Q_i K_j^T / sqrt(dh) for the tile at query row i0 (rows of q
// ld apart), with kt = K_j^T (dh, nk), rows TILE apart: read in place, where
// gemm would pack a transposed K_j again at every call. Every element is
// gemm's one chain whichever way op(B) arrives (kernels/gemm.c), so these are
// the scores of Q_i K_j^T with K_j read as it lies; forward and backward call
// this identically, so the backward's S is the forward's bit for bit.
static void score_tile(float *S, const float *q, size_t ld, const float *kt, size_t i0, size_t nq, size_t nk,
                       size_t dh) {
    gemm_serial(0, 0, nq, nk, dh, 1.0f / sqrtf((float)dh), q + i0 * ld, ld, kt, TILE, 0.0f, S, TILE);
}

// Key tiles outer, query tiles from the diagonal on inner: each key tile is
// transposed once. Row i0+r still meets its key tiles in increasing order,
// with its running max and sum (m, l: the slab's lse and D rows, free in the
// forward) carried between them, so every value is what the query-outer order
// computes.
static void forward_slabs(void *ctx, size_t lo, size_t hi) {
    const Slabs *x = ctx;
    const size_t T = x->T, dh = x->dh, ld = x->io->ld, ldy = x->io->ldy;
    for (size_t s = lo; s < hi; s++) {
        size_t o, oy;
        slab_offsets(x, s, &o, &oy);
        const float *q = x->q + o, *k = x->k + o, *v = x->v + o;  // (T, dh), rows ld apart
        float *y = x->y + oy;  // (T, dh), rows ldy apart, also the running output accumulator
        float *m = slab_lse(x, s);         // (T) running max per query row, then lse
        float *l = slab_D(x, s);           // (T) running sum of exp(score - m)
        float *S = slab_scratch(x, s);     // (TILE, TILE) scores, then probabilities
        float *kt = S + 2 * TILE * TILE;   // (dh, TILE) the key tile, transposed
        for (size_t j0 = 0; j0 < T; j0 += TILE) {
            size_t nk = min_sz(TILE, T - j0);
            tile_transpose(kt, TILE, k + j0 * ld, ld, nk, dh);
            for (size_t i0 = j0; i0 < T; i0 += TILE) {  // query tiles from the diagonal on
                size_t nq = min_sz(TILE, T - i0);
                float *yi = y + i0 * ldy;  // (nq, dh)
                score_tile(S, q, ld, kt, i0, nq, nk, dh);
                for (size_t r = 0; r < nq; r++) {
                    float *sr = S + r * TILE, *mr = m + i0 + r, *lr = l + i0 + r;
                    // causal mask: on the diagonal tile key j0+c is visible to row i0+r iff c <= r
                    size_t nv = j0 == i0 ? r + 1 : nk;
                    float mt = row_max(sr, nv);
                    if (j0 == 0) {
                        *mr = mt;
                        *lr = row_exp_sum(sr, nv, mt);
                    } else {
                        // the max grew: what was summed so far was scaled by e^-m_old, rescale
                        float mn = mt > *mr ? mt : *mr;
                        float a = vexpf(*mr - mn);
                        *lr = *lr * a + row_exp_sum(sr, nv, mn);
                        if (a != 1.0f)
                            for (size_t d = 0; d < dh; d++) yi[r * ldy + d] *= a;
                        *mr = mn;
                    }
                    for (size_t c = nv; c < nk; c++) sr[c] = 0.0f;
                }
                // y_i (+)= P V_j   (unnormalised; the first key tile initialises y)
                gemm_serial(0, 0, nq, dh, nk, 1.0f, S, TILE, v + j0 * ld, ld, j0 == 0 ? 0.0f : 1.0f,
                            yi, ldy);
            }
        }
        for (size_t i = 0; i < T; i++) {
            float inv = 1.0f / l[i];
            for (size_t d = 0; d < dh; d++) y[i * ldy + d] *= inv;
            m[i] = m[i] + logf(l[i]);  // lse
        }
    }
}

static void sm_forward_io(const AttnConfig *c, const AttnIO *io, float *y, float *work, const float *q,
                          const float *k, const float *v, const float *aux, const float *theta) {
    (void)aux, (void)theta;
    Slabs x = {.B = io->B, .H = (size_t)c->heads, .T = io->T, .dh = (size_t)c->dh, .io = io, .y = y,
               .work = work, .q = q, .k = k, .v = v};
    attn_io_slabs_run(io, x.H, forward_slabs, &x);
}

static void sm_forward(const AttnConfig *c, size_t B, size_t T, float *y, float *work,
                       const float *q, const float *k, const float *v, const float *aux,
                       const float *theta) {
    AttnIO io = attn_io_slabs(c, B, T);
    sm_forward_io(c, &io, y, work, q, k, v, aux, theta);
}

static void backward_slabs(void *ctx, size_t lo, size_t hi) {
    const Slabs *x = ctx;
    const size_t T = x->T, dh = x->dh, ld = x->io->ld, ldy = x->io->ldy;
    const float scale = 1.0f / sqrtf((float)dh);
    for (size_t s = lo; s < hi; s++) {
        size_t o, oy;
        slab_offsets(x, s, &o, &oy);
        const float *q = x->q + o, *k = x->k + o, *v = x->v + o;  // rows ld apart, as dq, dk, dv
        const float *y = x->yf + oy, *dy = x->dy + oy;            // rows ldy apart
        float *dq = x->dq + o, *dk = x->dk + o, *dv = x->dv + o;
        const float *lse = slab_lse(x, s);  // (T)
        float *D = slab_D(x, s);            // (T)
        float *P = slab_scratch(x, s);      // (TILE, TILE) probabilities, then dS
        float *dP = P + TILE * TILE;        // (TILE, TILE)
        float *kt = dP + TILE * TILE;       // (dh, TILE) the key tile, transposed
        float *vt = kt + dh * TILE;         // (dh, TILE) the value tile, transposed
        // y_i = sum_j P_ij v_j with sum_j P_ij = 1 gives
        // dS_ij = P_ij (dP_ij - sum_j' P_ij' dP_ij') = P_ij (dP_ij - dy_i . y_i)
        row_dots(D, dy, y, ldy, T, dh);
        // key tiles outer, so dk_j and dv_j are finished tile by tile; dq_i
        // collects its key tiles in increasing order
        for (size_t j0 = 0; j0 < T; j0 += TILE) {
            size_t nk = min_sz(TILE, T - j0);
            tile_transpose(kt, TILE, k + j0 * ld, ld, nk, dh);
            tile_transpose(vt, TILE, v + j0 * ld, ld, nk, dh);
            for (size_t i0 = j0; i0 < T; i0 += TILE) {  // query tiles from the diagonal on
                size_t nq = min_sz(TILE, T - i0);
                // P_ij = exp(q_i . k_j / sqrt(dh) - lse_i), masked as in the forward
                score_tile(P, q, ld, kt, i0, nq, nk, dh);
                for (size_t r = 0; r < nq; r++) {
                    size_t nv = j0 == i0 ? r + 1 : nk;
                    row_exp_sum(P + r * TILE, nv, lse[i0 + r]);
                    for (size_t c = nv; c < nk; c++) P[r * TILE + c] = 0.0f;
                }
                // y_i = sum_j P_ij v_j:  dv_j += P^T dy_i,  dP = dy_i v_j^T (v_j^T read as transposed)
                gemm_serial(1, 0, nk, dh, nq, 1.0f, P, TILE, dy + i0 * ldy, ldy, 1.0f, dv + j0 * ld, ld);
                gemm_serial(0, 0, nq, nk, dh, 1.0f, dy + i0 * ldy, ldy, vt, TILE, 0.0f, dP, TILE);
                for (size_t r = 0; r < nq; r++) {
                    float Dr = D[i0 + r];
                    float *pr = P + r * TILE;
                    const float *dpr = dP + r * TILE;
                    for (size_t c = 0; c < nk; c++) pr[c] *= dpr[c] - Dr;  // P becomes dS
                }
                // S_ij = q_i . k_j * scale:  dq_i += scale dS k_j,  dk_j += scale dS^T q_i
                gemm_serial(0, 0, nq, dh, nk, scale, P, TILE, k + j0 * ld, ld, 1.0f, dq + i0 * ld, ld);
                gemm_serial(1, 0, nk, dh, nq, scale, P, TILE, q + i0 * ld, ld, 1.0f, dk + j0 * ld, ld);
            }
        }
    }
}

static void sm_backward_io(const AttnConfig *c, const AttnIO *io, float *dq, float *dk, float *dv,
                           float *daux, float *dtheta, const float *dy, float *work, const float *q,
                           const float *k, const float *v, const float *aux, const float *theta,
                           const float *y) {
    (void)daux, (void)dtheta, (void)aux, (void)theta;
    Slabs x = {.B = io->B, .H = (size_t)c->heads, .T = io->T, .dh = (size_t)c->dh, .io = io, .yf = y,
               .work = work, .dq = dq, .dk = dk, .dv = dv, .dy = dy, .q = q, .k = k, .v = v};
    attn_io_slabs_run(io, x.H, backward_slabs, &x);
}

static void sm_backward(const AttnConfig *c, size_t B, size_t T, float *dq, float *dk, float *dv,
                        float *daux, float *dtheta, const float *dy, float *work, const float *q,
                        const float *k, const float *v, const float *aux, const float *theta,
                        const float *y) {
    AttnIO io = attn_io_slabs(c, B, T);
    sm_backward_io(c, &io, dq, dk, dv, daux, dtheta, dy, work, q, k, v, aux, theta, y);
}

// ---------------------------------------------------------------------------
// Generation: the KV cache (softmax_cache.c).

static void sm_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y,
                    const float *q, const float *k, const float *v, const float *aux,
                    const float *theta) {
    (void)aux, (void)theta;
    sm_cache_step(c, state, window, pos, y, q, k, v);
}

static size_t sm_memory_bytes(const AttnConfig *c, size_t len) {
    return 2 * (size_t)c->heads * len * (size_t)c->dh * (c->kv_bf16 ? sizeof(uint16_t) : sizeof(float));
}

// ---- what the rest of the program asks ----

// Per (b, h) and per (query tile of nq rows, key tile of nk rows) pair with
// key tile <= query tile — the diagonal tile is computed whole and masked
// afterwards —
//   forward   S = Q Kᵀ, Y += P V                          2 products: 4·nq·nk·dh
//   backward  S = Q Kᵀ again (P is recomputed, not stored),
//             dV += Pᵀ dY, dP = dY Vᵀ, dQ += dS K, dK += dSᵀ Q   5 products: 10·nq·nk·dh
// i.e. 14·nq·nk·dh per tile pair. Summed over the pairs and heads (H·dh = C)
// that is about 7·C·(T + TILE) per token per layer; the textbook count for
// causal attention (6·C·T: 12·C·T for a full mask, halved) ignores the
// recomputation in the backward (+1/6) and the masked half of the diagonal tiles.
static double sm_flops(const AttnConfig *c, size_t T, double *fwd) {
    double pairs = 0;  // sum over visited tile pairs of nq * nk
    for (size_t i0 = 0; i0 < T; i0 += TILE) {
        double nq = (double)(T - i0 < TILE ? T - i0 : TILE);
        for (size_t j0 = 0; j0 <= i0; j0 += TILE) pairs += nq * (double)(T - j0 < TILE ? T - j0 : TILE);
    }
    *fwd = 4.0 * pairs * (double)c->dh;
    return 14.0 * pairs * (double)c->dh;
}

// The KV cache's functions are kernels (softmax_cache.c, one variant per path:
// kernels/isa.h), reached through pointers set at start, which a constant
// initializer cannot name: these forward to them.
static size_t sm_state_floats(const AttnConfig *c, size_t window) { return sm_cache_floats(c, window); }
static void sm_state_reset(const AttnConfig *c, float *state, size_t window) { sm_cache_reset(c, state, window); }
static void sm_state_extend(const AttnConfig *c, float *state, size_t window, size_t have, size_t pos) {
    sm_cache_extend(c, state, window, have, pos);
}

// fmap, normalize, identity, key_shift, chunk, lam, key_norm, data_decay
static const AttnCheckCase sm_checks[] = {
    {FMAP_ELU1, 1, 0, 0, 4, 0.9f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 1, 0, 1, 4, 0.9f, KEYNORM_SUM, 0},
};

const AttnKind attn_softmax = {
    .name = "softmax",
    .training_form = "tiled, all positions at once (online softmax)",
    .generation_form = "KV cache",
    .uses_decay = 0,
    .n_aux = 0,
    .work_floats = sm_work_floats,
    .forward = sm_forward,
    .backward = sm_backward,
    .forward_io = sm_forward_io,
    .backward_io = sm_backward_io,
    .last_state_norm = NULL,
    .state_floats = sm_state_floats,
    .state_reset = sm_state_reset,
    .step = sm_step,
    .state_extend = sm_state_extend,
    .memory_bytes = sm_memory_bytes,
    .value_weights = softmax_value_weights,
    .weights_formula = "W[i, j] = softmax_j(q_i·k_j/√dh)",
    .state_layout = NULL,  // a KV cache
    .flops = sm_flops,
    .check_cases = sm_checks,
    .n_check_cases = sizeof sm_checks / sizeof sm_checks[0],
};
