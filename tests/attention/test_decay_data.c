// test_decay_data.c — decay = data: λ_t = sigmoid(g_t + θ_h) per head and token,
// for `linear_decay` (chunkwise, cumulative log-decays) and `delta` (Gated
// DeltaNet, token recurrence).
//
// References, in double precision, written plainly from the formulas, per head:
//   λ_t = sigmoid(g_t + θ)                        g_t: the last aux channel
//   linear_decay, recurrent:  S_t = λ_t S_{t-1} + φ(k_t) v_tᵀ, z_t likewise,
//                             y_t = φ(q_t)ᵀS_t / (φ(q_t)ᵀz_t + eps)
//   linear_decay, naive O(T²): y_t = [P_t φq_tᵀS0 + Σ_{j<=t} P_t/P_j (φq_t·φk_j) v_j] / [...],
//                             P_t = Π_{u<=t} λ_u (products in double)
//   delta:  k̂, q̂ normalised (sum or l2), β_t = sigmoid(a_t) (aux channel 0),
//           S_t = λ_t S_{t-1} + β_t k̂_t (v_t − λ_t S_{t-1}ᵀk̂_t)ᵀ,  y_t = S_tᵀq̂_t
// Gradients of L = Σ dy·y: central finite differences of the double reference,
// every coordinate of q, k, v, aux (β and gate) and θ on small shapes, and a
// sample of coordinates on the larger ones (chunk 1, 7, 16, 64, >= T; length
// 1, 63, 130; λ from 0.05 to 0.999; both key norms for delta).
// Also: with every gate logit 0 the kind equals its fixed-λ form (λ = sigmoid θ),
// outputs and dθ alike; step() matches the reference; thread-count independence.
//
// Tolerances (relative to the largest |reference| of the compared tensor):
//   forward, step(), gradients (float32 vs double)      1e-4
//   recurrent vs naive (double)                         1e-12
//   data decay with g = 0 vs fixed λ (float vs float)   1e-5
// (Observed: DECAY_TEST_VERBOSE=1 prints every case.)
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attn_check.h"
#include "attention/decay.h"
#include "test.h"
#include "util/pool.h"
#include "util/rng.h"

extern const AttnKind attn_linear_decay, attn_delta;

#define MAX_DH 64

typedef struct {
    const char *what;
    const AttnKind *kind;
    size_t B, H, T, dh;
    int chunk;
    double lam[2];       // θ_h = logit(lam[h])
    double gscale;       // gate logits g = gscale · N(0, 1)
    FeatureMap fmap;
    int normalize;
    KeyNorm key_norm;
    int state_identity;
} Case;

static int verbose(void) { return getenv("DECAY_TEST_VERBOSE") != NULL; }
static int is_delta(const Case *cs) { return cs->kind == &attn_delta; }
static size_t n_aux(const Case *cs) { return is_delta(cs) ? 2 : 1; }

static double phi_d(FeatureMap m, double x) {
    if (m == FMAP_ELU1) return x > 0 ? x + 1 : exp(x);
    if (m == FMAP_RELU) return x > 0 ? x : 0;
    return x;
}
static double sig_d(double x) { return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)); }

// φ(x), normalised as the delta kind does (sum or l2), or raw
static void feat(const Case *cs, double *out, const double *x, int delta_norm) {
    double s = 0, s2 = 0;
    for (size_t i = 0; i < cs->dh; i++) {
        out[i] = phi_d(cs->fmap, x[i]);
        s += out[i], s2 += out[i] * out[i];
    }
    if (!delta_norm || !cs->normalize) return;
    double div = cs->key_norm == KEYNORM_L2 ? sqrt(s2 + 1e-6) : s + 1e-6;
    for (size_t i = 0; i < cs->dh; i++) out[i] /= div;
}

// y (B, H, T, dh) of the reference recurrence; aux (B, H, na, T); theta (H)
static void ref_forward(const Case *cs, double *y, const double *q, const double *k, const double *v,
                        const double *aux, const double *theta) {
    size_t d = cs->dh, T = cs->T, na = n_aux(cs);
    double S[MAX_DH * MAX_DH], z[MAX_DH], kh[MAX_DH], qh[MAX_DH], e[MAX_DH];
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        const double *g = aux + (bh * na + na - 1) * T, *a = aux + bh * na * T;
        for (size_t i = 0; i < d * d; i++) S[i] = cs->state_identity && i % (d + 1) == 0;
        for (size_t i = 0; i < d; i++) z[i] = cs->state_identity;
        for (size_t t = 0; t < T; t++) {
            size_t o = (bh * T + t) * d;
            double lam = sig_d(g[t] + theta[bh % cs->H]);
            feat(cs, kh, k + o, is_delta(cs));
            feat(cs, qh, q + o, is_delta(cs));
            if (is_delta(cs)) {
                double beta = sig_d(a[t]);
                for (size_t j = 0; j < d; j++) {
                    e[j] = v[o + j];
                    for (size_t i = 0; i < d; i++) e[j] -= lam * S[i * d + j] * kh[i];
                }
                for (size_t i = 0; i < d; i++)
                    for (size_t j = 0; j < d; j++) S[i * d + j] = lam * S[i * d + j] + beta * kh[i] * e[j];
            } else {
                for (size_t i = 0; i < d; i++) {
                    for (size_t j = 0; j < d; j++) S[i * d + j] = lam * S[i * d + j] + kh[i] * v[o + j];
                    z[i] = lam * z[i] + kh[i];
                }
            }
            double den = 1e-6;
            for (size_t i = 0; i < d; i++) den += qh[i] * z[i];
            for (size_t j = 0; j < d; j++) {
                double acc = 0;
                for (size_t i = 0; i < d; i++) acc += qh[i] * S[i * d + j];
                y[o + j] = !is_delta(cs) && cs->normalize ? acc / den : acc;
            }
        }
    }
}

// linear_decay only: the O(T²) form with products of λ (no recurrence)
static void naive_linear(const Case *cs, double *y, const double *q, const double *k, const double *v,
                         const double *aux, const double *theta) {
    size_t d = cs->dh, T = cs->T;
    double *P = malloc((T + 1) * sizeof(double)), phq[MAX_DH], phk[MAX_DH];
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        const double *g = aux + bh * T;
        P[0] = 1;  // P[t+1] = Π_{u<=t} λ_u
        for (size_t t = 0; t < T; t++) P[t + 1] = P[t] * sig_d(g[t] + theta[bh % cs->H]);
        for (size_t t = 0; t < T; t++) {
            size_t o = (bh * T + t) * d;
            feat(cs, phq, q + o, 0);
            double num[MAX_DH], den = 1e-6;
            for (size_t j = 0; j < d; j++) num[j] = cs->state_identity ? P[t + 1] * phq[j] : 0;
            if (cs->state_identity)
                for (size_t i = 0; i < d; i++) den += P[t + 1] * phq[i];
            for (size_t s = 0; s <= t; s++) {
                feat(cs, phk, k + (bh * T + s) * d, 0);
                double w = P[t + 1] / P[s + 1], dot = 0;
                for (size_t i = 0; i < d; i++) dot += phq[i] * phk[i];
                for (size_t j = 0; j < d; j++) num[j] += w * dot * v[(bh * T + s) * d + j];
                den += w * dot;
            }
            for (size_t j = 0; j < d; j++) y[o + j] = cs->normalize ? num[j] / den : num[j];
        }
    }
    free(P);
}


static AttnConfig config_of(const Case *cs, int data) {
    AttnConfig c = {.heads = (int)cs->H, .dh = (int)cs->dh, .feature_map = cs->fmap, .eps = 1e-6f,
                    .normalize = cs->normalize, .chunk = cs->chunk,
                    .state_identity = cs->state_identity, .key_norm = cs->key_norm,
                    .data_decay = data};
    return c;
}

typedef struct {
    size_t n, na;  // B*H*T*dh, B*H*n_aux*T
    float *q, *k, *v, *aux, *dy, theta[2];
    double *qd, *kd, *vd, *auxd, *dyd, thetad[2];
} Inputs;


static Inputs make_inputs(const Case *cs, unsigned long long seed) {
    Inputs in;
    Rng r;
    rng_seed(&r, seed);
    if (cs->dh > MAX_DH || cs->H > 2) abort();
    in.n = cs->B * cs->H * cs->T * cs->dh;
    in.na = cs->B * cs->H * n_aux(cs) * cs->T;
    in.q = randn(&r, in.n, 1, 0);
    in.k = randn(&r, in.n, 1, 0);
    in.v = randn(&r, in.n, 1, 0);
    in.aux = randn(&r, in.na, 1.5, 0);  // β logits ~ N(0, 1.5²)
    in.dy = randn(&r, in.n, 1, 0);
    size_t na = n_aux(cs);
    for (size_t bh = 0; bh < cs->B * cs->H; bh++)  // the gate channel: its own scale
        for (size_t t = 0; t < cs->T; t++) in.aux[(bh * na + na - 1) * cs->T + t] *= (float)(cs->gscale / 1.5);
    for (size_t h = 0; h < 2; h++) {
        in.theta[h] = (float)log(cs->lam[h] / (1 - cs->lam[h]));
        in.thetad[h] = in.theta[h];
    }
    in.qd = to_double(in.q, in.n), in.kd = to_double(in.k, in.n), in.vd = to_double(in.v, in.n);
    in.auxd = to_double(in.aux, in.na), in.dyd = to_double(in.dy, in.n);
    return in;
}

static void free_inputs(Inputs *in) {
    free(in->q), free(in->k), free(in->v), free(in->aux), free(in->dy);
    free(in->qd), free(in->kd), free(in->vd), free(in->auxd), free(in->dyd);
}

typedef struct {
    float *y, *dq, *dk, *dv, *daux, dtheta[2];
} Outputs;

static float *nan_filled(size_t n) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = NAN;
    return x;
}

// the kind's training form; data = 0 runs its fixed-λ form (aux: β only for delta)
static Outputs run_kind(const Case *cs, const Inputs *in, int data) {
    AttnConfig c = config_of(cs, data);
    Outputs o;
    o.y = nan_filled(in->n);
    o.dq = calloc(in->n, sizeof(float)), o.dk = calloc(in->n, sizeof(float));
    o.dv = calloc(in->n, sizeof(float)), o.daux = calloc(in->na, sizeof(float));
    o.dtheta[0] = o.dtheta[1] = 0;
    float *work = nan_filled(cs->kind->work_floats(&c, cs->B, cs->T));
    float *aux = in->aux, *daux = o.daux;
    size_t BH = cs->B * cs->H, T = cs->T, na = n_aux(cs);
    if (!data) {  // the fixed form reads only its own channels (delta's β): (B, H, na - 1, T)
        aux = malloc((BH * T + 1) * sizeof(float));
        daux = calloc(BH * T + 1, sizeof(float));
        for (size_t bh = 0; bh < BH; bh++)
            memcpy(aux + bh * (na - 1) * T, in->aux + bh * na * T, (na - 1) * T * sizeof(float));
    }
    cs->kind->forward(&c, cs->B, cs->T, o.y, work, in->q, in->k, in->v, aux, in->theta);
    cs->kind->backward(&c, cs->B, cs->T, o.dq, o.dk, o.dv, daux, o.dtheta, in->dy, work, in->q,
                       in->k, in->v, aux, in->theta, o.y);
    if (!data) {
        for (size_t bh = 0; bh < BH; bh++)
            memcpy(o.daux + bh * na * T, daux + bh * (na - 1) * T, (na - 1) * T * sizeof(float));
        free(aux), free(daux);
    }
    free(work);
    return o;
}

static void free_outputs(Outputs *o) { free(o->y), free(o->dq), free(o->dk), free(o->dv), free(o->daux); }

// y from step(), one token at a time (aux per token: (H, n_aux))
static float *run_steps(const Case *cs, const Inputs *in) {
    AttnConfig c = config_of(cs, 1);
    size_t H = cs->H, d = cs->dh, T = cs->T, na = n_aux(cs);
    float *y = nan_filled(in->n), *state = nan_filled(cs->kind->state_floats(&c, 0));
    float qt[2 * MAX_DH], kt[2 * MAX_DH], vt[2 * MAX_DH], yt[2 * MAX_DH], at[4];
    for (size_t b = 0; b < cs->B; b++) {
        cs->kind->state_reset(&c, state, 0);
        for (size_t t = 0; t < T; t++) {
            for (size_t h = 0; h < H; h++) {
                size_t bh = b * H + h, off = (bh * T + t) * d;
                memcpy(qt + h * d, in->q + off, d * sizeof(float));
                memcpy(kt + h * d, in->k + off, d * sizeof(float));
                memcpy(vt + h * d, in->v + off, d * sizeof(float));
                for (size_t j = 0; j < na; j++) at[h * na + j] = in->aux[(bh * na + j) * T + t];
            }
            cs->kind->step(&c, state, 0, t, yt, qt, kt, vt, at, in->theta);
            for (size_t h = 0; h < H; h++) memcpy(y + ((b * H + h) * T + t) * d, yt + h * d, d * sizeof(float));
        }
    }
    free(state);
    return y;
}

static double ref_loss(const Case *cs, const Inputs *in, double *ybuf) {
    ref_forward(cs, ybuf, in->qd, in->kd, in->vd, in->auxd, in->thetad);
    double L = 0;
    for (size_t i = 0; i < in->n; i++) L += in->dyd[i] * ybuf[i];
    return L;
}

static double fd(const Case *cs, const Inputs *in, double *x, size_t idx, double *ybuf) {
    double x0 = x[idx], h = 1e-5 * (fabs(x0) > 1 ? fabs(x0) : 1);
    x[idx] = x0 + h;
    double lp = ref_loss(cs, in, ybuf);
    x[idx] = x0 - h;
    double lm = ref_loss(cs, in, ybuf);
    x[idx] = x0;
    return (lp - lm) / (2 * h);
}

// Forward and step() against the reference; every gradient against central
// differences: all coordinates (all = 1) or `samples` random ones per tensor.
static void check_case(const Case *cs, unsigned long long seed, int all, int samples) {
    Inputs in = make_inputs(cs, seed);
    size_t n = in.n;
    double *yr = malloc(n * sizeof(double)), *ybuf = malloc(n * sizeof(double));
    ref_forward(cs, yr, in.qd, in.kd, in.vd, in.auxd, in.thetad);
    Outputs o = run_kind(cs, &in, 1);
    float *ys = run_steps(cs, &in);
    double e_fwd = rel_err(o.y, yr, n), e_step = rel_err(ys, yr, n), e_naive = 0;
    if (!is_delta(cs)) {
        double *yn = malloc(n * sizeof(double));
        naive_linear(cs, yn, in.qd, in.kd, in.vd, in.auxd, in.thetad);
        double md = 0, mw = 1e-30;
        for (size_t i = 0; i < n; i++) md = fmax(md, fabs(yn[i] - yr[i])), mw = fmax(mw, fabs(yr[i]));
        e_naive = md / mw;
        free(yn);
    }
    double *xs[5] = {in.qd, in.kd, in.vd, in.auxd, in.thetad};
    float *got[5] = {o.dq, o.dk, o.dv, o.daux, o.dtheta};
    size_t len[5] = {n, n, n, in.na, cs->H};
    double e_grad[5] = {0};
    Rng r;
    rng_seed(&r, seed ^ 0xfdull);
    for (int t = 0; t < 5; t++) {
        size_t m = all || t == 4 ? len[t] : (size_t)samples;
        double *want = malloc(m * sizeof(double)), scale = 1e-30, md = 0;
        size_t *idx = malloc(m * sizeof(size_t));
        for (size_t s = 0; s < m; s++) {
            idx[s] = all || t == 4 ? s : (size_t)rng_below(&r, len[t]);
            want[s] = fd(cs, &in, xs[t], idx[s], ybuf);
            scale = fmax(scale, fabs(want[s]));
        }
        for (size_t s = 0; s < m; s++) {
            double e = fabs((double)got[t][idx[s]] - want[s]);
            if (!(e <= md)) md = e;
        }
        // sampled coordinates: relative to the kind's own largest |gradient|
        // too (a sample may miss the large ones)
        if (!all && t != 4)
            for (size_t i = 0; i < len[t]; i++) scale = fmax(scale, fabs((double)got[t][i]));
        e_grad[t] = md / scale;
        free(want), free(idx);
    }
    int bad = !(e_fwd <= 1e-4 && e_step <= 1e-4 && e_naive <= 1e-12);
    for (int t = 0; t < 5; t++) bad |= !(e_grad[t] <= 1e-4);
    if (verbose() || bad)
        fprintf(stderr, "  %-34s %-12s fwd %.1e step %.1e naive %.1e | dq %.1e dk %.1e dv %.1e daux %.1e dth %.1e\n",
                cs->what, cs->kind->name, e_fwd, e_step, e_naive, e_grad[0], e_grad[1], e_grad[2],
                e_grad[3], e_grad[4]);
    CHECK(e_fwd <= 1e-4);
    CHECK(e_step <= 1e-4);
    CHECK(e_naive <= 1e-12);
    for (int t = 0; t < 5; t++) CHECK(e_grad[t] <= 1e-4);
    free(yr), free(ybuf), free(ys);
    free_outputs(&o);
    free_inputs(&in);
}

static const Case LIN = {"base", &attn_linear_decay, 2, 2, 130, 8, 16, {0.9, 0.6}, 1.0, FMAP_ELU1, 1,
                         KEYNORM_SUM, 0};

static Case with_kind(Case c, const AttnKind *k, KeyNorm kn) {
    c.kind = k;
    c.key_norm = kn;
    return c;
}

// the kinds and key norms every test runs: linear_decay, delta (sum), delta (l2)
#define EACH_KIND(c, base)                                                                      \
    for (int kk_ = 0; kk_ < 3; kk_++)                                                           \
        for (Case c = with_kind(base, kk_ ? &attn_delta : &attn_linear_decay,                   \
                                kk_ == 2 ? KEYNORM_L2 : KEYNORM_SUM), *once_ = &c; once_; once_ = NULL)

// every coordinate on small shapes, every φ, normalize on/off, both state inits
static void test_small_every_coordinate(void) {
    FeatureMap fms[] = {FMAP_ELU1, FMAP_RELU};
    for (int f = 0; f < 2; f++)
        for (int ident = 0; ident < 2; ident++) {
            Case b = LIN;
            b.what = "small, every coordinate";
            b.B = 1, b.T = 9, b.dh = 3, b.chunk = 4, b.fmap = fms[f], b.state_identity = ident;
            EACH_KIND(c, b) check_case(&c, 100 + (unsigned)(f * 10 + ident * 3 + kk_), 1, 0);
        }
    Case b = LIN;
    b.what = "small, no normalize";
    b.B = 1, b.T = 9, b.dh = 3, b.chunk = 4, b.normalize = 0, b.fmap = FMAP_IDENTITY;
    check_case(&b, 130, 1, 0);  // linear_decay only: delta without normalize needs small keys
    Case c = with_kind(b, &attn_delta, KEYNORM_L2);
    c.normalize = 1;
    c.what = "small, identity φ, l2";
    check_case(&c, 131, 1, 0);
}

static void test_chunk_sizes(void) {
    int chunks[] = {1, 7, 16, 64, 130, 200};
    for (size_t i = 0; i < 6; i++) {
        Case b = LIN;
        b.what = "chunk";
        b.chunk = chunks[i];
        EACH_KIND(c, b) check_case(&c, 200 + 10 * i + (unsigned)kk_, 0, 6);
    }
}

static void test_lengths(void) {
    size_t lens[] = {1, 63, 130};
    for (size_t i = 0; i < 3; i++) {
        Case b = LIN;
        b.what = "length";
        // T = 1 from a zero state reads back ~v exactly: dq, dk are ~eps, below
        // float resolution; an identity state gives them something to measure
        b.T = lens[i], b.chunk = 16, b.state_identity = lens[i] == 1;
        EACH_KIND(c, b) check_case(&c, 300 + 10 * i + (unsigned)kk_, 0, 6);
    }
}

// λ_t from 0.05 to 0.999 (θ at the ends, gate logits of scale 0.5 .. 3)
static void test_lambda_range(void) {
    double lams[][2] = {{0.05, 0.3}, {0.999, 0.99}, {0.05, 0.999}};
    double gs[] = {0.5, 0.5, 3.0};
    for (size_t i = 0; i < 3; i++) {
        Case b = LIN;
        b.what = "lambda range";
        b.lam[0] = lams[i][0], b.lam[1] = lams[i][1], b.gscale = gs[i], b.chunk = 7, b.T = 63;
        EACH_KIND(c, b) check_case(&c, 400 + 10 * i + (unsigned)kk_, 0, 6);
    }
    Case b = LIN;
    b.what = "lambda near 1, identity state, chunk 64";
    b.lam[0] = b.lam[1] = 0.999, b.gscale = 0.2, b.state_identity = 1, b.chunk = 64;
    EACH_KIND(c, b) check_case(&c, 430 + (unsigned)kk_, 0, 6);
}

// head sizes that exercise the vector lanes of the delta kernels (16, 20, 32)
// and, at 64, delta's WY form
static void test_head_sizes(void) {
    size_t dhs[] = {16, 20, 32, 64};
    for (size_t i = 0; i < 4; i++) {
        Case b = LIN;
        b.what = "head size";
        b.dh = dhs[i], b.T = 40, b.chunk = 7, b.B = 1;
        EACH_KIND(c, b) check_case(&c, 500 + 10 * i + (unsigned)kk_, 0, 4);
    }
}

// gate logits all 0: λ_t = sigmoid(θ) for every t, so the data form must equal
// the fixed form (the separately tested kernels) — outputs and dθ — and the
// gate logit's gradient must be what dθ gets per token (dθ = Σ_t dg_t here)
static void test_zero_gate_equals_fixed(void) {
    Case b = LIN;
    b.what = "zero gate";
    b.chunk = 16;
    EACH_KIND(c, b) {
        Inputs in = make_inputs(&c, 600 + (unsigned)kk_);
        size_t na = n_aux(&c), T = c.T;
        for (size_t bh = 0; bh < c.B * c.H; bh++)
            for (size_t t = 0; t < T; t++) in.aux[(bh * na + na - 1) * T + t] = 0;
        Outputs d = run_kind(&c, &in, 1), f = run_kind(&c, &in, 0);
        CHECK(max_rel_err(d.y, f.y, in.n, 1e-30) <= 1e-5);
        CHECK(max_rel_err(d.dq, f.dq, in.n, 1e-30) <= 1e-5);
        CHECK(max_rel_err(d.dk, f.dk, in.n, 1e-30) <= 1e-5);
        CHECK(max_rel_err(d.dv, f.dv, in.n, 1e-30) <= 1e-5);
        for (size_t h = 0; h < c.H; h++) {
            CHECK_NEAR(d.dtheta[h], f.dtheta[h], 1e-5 * fabs(f.dtheta[h]) + 1e-7);
            double sum = 0;
            for (size_t b2 = 0; b2 < c.B; b2++)
                for (size_t t = 0; t < T; t++) sum += d.daux[((b2 * c.H + h) * na + na - 1) * T + t];
            CHECK_NEAR(sum, d.dtheta[h], 1e-5 * fabs(d.dtheta[h]) + 1e-7);
        }
        CHECK(f.dtheta[0] != 0 && f.dtheta[1] != 0);  // the comparison above means something
        free_outputs(&d), free_outputs(&f);
        free_inputs(&in);
    }
}

// bit-identical results for 1 and 2 threads
static void test_thread_count_independent(void) {
    Case b = LIN;
    b.B = 3, b.T = 63, b.chunk = 7;
    EACH_KIND(c, b) {
        Inputs in = make_inputs(&c, 700 + (unsigned)kk_);
        pool_init(1);
        Outputs x = run_kind(&c, &in, 1);
        pool_init(2);
        Outputs y = run_kind(&c, &in, 1);
        CHECK(memcmp(x.y, y.y, in.n * sizeof(float)) == 0);
        CHECK(memcmp(x.dk, y.dk, in.n * sizeof(float)) == 0);
        CHECK(memcmp(x.daux, y.daux, in.na * sizeof(float)) == 0);
        CHECK(memcmp(x.dtheta, y.dtheta, sizeof x.dtheta) == 0);
        pool_init(1);
        free_outputs(&x), free_outputs(&y);
        free_inputs(&in);
    }
}

// λ_t as inspect reads it: decay_lambda_at on a token's aux inputs
static void test_lambda_at(void) {
    AttnConfig c = {.heads = 2, .dh = 4, .data_decay = 1};
    float theta[2] = {2.0f, -1.0f}, aux[4] = {0.3f, -0.5f, 9.0f, 1.5f};  // delta: (β, g) per head
    CHECK_NEAR(decay_lambda_at(&attn_delta, &c, aux + 2, theta, 1), sig_d(-1.0 + 1.5), 1e-15);
    CHECK_NEAR(decay_lambda_at(&attn_linear_decay, &c, aux + 1, theta, 1), sig_d(-1.0 - 0.5), 1e-15);
    c.data_decay = 0;
    CHECK_NEAR(decay_lambda_at(&attn_delta, &c, aux + 1, theta, 1), sig_d(-1.0), 1e-15);
    CHECK(attn_aux(&attn_delta, &c) == 1 && attn_aux(&attn_linear_decay, &c) == 0);
    c.data_decay = 1;
    CHECK(attn_aux(&attn_delta, &c) == 2 && attn_aux(&attn_linear_decay, &c) == 1);
}

int main(void) {
    TEST(test_small_every_coordinate);
    TEST(test_chunk_sizes);
    TEST(test_lengths);
    TEST(test_lambda_range);
    TEST(test_head_sizes);
    TEST(test_zero_gate_equals_fixed);
    TEST(test_thread_count_independent);
    TEST(test_lambda_at);
    return test_summary();
}
