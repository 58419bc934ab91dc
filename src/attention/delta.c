// delta.c — the attention kind `delta`: fast weights that correct instead of only adding.
//
// Per head (math in delta_chunk.h): k̂ = φ(k)/(Σφ(k) + eps), q̂ likewise,
// β_t = sigmoid(a_t) with a_t = w_βᵀ x_t the kind's one aux input per head and
// token (n_aux = 1: the model projects it beside q, k, v), and
//   S_t = λ S_{t-1} + β_t k̂_t (v_t − λ S_{t-1}ᵀ k̂_t)ᵀ,   y_t = S_tᵀ q̂_t.
//
// How the [attention] keys apply to delta:
//   feature_map   φ, as for the linear kinds (elu1 > 0 always; relu may give a
//                 key with Σφ = 0, which then writes and reads nothing).
//   normalize     true: normalise φ(q) and φ(k) as key_norm says; both bound
//                 ‖k̂‖ ≤ 1, which keeps the delta update contractive.
//   key_norm      sum: divide by Σφ + eps (Schlag et al. 2021; needs φ >= 0).
//                 l2 (the default, with φ = identity unless feature_map is
//                 given): divide by sqrt(Σφ² + eps) (DeltaNet, Yang et al. 2024):
//                 ‖k̂‖ ≈ 1, so β = 1 overwrites what k̂ reads exactly, and any
//                 φ works (identity included).
//                 false: k̂ = φ(k), q̂ = φ(q) raw; stable only while
//                 β‖φ(k)‖² < 2 — for experiments, not for training by default.
//                 There is no separate read-out normaliser: the sum-normalised
//                 q̂ plays that role (so identity φ needs key_norm = l2 or normalize = false).
//   eps           added to Σφ in both sum-normalisations.
//   decay_init, decay_learnable
//                 uses_decay = 1: one θ per head, λ = sigmoid(θ), initialised to
//                 logit(decay_init), learned unless decay_learnable = false.
//                 decay_init close to 1 (0.99: a horizon of ~100 tokens) means
//                 nearly no decay; decay_init = 0.9999 with decay_learnable =
//                 false is the plain delta rule for all practical lengths.
//                 (θ = NULL, which only tests pass, means λ = 1 exactly.)
//   chunk         the recompute granularity of the training form: forward keeps
//                 the state at each chunk start, backward recomputes inside one
//                 chunk. Memory per (b, h) is (T/chunk + chunk)·dh² floats,
//                 smallest near chunk = √T; results do not depend on it.
//   state_init    zero or identity S_0 (decaying like any other term).
//   decay         fixed | learned: one λ per head as above. data (Gated
//                 DeltaNet): λ_t = sigmoid(g_t + θ_h) per head and token, g_t
//                 the second aux input (decay.h); θ_h its learned bias.
//   Decay is on iff θ is given.
#include <math.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "attention/delta_chunk.h"
#include "attention/delta_wy.h"
#include "attention/fastweight_work.h"
#include "attention/feature_map.h"
#include "attention/value_weights.h"
#include "util/pool.h"

extern const AttnKind attn_delta;  // (its aux layout, for decay.h)

static DeltaSlab slab_params(const AttnConfig *c, size_t T, const float *theta, size_t h) {
    DeltaSlab p = {0};
    p.T = T;
    p.dh = (size_t)c->dh;
    p.chunk = attn_chunk_length(c, T);
    if (p.chunk == 0) p.chunk = 1;  // T = 0
    p.fmap = c->feature_map;
    p.eps = c->eps;
    p.normalize = c->normalize;
    p.key_norm = c->key_norm;
    p.state_identity = c->state_identity;
    p.lam = theta ? (float)decay_sigmoid((double)theta[h]) : 1.0f;
    p.lam_t = NULL;
    p.loglam = theta ? decay_log_sigmoid((double)theta[h]) : 0.0;
    p.ll = NULL;
    return p;
}

// ---- work layout ----
// [ norm | dL/dlog λ_h | dL/dθ_h (B*H each, fastweight_work.h) | slab 0 | slab 1 | ... ]
// slab: with decay = data first log λ_t and dL/dlog λ_t (T each), then that
// (b, h)'s saved chunk-start states (forward -> backward), then its scratch.
// Training runs the token recurrence (delta_chunk.h) for head sizes below
// WY_MIN_DH and the WY/UT chunkwise form (delta_wy.h) from there on: measured
// forward + backward CPU time per token of one slab (T 1024, chunk 64, one
// thread; docs/recall.md has the command), relative to linear_decay's chunk
// kernel: recurrence 0.7-1.1x at dh 16-32 but 1.9x at 64 and 3.1x at 128;
// WY 2.4-2.9x at dh 16-32 but 2.1x at 64 and 1.9x at 128 (its L x L products
// cost more than d² work when d < L). The recurrence is also the tested
// reference of the WY form and the form step() runs.

enum { WY_MIN_DH = 64 };
static int use_wy(const AttnConfig *c) { return c->dh >= WY_MIN_DH; }

static size_t gate_floats(const AttnConfig *c, size_t T) { return c->data_decay ? 2 * fw_round16(T) : 0; }

static size_t slab_floats(const AttnConfig *c, size_t T, size_t *saved_out) {
    DeltaSlab p = slab_params(c, T, NULL, 0);
    size_t saved = gate_floats(c, T) + fw_round16(delta_saved_floats(&p));
    if (saved_out) *saved_out = saved;
    return saved + fw_round16(use_wy(c) ? delta_wy_scratch_floats(&p) : delta_scratch_floats(&p));
}

static size_t delta_work_floats(const AttnConfig *c, size_t B, size_t T) {
    size_t BH = B * (size_t)c->heads;
    return fw_work_floats(BH, slab_floats(c, T, NULL));
}

// ---- training form: one (b, h) slab per task ----
// A task's slabs run one after another on one thread, so they share the first
// one's scratch (chunk·dh² floats of states in backward): it stays in that
// core's L2 instead of each slab writing and re-reading its own cold copy
// (measured in docs/speed.md, "delta's token recurrence").

typedef struct {
    const AttnConfig *c;
    AttnIO io;
    size_t B, T;
    float *y, *dq, *dk, *dv, *daux, *work;
    const float *dy, *q, *k, *v, *aux, *theta;
} Job;

// Where slab bh's rows start: of q, k, v (and their gradients), of y (and dy)
static size_t qkv_at(const Job *J, size_t bh) {
    size_t H = (size_t)J->c->heads;
    return bh / H * J->io.bs + bh % H * J->io.hs;
}
static size_t y_at(const Job *J, size_t bh) {
    size_t H = (size_t)J->c->heads;
    return bh / H * J->io.bsy + bh % H * J->io.hsy;
}

// The slab's parameters; with decay = data also log λ_t (T) into the slab's
// first T floats (forward and backward compute them by the same code). The
// task runs slab bh + 1 next if it is below hi: the kernel asks for its rows
// ahead (DeltaSlab.has_next).
static DeltaSlab slab_setup(const Job *J, size_t bh, size_t hi, float *ws) {
    size_t H = (size_t)J->c->heads;
    DeltaSlab p = slab_params(J->c, J->T, J->theta, bh % H);
    p.ld = J->io.ld, p.ldy = J->io.ldy;
    if (bh + 1 < hi) {
        p.has_next = 1;
        p.next = (ptrdiff_t)qkv_at(J, bh + 1) - (ptrdiff_t)qkv_at(J, bh);
        p.next_y = (ptrdiff_t)y_at(J, bh + 1) - (ptrdiff_t)y_at(J, bh);
    }
    if (J->theta && J->c->data_decay) {
        const float *g = decay_gate_of(&attn_delta, J->c, J->aux, bh, J->T);
        double th = J->theta[bh % H];
        // the WY form reads log λ_t, the recurrence λ_t (each computed from x_t directly)
        for (size_t t = 0; t < J->T; t++)
            ws[t] = use_wy(J->c) ? (float)decay_log_sigmoid((double)g[t] + th)
                                 : (float)decay_sigmoid((double)g[t] + th);
        if (use_wy(J->c)) p.ll = ws;
        else p.lam_t = ws;
    }
    return p;
}

// the β logits of slab bh: channel 0 of its aux inputs
static size_t beta_at(const Job *J, size_t bh) { return bh * attn_aux(&attn_delta, J->c) * J->T; }

static void forward_slabs(void *ctx, size_t lo, size_t hi) {
    const Job *J = ctx;
    size_t H = (size_t)J->c->heads, T = J->T, saved;
    size_t sf = slab_floats(J->c, T, &saved), BH = J->B * H, gf = gate_floats(J->c, T);
    float *scratch = fw_slab(J->work, BH, lo, sf) + saved;  // the range's slabs share one (see above Job)
    for (size_t bh = lo; bh < hi; bh++) {
        float *ws = fw_slab(J->work, BH, bh, sf);
        DeltaSlab p = slab_setup(J, bh, hi, ws);
        size_t o = qkv_at(J, bh);
        double (*fwd)(const DeltaSlab *, float *, float *, float *, const float *, const float *,
                      const float *, const float *) = use_wy(J->c) ? delta_wy_forward : delta_chunk_forward;
        J->work[bh] = (float)fwd(&p, J->y + y_at(J, bh), ws + gf, scratch, J->q + o, J->k + o, J->v + o,
                                 J->aux + beta_at(J, bh));
    }
}

static void backward_slabs(void *ctx, size_t lo, size_t hi) {
    const Job *J = ctx;
    size_t H = (size_t)J->c->heads, saved, T = J->T;
    size_t sf = slab_floats(J->c, T, &saved), BH = J->B * H, gf = gate_floats(J->c, T);
    float *scratch = fw_slab(J->work, BH, lo, sf) + saved;  // shared by the range's slabs, as in forward
    for (size_t bh = lo; bh < hi; bh++) {
        float *ws = fw_slab(J->work, BH, bh, sf);
        DeltaSlab p = slab_setup(J, bh, hi, ws);
        float *dll = p.ll || p.lam_t ? ws + gf / 2 : NULL;
        if (dll) memset(dll, 0, T * sizeof(float));
        size_t o = qkv_at(J, bh);
        double (*bwd)(const DeltaSlab *, float *, float *, float *, float *, float *, const float *,
                      const float *, float *, const float *, const float *, const float *,
                      const float *) = use_wy(J->c) ? delta_wy_backward : delta_chunk_backward;
        double dl = bwd(&p, J->dq + o, J->dk + o, J->dv + o, J->daux ? J->daux + beta_at(J, bh) : NULL, dll,
                        J->dy + y_at(J, bh), ws + gf, scratch, J->q + o, J->k + o, J->v + o,
                        J->aux + beta_at(J, bh));
        if (dll) {
            // dL/dlog λ_t -> the gate logit g_t and, summed, θ_h
            const float *g = decay_gate_of(&attn_delta, J->c, J->aux, bh, T);
            float *dg = J->daux ? (float *)decay_gate_of(&attn_delta, J->c, J->daux, bh, T) : NULL;
            *fw_dtheta_slot(J->work, BH, bh) = (float)fw_gate_backward(g, J->theta[bh % H], dll, dg, T);
        } else {
            *fw_dloglam_slot(J->work, BH, bh) = (float)dl;  // dl: Σ_t dL/dlog λ (λ one per head)
        }
    }
}

// y, q, k, v and their gradients where io says; aux (B, H, n_aux, T): the β
// logits, then with decay = data the gate logits; theta (H) or NULL (λ = 1)
static void delta_forward_io(const AttnConfig *c, const AttnIO *io, float *y, float *work, const float *q,
                             const float *k, const float *v, const float *aux, const float *theta) {
    Job J = {.c = c, .io = *io, .B = io->B, .T = io->T, .y = y, .work = work, .q = q, .k = k, .v = v,
             .aux = aux, .theta = theta};
    attn_io_slabs_run(io, (size_t)c->heads, forward_slabs, &J);
}

static void delta_backward_io(const AttnConfig *c, const AttnIO *io, float *dq, float *dk, float *dv,
                              float *daux, float *dtheta, const float *dy, float *work, const float *q,
                              const float *k, const float *v, const float *aux, const float *theta,
                              const float *y) {
    (void)y;  // y is not needed: backward recomputes what it reads
    Job J = {.c = c, .io = *io, .B = io->B, .T = io->T, .dq = dq, .dk = dk, .dv = dv, .daux = daux,
             .work = work, .dy = dy, .q = q, .k = k, .v = v, .aux = aux, .theta = theta};
    attn_io_slabs_run(io, (size_t)c->heads, backward_slabs, &J);
    if (theta && dtheta) fw_add_dtheta(c, work, io->B, theta, dtheta);
}

// delta_backward_io's last step (no θ without a decay: λ = 1)
static void delta_add_dtheta(const AttnConfig *c, size_t B, float *work, const float *theta, float *dtheta) {
    if (theta) fw_add_dtheta(c, work, B, theta, dtheta);
}

// y, q, k, v (B, H, T, dh): the io form at the slabs' strides
static void delta_forward(const AttnConfig *c, size_t B, size_t T, float *y, float *work,
                          const float *q, const float *k, const float *v, const float *aux,
                          const float *theta) {
    AttnIO io = attn_io_slabs(c, B, T);
    delta_forward_io(c, &io, y, work, q, k, v, aux, theta);
}

static void delta_backward(const AttnConfig *c, size_t B, size_t T, float *dq, float *dk,
                           float *dv, float *daux, float *dtheta, const float *dy, float *work,
                           const float *q, const float *k, const float *v, const float *aux,
                           const float *theta, const float *y) {
    AttnIO io = attn_io_slabs(c, B, T);
    delta_backward_io(c, &io, dq, dk, dv, daux, dtheta, dy, work, q, k, v, aux, theta, y);
}

// ---- generation: the same per-token code, one position at a time ----
// state: S (dh, dh) per head, then 2·dh floats of scratch for k̂, q̂ of a head
// too large for delta_step's buffer (not state: overwritten by every step;
// kept here so step() needs no allocation and no stack array sized by dh). No
// normaliser vector: q̂ is sum-normalised.

static size_t delta_state_floats(const AttnConfig *c, size_t window) {
    (void)window;
    size_t d = (size_t)c->dh;
    return (size_t)c->heads * d * d + 2 * d;
}

static void delta_state_reset(const AttnConfig *c, float *state, size_t window) {
    size_t d = (size_t)c->dh;
    memset(state, 0, delta_state_floats(c, window) * sizeof(float));
    if (!c->state_identity) return;
    for (size_t h = 0; h < (size_t)c->heads; h++)
        for (size_t i = 0; i < d; i++) state[h * d * d + i * d + i] = 1.0f;
}

// q, k, v, y (H, dh); aux (H, n_aux) the β logit, then (decay = data) the
// gate logit; theta (H) or NULL. Heads go in groups whose k̂ and q̂ are
// computed together (φ in one call each, then delta_normalize_n: their sums
// side by side) into a buffer on the stack; a head too large for it uses the
// state's scratch, alone.
#define DELTA_STEP_FLOATS 512
static void delta_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y,
                       const float *q, const float *k, const float *v, const float *aux,
                       const float *theta) {
    (void)window, (void)pos;
    size_t d = (size_t)c->dh, H = (size_t)c->heads, na = attn_aux(&attn_delta, c);
    DeltaSlab p = slab_params(c, 1, NULL, 0);  // φ and its normalisation: the same for every head
    float buf[DELTA_STEP_FLOATS], *feat = buf;
    size_t G = DELTA_STEP_FLOATS / (2 * d);  // heads per group
    if (G > DELTA_FEATURES_MAX / 2) G = DELTA_FEATURES_MAX / 2;
    if (G == 0) G = 1, feat = state + H * d * d;
    for (size_t h0 = 0; h0 < H; h0 += G) {
        size_t n = H - h0 < G ? H - h0 : G;
        float *kh = feat, *qh = feat + n * d;  // k̂ of the group's heads, then their q̂
        fmap_forward(p.fmap, kh, k + h0 * d, n * d);
        fmap_forward(p.fmap, qh, q + h0 * d, n * d);
        delta_normalize_n(&p, feat, 2 * n, NULL);
        for (size_t g = 0; g < n; g++) {
            size_t h = h0 + g;
            float beta, omb;
            delta_beta(aux[h * na], &beta, &omb);
            float lam = (float)decay_lambda_at(&attn_delta, c, aux + h * na, theta, h);
            delta_token_inplace(d, lam, beta, state + h * d * d, kh + g * d, qh + g * d, y + h * d, v + h * d);
        }
    }
}

static size_t delta_memory_bytes(const AttnConfig *c, size_t len) {
    (void)len;  // fixed: it does not grow with the sequence
    return delta_state_floats(c, 0) * sizeof(float);
}

// ---- what the rest of the program asks ----

// step()'s state: per head S (dh, dh), then the kind's scratch
static void delta_state_layout(const AttnConfig *c, AttnStateLayout *lay) {
    size_t d = (size_t)c->dh;
    *lay = (AttnStateLayout){d * d, 0};
}

// Per slab, as the form delta_work_floats sized runs (use_wy), d = dh.
// Token by token (delta_chunk.c), counting the d² terms:
//   forward   e = v − λ Sᵀk̂       2d²
//             S' = λS + β k̂ eᵀ    3d²   (a multiply, a multiply-add)
//             y = S'ᵀ q̂           2d²
//   backward  recompute e and S' as forward did (no y; the chunk's last
//             position needs no S')                     5d² (2d² at a chunk's end)
//             pass A: G += q̂ dyᵀ, du += Gᵀk̂, P·dy, G·u, P·G   10d²
//             pass B: P du, G = λG − c du                        5d²
// so 27d² per token (less 3d² per chunk) of which 7d² forward.
// The WY/UT chunkwise form (delta_wy.c) counts its own: delta_wy_flops.
static double delta_flops(const AttnConfig *c, size_t T, double *fwd) {
    double d = (double)c->dh, d2 = d * d;
    size_t chunk = attn_chunk_length(c, T);
    if (!use_wy(c)) {
        double chunks = T ? (double)((T + chunk - 1) / chunk) : 0;
        *fwd = 7 * d2 * (double)T;
        return *fwd + 20 * d2 * (double)T - 3 * d2 * chunks;
    }
    return delta_wy_flops(T, (size_t)c->dh, chunk, fwd);
}

// fmap, normalize, identity, key_shift, chunk, lam, key_norm, data_decay
static const AttnCheckCase delta_checks[] = {
    {FMAP_ELU1, 1, 0, 0, 4, 0.9f, KEYNORM_SUM, 0},
    {FMAP_ELU1, 1, 0, 1, 3, 0.9f, KEYNORM_SUM, 0},
    {FMAP_IDENTITY, 1, 0, 0, 4, 0.9f, KEYNORM_L2, 0},
    {FMAP_ELU1, 1, 1, 1, 3, 0.5f, KEYNORM_L2, 0},
    {FMAP_ELU1, 1, 0, 1, 3, 0.9f, KEYNORM_SUM, 1},
    {FMAP_IDENTITY, 1, 1, 0, 4, 0.5f, KEYNORM_L2, 1},
};

const AttnKind attn_delta = {
    .name = "delta",
    .training_form = "exact token recurrence, chunk by chunk (head size < 64); WY/UT chunkwise form (>= 64)",
    .generation_form = "recurrent state",
    .uses_decay = 1,
    .n_aux = 1,
    .aux_what = "the β logit a_t = w_βᵀx_t (β_t = sigmoid(a_t): how much of the correction is written)",
    .uses_key_norm = 1,
    // L2 keys with identity φ trained better than sum-normalised elu+1 keys on
    // Shakespeare and on recall (docs/delta.md, docs/recall.md)
    .default_key_norm = KEYNORM_L2,
    .data_decay = 1,
    .phi_normalizer = 1,
    .work_floats = delta_work_floats,
    .forward = delta_forward,
    .backward = delta_backward,
    .forward_io = delta_forward_io,
    .backward_io = delta_backward_io,
    .add_dtheta = delta_add_dtheta,
    .last_state_norm = fw_last_state_norm,
    .state_floats = delta_state_floats,
    .state_reset = delta_state_reset,
    .step = delta_step,
    .memory_bytes = delta_memory_bytes,
    .value_weights = delta_value_weights,
    .weights_formula = "through the corrections u_j = β_j(v_j − λS_{j−1}ᵀk̂_j) it writes, W = A·M with A[i, j] = λ^(i−j) q̂_i·k̂_j and u = M v; a weight can be negative (a later write takes back what an earlier one stored)",
    .state_layout = delta_state_layout,
    .flops = delta_flops,
    .check_cases = delta_checks,
    .n_check_cases = sizeof delta_checks / sizeof delta_checks[0],
};
