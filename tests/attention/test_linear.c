// test_linear.c — the fast-weight kinds `linear` and `linear_decay` (SPEC §4, §6).
//
// References, in double precision, written plainly from the formulas:
//   naive      y_i = [λ^(i+1) φ(q_i)ᵀS0 + Σ_{j<=i} λ^(i-j) (φ(q_i)·φ(k_j)) v_j]
//                  / [λ^(i+1) φ(q_i)ᵀz0 + Σ_{j<=i} λ^(i-j) φ(q_i)·φ(k_j) + eps]   O(T²)
//   recurrent  S_i = λ S_{i-1} + φ(k_i) v_iᵀ, z_i = λ z_{i-1} + φ(k_i), same read-out
//   naive backward, hand-derived, itself checked against central finite
//   differences of the naive forward (all coordinates, small shapes).
// The kinds' chunkwise forward/backward and their step() are compared against
// these for every listed chunk size, length, λ, feature map, normalize on/off,
// state init and head size, one factor at a time around a base case; a few
// coordinates per case are also checked directly by finite differences.
//
// Tolerances, relative to the largest |reference| of the compared tensor:
//   forward (float32 vs double)                      1e-4
//   dq, dk, dv (float32 vs double)                   1e-4
//   dθ (float32 terms, double accumulation)          1e-4
//   naive double backward vs double FD               1e-6
//   chunked float backward vs double FD (spot)       1e-4
// (Observed: ~1e-7 to 1e-6 for every float comparison, ~1e-16 recurrent vs naive.)
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/fastweight_chunk.h"
#include "attn_check.h"
#include "kernels/gemm.h"
#include "test.h"
#include "util/pool.h"
#include "util/rng.h"

extern const AttnKind attn_linear, attn_linear_decay;

#define MAX_DH 320  // the references keep a row of φ on the stack (300: past gemm's K block)

typedef struct {
    const char *what;
    int decay;            // 1: linear_decay, 0: linear
    size_t B, H, T, dh;
    int chunk;
    double lam[2];        // λ per head (decay only); θ = logit(λ)
    FeatureMap fmap;
    int normalize, state_identity;
    double eps;           // normaliser epsilon (0 means the default 1e-6)
} Case;

// ---- double references ----

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
static double sigmoid_d(double x) { return 1 / (1 + exp(-x)); }
static double eps_of(const Case *cs) { return cs->eps > 0 ? cs->eps : 1e-6; }

static double lam_of(const Case *cs, const double *theta, size_t h) {
    return cs->decay ? sigmoid_d(theta[h]) : 1.0;
}

// num (dh) and den (with eps) of position i of one slab; q, k, v (T, dh)
static void naive_position(const Case *cs, double lam, size_t i, const double *q, const double *k,
                           const double *v, double *num, double *den) {
    size_t d = cs->dh;
    double pq[MAX_DH];
    for (size_t a = 0; a < d; a++) pq[a] = phi_d(cs->fmap, q[i * d + a]);
    for (size_t a = 0; a < d; a++) num[a] = 0;
    *den = eps_of(cs);
    if (cs->state_identity) {  // S0 = I, z0 = 1, weighted λ^(i+1)
        double w = pow(lam, (double)(i + 1));
        for (size_t a = 0; a < d; a++) {
            num[a] += w * pq[a];
            *den += w * pq[a];
        }
    }
    for (size_t j = 0; j <= i; j++) {
        double s = 0;
        for (size_t a = 0; a < d; a++) s += pq[a] * phi_d(cs->fmap, k[j * d + a]);
        double w = pow(lam, (double)(i - j)) * s;
        for (size_t a = 0; a < d; a++) num[a] += w * v[j * d + a];
        *den += w;
    }
}

// y, q, k, v (B, H, T, dh)
static void naive_forward(const Case *cs, double *y, const double *q, const double *k,
                          const double *v, const double *theta) {
    size_t d = cs->dh, n = cs->T * d;
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        double lam = lam_of(cs, theta, bh % cs->H), num[MAX_DH], den;
        for (size_t i = 0; i < cs->T; i++) {
            naive_position(cs, lam, i, q + bh * n, k + bh * n, v + bh * n, num, &den);
            for (size_t a = 0; a < d; a++)
                y[bh * n + i * d + a] = cs->normalize ? num[a] / den : num[a];
        }
    }
}

// L = Σ dy·y; ADDS dL/dq, dk, dv (B, H, T, dh) and dL/dθ (H) (decay only)
static void naive_backward(const Case *cs, double *dq, double *dk, double *dv, double *dtheta,
                           const double *dy, const double *q, const double *k, const double *v,
                           const double *theta) {
    size_t d = cs->dh, n = cs->T * d;
    double *dpq = calloc(n, sizeof(double)), *dpk = calloc(n, sizeof(double));
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        const double *Q = q + bh * n, *K = k + bh * n, *V = v + bh * n, *DY = dy + bh * n;
        double lam = lam_of(cs, theta, bh % cs->H), dlam = 0, num[MAX_DH], den, gnum[MAX_DH];
        memset(dpq, 0, n * sizeof(double));
        memset(dpk, 0, n * sizeof(double));
        for (size_t i = 0; i < cs->T; i++) {
            naive_position(cs, lam, i, Q, K, V, num, &den);
            // y = num / den: gnum = dy / den, gden = -(dy·num) / den²
            double gden = 0;
            for (size_t a = 0; a < d; a++) {
                gnum[a] = cs->normalize ? DY[i * d + a] / den : DY[i * d + a];
                if (cs->normalize) gden -= DY[i * d + a] * num[a] / (den * den);
            }
            double pqi[MAX_DH];
            for (size_t a = 0; a < d; a++) pqi[a] = phi_d(cs->fmap, Q[i * d + a]);
            if (cs->state_identity) {  // num += λ^(i+1) φq, den += λ^(i+1) Σφq
                double w = pow(lam, (double)(i + 1)), c = 0;
                for (size_t a = 0; a < d; a++) {
                    dpq[i * d + a] += w * (gnum[a] + gden);
                    c += pqi[a] * (gnum[a] + gden);
                }
                dlam += (double)(i + 1) * pow(lam, (double)i) * c;
            }
            for (size_t j = 0; j <= i; j++) {
                // num += λ^(i-j) s v_j, den += λ^(i-j) s, s = φq_i·φk_j
                double pk[MAX_DH], s = 0, c = gden;
                for (size_t a = 0; a < d; a++) {
                    pk[a] = phi_d(cs->fmap, K[j * d + a]);
                    s += pqi[a] * pk[a];
                    c += gnum[a] * V[j * d + a];
                }
                double e = pow(lam, (double)(i - j));
                for (size_t a = 0; a < d; a++) {
                    dpq[i * d + a] += e * c * pk[a];
                    dpk[j * d + a] += e * c * pqi[a];
                    dv[bh * n + j * d + a] += e * s * gnum[a];
                }
                if (i > j) dlam += (double)(i - j) * pow(lam, (double)(i - j - 1)) * s * c;
            }
        }
        for (size_t t = 0; t < n; t++) {
            dq[bh * n + t] += dpq[t] * dphi_d(cs->fmap, Q[t]);
            dk[bh * n + t] += dpk[t] * dphi_d(cs->fmap, K[t]);
        }
        // dλ/dθ = λ(1-λ), with 1-λ = sigmoid(-θ): exact even when λ rounds to 1
        if (cs->decay) dtheta[bh % cs->H] += dlam * lam * sigmoid_d(-theta[bh % cs->H]);
    }
    free(dpq);
    free(dpk);
}

// token by token; y (B, H, T, dh); norms (B*H) = ||S_T||_F
static void recurrent_forward(const Case *cs, double *y, double *norms, const double *q,
                              const double *k, const double *v, const double *theta) {
    size_t d = cs->dh, n = cs->T * d;
    double *S = malloc(d * d * sizeof(double)), z[MAX_DH];
    for (size_t bh = 0; bh < cs->B * cs->H; bh++) {
        double lam = lam_of(cs, theta, bh % cs->H);
        for (size_t a = 0; a < d; a++) {
            for (size_t b = 0; b < d; b++) S[a * d + b] = cs->state_identity && a == b;
            z[a] = cs->state_identity;
        }
        for (size_t i = 0; i < cs->T; i++) {
            const double *qi = q + bh * n + i * d, *ki = k + bh * n + i * d, *vi = v + bh * n + i * d;
            for (size_t a = 0; a < d; a++) {
                double pk = phi_d(cs->fmap, ki[a]);
                for (size_t b = 0; b < d; b++) S[a * d + b] = lam * S[a * d + b] + pk * vi[b];
                z[a] = lam * z[a] + pk;
            }
            double den = eps_of(cs);
            for (size_t a = 0; a < d; a++) den += phi_d(cs->fmap, qi[a]) * z[a];
            for (size_t b = 0; b < d; b++) {
                double num = 0;
                for (size_t a = 0; a < d; a++) num += phi_d(cs->fmap, qi[a]) * S[a * d + b];
                y[bh * n + i * d + b] = cs->normalize ? num / den : num;
            }
        }
        double ss = 0;
        for (size_t a = 0; a < d * d; a++) ss += S[a] * S[a];
        norms[bh] = sqrt(ss);
    }
    free(S);
}

// ---- helpers ----


static AttnConfig config_of(const Case *cs) {
    AttnConfig c = {.heads = (int)cs->H, .dh = (int)cs->dh, .feature_map = cs->fmap,
                    .eps = (float)eps_of(cs), .normalize = cs->normalize, .chunk = cs->chunk,
                    .state_identity = cs->state_identity};
    return c;
}
static const AttnKind *kind_of(const Case *cs) {
    return cs->decay ? &attn_linear_decay : &attn_linear;
}

// The inputs of one case, float (what the kinds see) and double (the same values)
typedef struct {
    size_t n;  // B*H*T*dh
    float *q, *k, *v, *dy, theta[2];
    double *qd, *kd, *vd, *dyd, thetad[2];
} Inputs;

static Inputs make_inputs(const Case *cs, unsigned long long seed) {
    Inputs in;
    Rng r;
    rng_seed(&r, seed);
    if (cs->dh > MAX_DH || cs->H > 2) abort();  // the references' fixed sizes
    in.n = cs->B * cs->H * cs->T * cs->dh;
    float **bufs[4] = {&in.q, &in.k, &in.v, &in.dy};
    for (int b = 0; b < 4; b++) {
        *bufs[b] = malloc(in.n * sizeof(float));
        for (size_t i = 0; i < in.n; i++) (*bufs[b])[i] = rng_normal(&r);
    }
    for (size_t h = 0; h < 2; h++) {
        double l = cs->lam[h];
        in.theta[h] = (float)log(l / (1 - l));
        in.thetad[h] = in.theta[h];  // the float θ exactly, so λ matches
    }
    in.qd = to_double(in.q, in.n);
    in.kd = to_double(in.k, in.n);
    in.vd = to_double(in.v, in.n);
    in.dyd = to_double(in.dy, in.n);
    return in;
}

static void free_inputs(Inputs *in) {
    free(in->q), free(in->k), free(in->v), free(in->dy);
    free(in->qd), free(in->kd), free(in->vd), free(in->dyd);
}

// Outputs of the kind under test
typedef struct {
    float *y, *dq, *dk, *dv, dtheta[2], *work;
    double norm;
} Outputs;

static float *nan_filled(size_t n) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = NAN;  // nothing may read what it did not write
    return x;
}

static Outputs run_kind(const Case *cs, const Inputs *in, int backward_calls) {
    const AttnKind *K = kind_of(cs);
    AttnConfig c = config_of(cs);
    Outputs o;
    o.y = nan_filled(in->n);
    o.dq = calloc(in->n, sizeof(float));
    o.dk = calloc(in->n, sizeof(float));
    o.dv = calloc(in->n, sizeof(float));
    o.dtheta[0] = o.dtheta[1] = 0;
    o.work = nan_filled(K->work_floats(&c, cs->B, cs->T));
    const float *theta = cs->decay ? in->theta : NULL;  // `linear` must not read θ
    K->forward(&c, cs->B, cs->T, o.y, o.work, in->q, in->k, in->v, NULL, theta);
    o.norm = K->last_state_norm(&c, cs->B, cs->T, o.work);
    for (int r = 0; r < backward_calls; r++)
        K->backward(&c, cs->B, cs->T, o.dq, o.dk, o.dv, NULL, cs->decay ? o.dtheta : NULL, in->dy,
                    o.work, in->q, in->k, in->v, NULL, theta, o.y);
    return o;
}

static void free_outputs(Outputs *o) {
    free(o->y), free(o->dq), free(o->dk), free(o->dv), free(o->work);
}

// y (B, H, T, dh) from the kind's own step(), one token at a time per sequence
static float *run_steps(const Case *cs, const Inputs *in) {
    const AttnKind *K = kind_of(cs);
    AttnConfig c = config_of(cs);
    size_t H = cs->H, d = cs->dh, T = cs->T;
    float *y = nan_filled(in->n), *state = nan_filled(K->state_floats(&c, 0));
    float *qt = malloc(H * d * sizeof(float)), *kt = malloc(H * d * sizeof(float));
    float *vt = malloc(H * d * sizeof(float)), *yt = malloc(H * d * sizeof(float));
    for (size_t b = 0; b < cs->B; b++) {
        K->state_reset(&c, state, 0);
        for (size_t t = 0; t < T; t++) {
            for (size_t h = 0; h < H; h++) {
                size_t off = ((b * H + h) * T + t) * d;
                memcpy(qt + h * d, in->q + off, d * sizeof(float));
                memcpy(kt + h * d, in->k + off, d * sizeof(float));
                memcpy(vt + h * d, in->v + off, d * sizeof(float));
            }
            K->step(&c, state, 0, t, yt, qt, kt, vt, NULL, cs->decay ? in->theta : NULL);
            for (size_t h = 0; h < H; h++)
                memcpy(y + ((b * H + h) * T + t) * d, yt + h * d, d * sizeof(float));
        }
    }
    free(state), free(qt), free(kt), free(vt), free(yt);
    return y;
}

static double naive_loss(const Case *cs, const Inputs *in, const double *q, const double *k,
                         const double *v, const double *theta, double *ybuf) {
    naive_forward(cs, ybuf, q, k, v, theta);
    double L = 0;
    for (size_t i = 0; i < in->n; i++) L += in->dyd[i] * ybuf[i];
    return L;
}

// central difference of L = Σ dy·y_naive in coordinate x[idx]
static double fd(const Case *cs, const Inputs *in, double *x, size_t idx, double *ybuf,
                 double *q, double *k, double *v, double *theta) {
    double x0 = x[idx], h = 1e-5 * (fabs(x0) > 1 ? fabs(x0) : 1);
    x[idx] = x0 + h;
    double lp = naive_loss(cs, in, q, k, v, theta, ybuf);
    x[idx] = x0 - h;
    double lm = naive_loss(cs, in, q, k, v, theta, ybuf);
    x[idx] = x0;
    return (lp - lm) / (2 * h);
}

// ---- the equivalence check of one case ----

static void check_case(const Case *cs, unsigned long long seed) {
    Inputs in = make_inputs(cs, seed);
    size_t n = in.n, BH = cs->B * cs->H;

    double *yn = malloc(n * sizeof(double)), *yr = malloc(n * sizeof(double));
    double *norms = malloc(BH * sizeof(double));
    naive_forward(cs, yn, in.qd, in.kd, in.vd, in.thetad);
    recurrent_forward(cs, yr, norms, in.qd, in.kd, in.vd, in.thetad);
    double *gq = calloc(n, sizeof(double)), *gk = calloc(n, sizeof(double));
    double *gv = calloc(n, sizeof(double)), gth[2] = {0, 0};
    naive_backward(cs, gq, gk, gv, gth, in.dyd, in.qd, in.kd, in.vd, in.thetad);

    Outputs o = run_kind(cs, &in, 1);
    float *ys = run_steps(cs, &in);
    double mean_norm = 0;
    for (size_t i = 0; i < BH; i++) mean_norm += norms[i] / (double)BH;

    double e_rec = rel_err_dd(yr, yn, n), e_fwd = rel_err(o.y, yn, n), e_step = rel_err(ys, yn, n);
    double e_dq = rel_err(o.dq, gq, n), e_dk = rel_err(o.dk, gk, n), e_dv = rel_err(o.dv, gv, n);
    double e_norm = fabs(o.norm - mean_norm) / (mean_norm > 1e-30 ? mean_norm : 1e-30);
    double e_th = cs->decay ? rel_err(o.dtheta, gth, cs->H) : 0;
    if (getenv("LINEAR_TEST_VERBOSE"))
        fprintf(stderr,
                "  %-28s rec %.1e fwd %.1e step %.1e norm %.1e | dq %.1e dk %.1e dv %.1e dth %.1e\n",
                cs->what, e_rec, e_fwd, e_step, e_norm, e_dq, e_dk, e_dv, e_th);
    if (e_rec > 1e-12 || e_fwd > 1e-4 || e_step > 1e-4 || e_norm > 1e-4 || e_dq > 1e-4 ||
        e_dk > 1e-4 || e_dv > 1e-4 || e_th > 1e-4)
        fprintf(stderr, "  case \"%s\":\n", cs->what);
    CHECK(e_rec <= 1e-12);  // the two double references agree to rounding
    CHECK(e_fwd <= 1e-4);
    CHECK(e_step <= 1e-4);
    CHECK(e_norm <= 1e-4);
    CHECK(e_dq <= 1e-4);
    CHECK(e_dk <= 1e-4);
    CHECK(e_dv <= 1e-4);
    CHECK(e_th <= 1e-4);
    if (!cs->decay) CHECK(o.dtheta[0] == 0 && o.dtheta[1] == 0);

    // spot-check the kind's gradients directly against FD of the naive forward:
    // 4 coordinates each of q, k, v and every θ
    Rng r;
    rng_seed(&r, seed ^ 0xfdull);
    double *ybuf = malloc(n * sizeof(double));
    double *xs[3] = {in.qd, in.kd, in.vd}, *refs[3] = {gq, gk, gv};
    float *got[3] = {o.dq, o.dk, o.dv};
    for (int t = 0; t < 3; t++) {
        double scale = 1e-30;
        for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(refs[t][i]));
        for (int s = 0; s < 4; s++) {
            size_t idx = (size_t)rng_below(&r, n);
            double g = fd(cs, &in, xs[t], idx, ybuf, in.qd, in.kd, in.vd, in.thetad);
            double e = fabs(got[t][idx] - g) / scale;
            if (e > 1e-4) fprintf(stderr, "  case \"%s\" tensor %d [%zu]: fd %.9g got %.9g\n",
                                  cs->what, t, idx, g, got[t][idx]);
            CHECK(e <= 1e-4);
        }
    }
    if (cs->decay) {
        double scale = fmax(fabs(gth[0]), fabs(gth[1]));
        for (size_t h = 0; h < cs->H; h++) {
            double g = fd(cs, &in, in.thetad, h, ybuf, in.qd, in.kd, in.vd, in.thetad);
            double e = fabs(o.dtheta[h] - g) / (scale > 1e-30 ? scale : 1e-30);
            if (e > 1e-4) fprintf(stderr, "  case \"%s\" dtheta[%zu]: fd %.9g got %.9g\n",
                                  cs->what, h, g, o.dtheta[h]);
            CHECK(e <= 1e-4);
        }
    }

    free(ybuf), free(yn), free(yr), free(norms), free(gq), free(gk), free(gv), free(ys);
    free_outputs(&o);
    free_inputs(&in);
}

// ---- cases: one factor at a time around a base ----

static const Case BASE = {"base", 1, 2, 2, 130, 8, 16, {0.9, 0.6}, FMAP_ELU1, 1, 0, 0};

static void test_equivalence_chunk_sizes(void) {
    int chunks[] = {1, 7, 16, 64, 130, 200};  // 130 = T, 200 > T: one chunk
    for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
        Case c = BASE;
        c.what = "chunk";
        c.chunk = chunks[i];
        check_case(&c, 100 + i);
    }
}

static void test_equivalence_lengths(void) {
    // 130 is the base; 63 is not a multiple of 16. At T = 1 with zero state and
    // the normaliser, y_0 = v_0 (φq·φk)/(φq·φk + eps) does not depend on q, k
    // beyond eps, so dq, dk are pure rounding noise: T = 1 is tested with the
    // identity state (which makes y_0 depend on q, k) and without the normaliser.
    Case c = BASE;
    c.what = "T=63";
    c.T = 63;
    check_case(&c, 200);
    c.what = "T=63 chunk=64";
    c.chunk = 64;
    check_case(&c, 201);
    c.what = "T=1 identity state";
    c.T = 1, c.chunk = 16, c.state_identity = 1;
    check_case(&c, 202);
    c.what = "T=1 chunk=1 identity state";
    c.chunk = 1;
    check_case(&c, 203);
    c.what = "T=1 no normalize";
    c.state_identity = 0, c.normalize = 0;
    check_case(&c, 204);
}

static void test_equivalence_lambda(void) {
    double lams[][2] = {{0.05, 0.3}, {0.999, 0.99}, {0.05, 0.999}};
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "lambda";
        c.lam[0] = lams[i][0], c.lam[1] = lams[i][1];
        check_case(&c, 300 + i);
    }
    Case c = BASE;  // λ near 1 with the identity state, across many chunks
    c.what = "lambda .999 identity chunk 7";
    c.lam[0] = c.lam[1] = 0.999, c.state_identity = 1, c.chunk = 7;
    check_case(&c, 310);
}

static void test_equivalence_feature_maps(void) {
    Case c = BASE;
    c.what = "relu";
    c.fmap = FMAP_RELU;
    check_case(&c, 400);
    // identity φ with the normaliser would divide by a sum that crosses 0: the
    // normaliser needs a positive φ, so identity is tested without it
    c.what = "identity, no normalize";
    c.fmap = FMAP_IDENTITY, c.normalize = 0;
    check_case(&c, 401);
    c.what = "relu, identity state";
    c.fmap = FMAP_RELU, c.normalize = 1, c.state_identity = 1;
    check_case(&c, 402);
}

static void test_equivalence_normalize_and_state(void) {
    Case c = BASE;
    c.what = "no normalize";
    c.normalize = 0;
    check_case(&c, 500);
    c.what = "identity state";
    c.normalize = 1, c.state_identity = 1;
    check_case(&c, 501);
    c.what = "identity state, no normalize";
    c.normalize = 0, c.state_identity = 1;
    check_case(&c, 502);
    // a large eps, so that a kernel or step() that drops or misplaces eps fails
    // (at 1e-6 it moves y by ~1e-7 relative, below the tolerance)
    c.what = "eps 0.5, relu";
    c.normalize = 1, c.state_identity = 0, c.fmap = FMAP_RELU, c.eps = 0.5;
    check_case(&c, 503);
}

static void test_equivalence_head_size(void) {
    Case c = BASE;
    c.what = "dh 16";
    c.dh = 16;
    check_case(&c, 600);
    c.what = "dh 16 chunk 7 T 63";
    c.chunk = 7, c.T = 63;
    check_case(&c, 601);
    c.what = "dh 300 (past gemm's K block: the backward forms [v | 1])";
    c.dh = 300, c.H = 1, c.chunk = 16, c.T = 40;
    check_case(&c, 602);
}

static void test_equivalence_linear_kind(void) {
    Case c = BASE;  // λ = 1, θ NULL
    c.what = "linear";
    c.decay = 0;
    check_case(&c, 700);
    c.what = "linear, identity state";
    c.state_identity = 1;
    check_case(&c, 701);
    c.what = "linear, relu, no norm, chunk 7";
    c.state_identity = 0, c.fmap = FMAP_RELU, c.normalize = 0, c.chunk = 7;
    check_case(&c, 702);
    c.what = "linear, chunk 1, T 63";
    c.fmap = FMAP_ELU1, c.normalize = 1, c.chunk = 1, c.T = 63;
    check_case(&c, 703);
}

// The hand-derived naive backward against central differences of the naive
// forward, every coordinate, on small shapes, for every combination of kind,
// feature map, normalize and state init (identity φ only without normalize).
static void test_naive_backward_matches_fd(void) {
    for (int decay = 0; decay < 2; decay++)
        for (int fm = 0; fm < 3; fm++)
            for (int norm = 0; norm < 2; norm++)
                for (int ident = 0; ident < 2; ident++) {
                    if (fm == FMAP_IDENTITY && norm) continue;
                    Case c = {"naive fd", decay, 2, 2, 6, 3, 2, {0.7, 0.3}, (FeatureMap)fm,
                              norm, ident, 0};
                    Inputs in = make_inputs(&c, 900 + (unsigned)(decay * 100 + fm * 10 + norm * 2 + ident));
                    size_t n = in.n;
                    double *g[3] = {calloc(n, 8), calloc(n, 8), calloc(n, 8)}, gth[2] = {0, 0};
                    naive_backward(&c, g[0], g[1], g[2], gth, in.dyd, in.qd, in.kd, in.vd,
                                   in.thetad);
                    double *ybuf = malloc(n * sizeof(double)), *f = malloc(n * sizeof(double));
                    double *xs[3] = {in.qd, in.kd, in.vd};
                    for (int t = 0; t < 3; t++) {
                        for (size_t i = 0; i < n; i++)
                            f[i] = fd(&c, &in, xs[t], i, ybuf, in.qd, in.kd, in.vd, in.thetad);
                        double e = rel_err_dd(g[t], f, n);
                        if (e > 1e-6) fprintf(stderr, "  decay %d fmap %d norm %d ident %d tensor %d: %.3g\n",
                                              decay, fm, norm, ident, t, e);
                        CHECK(e <= 1e-6);
                    }
                    if (decay) {
                        double fth[2];
                        for (size_t h = 0; h < 2; h++)
                            fth[h] = fd(&c, &in, in.thetad, h, ybuf, in.qd, in.kd, in.vd, in.thetad);
                        CHECK(rel_err_dd(gth, fth, 2) <= 1e-6);
                    }
                    free(g[0]), free(g[1]), free(g[2]), free(ybuf), free(f);
                    free_inputs(&in);
                }
}

// λ very near 0 and very near 1 (θ = ∓40, ∓15): nothing overflows, nothing
// divides by λ, the results still match the reference.
static void test_extreme_lambda(void) {
    double thetas[][2] = {{-40, 40}, {-15, 15}};
    for (size_t i = 0; i < 2; i++) {
        Case c = BASE;
        c.what = "extreme theta";
        c.state_identity = 1, c.chunk = 7;
        Inputs in = make_inputs(&c, 1000 + i);  // θ from c.lam, replaced here:
        for (size_t h = 0; h < 2; h++) in.theta[h] = (float)thetas[i][h], in.thetad[h] = thetas[i][h];
        size_t n = in.n;
        Outputs o = run_kind(&c, &in, 1);
        double *yn = malloc(n * sizeof(double));
        double *g[3] = {calloc(n, 8), calloc(n, 8), calloc(n, 8)}, gth[2] = {0, 0};
        naive_forward(&c, yn, in.qd, in.kd, in.vd, in.thetad);
        naive_backward(&c, g[0], g[1], g[2], gth, in.dyd, in.qd, in.kd, in.vd, in.thetad);
        CHECK(rel_err(o.y, yn, n) <= 1e-4);
        CHECK(rel_err(o.dq, g[0], n) <= 1e-4);
        CHECK(rel_err(o.dk, g[1], n) <= 1e-4);
        CHECK(rel_err(o.dv, g[2], n) <= 1e-4);
        for (size_t h = 0; h < 2; h++) {
            // each head alone: the two differ by ~30 orders of magnitude
            double e = fabs(o.dtheta[h] - gth[h]) / fmax(fabs(gth[h]), 1e-300);
            if (!(e <= 1e-4)) fprintf(stderr, "  theta %g: dtheta %.9g want %.9g\n", thetas[i][h],
                                      o.dtheta[h], gth[h]);
            CHECK(e <= 1e-4);
        }
        free(yn), free(g[0]), free(g[1]), free(g[2]);
        free_outputs(&o);
        free_inputs(&in);
    }
}

// backward ADDS: two calls from zero give exactly twice one call
static void test_backward_adds(void) {
    for (int decay = 0; decay < 2; decay++) {
        Case c = BASE;
        c.decay = decay, c.chunk = 7, c.T = 63;
        Inputs in = make_inputs(&c, 1100 + (unsigned)decay);
        Outputs one = run_kind(&c, &in, 1), two = run_kind(&c, &in, 2);
        int ok = 1;
        for (size_t i = 0; i < in.n; i++)
            ok &= two.dq[i] == 2 * one.dq[i] && two.dk[i] == 2 * one.dk[i] &&
                  two.dv[i] == 2 * one.dv[i];
        CHECK(ok);
        CHECK(two.dtheta[0] == 2 * one.dtheta[0] && two.dtheta[1] == 2 * one.dtheta[1]);
        double mx = 0;
        for (size_t i = 0; i < in.n; i++) mx = fmax(mx, fabs(one.dq[i]));
        CHECK(mx > 0);  // not vacuous
        if (decay) CHECK(one.dtheta[0] != 0);
        free_outputs(&one), free_outputs(&two);
        free_inputs(&in);
    }
}

// bit-identical results whatever the thread count
static void test_threads_bit_identical(void) {
    Case c = BASE;
    c.B = 3, c.state_identity = 1;  // 6 slabs: uneven split over 2 threads
    Inputs in = make_inputs(&c, 1200);
    pool_init(1);
    Outputs a = run_kind(&c, &in, 1);
    pool_init(2);
    Outputs b = run_kind(&c, &in, 1);
    pool_init(1);
    size_t bytes = in.n * sizeof(float);
    CHECK(memcmp(a.y, b.y, bytes) == 0);
    CHECK(memcmp(a.dq, b.dq, bytes) == 0);
    CHECK(memcmp(a.dk, b.dk, bytes) == 0);
    CHECK(memcmp(a.dv, b.dv, bytes) == 0);
    CHECK(memcmp(a.dtheta, b.dtheta, sizeof a.dtheta) == 0);
    CHECK(a.norm == b.norm);
    free_outputs(&a), free_outputs(&b);
    free_inputs(&in);
}

// The chunk kernel never forms Ṽ = [v | 1] (fastweight_chunk.c): where a
// product runs along its width w = d + 1 (G = dÑ Ṽᵀ, Ṽ dS̃ᵀ) it takes the
// product over v alone (K = d, v's rows ld apart where they lie) and adds the
// ones column's term x · 1 after. That is the same bits as the product over
// the w columns, written here plainly with [v | 1] formed: checked for head
// sizes either side of gemm's K block (256) where the claim holds (d < 256,
// d a multiple of 256), and for rows one to several tiles. Where it does not
// (257, 300: the kernel forms [v | 1] there), fw_ones_split_exact must say so:
// the split differs for some rows, else the kernel would have changed those
// head sizes' training bits.
static void test_ones_column_split_bit_identical(void) {
    static const size_t ds[] = {1, 8, 24, 32, 64, 255, 256, 257, 300, 512}, Ls[] = {1, 7, 64};
    Rng r;
    rng_seed(&r, 1300);
    for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
        int all_same = 1;
        for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
            size_t d = ds[di], L = Ls[li], w = d + 1, ld = d + 5;  // v in wider rows, as in place
            float *x = malloc(L * w * sizeof(float));    // [dnum | dden] (L, w)
            float *v = malloc(L * ld * sizeof(float));   // v (L, d), rows ld apart
            float *vt = malloc(L * w * sizeof(float));   // [v | 1] (L, w)
            float *st = malloc(d * w * sizeof(float));   // dS̃ = [dS | dz] (d, w)
            float *want = malloc(L * L * sizeof(float)), *got = malloc(L * L * sizeof(float));
            float *want2 = malloc(L * d * sizeof(float)), *got2 = malloc(L * d * sizeof(float));
            for (size_t i = 0; i < L * w; i++) x[i] = rng_normal(&r);
            for (size_t i = 0; i < L * ld; i++) v[i] = rng_normal(&r);
            for (size_t i = 0; i < d * w; i++) st[i] = rng_normal(&r);
            for (size_t j = 0; j < L; j++) {
                for (size_t i = 0; i < d; i++) vt[j * w + i] = v[j * ld + i];
                vt[j * w + d] = 1.0f;
            }
            // G = [dnum | dden] [v | 1]ᵀ
            gemm_serial(0, 1, L, L, w, 1.0f, x, w, vt, w, 0.0f, want, L);
            gemm_serial(0, 1, L, L, d, 1.0f, x, w, v, ld, 0.0f, got, L);
            for (size_t i = 0; i < L; i++)
                for (size_t j = 0; j < L; j++) got[i * L + j] += x[i * w + d];
            // [v | 1] dS̃ᵀ
            gemm_serial(0, 1, L, d, w, 1.0f, vt, w, st, w, 0.0f, want2, d);
            gemm_serial(0, 1, L, d, d, 1.0f, v, ld, st, w, 0.0f, got2, d);
            for (size_t j = 0; j < L; j++)
                for (size_t i = 0; i < d; i++) got2[j * d + i] += st[i * w + d];
            int ok = memcmp(want, got, L * L * sizeof(float)) == 0 && memcmp(want2, got2, L * d * sizeof(float)) == 0;
            if (!ok && fw_ones_split_exact(d)) fprintf(stderr, "  d %zu L %zu: the split product differs\n", d, L);
            if (fw_ones_split_exact(d)) CHECK(ok);
            all_same &= ok;
            free(x), free(v), free(vt), free(st), free(want), free(got), free(want2), free(got2);
        }
        CHECK(all_same == fw_ones_split_exact(ds[di]));
    }
}

// generation state: size, layout after reset, memory independent of length
static void test_state_api(void) {
    for (int ident = 0; ident < 2; ident++) {
        Case cs = BASE;
        cs.H = 3, cs.dh = 5, cs.state_identity = ident;
        AttnConfig c = config_of(&cs);
        const AttnKind *kinds[2] = {&attn_linear, &attn_linear_decay};
        for (int k = 0; k < 2; k++) {
            const AttnKind *K = kinds[k];
            size_t nf = K->state_floats(&c, 0);
            CHECK(nf == 3 * (25 + 5));
            CHECK(K->state_floats(&c, 1000) == nf);
            CHECK(K->memory_bytes(&c, 1) == nf * sizeof(float));
            CHECK(K->memory_bytes(&c, 16384) == nf * sizeof(float));
            float *st = nan_filled(nf);
            K->state_reset(&c, st, 0);
            int ok = 1;
            for (size_t h = 0; h < 3; h++)
                for (size_t i = 0; i < 30; i++) {
                    float want = 0;
                    if (ident) want = i < 25 ? (i / 5 == i % 5) : 1;
                    ok &= st[h * 30 + i] == want;
                }
            CHECK(ok);
            free(st);
        }
        CHECK(attn_linear.uses_decay == 0 && attn_linear_decay.uses_decay == 1);
        CHECK(attn_linear.n_aux == 0 && attn_linear_decay.n_aux == 0);
    }
}

int main(void) {
    TEST(test_naive_backward_matches_fd);
    TEST(test_equivalence_chunk_sizes);
    TEST(test_equivalence_lengths);
    TEST(test_equivalence_lambda);
    TEST(test_equivalence_feature_maps);
    TEST(test_equivalence_normalize_and_state);
    TEST(test_equivalence_head_size);
    TEST(test_equivalence_linear_kind);
    TEST(test_extreme_lambda);
    TEST(test_backward_adds);
    TEST(test_threads_bit_identical);
    TEST(test_ones_column_split_bit_identical);
    TEST(test_state_api);
    pool_shutdown();
    return test_summary();
}
