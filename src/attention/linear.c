// linear.c — the fast-weight attention kinds `linear` and `linear_decay`.
//
// Both are one implementation: `linear` is `linear_decay` with λ = 1 (θ is
// neither read nor differentiated). Training runs the chunkwise kernel of
// fastweight_chunk.c on each (b, h) slab, one slab per parallel_for task;
// generation runs the recurrent form below, one token at a time.
//
// The kind decides whether λ is used (uses_decay), so a model cannot
// accidentally hand `linear` a decay.
#include <math.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "attention/fastweight_chunk.h"
#include "attention/fastweight_tri.h"
#include "attention/fastweight_work.h"
#include "attention/feature_map.h"
#include "attention/value_weights.h"
#include "attention/wy_kernels.h"
#include "util/pool.h"

extern const AttnKind attn_linear_decay;  // (its aux layout, for decay.h)

// With decay = data (linear_decay only) λ_t = sigmoid(g_t + θ_h) per token
// (decay.h): the chunk kernel gets log λ_t per position, and dL/dlog λ_t
// flows back to the gate logit g_t and to θ_h through dlog λ/dx = 1 − λ.

static FwSlab slab_params(const AttnConfig *c, int has_lambda, size_t T, const float *theta, size_t h) {
    FwSlab p;
    p.T = T;
    p.dh = (size_t)c->dh;
    p.chunk = attn_chunk_length(c, T);
    p.fmap = c->feature_map;
    p.eps = c->eps;
    p.normalize = c->normalize;
    p.state_identity = c->state_identity;
    p.loglam = has_lambda ? decay_log_sigmoid((double)theta[h]) : 0.0;
    p.ll = NULL;
    p.lambda_grad = has_lambda;
    p.ld = p.ldy = p.dh;
    return p;
}

// ---- work layout ----
// [ norm | dL/dlog λ_h | dL/dθ_h (B*H each, fastweight_work.h) | slab 0 | slab 1 | ... ]
// slab: with decay = data first log λ_t and dL/dlog λ_t (T each), then that
// (b, h)'s saved region (forward -> backward), then its scratch. A task runs
// its slabs [lo, hi) one after another in the scratch of slab lo: one scratch
// per thread (parallel_for gives each thread one range) stays in the near
// caches, where a scratch per slab (~100 KiB each for the baby model) made
// every slab's first writes miss.
// The per-slab size does not depend on θ, so slab_params(..., 0, ...) sizes it.

static size_t gate_floats(const AttnConfig *c, size_t T) { return c->data_decay ? 2 * fw_round16(T) : 0; }

static size_t slab_floats(const AttnConfig *c, size_t T, size_t *saved_out) {
    FwSlab p = slab_params(c, 0, T, NULL, 0);
    size_t saved = gate_floats(c, T) + fw_round16(fw_saved_floats(&p));
    if (saved_out) *saved_out = saved;
    return saved + fw_round16(fw_scratch_floats(&p));
}

static size_t linear_work_floats(const AttnConfig *c, size_t B, size_t T) {
    size_t BH = B * (size_t)c->heads;
    return fw_work_floats(BH, slab_floats(c, T, NULL));
}

// ---- training form: one (b, h) slab per task ----

typedef struct {
    const AttnConfig *c;
    int has_lambda;  // the kind has a λ (linear_decay)
    const AttnIO *io;  // where q, k, v, y and their gradients are
    size_t B, T;
    float *y, *dq, *dk, *dv, *daux, *work;
    const float *dy, *q, *k, *v, *aux, *theta, *yin;
} Job;

// The slab's parameters; with decay = data also log λ_t (T) into the slab's
// first T floats (forward and backward compute them by the same code, so
// backward sees forward's very values)
static FwSlab slab_setup(const Job *J, size_t bh, float *ws) {
    size_t H = (size_t)J->c->heads;
    FwSlab p = slab_params(J->c, J->has_lambda, J->T, J->theta, bh % H);
    p.ld = J->io->ld;
    p.ldy = J->io->ldy;
    if (J->has_lambda && J->c->data_decay) {
        const float *g = decay_gate_of(&attn_linear_decay, J->c, J->aux, bh, J->T);
        double th = J->theta[bh % H];
        for (size_t t = 0; t < J->T; t++) ws[t] = (float)decay_log_sigmoid((double)g[t] + th);
        p.ll = ws;
    }
    return p;
}

// offsets of slab bh's first position in q, k, v (*x) and in y (*xy)
static void slab_offsets(const Job *J, size_t bh, size_t *x, size_t *xy) {
    const AttnIO *io = J->io;
    size_t H = (size_t)J->c->heads, b = bh / H, h = bh % H;
    *x = b * io->bs + h * io->hs;
    *xy = b * io->bsy + h * io->hsy;
}

static void forward_slabs(void *ctx, size_t lo, size_t hi) {
    const Job *J = ctx;
    size_t H = (size_t)J->c->heads, saved, o, oy;
    size_t sf = slab_floats(J->c, J->T, &saved), BH = J->B * H, gf = gate_floats(J->c, J->T);
    float *scratch = fw_slab(J->work, BH, lo, sf) + saved;  // the task's (layout above)
    for (size_t bh = lo; bh < hi; bh++) {
        float *ws = fw_slab(J->work, BH, bh, sf);
        FwSlab p = slab_setup(J, bh, ws);
        slab_offsets(J, bh, &o, &oy);
        J->work[bh] = (float)fw_chunk_forward(&p, J->y + oy, ws + gf, scratch, J->q + o, J->k + o, J->v + o);
    }
}

static void backward_slabs(void *ctx, size_t lo, size_t hi) {
    const Job *J = ctx;
    size_t H = (size_t)J->c->heads, saved, T = J->T, o, oy;
    size_t sf = slab_floats(J->c, T, &saved), BH = J->B * H, gf = gate_floats(J->c, T);
    float *scratch = fw_slab(J->work, BH, lo, sf) + saved;  // the task's (layout above)
    for (size_t bh = lo; bh < hi; bh++) {
        float *ws = fw_slab(J->work, BH, bh, sf);
        FwSlab p = slab_setup(J, bh, ws);
        float *dll = p.ll ? ws + gf / 2 : NULL;
        if (dll) memset(dll, 0, T * sizeof(float));
        slab_offsets(J, bh, &o, &oy);
        double d = fw_chunk_backward(&p, J->dq + o, J->dk + o, J->dv + o, dll, J->dy + oy, J->yin + oy,
                                     ws + gf, scratch, J->q + o, J->k + o, J->v + o);
        if (dll) {
            // dL/dlog λ_t -> the gate logit g_t and, summed, θ_h
            const float *g = decay_gate_of(&attn_linear_decay, J->c, J->aux, bh, T);
            float *dg = J->daux ? (float *)decay_gate_of(&attn_linear_decay, J->c, J->daux, bh, T) : NULL;
            *fw_dtheta_slot(J->work, BH, bh) = (float)fw_gate_backward(g, J->theta[bh % H], dll, dg, T);
        } else {
            *fw_dloglam_slot(J->work, BH, bh) = (float)d;  // d: Σ_t dL/dlog λ (λ one per head; 0 for linear)
        }
    }
}

// y, q, k, v where io says; theta (H) for the decay kind; aux (B, H, 1, T) the
// gate logits with decay = data, else unused
static void fw_forward(int has_lambda, const AttnConfig *c, const AttnIO *io, float *y, float *work,
                       const float *q, const float *k, const float *v, const float *aux,
                       const float *theta) {
    Job J = {.c = c, .has_lambda = has_lambda, .io = io, .B = io->B, .T = io->T, .y = y, .work = work,
             .q = q, .k = k, .v = v, .aux = aux, .theta = theta};
    attn_io_slabs_run(io, (size_t)c->heads, forward_slabs, &J);
}

static void fw_backward(int has_lambda, const AttnConfig *c, const AttnIO *io, float *dq, float *dk,
                        float *dv, float *daux, float *dtheta, const float *dy, float *work,
                        const float *q, const float *k, const float *v, const float *aux,
                        const float *theta, const float *y) {
    size_t B = io->B;
    Job J = {.c = c, .has_lambda = has_lambda, .io = io, .B = B, .T = io->T, .dq = dq, .dk = dk, .dv = dv,
             .daux = daux, .work = work, .dy = dy, .q = q, .k = k, .v = v, .aux = aux, .theta = theta,
             .yin = y};
    attn_io_slabs_run(io, (size_t)c->heads, backward_slabs, &J);
    if (has_lambda && dtheta) fw_add_dtheta(c, work, B, theta, dtheta);
}

// linear_decay's add_dtheta (fw_backward's last step)
static void dec_add_dtheta(const AttnConfig *c, size_t B, float *work, const float *theta, float *dtheta) {
    fw_add_dtheta(c, work, B, theta, dtheta);
}

// ---- generation: the recurrent form, state per head = S (dh, dh) then z (dh) ----

static size_t linear_state_floats(const AttnConfig *c, size_t window) {
    (void)window;
    size_t d = (size_t)c->dh;
    return (size_t)c->heads * (d * d + d);
}

static void linear_state_reset(const AttnConfig *c, float *state, size_t window) {
    size_t d = (size_t)c->dh;
    memset(state, 0, linear_state_floats(c, window) * sizeof(float));
    if (!c->state_identity) return;
    for (int h = 0; h < c->heads; h++) {
        float *S = state + (size_t)h * (d * d + d), *z = S + d * d;
        for (size_t i = 0; i < d; i++) S[i * d + i] = z[i] = 1.0f;
    }
}

// One pass over S per head: each row is updated and, while it is in
// registers, added into the read-out. The state (64 KiB for the baby model)
// is evicted from the near caches by the weights every token, so a second
// pass would read it from far away twice. Each value is the same IEEE chain as
// the two-pass form (update all rows, then y_j = 0 + pq_0 S_0j + pq_1 S_1j +
// ..., den = eps + pq_0 z_0 + ..., i ascending): only the loop order changes,
// so the step is bit-identical to it (tests/attention/test_fw_step.c compares
// it with that form written out plainly). λ = 1 (no decay) skips the multiply
// by λ: 1 · x = x exactly.
#define FW_STEP_CHUNK 256  // feature-map values computed ahead of the state rows
typedef float FwVec __attribute__((vector_size(16 * sizeof(float))));

// rows [0, nb) of a head's S, columns [j0, j0 + 16 NG) (NG a constant in each
// use, so v and the read-out sums stay in registers): S_i = λ S_i + pk_i v,
// y += pq_i S_i; with z (the first strip), also z_i = λ z_i + pk_i and
// *den += pq_i z_i: that scalar chain then waits on its adds beside the
// vector work instead of after it
static inline __attribute__((always_inline)) void fw_rows(float *restrict S, size_t d, size_t nb, size_t j0,
                                                          size_t NG, int decay, float lam,
                                                          const float *restrict pk, const float *restrict pq,
                                                          const float *restrict v, float *restrict y,
                                                          float *restrict z, float *restrict den) {
    FwVec vv[4], acc[4], r;
    float dn = z ? *den : 0.0f;
    for (size_t g = 0; g < NG; g++) {
        memcpy(&vv[g], v + j0 + 16 * g, sizeof vv[g]);
        memcpy(&acc[g], y + j0 + 16 * g, sizeof acc[g]);
    }
    for (size_t i = 0; i < nb; i++) {
        float *Si = S + i * d + j0;
        for (size_t g = 0; g < NG; g++) {
            memcpy(&r, Si + 16 * g, sizeof r);
            r = decay ? lam * r + pk[i] * vv[g] : r + pk[i] * vv[g];
            memcpy(Si + 16 * g, &r, sizeof r);
            acc[g] += pq[i] * r;
        }
        if (z) {
            z[i] = lam * z[i] + pk[i];
            dn += pq[i] * z[i];
        }
    }
    for (size_t g = 0; g < NG; g++) memcpy(y + j0 + 16 * g, &acc[g], sizeof acc[g]);
    if (z) *den = dn;
}

// all d columns of rows [0, nb): groups of 4, then 3, 2, 1 vectors, then one
// by one; z and den go with the first group (or alone when d < 16)
static inline __attribute__((always_inline)) void fw_block(float *restrict S, size_t d, size_t nb, int decay,
                                                           float lam, const float *restrict pk,
                                                           const float *restrict pq, const float *restrict v,
                                                           float *restrict y, float *restrict z,
                                                           float *restrict den) {
    size_t j0 = 0;
    for (; d - j0 >= 64; j0 += 64, z = NULL) fw_rows(S, d, nb, j0, 4, decay, lam, pk, pq, v, y, z, den);
    switch ((d - j0) / 16) {
    case 3: fw_rows(S, d, nb, j0, 3, decay, lam, pk, pq, v, y, z, den); z = NULL; break;
    case 2: fw_rows(S, d, nb, j0, 2, decay, lam, pk, pq, v, y, z, den); z = NULL; break;
    case 1: fw_rows(S, d, nb, j0, 1, decay, lam, pk, pq, v, y, z, den); z = NULL; break;
    default: break;
    }
    if (z) fw_rows(S, d, nb, j0, 0, decay, lam, pk, pq, v, y, z, den);
    for (j0 += (d - j0) / 16 * 16; j0 < d; j0++)
        for (size_t i = 0; i < nb; i++) {
            float *s = S + i * d + j0;
            *s = lam * *s + pk[i] * v[j0];
            y[j0] += pq[i] * *s;
        }
}

// q, k, v, y (H, dh), aux (H, n_aux): S = λ S + φ(k) vᵀ, z = λ z + φ(k), then
// the read-out (λ = λ_t with decay = data).
// φ of the keys and queries FW_STEP_CHUNK values at a time across heads (one
// fmap_forward call each: many independent exps in flight, where a call per
// head of 32 values waited on one exp's latency), then the state rows those
// values belong to; a head may span two chunks (its sums carry over in y and den).
static void fw_step(int decay, const AttnConfig *c, float *state, float *y, const float *q,
                    const float *k, const float *v, const float *aux, const float *theta) {
    size_t d = (size_t)c->dh, na = attn_aux(&attn_linear_decay, c), C = (size_t)c->heads * d;
    float pk[FW_STEP_CHUNK], pq[FW_STEP_CHUNK], lam = 1.0f, den = 0.0f;
    for (size_t c0 = 0; c0 < C; c0 += FW_STEP_CHUNK) {
        size_t n = C - c0 < FW_STEP_CHUNK ? C - c0 : FW_STEP_CHUNK;
        fmap_forward(c->feature_map, pk, k + c0, n);
        fmap_forward(c->feature_map, pq, q + c0, n);
        for (size_t idx = c0, nb; idx < c0 + n; idx += nb) {
            size_t h = idx / d, i0 = idx % d;  // head h, its rows [i0, i0 + nb)
            nb = d - i0 < c0 + n - idx ? d - i0 : c0 + n - idx;
            float *restrict S = state + h * (d * d + d), *restrict z = S + d * d, *yh = y + h * d;
            if (i0 == 0) {  // the head starts
                lam = decay ? (float)decay_lambda_at(&attn_linear_decay, c, aux + h * na, theta, h) : 1.0f;
                den = c->eps;
                for (size_t j = 0; j < d; j++) yh[j] = 0.0f;
            }
            const float *a = pk + (idx - c0), *b = pq + (idx - c0);
            if (decay)  // a constant in each fw_block: no test in the row loop
                fw_block(S + i0 * d, d, nb, 1, lam, a, b, v + h * d, yh, z + i0, &den);
            else
                fw_block(S + i0 * d, d, nb, 0, lam, a, b, v + h * d, yh, z + i0, &den);
            if (i0 + nb == d && c->normalize)  // the head ends
                for (size_t j = 0; j < d; j++) yh[j] /= den;
        }
    }
}

static size_t linear_memory_bytes(const AttnConfig *c, size_t len) {
    (void)len;  // the point of a fast-weight memory: its size does not grow
    return linear_state_floats(c, 0) * sizeof(float);
}

// ---- what the rest of the program asks ----

// step()'s state: per head S (dh, dh) then z (dh)
static void linear_state_layout(const AttnConfig *c, AttnStateLayout *lay) {
    size_t d = (size_t)c->dh;
    *lay = (AttnStateLayout){d * d + d, 1};
}

// The chunkwise form (fastweight_chunk.c) per slab, chunk by chunk of L
// positions, with d = dh and w = d + 1 when normalize (the normaliser rides
// along as one more value column), else w = d:
//   forward   A = Φq Φkᵀ          lower(L, d)     (its lower triangle: row blocks
//                                                 of WY_LOWER_ROWS, wy_kernels.h)
//             Φq S̃                2·L·d·w         (read-out of the carried state)
//             A Ṽ                 tri(L, w)       (intra-chunk: row blocks of
//                                                 FW_TRI_ROWS skip the mask's zeros,
//                                                 fastweight_tri.h)
//             S̃ += Φkᵀ Ṽ          2·d·w·L         (state write)
//   backward  A again, G = dÑ Ṽᵀ                  lower(L, d) + lower(L, d or w)
//               (G's product runs over v, K = d, its ones column an add
//               afterwards; over the formed [v | 1], K = w, where
//               !fw_ones_split_exact(d))
//             G Φk, Gᵀ Φq, Aᵀ dÑ                  3 tri(L, d) (of Aᵀ dÑ only
//                                                 the d columns of dv are formed)
//             dÑ S̃ᵀ, Φqᵀ dÑ                       2 x 2·L·d·w
//             Ṽ dS̃ᵀ (over v; ones column an add), Φk dS̃ (d columns)   2 x 2·L·d·d
// except the products with a zero operand, which are skipped
// (fastweight_chunk.c): in the first chunk Φq S̃ and dÑ S̃ᵀ (S̃ = S0 = 0
// unless state_identity) and Φqᵀ dÑ (the gradient of S0: unused), in the
// last chunk Ṽ dS̃ᵀ and Φk dS̃ (the final state feeds nothing). Only the
// products are counted: the adds of the ones columns (L(L+1)/2 and L·d a
// chunk) are element-wise work like the decay's scaling, outside the count.
// Per token (full chunks, w ≈ d, H·d = C, many chunks) that is at most 4·c·C +
// 4·dh·C forward and 10·c·C + 8·dh·C backward, the full products' count; at
// c = 64 the masked products run 9/16 of theirs and the lower triangles 3/4.
// The decay only scales rows
// (O(L·w)), so linear and linear_decay count the same.
static double linear_flops(const AttnConfig *c, size_t T, double *fwd_total) {
    size_t dh = (size_t)c->dh, chunk = attn_chunk_length(c, T), wg = dh;
    double d = (double)dh, w = d + (c->normalize ? 1 : 0), total = 0;
    if (c->normalize && !fw_ones_split_exact(dh)) wg = dh + 1;  // G over the formed [v | 1]
    *fwd_total = 0;
    for (size_t t0 = 0; t0 < T; t0 += chunk) {
        size_t Lz = T - t0 < chunk ? T - t0 : chunk;
        double L = (double)Lz, ldw = 2 * L * d * w, ldd = 2 * L * d * d;
        int first = t0 == 0, last = t0 + chunk >= T, zero_state = first && !c->state_identity;
        double fwd = wy_gemm_lower_flops(Lz, dh) + (zero_state ? 0 : ldw) + fw_tri_mul_flops(Lz, dh) +
                     (c->normalize ? fw_tri_mul_flops(Lz, 1) : 0) + ldw;
        double bwd = wy_gemm_lower_flops(Lz, dh) + wy_gemm_lower_flops(Lz, wg) + 3 * fw_tri_mul_flops(Lz, dh) +
                     (zero_state ? 0 : ldw) + (last ? 0 : 2 * ldd) + (first ? 0 : ldw);
        total += fwd + bwd;
        *fwd_total += fwd;
    }
    return total;
}

// fmap, normalize, identity, key_shift, chunk, lam, key_norm, data_decay
static const AttnCheckCase linear_checks[] = {
    {FMAP_ELU1, 1, 0, 0, 4, 0.9f, KEYNORM_SUM, 0},
    {FMAP_RELU, 1, 0, 0, 3, 0.9f, KEYNORM_SUM, 0},
    {FMAP_IDENTITY, 0, 0, 0, 5, 0.9f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 0, 1, 1, 16, 0.9f, KEYNORM_SUM, 0},
};
static const AttnCheckCase linear_decay_checks[] = {
    {FMAP_ELU1, 1, 0, 0, 4, 0.9f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 1, 1, 0, 3, 0.05f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 1, 0, 1, 1, 0.999f, KEYNORM_SUM, 0},
    {FMAP_RELU, 0, 0, 0, 7, 0.5f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 1, 0, 0, 4, 0.9f, KEYNORM_SUM, 1},
    {FMAP_ELU1, 1, 1, 1, 3, 0.05f, KEYNORM_SUM, 1},
};

// ---- the two kinds ----

static void lin_forward_io(const AttnConfig *c, const AttnIO *io, float *y, float *work, const float *q,
                           const float *k, const float *v, const float *aux, const float *theta) {
    (void)aux, (void)theta;
    fw_forward(0, c, io, y, work, q, k, v, NULL, NULL);
}
static void lin_backward_io(const AttnConfig *c, const AttnIO *io, float *dq, float *dk, float *dv,
                            float *daux, float *dtheta, const float *dy, float *work, const float *q,
                            const float *k, const float *v, const float *aux, const float *theta,
                            const float *y) {
    (void)daux, (void)dtheta, (void)aux, (void)theta;
    fw_backward(0, c, io, dq, dk, dv, NULL, NULL, dy, work, q, k, v, NULL, NULL, y);
}
static void lin_forward(const AttnConfig *c, size_t B, size_t T, float *y, float *work,
                        const float *q, const float *k, const float *v, const float *aux,
                        const float *theta) {
    AttnIO io = attn_io_slabs(c, B, T);
    lin_forward_io(c, &io, y, work, q, k, v, aux, theta);
}
static void lin_backward(const AttnConfig *c, size_t B, size_t T, float *dq, float *dk, float *dv,
                         float *daux, float *dtheta, const float *dy, float *work, const float *q,
                         const float *k, const float *v, const float *aux, const float *theta,
                         const float *y) {
    AttnIO io = attn_io_slabs(c, B, T);
    lin_backward_io(c, &io, dq, dk, dv, daux, dtheta, dy, work, q, k, v, aux, theta, y);
}
static void lin_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y,
                     const float *q, const float *k, const float *v, const float *aux,
                     const float *theta) {
    (void)window, (void)pos, (void)aux, (void)theta;
    fw_step(0, c, state, y, q, k, v, NULL, NULL);
}

static void dec_forward_io(const AttnConfig *c, const AttnIO *io, float *y, float *work, const float *q,
                           const float *k, const float *v, const float *aux, const float *theta) {
    fw_forward(1, c, io, y, work, q, k, v, aux, theta);
}
static void dec_backward_io(const AttnConfig *c, const AttnIO *io, float *dq, float *dk, float *dv,
                            float *daux, float *dtheta, const float *dy, float *work, const float *q,
                            const float *k, const float *v, const float *aux, const float *theta,
                            const float *y) {
    fw_backward(1, c, io, dq, dk, dv, daux, dtheta, dy, work, q, k, v, aux, theta, y);
}
static void dec_forward(const AttnConfig *c, size_t B, size_t T, float *y, float *work,
                        const float *q, const float *k, const float *v, const float *aux,
                        const float *theta) {
    AttnIO io = attn_io_slabs(c, B, T);
    dec_forward_io(c, &io, y, work, q, k, v, aux, theta);
}
static void dec_backward(const AttnConfig *c, size_t B, size_t T, float *dq, float *dk, float *dv,
                         float *daux, float *dtheta, const float *dy, float *work, const float *q,
                         const float *k, const float *v, const float *aux, const float *theta,
                         const float *y) {
    AttnIO io = attn_io_slabs(c, B, T);
    dec_backward_io(c, &io, dq, dk, dv, daux, dtheta, dy, work, q, k, v, aux, theta, y);
}
static void dec_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y,
                     const float *q, const float *k, const float *v, const float *aux,
                     const float *theta) {
    (void)window, (void)pos;
    fw_step(1, c, state, y, q, k, v, aux, theta);
}

const AttnKind attn_linear = {
    .name = "linear",
    .training_form = "chunkwise-parallel",
    .generation_form = "recurrent state",
    .uses_decay = 0,
    .n_aux = 0,
    .phi_normalizer = 1,
    .work_floats = linear_work_floats,
    .forward = lin_forward,
    .backward = lin_backward,
    .forward_io = lin_forward_io,
    .backward_io = lin_backward_io,
    .last_state_norm = fw_last_state_norm,
    .state_floats = linear_state_floats,
    .state_reset = linear_state_reset,
    .step = lin_step,
    .memory_bytes = linear_memory_bytes,
    .value_weights = linear_value_weights,
    .weights_formula = "W[i, j] = λ^(i−j) φ(q_i)·φ(k_j) / (φ(q_i)ᵀz_i + eps) (λ = 1 without decay)",
    .state_layout = linear_state_layout,
    .flops = linear_flops,
    .check_cases = linear_checks,
    .n_check_cases = sizeof linear_checks / sizeof linear_checks[0],
};

const AttnKind attn_linear_decay = {
    .name = "linear_decay",
    .training_form = "chunkwise-parallel",
    .generation_form = "recurrent state",
    .uses_decay = 1,
    .n_aux = 0,
    .data_decay = 1,
    .phi_normalizer = 1,
    .work_floats = linear_work_floats,
    .forward = dec_forward,
    .backward = dec_backward,
    .forward_io = dec_forward_io,
    .backward_io = dec_backward_io,
    .add_dtheta = dec_add_dtheta,
    .last_state_norm = fw_last_state_norm,
    .state_floats = linear_state_floats,
    .state_reset = linear_state_reset,
    .step = dec_step,
    .memory_bytes = linear_memory_bytes,
    .value_weights = linear_value_weights,
    .weights_formula = "W[i, j] = λ^(i−j) φ(q_i)·φ(k_j) / (φ(q_i)ᵀz_i + eps) (λ = 1 without decay)",
    .state_layout = linear_state_layout,
    .flops = linear_flops,
    .check_cases = linear_decay_checks,
    .n_check_cases = sizeof linear_decay_checks / sizeof linear_decay_checks[0],
};
