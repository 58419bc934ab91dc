// test_delta.c — the attention kind `delta` (the delta-rule fast-weight memory).
//
// Reference, in double precision, written plainly from the formulas, per head:
//   k̂ = φ(k)/(Σφ(k) + eps), q̂ likewise (or raw φ without normalize),
//   β = sigmoid(a), λ = sigmoid(θ) (1 without θ),
//   v̄_t = (λ S_{t-1})ᵀ k̂_t,  S_t = λ S_{t-1} + β_t k̂_t (v_t − v̄_t)ᵀ,  y_t = S_tᵀ q̂_t
// and its hand-written backward (token by token in reverse over all stored
// states), itself checked against central finite differences of the reference
// forward in every coordinate of q, k, v, a, θ on small shapes.
//
// The kind's training form (chunked recompute) and its step() are compared
// against the reference for chunk sizes {1, 7, 16, 64, T, > T}, lengths
// {1, 63, 130}, β near 0 and near 1, with and without decay, λ near 0 and 1,
// every feature map, normalize on/off, zero/identity state, a large eps and
// head sizes that exercise the vector lanes (8: tail only, 16, 20, 32); a few
// coordinates per case are also checked directly by finite differences.
//
// Tolerances, relative to the largest |reference| of the compared tensor:
//   y, step() y, ||S_T|| (float32 vs double)           1e-4
//   dq, dk, dv, da (float32 vs double)                  1e-4
//   dθ (float32 terms, double accumulation)             1e-4, per head, relative to
//                                                       Σ_b |that sequence's term| (the
//                                                       b terms can cancel: a float sum is
//                                                       only accurate relative to them)
//   reference backward vs double FD                     1e-6
//   kind's float backward vs double FD (spot)           1e-4
//   backward twice vs 2 x once                          1e-6 (observed: exact)
// Exact (bit-identical): 1 thread vs 2 threads; step() vs the token-recurrence
// training form (delta_token_inplace and the fused step_columns: the same float
// operations per value; test_delta_bits.c pins them to plain code). The kind
// trains with the WY form (delta_wy.h), tested against the recurrence in
// test_delta_wy.c and against the reference here.
// (Observed: 6e-8 to 3e-6 for the float comparisons, < 1e-8 for the reference
// against FD; DELTA_TEST_VERBOSE=1 prints every case.) The kernels have an
// AVX-512 and a plain C path doing the same float operations in the same order:
// build this test with -mno-avx512f to run the plain one.
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attn_check.h"
#include "attention/delta_chunk.h"
#include "test.h"
#include "util/pool.h"
#include "util/rng.h"

extern const AttnKind attn_delta;

#define MAX_DH 64  // the reference keeps a few rows of length dh on the stack

typedef struct {
    const char *what;
    int decay;            // 1: θ given (λ = sigmoid θ), 0: θ = NULL (λ = 1)
    size_t B, H, T, dh;
    int chunk;
    double lam[2];        // λ per head (decay only); θ = logit(λ)
    FeatureMap fmap;
    int normalize, state_identity;
    double eps;           // 0 means the default 1e-6
    double kscale;        // keys are scaled by this (0 means 1)
    double abias, ascale; // β logits a = abias + ascale·N(0, 1) (ascale 0 means 1.5)
    KeyNorm key_norm;     // with normalize: sum or l2
} Case;

// ---- double reference ----

static double phi_d(FeatureMap m, double x) {
    if (m == FMAP_ELU1) return x > 0 ? x + 1 : exp(x);
    if (m == FMAP_RELU) return x > 0 ? x : 0;
    return x;
}
static double dphi_d(FeatureMap m, double x) {
    if (m == FMAP_ELU1) return x > 0 ? 1 : exp(x);
    if (m == FMAP_RELU) return x > 0 ? 1 : 0;
    return 1;
}
static double sigmoid_d(double x) { return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)); }
static double eps_of(const Case *cs) { return cs->eps > 0 ? cs->eps : 1e-6; }

// out = φ(x)/(Σφ(x) + eps), φ(x)/sqrt(Σφ(x)² + eps) or φ(x); returns the divisor
static double feat_d(const Case *cs, double *out, const double *x) {
    double s = 0, s2 = 0;
    for (size_t i = 0; i < cs->dh; i++) {
        s += out[i] = phi_d(cs->fmap, x[i]);
        s2 += out[i] * out[i];
    }
    if (!cs->normalize) return 1;
    s = cs->key_norm == KEYNORM_L2 ? sqrt(s2 + eps_of(cs)) : s + eps_of(cs);
    for (size_t i = 0; i < cs->dh; i++) out[i] /= s;
    return s;
}

static double lam_of(const Case *cs, const double *theta, size_t h) {
    return cs->decay ? sigmoid_d(theta[h]) : 1.0;
}

// All states of one slab: Ss ((T+1), d, d), Ss[0] = S0, Ss[t+1] = S_t. y (T, d).
static void ref_slab(const Case *cs, double lam, double *Ss, double *y, const double *q,
                     const double *k, const double *v, const double *a) {
    size_t d = cs->dh;
    for (size_t i = 0; i < d * d; i++) Ss[i] = cs->state_identity && i % (d + 1) == 0;
    for (size_t t = 0; t < cs->T; t++) {
        const double *Sp = Ss + t * d * d;
        double *St = Ss + (t + 1) * d * d;
        double kh[MAX_DH], qh[MAX_DH], vbar[MAX_DH];
        feat_d(cs, kh, k + t * d);
        feat_d(cs, qh, q + t * d);
        double beta = sigmoid_d(a[t]);
        for (size_t j = 0; j < d; j++) {  // v̄ = (λ S)ᵀ k̂
            vbar[j] = 0;
            for (size_t i = 0; i < d; i++) vbar[j] += lam * Sp[i * d + j] * kh[i];
        }
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++)
                St[i * d + j] = lam * Sp[i * d + j] + beta * kh[i] * (v[t * d + j] - vbar[j]);
        for (size_t j = 0; j < d; j++) {
            y[t * d + j] = 0;
            for (size_t i = 0; i < d; i++) y[t * d + j] += St[i * d + j] * qh[i];
        }
    }
}

// y, q, k, v (B, H, T, dh); a (B, H, T); norms (B*H) = ||S_T||_F (may be NULL)
static void ref_forward(const Case *cs, double *y, double *norms, const double *q, const double *k,
                        const double *v, const double *a, const double *theta) {
    size_t d = cs->dh, n = cs->T * d, T = cs->T;
    double *Ss = malloc((T + 1) * d * d * sizeof(double));
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        ref_slab(cs, lam_of(cs, theta, bh % cs->H), Ss, y + bh * n, q + bh * n, k + bh * n,
                 v + bh * n, a + bh * T);
        if (norms) {
            double ss = 0;
            for (size_t i = 0; i < d * d; i++) ss += Ss[T * d * d + i] * Ss[T * d * d + i];
            norms[bh] = sqrt(ss);
        }
    }
    free(Ss);
}

// out = φ(x)/s: dx += dφ φ'(x) with dφ_m = (dout_m − dout·out)/s (sum),
// (dout_m − (dout·out) out_m)/s (l2), or dout
static void feat_backward_d(const Case *cs, double *dx, const double *dout, const double *out,
                            double s, const double *x) {
    double proj = 0;
    for (size_t i = 0; i < cs->dh; i++) proj += dout[i] * out[i];
    for (size_t i = 0; i < cs->dh; i++) {
        double sub = cs->key_norm == KEYNORM_L2 ? proj * out[i] : proj;
        double dphi = cs->normalize ? (dout[i] - sub) / s : dout[i];
        dx[i] += dphi * dphi_d(cs->fmap, x[i]);
    }
}

// L = Σ dy·y; ADDS dL/dq, dk, dv (B, H, T, dh), dL/da (B, H, T) and dL/dθ (H, decay only).
// dθ_h is a sum over b of per-sequence terms that can cancel: if dtheta_mag,
// it gets Σ_b |term| (H), the scale a float sum of those terms is accurate to.
static void ref_backward(const Case *cs, double *dq, double *dk, double *dv, double *da,
                         double *dtheta, double *dtheta_mag, const double *dy, const double *q,
                         const double *k, const double *v, const double *a, const double *theta) {
    size_t d = cs->dh, n = cs->T * d, T = cs->T;
    double *Ss = malloc((T + 1) * d * d * sizeof(double)), *y = malloc(n * sizeof(double));
    double *G = malloc(d * d * sizeof(double)), *Gd = malloc(d * d * sizeof(double));
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        size_t h = bh % cs->H;
        const double *Q = q + bh * n, *K = k + bh * n, *V = v + bh * n, *A = a + bh * T;
        const double *DY = dy + bh * n;
        double lam = lam_of(cs, theta, h), dlam = 0;
        ref_slab(cs, lam, Ss, y, Q, K, V, A);
        memset(G, 0, d * d * sizeof(double));  // dL/dS_t, S_{T-1} feeds nothing
        for (size_t t = T; t-- > 0;) {
            const double *Sp = Ss + t * d * d, *St = Ss + (t + 1) * d * d;
            double kh[MAX_DH], qh[MAX_DH], vbar[MAX_DH], r[MAX_DH];
            double dkh[MAX_DH] = {0}, dqh[MAX_DH] = {0}, dr[MAX_DH] = {0}, dvbar[MAX_DH];
            double sk = feat_d(cs, kh, K + t * d), sq = feat_d(cs, qh, Q + t * d);
            double beta = sigmoid_d(A[t]), dbeta = 0;
            for (size_t j = 0; j < d; j++) {
                vbar[j] = 0;
                for (size_t i = 0; i < d; i++) vbar[j] += lam * Sp[i * d + j] * kh[i];
                r[j] = V[t * d + j] - vbar[j];
            }
            // y = S_tᵀ q̂
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < d; j++) {
                    dqh[i] += St[i * d + j] * DY[t * d + j];
                    G[i * d + j] += qh[i] * DY[t * d + j];
                }
            // S_t = Sd + β k̂ rᵀ, Sd = λ S_{t-1}
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < d; j++) {
                    dbeta += kh[i] * G[i * d + j] * r[j];
                    dkh[i] += beta * G[i * d + j] * r[j];
                    dr[j] += beta * G[i * d + j] * kh[i];
                }
            // r = v − v̄, v̄ = Sdᵀ k̂
            for (size_t j = 0; j < d; j++) {
                dv[bh * n + t * d + j] += dr[j];
                dvbar[j] = -dr[j];
            }
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < d; j++) {
                    Gd[i * d + j] = G[i * d + j] + kh[i] * dvbar[j];  // dL/dSd
                    dkh[i] += lam * Sp[i * d + j] * dvbar[j];
                }
            // Sd = λ S_{t-1}
            for (size_t i = 0; i < d * d; i++) {
                dlam += Sp[i] * Gd[i];
                G[i] = lam * Gd[i];
            }
            da[bh * T + t] += dbeta * beta * sigmoid_d(-A[t]);
            feat_backward_d(cs, dq + bh * n + t * d, dqh, qh, sq, Q + t * d);
            feat_backward_d(cs, dk + bh * n + t * d, dkh, kh, sk, K + t * d);
        }
        // dλ/dθ = λ(1−λ), with 1−λ = sigmoid(−θ): exact even when λ rounds to 1
        if (cs->decay) dtheta[h] += dlam * lam * sigmoid_d(-theta[h]);
        if (cs->decay && dtheta_mag) dtheta_mag[h] += fabs(dlam * lam * sigmoid_d(-theta[h]));
    }
    free(Ss), free(y), free(G), free(Gd);
}

// ---- helpers ----


static AttnConfig config_of(const Case *cs) {
    AttnConfig c = {.heads = (int)cs->H, .dh = (int)cs->dh, .feature_map = cs->fmap,
                    .eps = (float)eps_of(cs), .normalize = cs->normalize, .chunk = cs->chunk,
                    .state_identity = cs->state_identity, .key_norm = cs->key_norm};
    return c;
}

// The inputs of one case, float (what the kind sees) and double (the same values)
typedef struct {
    size_t n, na;  // B*H*T*dh, B*H*T
    float *q, *k, *v, *a, *dy, theta[2];
    double *qd, *kd, *vd, *ad, *dyd, thetad[2];
} Inputs;

static Inputs make_inputs(const Case *cs, unsigned long long seed) {
    Inputs in;
    Rng r;
    rng_seed(&r, seed);
    if (cs->dh > MAX_DH || cs->H > 2) abort();  // the reference's fixed sizes
    in.n = cs->B * cs->H * cs->T * cs->dh;
    in.na = cs->B * cs->H * cs->T;
    in.q = randn(&r, in.n, 1, 0);
    in.k = randn(&r, in.n, cs->kscale > 0 ? cs->kscale : 1, 0);
    in.v = randn(&r, in.n, 1, 0);
    in.a = randn(&r, in.na, cs->ascale > 0 ? cs->ascale : 1.5, cs->abias);
    in.dy = randn(&r, in.n, 1, 0);
    for (size_t h = 0; h < 2; h++) {
        double l = cs->lam[h] > 0 ? cs->lam[h] : 0.5;
        in.theta[h] = (float)log(l / (1 - l));
        in.thetad[h] = in.theta[h];  // the float θ exactly, so λ matches
    }
    in.qd = to_double(in.q, in.n);
    in.kd = to_double(in.k, in.n);
    in.vd = to_double(in.v, in.n);
    in.ad = to_double(in.a, in.na);
    in.dyd = to_double(in.dy, in.n);
    return in;
}

static void free_inputs(Inputs *in) {
    free(in->q), free(in->k), free(in->v), free(in->a), free(in->dy);
    free(in->qd), free(in->kd), free(in->vd), free(in->ad), free(in->dyd);
}

// Outputs of the kind under test
typedef struct {
    float *y, *dq, *dk, *dv, *da, dtheta[2], *work;
    double norm;
} Outputs;

static float *nan_filled(size_t n) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = NAN;  // nothing may read what it did not write
    return x;
}

static Outputs run_kind(const Case *cs, const Inputs *in, int backward_calls) {
    const AttnKind *K = &attn_delta;
    AttnConfig c = config_of(cs);
    Outputs o;
    o.y = nan_filled(in->n);
    o.dq = calloc(in->n, sizeof(float));
    o.dk = calloc(in->n, sizeof(float));
    o.dv = calloc(in->n, sizeof(float));
    o.da = calloc(in->na, sizeof(float));
    o.dtheta[0] = o.dtheta[1] = 0;
    o.work = nan_filled(K->work_floats(&c, cs->B, cs->T));
    const float *theta = cs->decay ? in->theta : NULL;
    K->forward(&c, cs->B, cs->T, o.y, o.work, in->q, in->k, in->v, in->a, theta);
    o.norm = K->last_state_norm(&c, cs->B, cs->T, o.work);
    for (int r = 0; r < backward_calls; r++)
        K->backward(&c, cs->B, cs->T, o.dq, o.dk, o.dv, o.da, cs->decay ? o.dtheta : NULL, in->dy,
                    o.work, in->q, in->k, in->v, in->a, theta, o.y);
    return o;
}

static void free_outputs(Outputs *o) {
    free(o->y), free(o->dq), free(o->dk), free(o->dv), free(o->da), free(o->work);
}

// y (B, H, T, dh) from the kind's own step(), one token at a time per sequence
static float *run_steps(const Case *cs, const Inputs *in) {
    const AttnKind *K = &attn_delta;
    AttnConfig c = config_of(cs);
    size_t H = cs->H, d = cs->dh, T = cs->T;
    float *y = nan_filled(in->n), *state = nan_filled(K->state_floats(&c, 0));
    float *qt = malloc(H * d * sizeof(float)), *kt = malloc(H * d * sizeof(float));
    float *vt = malloc(H * d * sizeof(float)), *yt = malloc(H * d * sizeof(float)), at[2];
    for (size_t b = 0; b < cs->B; b++) {
        K->state_reset(&c, state, 0);
        for (size_t t = 0; t < T; t++) {
            for (size_t h = 0; h < H; h++) {
                size_t off = ((b * H + h) * T + t) * d;
                memcpy(qt + h * d, in->q + off, d * sizeof(float));
                memcpy(kt + h * d, in->k + off, d * sizeof(float));
                memcpy(vt + h * d, in->v + off, d * sizeof(float));
                at[h] = in->a[(b * H + h) * T + t];
            }
            K->step(&c, state, 0, t, yt, qt, kt, vt, at, cs->decay ? in->theta : NULL);
            for (size_t h = 0; h < H; h++)
                memcpy(y + ((b * H + h) * T + t) * d, yt + h * d, d * sizeof(float));
        }
    }
    free(state), free(qt), free(kt), free(vt), free(yt);
    return y;
}

// y (B, H, T, dh) from the token recurrence (delta_chunk_forward), the form
// step() shares its per-token code with (the kind trains with the WY form)
static float *run_recurrence(const Case *cs, const Inputs *in) {
    size_t d = cs->dh, T = cs->T, n = T * d;
    float *y = nan_filled(in->n);
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        DeltaSlab p = {.T = T, .dh = d, .chunk = (size_t)cs->chunk < T ? (size_t)cs->chunk : T,
                       .fmap = cs->fmap, .eps = (float)eps_of(cs), .normalize = cs->normalize,
                       .key_norm = cs->key_norm, .state_identity = cs->state_identity,
                       .lam = cs->decay ? (float)sigmoid_d((double)in->theta[bh % cs->H]) : 1.0f};
        float *saved = nan_filled(delta_saved_floats(&p)), *scr = nan_filled(delta_scratch_floats(&p));
        delta_chunk_forward(&p, y + bh * n, saved, scr, in->q + bh * n, in->k + bh * n, in->v + bh * n,
                            in->a + bh * T);
        free(saved), free(scr);
    }
    return y;
}

// L = Σ dy·y_ref at the given (possibly perturbed) inputs
static double ref_loss(const Case *cs, const Inputs *in, double *ybuf) {
    ref_forward(cs, ybuf, NULL, in->qd, in->kd, in->vd, in->ad, in->thetad);
    double L = 0;
    for (size_t i = 0; i < in->n; i++) L += in->dyd[i] * ybuf[i];
    return L;
}

// central difference of L in coordinate x[idx] (x is one of in's double arrays)
static double fd(const Case *cs, const Inputs *in, double *x, size_t idx, double *ybuf) {
    double x0 = x[idx], h = 1e-5 * (fabs(x0) > 1 ? fabs(x0) : 1);
    x[idx] = x0 + h;
    double lp = ref_loss(cs, in, ybuf);
    x[idx] = x0 - h;
    double lm = ref_loss(cs, in, ybuf);
    x[idx] = x0;
    return (lp - lm) / (2 * h);
}

static int verbose(void) { return getenv("DELTA_TEST_VERBOSE") != NULL; }

// ---- the equivalence check of one case ----

static void check_case(const Case *cs, unsigned long long seed) {
    Inputs in = make_inputs(cs, seed);
    size_t n = in.n, na = in.na, BH = cs->B * cs->H;

    double *yr = malloc(n * sizeof(double)), *norms = malloc(BH * sizeof(double));
    ref_forward(cs, yr, norms, in.qd, in.kd, in.vd, in.ad, in.thetad);
    double *gq = calloc(n, sizeof(double)), *gk = calloc(n, sizeof(double));
    double *gv = calloc(n, sizeof(double)), *ga = calloc(na, sizeof(double)), gth[2] = {0, 0};
    double gmag[2] = {0, 0};
    ref_backward(cs, gq, gk, gv, ga, gth, gmag, in.dyd, in.qd, in.kd, in.vd, in.ad, in.thetad);

    Outputs o = run_kind(cs, &in, 1);
    float *ys = run_steps(cs, &in);
    double mean_norm = 0;
    for (size_t i = 0; i < BH; i++) mean_norm += norms[i] / (double)BH;

    double e_fwd = rel_err(o.y, yr, n), e_step = rel_err(ys, yr, n);
    float *yrec = run_recurrence(cs, &in);
    int step_exact = memcmp(ys, yrec, n * sizeof(float)) == 0;
    free(yrec);
    double e_dq = rel_err(o.dq, gq, n), e_dk = rel_err(o.dk, gk, n), e_dv = rel_err(o.dv, gv, n);
    double e_da = rel_err(o.da, ga, na);
    double e_norm = fabs(o.norm - mean_norm) / (mean_norm > 1e-30 ? mean_norm : 1e-30);
    double e_th = 0;  // per head, relative to Σ_b |term| (>= |dθ_h|: the terms may cancel)
    for (size_t h = 0; cs->decay && h < cs->H; h++)
        e_th = fmax(e_th, fabs(o.dtheta[h] - gth[h]) / fmax(gmag[h], 1e-30));
    int bad = !(e_fwd <= 1e-4 && e_step <= 1e-4 && step_exact && e_norm <= 1e-4 && e_dq <= 1e-4 &&
                e_dk <= 1e-4 && e_dv <= 1e-4 && e_da <= 1e-4 && e_th <= 1e-4);
    if (verbose() || bad)
        fprintf(stderr,
                "  %-34s fwd %.1e step %.1e%s norm %.1e | dq %.1e dk %.1e dv %.1e da %.1e dth %.1e\n",
                cs->what, e_fwd, e_step, step_exact ? "=" : "!", e_norm, e_dq, e_dk, e_dv, e_da, e_th);
    CHECK(e_fwd <= 1e-4);
    CHECK(e_step <= 1e-4);
    CHECK(step_exact);  // step() and the token recurrence do the same float operations
    CHECK(e_norm <= 1e-4);
    CHECK(e_dq <= 1e-4);
    CHECK(e_dk <= 1e-4);
    CHECK(e_dv <= 1e-4);
    CHECK(e_da <= 1e-4);
    CHECK(e_th <= 1e-4);
    if (!cs->decay) CHECK(o.dtheta[0] == 0 && o.dtheta[1] == 0);

    // spot-check the kind's gradients directly against FD of the reference
    // forward: 3 coordinates each of q, k, v, a and every θ
    Rng r;
    rng_seed(&r, seed ^ 0xfdull);
    double *ybuf = malloc(n * sizeof(double));
    double *xs[4] = {in.qd, in.kd, in.vd, in.ad}, *refs[4] = {gq, gk, gv, ga};
    float *got[4] = {o.dq, o.dk, o.dv, o.da};
    size_t len[4] = {n, n, n, na};
    for (int t = 0; t < 4; t++) {
        double scale = 1e-30;
        for (size_t i = 0; i < len[t]; i++) scale = fmax(scale, fabs(refs[t][i]));
        for (int s = 0; s < 3; s++) {
            size_t idx = (size_t)rng_below(&r, len[t]);
            double g = fd(cs, &in, xs[t], idx, ybuf);
            double e = fabs(got[t][idx] - g) / scale;
            if (e > 1e-4) fprintf(stderr, "  case \"%s\" tensor %d [%zu]: fd %.9g got %.9g\n",
                                  cs->what, t, idx, g, got[t][idx]);
            CHECK(e <= 1e-4);
        }
    }
    if (cs->decay) {
        for (size_t h = 0; h < cs->H; h++) {
            double g = fd(cs, &in, in.thetad, h, ybuf);
            double e = fabs(o.dtheta[h] - g) / fmax(gmag[h], 1e-30);
            if (e > 1e-4) fprintf(stderr, "  case \"%s\" dtheta[%zu]: fd %.9g got %.9g\n",
                                  cs->what, h, g, o.dtheta[h]);
            CHECK(e <= 1e-4);
        }
    }

    free(ybuf), free(yr), free(norms), free(gq), free(gk), free(gv), free(ga), free(ys);
    free_outputs(&o);
    free_inputs(&in);
}

// ---- cases: one factor at a time around a base ----

static const Case BASE = {"base", 1, 2, 2, 130, 8, 16, {0.9, 0.6}, FMAP_ELU1, 1, 0, 0, 0, 0, 0, KEYNORM_SUM};

static void test_chunk_sizes(void) {
    int chunks[] = {1, 7, 16, 64, 130, 200};  // 130 = T, 200 > T: one chunk
    for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
        Case c = BASE;
        c.what = "chunk";
        c.chunk = chunks[i];
        check_case(&c, 100 + i);
        c.what = "chunk, no decay";
        c.decay = 0;
        check_case(&c, 110 + i);
    }
}

static void test_lengths(void) {
    size_t lens[] = {1, 63, 130};  // 63 and 130 are not multiples of 16 or 7
    int chunks[] = {7, 16, 64};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            Case c = BASE;
            c.what = "length";
            c.T = lens[i], c.chunk = chunks[j];
            check_case(&c, 200 + 10 * i + j);
        }
    Case c = BASE;
    c.what = "T=1 chunk=1 identity state";
    c.T = 1, c.chunk = 1, c.state_identity = 1;
    check_case(&c, 230);
}

static void test_beta_extremes(void) {
    // β near 0 (a ≈ −8: the memory barely moves) and near 1 (a ≈ +8: each
    // write replaces what k̂ read), with and without decay
    double bias[] = {-8, 8};
    for (size_t i = 0; i < 2; i++)
        for (int decay = 0; decay < 2; decay++) {
            Case c = BASE;
            c.what = i ? "beta near 1" : "beta near 0";
            c.abias = bias[i], c.ascale = 0.5, c.decay = decay, c.chunk = 7;
            check_case(&c, 300 + 2 * i + (unsigned)decay);
        }
}

static void test_lambda(void) {
    double lams[][2] = {{0.05, 0.3}, {0.999, 0.99}, {0.05, 0.999}};
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "lambda";
        c.lam[0] = lams[i][0], c.lam[1] = lams[i][1];
        check_case(&c, 400 + i);
    }
    Case c = BASE;
    c.what = "lambda .999 identity chunk 7";
    c.lam[0] = c.lam[1] = 0.999, c.state_identity = 1, c.chunk = 7;
    check_case(&c, 410);
}

static void test_feature_maps_and_normalize(void) {
    Case c = BASE;
    c.what = "relu";
    c.fmap = FMAP_RELU;
    check_case(&c, 500);
    c.what = "relu, identity state, chunk 1";
    c.state_identity = 1, c.chunk = 1;
    check_case(&c, 501);
    // without the sum-normalisation the update is contractive only while
    // β‖φ(k)‖² < 2: small keys keep it there (‖k‖² ≈ 0.5 for identity φ)
    c = BASE;
    c.what = "identity phi, no normalize";
    c.fmap = FMAP_IDENTITY, c.normalize = 0, c.kscale = 0.25;
    check_case(&c, 502);
    c.what = "relu, no normalize, no decay";
    c.fmap = FMAP_RELU, c.kscale = 0.35, c.decay = 0;
    check_case(&c, 503);
    c.what = "elu1, no normalize, beta near 0";  // ‖φ(k)‖² ≈ dh: needs β ≲ 2/dh
    c.fmap = FMAP_ELU1, c.kscale = 0.3, c.decay = 1, c.abias = -6, c.ascale = 0.5;
    check_case(&c, 504);
    // a large eps, so that a kernel or step() that drops or misplaces eps fails
    // (at 1e-6 it moves y by ~1e-7 relative, below the tolerance)
    c = BASE;
    c.what = "eps 0.5, relu";
    c.fmap = FMAP_RELU, c.eps = 0.5;
    check_case(&c, 505);
    c.what = "eps 0.5, elu1, identity state";
    c.fmap = FMAP_ELU1, c.state_identity = 1;
    check_case(&c, 506);
}

// L2-normalised keys and queries (DeltaNet's): every φ, the chunk sizes,
// lengths and λ range of the sum-normalised cases
static void test_key_norm_l2(void) {
    FeatureMap fms[] = {FMAP_ELU1, FMAP_IDENTITY, FMAP_RELU};
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "l2 keys";
        c.key_norm = KEYNORM_L2, c.fmap = fms[i], c.chunk = 7;
        check_case(&c, 1300 + i);
    }
    int chunks[] = {1, 7, 16, 64, 130, 200};
    for (size_t i = 0; i < 6; i++) {
        Case c = BASE;
        c.what = "l2 keys, chunk";
        c.key_norm = KEYNORM_L2, c.fmap = FMAP_IDENTITY, c.chunk = chunks[i];
        check_case(&c, 1310 + i);
    }
    size_t lens[] = {1, 63, 130};
    double lams[][2] = {{0.05, 0.3}, {0.999, 0.99}, {0.05, 0.999}};
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "l2 keys, length and lambda";
        c.key_norm = KEYNORM_L2, c.T = lens[i], c.lam[0] = lams[i][0], c.lam[1] = lams[i][1];
        check_case(&c, 1320 + i);
    }
    Case c = BASE;
    c.what = "l2 keys, beta near 1, eps 0.5, identity state";
    c.key_norm = KEYNORM_L2, c.abias = 8, c.ascale = 0.5, c.eps = 0.5, c.state_identity = 1;
    check_case(&c, 1330);
}

static void test_head_sizes(void) {
    size_t dhs[] = {16, 20, 32};  // one full vector block, block + tail, two blocks
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "head size";
        c.dh = dhs[i], c.T = 63, c.chunk = 7;
        check_case(&c, 600 + i);
    }
    Case c = BASE;
    c.what = "dh 32, no decay, identity, chunk 64";
    c.dh = 32, c.decay = 0, c.state_identity = 1, c.chunk = 64;
    check_case(&c, 610);
    // dh 64: the kind trains with the WY form from there on (delta.c)
    c = BASE;
    c.what = "dh 64 (WY form), chunk 16";
    c.dh = 64, c.T = 40, c.chunk = 16, c.B = 1;
    check_case(&c, 620);
    c.what = "dh 64 (WY form), l2, lambda .05/.999, chunk 7";
    c.key_norm = KEYNORM_L2, c.fmap = FMAP_IDENTITY, c.lam[0] = 0.05, c.lam[1] = 0.999, c.chunk = 7;
    check_case(&c, 621);
}

// The hand-written reference backward against central differences of the
// reference forward, every coordinate, on small shapes, for every combination
// of decay, feature map, normalize and state init (identity φ and elu1 only
// where stable: see test_feature_maps_and_normalize).
static void test_reference_backward_matches_fd(void) {
    for (int decay = 0; decay < 2; decay++)
        for (int fm = 0; fm < 3; fm++)
            for (int norm = 0; norm < 3; norm++)  // none, sum, l2
                for (int ident = 0; ident < 2; ident++) {
                    if (fm == FMAP_IDENTITY && norm == 1) continue;
                    Case c = {"reference fd", decay, 1, 2, 7, 3, 2, {0.7, 0.3}, (FeatureMap)fm,
                              norm > 0, ident, 0, norm ? 0 : 0.4, 0, 0,
                              norm == 2 ? KEYNORM_L2 : KEYNORM_SUM};
                    Inputs in = make_inputs(&c, 900 + (unsigned)(decay * 100 + fm * 10 + norm * 2 + ident));
                    size_t n = in.n, na = in.na;
                    double *g[4] = {calloc(n, 8), calloc(n, 8), calloc(n, 8), calloc(na, 8)};
                    double gth[2] = {0, 0};
                    ref_backward(&c, g[0], g[1], g[2], g[3], gth, NULL, in.dyd, in.qd, in.kd, in.vd,
                                 in.ad, in.thetad);
                    double *ybuf = malloc(n * sizeof(double)), *f = malloc(n * sizeof(double));
                    double *xs[4] = {in.qd, in.kd, in.vd, in.ad};
                    size_t len[4] = {n, n, n, na};
                    for (int t = 0; t < 4; t++) {
                        for (size_t i = 0; i < len[t]; i++) f[i] = fd(&c, &in, xs[t], i, ybuf);
                        double e = rel_err_dd(g[t], f, len[t]);
                        if (e > 1e-6 || verbose())
                            fprintf(stderr, "  ref fd: decay %d fmap %d norm %d ident %d tensor %d: %.3g\n",
                                    decay, fm, norm, ident, t, e);
                        CHECK(e <= 1e-6);
                    }
                    if (decay) {
                        double fth[2];
                        for (size_t h = 0; h < 2; h++) fth[h] = fd(&c, &in, in.thetad, h, ybuf);
                        CHECK(rel_err_dd(gth, fth, 2) <= 1e-6);
                    }
                    free(g[0]), free(g[1]), free(g[2]), free(g[3]), free(ybuf), free(f);
                    free_inputs(&in);
                }
}

// λ and β at the ends of float range (θ, a = ∓40, ∓15): nothing overflows,
// nothing divides by λ or β, the results still match the reference.
static void test_extreme_logits(void) {
    double thetas[][2] = {{-40, 40}, {-15, 15}};
    for (size_t i = 0; i < 2; i++) {
        Case c = BASE;
        c.what = "extreme theta and beta logits";
        c.state_identity = 1, c.chunk = 7, c.T = 63;
        Inputs in = make_inputs(&c, 1000 + i);
        for (size_t h = 0; h < 2; h++) in.theta[h] = (float)thetas[i][h], in.thetad[h] = thetas[i][h];
        for (size_t j = 0; j < in.na; j++) {  // alternate saturated and ordinary β
            in.a[j] = j % 3 == 0 ? (float)thetas[i][j % 2] : in.a[j];
            in.ad[j] = in.a[j];
        }
        size_t n = in.n;
        Outputs o = run_kind(&c, &in, 1);
        double *yr = malloc(n * sizeof(double));
        double *g[4] = {calloc(n, 8), calloc(n, 8), calloc(n, 8), calloc(in.na, 8)}, gth[2] = {0, 0};
        double gmag[2] = {0, 0};
        ref_forward(&c, yr, NULL, in.qd, in.kd, in.vd, in.ad, in.thetad);
        ref_backward(&c, g[0], g[1], g[2], g[3], gth, gmag, in.dyd, in.qd, in.kd, in.vd, in.ad, in.thetad);
        CHECK(rel_err(o.y, yr, n) <= 1e-4);
        CHECK(rel_err(o.dq, g[0], n) <= 1e-4);
        CHECK(rel_err(o.dk, g[1], n) <= 1e-4);
        CHECK(rel_err(o.dv, g[2], n) <= 1e-4);
        CHECK(rel_err(o.da, g[3], in.na) <= 1e-4);
        for (size_t h = 0; h < 2; h++) {
            // each head alone: the two differ by ~30 orders of magnitude; relative
            // to Σ_b |term| (here the two sequences' terms cancel to 1/2000 of it)
            double e = fabs(o.dtheta[h] - gth[h]) / fmax(gmag[h], 1e-300);
            if (!(e <= 1e-4)) fprintf(stderr, "  theta %g: dtheta %.9g want %.9g\n", thetas[i][h],
                                      o.dtheta[h], gth[h]);
            CHECK(e <= 1e-4);
        }
        free(yr), free(g[0]), free(g[1]), free(g[2]), free(g[3]);
        free_outputs(&o);
        free_inputs(&in);
    }
}

// backward ADDS: two calls give twice one call (every gradient, θ included)
static void test_backward_adds(void) {
    Case c = BASE;
    c.chunk = 7;
    Inputs in = make_inputs(&c, 1100);
    Outputs once = run_kind(&c, &in, 1), twice = run_kind(&c, &in, 2);
    float *p1[4] = {once.dq, once.dk, once.dv, once.da}, *p2[4] = {twice.dq, twice.dk, twice.dv, twice.da};
    size_t len[4] = {in.n, in.n, in.n, in.na};
    for (int t = 0; t < 4; t++) {
        float *dbl = malloc(len[t] * sizeof(float));
        for (size_t i = 0; i < len[t]; i++) dbl[i] = 2.0f * p1[t][i];
        CHECK(max_rel_err(p2[t], dbl, len[t], 1e-30) <= 1e-6);
        free(dbl);
    }
    for (size_t h = 0; h < 2; h++) CHECK_NEAR(twice.dtheta[h], 2.0f * once.dtheta[h], 1e-6 * fabs(2.0f * once.dtheta[h]));
    CHECK(once.dtheta[0] != 0 && once.dtheta[1] != 0);  // the check above means something
    free_outputs(&once), free_outputs(&twice);
    free_inputs(&in);
}

// bit-identical results for 1 and 2 threads (B*H = 6 slabs split unevenly)
static void test_thread_count_independent(void) {
    Case c = BASE;
    c.B = 3, c.chunk = 7, c.T = 63;
    Inputs in = make_inputs(&c, 1200);
    pool_init(1);
    Outputs a = run_kind(&c, &in, 1);
    pool_init(2);
    Outputs b = run_kind(&c, &in, 1);
    CHECK(memcmp(a.y, b.y, in.n * sizeof(float)) == 0);
    CHECK(memcmp(a.dq, b.dq, in.n * sizeof(float)) == 0);
    CHECK(memcmp(a.dk, b.dk, in.n * sizeof(float)) == 0);
    CHECK(memcmp(a.dv, b.dv, in.n * sizeof(float)) == 0);
    CHECK(memcmp(a.da, b.da, in.na * sizeof(float)) == 0);
    CHECK(memcmp(a.dtheta, b.dtheta, sizeof a.dtheta) == 0);
    CHECK(a.norm == b.norm);
    pool_init(1);
    free_outputs(&a), free_outputs(&b);
    free_inputs(&in);
}

// The training form keeps O((T/chunk + chunk) dh²) per slab, never O(T dh²);
// the generation state is H dh² (+ 2 dh of step scratch), whatever the length.
static void test_memory_bounds(void) {
    size_t d = 32, T = 16384;
    AttnConfig c = {.heads = 1, .dh = (int)d, .feature_map = FMAP_ELU1, .eps = 1e-6f,
                    .normalize = 1, .chunk = 128, .state_identity = 0};
    size_t w = attn_delta.work_floats(&c, 1, T);
    size_t bound = (T / 128 + 128 + 2) * d * d + 8 * 128 * d;  // states + per-position vectors
    if (verbose()) fprintf(stderr, "  work %zu floats for T %zu (T dh^2 = %zu)\n", w, T, T * d * d);
    CHECK(w <= bound);
    CHECK(w < T * d * d / 16);
    c.heads = 4;
    CHECK(attn_delta.state_floats(&c, 0) == 4 * d * d + 2 * d);
    CHECK(attn_delta.memory_bytes(&c, 256) == attn_delta.memory_bytes(&c, 16384));
    CHECK(attn_delta.memory_bytes(&c, 1) == attn_delta.state_floats(&c, 0) * sizeof(float));
    // state_reset: zero, or the identity per head
    float *s = nan_filled(attn_delta.state_floats(&c, 0));
    attn_delta.state_reset(&c, s, 0);
    int zero = 1;
    for (size_t i = 0; i < attn_delta.state_floats(&c, 0); i++) zero &= s[i] == 0.0f;
    CHECK(zero);
    c.state_identity = 1;
    attn_delta.state_reset(&c, s, 0);
    int ident = 1;
    for (size_t h = 0; h < 4; h++)
        for (size_t i = 0; i < d * d; i++) ident &= s[h * d * d + i] == (i % (d + 1) == 0 ? 1.0f : 0.0f);
    CHECK(ident);
    free(s);
    CHECK(attn_delta.n_aux == 1 && attn_delta.uses_decay == 1);
    CHECK(attn_kind_find("delta") == &attn_delta);
}

int main(void) {
    TEST(test_reference_backward_matches_fd);
    TEST(test_chunk_sizes);
    TEST(test_lengths);
    TEST(test_beta_extremes);
    TEST(test_lambda);
    TEST(test_feature_maps_and_normalize);
    TEST(test_key_norm_l2);
    TEST(test_head_sizes);
    TEST(test_extreme_logits);
    TEST(test_backward_adds);
    TEST(test_thread_count_independent);
    TEST(test_memory_bounds);
    return test_summary();
}
