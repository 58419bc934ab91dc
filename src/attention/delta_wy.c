// delta_wy.c — the WY/UT chunkwise form of the (gated) delta rule: forward and backward.
//
// Notation (see the header): d = dh, L = this chunk's length, r = row (query,
// or the position being written) and s = column (an earlier key) inside the
// chunk, b the cumulative log-decays, γ_r = e^{b_r}, g_s = e^{b_{L-1} − b_s}.
#include "delta_wy.h"

#include <math.h>
#include <string.h>

#include "attention/feature_map.h"
#include "attention/wy_kernels.h"
#include "kernels/gemm.h"
#include "kernels/vexp.h"

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }
static size_t n_chunks(const DeltaSlab *p) { return p->chunk ? (p->T + p->chunk - 1) / p->chunk : 0; }

typedef struct {
    float *kh, *qh;          // (C, d) k̂, q̂
    float *r, *u;            // (C, d) R = V − diag(γ) K̂ S, then Z = diag(β) R; U
    float *ks;               // (C, d) K̂ S (kept for the backward's step 5)
    float *du, *dz;          // (C, d) backward: dL/dU, dL/dZ
    float *dqh, *dkh, *tmp;  // (C, d)
    float *m, *p, *gm, *dm;  // (C, C) A; Q̂K̂ᵀ ⊙ D; backward products; D
    float *kk;               // (C, C) M = K̂K̂ᵀ (kept for the backward's step 4)
    float *S, *dS, *dSin;    // (d, d) running state / dL/dS after the chunk / dL/dS before it
    float *sk, *sq, *beta, *omb, *gam, *gs;  // (C)
    float *dbeta;            // (C) backward: dL/dβ from A (kept in float)
    double *b, *db, *x, *x2;  // (C) b, dL/db, per-row dot products
    size_t stride;           // this chunk's L: the row length of the (L, L) products
} Scratch;

static Scratch scratch_at(const DeltaSlab *p, float *base) {
    size_t C = p->chunk, d = p->dh;
    Scratch s;
    float *f = base;
    float **cd[] = {&s.kh, &s.qh, &s.r, &s.u, &s.du, &s.dz, &s.dqh, &s.dkh, &s.tmp, &s.ks};
    for (size_t i = 0; i < sizeof cd / sizeof *cd; i++) *cd[i] = f, f += round16(C * d);
    float **cc[] = {&s.m, &s.p, &s.gm, &s.dm, &s.kk};
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++) *cc[i] = f, f += round16(C * C);
    float **dd[] = {&s.S, &s.dS, &s.dSin};
    for (size_t i = 0; i < 3; i++) *dd[i] = f, f += round16(d * d);
    float **c1[] = {&s.sk, &s.sq, &s.beta, &s.omb, &s.gam, &s.gs, &s.dbeta};
    for (size_t i = 0; i < sizeof c1 / sizeof *c1; i++) *c1[i] = f, f += round16(C);
    s.b = (double *)(void *)f, f += round16(2 * C);  // 64-byte aligned: fine for double
    s.db = (double *)(void *)f, f += round16(2 * C);
    s.x = (double *)(void *)f, f += round16(2 * C);
    s.x2 = (double *)(void *)f;
    return s;
}

size_t delta_wy_scratch_floats(const DeltaSlab *p) {
    size_t C = p->chunk, d = p->dh;
    return 10 * round16(C * d) + 5 * round16(C * C) + 3 * round16(d * d) + 7 * round16(C) +
           4 * round16(2 * C);
}

static double dotd(const float *a, const float *b, size_t n) {
    double acc = 0;
    for (size_t i = 0; i < n; i++) acc += (double)a[i] * b[i];
    return acc;
}

// out (n, d) = the normalised features of x's n rows (ld apart), divisors (n) as
// delta_features returns them: delta_features row for row, DELTA_FEATURES_MAX
// rows' sums side by side
static void features(const DeltaSlab *p, float *out, float *divisors, const float *x, size_t ld, size_t n) {
    size_t d = p->dh;
    if (ld == d) fmap_forward(p->fmap, out, x, n * d);
    else
        for (size_t r = 0; r < n; r++) fmap_forward(p->fmap, out + r * d, x + r * ld, d);
    for (size_t r = 0; r < n; r++) divisors[r] = 1.0f;  // (left as is without normalize)
    for (size_t r = 0; r < n; r += DELTA_FEATURES_MAX) {
        size_t m = n - r < DELTA_FEATURES_MAX ? n - r : DELTA_FEATURES_MAX;
        delta_normalize_n(p, out + r * d, m, divisors + r);
    }
}

// k̂, q̂, β, the decays b, γ, g of positions [t0, t0+L)
static void load_chunk(const DeltaSlab *p, Scratch *s, size_t t0, size_t L, const float *q,
                       const float *k, const float *a) {
    size_t ld = delta_ld(p);
    double acc = 0;
    s->stride = L;
    features(p, s->kh, s->sk, k + t0 * ld, ld, L);
    features(p, s->qh, s->sq, q + t0 * ld, ld, L);
    for (size_t r = 0; r < L; r++) {
        delta_beta(a[t0 + r], &s->beta[r], &s->omb[r]);
        acc += p->ll ? (double)p->ll[t0 + r] : p->loglam;
        s->b[r] = acc;
        s->db[r] = 0;
    }
    for (size_t r = 0; r < L; r++) {
        s->gam[r] = (float)exp(s->b[r]);
        s->gs[r] = (float)exp(s->b[L - 1] - s->b[r]);
        // the exponents, then one call of the chosen path's vexpf over the row
        for (size_t j = 0; j <= r; j++) s->dm[r * L + j] = (float)(s->b[r] - s->b[j]);
        vexpf_n(s->dm + r * L, s->dm + r * L, r + 1);
    }
}

// D_rs = e^{b_r − b_s}, s <= r (filled once per chunk by load_chunk)
static inline float dcoef(const Scratch *s, size_t r, size_t j) { return s->dm[r * s->stride + j]; }

// The chunk's U from the state S entering it: K̂ S (kept in s->ks), R = V −
// diag(γ) K̂ S (kept in s->r as Z = diag(β) R), M = K̂K̂ᵀ (kept in s->kk) turned
// into A (strictly lower, s->m), and U by forward substitution of (I + A) U = Z.
static void solve_u(const DeltaSlab *p, const Scratch *s, size_t t0, size_t L, const float *v,
                    const float *S) {
    size_t d = p->dh;
    gemm_serial(0, 0, L, d, d, 1.0f, s->kh, d, S, d, 0.0f, s->ks, d);  // K̂ S
    for (size_t r = 0; r < L; r++) {
        float *zr = s->r + r * d, br = s->beta[r], gr = s->gam[r];
        const float *vr = v + (t0 + r) * delta_ld(p), *kr = s->ks + r * d;
        for (size_t j = 0; j < d; j++) zr[j] = br * (vr[j] - gr * kr[j]);
    }
    wy_gemm_lower(L, d, 1.0f, s->kh, d, s->kh, d, s->kk);  // K̂K̂ᵀ (j < r read)
    for (size_t r = 0; r < L; r++) {
        float *ar = s->m + r * L;
        const float *mr = s->kk + r * L;
        for (size_t j = 0; j < r; j++) ar[j] = mr[j] * (s->beta[r] * dcoef(s, r, j));
        for (size_t j = r; j < L; j++) ar[j] = 0.0f;
    }
    wy_forward_subst(L, d, s->m, s->r, s->u);
}

// Step (5)'s row r: R_r = v_r − γ_r (K̂ S)_r into rr, dR_r = β_r dz_r into drr, and dv_r += dR_r
// (separate rows of separate buffers: restrict lets the loop vectorise without checks)
static void step5_row(size_t d, float br, float gr, const float *restrict vr, const float *restrict ks,
                      const float *restrict dzr, float *restrict rr, float *restrict drr, float *restrict dvr) {
    for (size_t j = 0; j < d; j++) {
        float dr = br * dzr[j];
        rr[j] = vr[j] - gr * ks[j];
        drr[j] = dr;
        dvr[j] += dr;
    }
}

// P = (Q̂ K̂ᵀ) ⊙ D (lower triangle, diagonal included)
static void scores(const DeltaSlab *p, const Scratch *s, size_t L) {
    size_t d = p->dh;
    wy_gemm_lower(L, d, 1.0f, s->qh, d, s->kh, d, s->p);
    for (size_t r = 0; r < L; r++) {
        float *pr = s->p + r * L;
        for (size_t j = 0; j <= r; j++) pr[j] *= dcoef(s, r, j);
        for (size_t j = r + 1; j < L; j++) pr[j] = 0.0f;
    }
}

static void state_init(const DeltaSlab *p, float *S) {
    size_t d = p->dh;
    memset(S, 0, d * d * sizeof(float));
    if (p->state_identity)
        for (size_t i = 0; i < d; i++) S[i * d + i] = 1.0f;
}

double delta_wy_forward(const DeltaSlab *p, float *y, float *saved, float *scratch, const float *q,
                        const float *k, const float *v, const float *a) {
    size_t T = p->T, d = p->dh, C = p->chunk, nch = n_chunks(p), ldy = delta_ldy(p);
    Scratch s = scratch_at(p, scratch);
    state_init(p, s.S);
    for (size_t c = 0; c < nch; c++) {
        size_t t0 = c * C, L = T - t0 < C ? T - t0 : C;
        memcpy(saved + c * d * d, s.S, d * d * sizeof(float));  // for backward's recompute
        load_chunk(p, &s, t0, L, q, k, a);
        solve_u(p, &s, t0, L, v, s.S);
        scores(p, &s, L);
        // Y = diag(γ) Q̂ S + P U
        float *yc = y + t0 * ldy;
        gemm_serial(0, 0, L, d, d, 1.0f, s.qh, d, s.S, d, 0.0f, yc, ldy);
        for (size_t r = 0; r < L; r++)
            for (size_t j = 0; j < d; j++) yc[r * ldy + j] *= s.gam[r];
        gemm_serial(0, 0, L, d, L, 1.0f, s.p, L, s.u, d, 1.0f, yc, ldy);
        // S ← γ_{L-1} S + K̂ᵀ diag(g) U   (rows of K̂ scaled in place: last use)
        for (size_t r = 0; r < L; r++)
            for (size_t i = 0; i < d; i++) s.kh[r * d + i] *= s.gs[r];
        gemm_serial(1, 0, d, d, L, 1.0f, s.kh, d, s.u, d, s.gam[L - 1], s.S, d);
    }
    double ss = 0;
    for (size_t i = 0; i < d * d; i++) ss += (double)s.S[i] * s.S[i];
    return sqrt(ss);
}

// Backward of one chunk, given dS = dL/d(state after it); leaves dL/d(state
// before it) in dS. Steps numbered as in the derivation (header).
double delta_wy_backward(const DeltaSlab *p, float *dq, float *dk, float *dv, float *da, float *dll,
                         const float *dy, const float *saved, float *scratch, const float *q,
                         const float *k, const float *v, const float *a) {
    size_t T = p->T, d = p->dh, C = p->chunk, nch = n_chunks(p), ld = delta_ld(p), ldy = delta_ldy(p);
    Scratch s = scratch_at(p, scratch);
    double total = 0, *db = s.db;
    memset(s.dS, 0, d * d * sizeof(float));  // the final state feeds nothing
    for (size_t c = nch; c-- > 0;) {
        size_t t0 = c * C, L = T - t0 < C ? T - t0 : C;
        const float *Sin = saved + c * d * d, *dyc = dy + t0 * ldy;
        load_chunk(p, &s, t0, L, q, k, a);
        solve_u(p, &s, t0, L, v, Sin);  // s.r = Z, s.m = A, s.u = U
        scores(p, &s, L);               // s.p = Q̂K̂ᵀ ⊙ D

        // (1) S_out = γ_{L-1} S_in + Σ_s g_s k̂_s u_sᵀ:
        //     du_s = g_s (K̂ dS)_s;  dk̂_s = g_s (U dSᵀ)_s;  x_s = g_s k̂_s·(dS u_s) -> db_{L-1} − db_s
        gemm_serial(0, 0, L, d, d, 1.0f, s.kh, d, s.dS, d, 0.0f, s.du, d);
        gemm_serial(0, 1, L, d, d, 1.0f, s.u, d, s.dS, d, 0.0f, s.dkh, d);
        // (r = L-1 nets to 0, and adding then removing x would round away db)
        memset(s.x, 0, L * sizeof(double));
        wy_dotd_rows(L - 1, d, s.dkh, d, s.kh, d, s.x);
        for (size_t r = 0; r + 1 < L; r++) {
            double x = s.gs[r] * s.x[r];
            db[L - 1] += x;
            db[r] -= x;
        }
        for (size_t r = 0; r < L; r++) {
            float g = s.gs[r];
            for (size_t j = 0; j < d; j++) s.du[r * d + j] *= g, s.dkh[r * d + j] *= g;
        }
        db[L - 1] += s.gam[L - 1] * dotd(Sin, s.dS, d * d);
        // dS_in starts as γ_{L-1} dS_out (the rest is added below)
        for (size_t i = 0; i < d * d; i++) s.dSin[i] = s.gam[L - 1] * s.dS[i];

        // (2) Y = diag(γ) Q̂ S_in + P U:  dU += Pᵀ dY;  with G = dY Uᵀ, dP = G ⊙ D
        //     (x_rs = P_rs G_rs -> db_r − db_s), dq̂ += dP K̂, dk̂ += dPᵀ Q̂;
        //     dq̂_r += γ_r (dY S_inᵀ)_r (x_r = γ_r q̂_r·(dY S_inᵀ)_r -> db_r);
        //     dS_in += Q̂ᵀ diag(γ) dY
        gemm_serial(1, 0, L, d, L, 1.0f, s.p, L, dyc, ldy, 1.0f, s.du, d);
        wy_gemm_lower(L, d, 1.0f, dyc, ldy, s.u, d, s.gm);  // j <= r read
        wy_pairs_db(L, s.p, s.gm, db);  // j < r only: at j = r, D = 1, its db terms cancel
        for (size_t r = 0; r < L; r++) {
            float *gr = s.gm + r * L;
            for (size_t j = 0; j < r; j++) gr[j] *= dcoef(&s, r, j);
            for (size_t j = r + 1; j < L; j++) gr[j] = 0.0f;
        }
        gemm_serial(0, 0, L, d, L, 1.0f, s.gm, L, s.kh, d, 0.0f, s.dqh, d);
        gemm_serial(1, 0, L, d, L, 1.0f, s.gm, L, s.qh, d, 1.0f, s.dkh, d);
        gemm_serial(0, 1, L, d, d, 1.0f, dyc, ldy, Sin, d, 0.0f, s.tmp, d);
        memset(s.x, 0, L * sizeof(double));
        wy_dotd_rows(L, d, s.tmp, d, s.qh, d, s.x);
        for (size_t r = 0; r < L; r++) {
            float gr = s.gam[r];
            const float *tr = s.tmp + r * d;
            db[r] += gr * s.x[r];
            for (size_t j = 0; j < d; j++) s.dqh[r * d + j] += gr * tr[j];
        }
        for (size_t r = 0; r < L; r++)  // diag(γ) Q̂ into s.tmp (dY S_inᵀ is used up)
            for (size_t i = 0; i < d; i++) s.tmp[r * d + i] = s.qh[r * d + i] * s.gam[r];
        gemm_serial(1, 0, d, d, L, 1.0f, s.tmp, d, dyc, ldy, 1.0f, s.dSin, d);

        // (3) (I + A) U = Z:  (I + Aᵀ) dZ = dU by back substitution;  dA_rs = −dz_r·u_s (s < r)
        wy_back_subst(L, d, s.m, s.du, s.dz);
        wy_gemm_lower(L, d, -1.0f, s.dz, d, s.u, d, s.gm);  // dA (j < r read)
        // (4) A_rs = β_r D_rs M_rs:  dβ_r += Σ_s dA_rs D_rs M_rs = Σ_s dA_rs A_rs / β_r, taken
        //     as dA_rs (D_rs M_rs) from M recomputed; x_rs = dA_rs A_rs -> db_r − db_s;
        //     dM_rs = dA_rs β_r D_rs, M = K̂K̂ᵀ (kept by solve_u): dk̂ += dM K̂ + dMᵀ K̂
        wy_pairs_db(L, s.gm, s.m, db);
        wy_dbeta_rows(L, s.gm, s.dm, s.kk, s.x);
        for (size_t r = 0; r < L; r++) {
            float *gr = s.gm + r * L;
            for (size_t j = 0; j < r; j++) gr[j] *= s.beta[r] * dcoef(&s, r, j);
            for (size_t j = r; j < L; j++) gr[j] = 0.0f;
            // (5) Z = diag(β) R: dβ_r += dz_r·R_r = dz_r·z_r / β_r, taken from R recomputed below
            s.dbeta[r] = (float)s.x[r];
        }
        gemm_serial(0, 0, L, d, L, 1.0f, s.gm, L, s.kh, d, 1.0f, s.dkh, d);
        gemm_serial(1, 0, L, d, L, 1.0f, s.gm, L, s.kh, d, 1.0f, s.dkh, d);

        // (5) (6) R = V − diag(γ) K̂ S_in, Z = diag(β) R:  dβ_r += dz_r·R_r;  dR = diag(β) dZ;
        //     dv += dR;  dKS = −diag(γ) dR: dk̂ += dKS S_inᵀ, dS_in += K̂ᵀ dKS,
        //     x_r = −γ_r (K̂ S_in)_r·dR_r -> db_r
        //     (K̂ S_in kept by solve_u; R into s.r and dR into s.du: both dead by now)
        for (size_t r = 0; r < L; r++) {
            step5_row(d, s.beta[r], s.gam[r], v + (t0 + r) * ld, s.ks + r * d, s.dz + r * d, s.r + r * d,
                      s.du + r * d, dv + (t0 + r) * ld);
            s.x[r] = s.dbeta[r];  // dβ_r so far
            s.x2[r] = 0;
        }
        wy_dotd_rows(L, d, s.dz, d, s.r, d, s.x);    // dβ_r += dz_r·R_r
        wy_dotd_rows(L, d, s.ks, d, s.du, d, s.x2);  // (K̂ S_in)_r·dR_r
        for (size_t r = 0; r < L; r++) {
            float *dzr = s.dz + r * d, gr = s.gam[r];
            const float *drr = s.du + r * d;
            for (size_t j = 0; j < d; j++) dzr[j] = -gr * drr[j];  // dKS
            db[r] -= gr * s.x2[r];
            if (da) da[t0 + r] += (float)(s.x[r] * s.beta[r] * s.omb[r]);
        }
        gemm_serial(0, 1, L, d, d, 1.0f, s.dz, d, Sin, d, 1.0f, s.dkh, d);
        gemm_serial(1, 0, d, d, L, 1.0f, s.kh, d, s.dz, d, 1.0f, s.dSin, d);
        float *t = s.dS;  // dL/dS_in is the next chunk's dL/dS_out: swap, no copy
        s.dS = s.dSin, s.dSin = t;

        // dL/db_r -> dL/dlog λ_t: t0 + u gets Σ_{r>=u} dL/db_r
        double suffix = 0;
        for (size_t u = L; u-- > 0;) {
            suffix += db[u];
            total += suffix;
            if (dll) dll[t0 + u] += (float)suffix;
        }

        // through the normalised features
        for (size_t r = 0; r < L; r++) {
            delta_features_backward(p, dq + (t0 + r) * ld, s.dqh + r * d, s.qh + r * d, s.sq[r],
                                    q + (t0 + r) * ld);
            delta_features_backward(p, dk + (t0 + r) * ld, s.dkh + r * d, s.kh + r * d, s.sk[r],
                                    k + (t0 + r) * ld);
        }
    }
    return total;
}

double delta_wy_flops(size_t T, size_t d, size_t chunk, double *fwd) {
    double total = 0, dd = (double)d, d2 = dd * dd;
    *fwd = 0;
    for (size_t t0 = 0; t0 < T; t0 += chunk) {
        size_t Ln = T - t0 < chunk ? T - t0 : chunk;
        double L = (double)Ln, solve = L * (L - 1) * dd, low = wy_gemm_lower_flops(Ln, d);
        // forward: K̂S, Q̂S, K̂ᵀU; K̂K̂ᵀ and Q̂K̂ᵀ (lower), PU; the substitution
        double f = 6 * L * d2 + 2 * low + 2 * L * L * dd + solve;
        // backward: the forward's K̂S, K̂K̂ᵀ, Q̂K̂ᵀ and substitution again; K̂dS, UdSᵀ,
        // dY S_inᵀ, Q̂ᵀdY, dZ S_inᵀ, K̂ᵀdZ; PᵀdY, GK̂, GᵀQ̂, dM K̂, dMᵀK̂; dY Uᵀ and
        // dZ Uᵀ (lower); the back substitution
        double b = (2 * L * d2 + 2 * low + solve) + 12 * L * d2 + 10 * L * L * dd + 2 * low + solve;
        *fwd += f;
        total += f + b;
    }
    return total;
}
