// test_delta_bits.c — the token recurrence's fast kernels against plain per-row
// code, bit for bit.
//
// delta_chunk.c runs the recurrence with fused kernels: one pass over S per
// position for the write and both read-outs, 16 rows' lane sums reduced in one
// shuffle tree, du kept in registers, the dλ sums after the sweep, the
// normalisations of 8 rows side by side. Each must give every float the same
// bits as the plain code written here, one value at a time in the order the
// kernel's contract states (delta_chunk.c, "vector kernels"): a dot product
// over a row is 16 lane sums (lane l takes j ≡ l mod 16, each from 0, j
// ascending), added pairwise (l += l+8, then +4, +2, +1); a matrix-vector read
// (Sᵀx) and a column of du sum from 0 over the rows in order; the dλ terms sum
// in double over the rows in order. Head sizes 8 and 20 take the lanes' tail,
// 16 to 64 the 16-row trees (d a multiple of 16), 48 three vectors a row, 80
// the per-row fallback, 28 three column strips and a tail on AVX2 (8-float
// strips: 8 one, 20 and 48 two, 32 four); chunk lengths cut the sequence unevenly. Each case
// runs twice: on head-major slabs (rows d apart) and in place, its rows slices
// of wider rows as delta.c reads the model's projection (rows ld apart; with
// φ = identity the normalisations read those rows directly).
// test_delta.c checks the same kernels against a double-precision reference
// and finite differences; this file pins their rounding.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/delta_chunk.h"
#include "attention/feature_map.h"
#include "delta_plain.h"
#include "test.h"
#include "util/rng.h"

// ---- the plain code ----

static float lane_dot(const float *a, const float *b, size_t n) {
    float acc[16] = {0};
    for (size_t j = 0; j < n; j++) acc[j % 16] += a[j] * b[j];
    for (size_t w = 8; w >= 1; w /= 2)
        for (size_t l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0];
}

static float lam_of(const DeltaSlab *p, size_t t) { return p->lam_t ? p->lam_t[t] : p->lam; }

// Forward over all T positions keeping every state: states (T+1, d, d), S_{t-1}
// at t. kh, qh (T, d); sk, sq, beta, omb (T); e (T, d). Returns ||S_{T-1}||.
typedef struct {
    float *states, *kh, *qh, *e, *sk, *sq, *beta, *omb;
} Plain;

static double plain_forward(const DeltaSlab *p, const Plain *w, float *y, const float *q, const float *k,
                            const float *v, const float *a) {
    size_t T = p->T, d = p->dh;
    float *S = w->states;
    memset(S, 0, d * d * sizeof(float));
    if (p->state_identity)
        for (size_t i = 0; i < d; i++) S[i * d + i] = 1.0f;
    for (size_t t = 0; t < T; t++) {
        float *P = w->states + t * d * d, *Sn = P + d * d, *kh = w->kh + t * d, *qh = w->qh + t * d;
        float *e = w->e + t * d, lam = lam_of(p, t);
        w->sk[t] = plain_features(p, kh, k + t * d);
        w->sq[t] = plain_features(p, qh, q + t * d);
        delta_beta(a[t], &w->beta[t], &w->omb[t]);
        plain_token(d, lam, w->beta[t], P, Sn, kh, qh, e, y + t * d, v + t * d);
    }
    double ss = 0;
    for (size_t i = 0; i < d * d; i++) ss += (double)w->states[T * d * d + i] * w->states[T * d * d + i];
    return sqrt(ss);
}

static void plain_features_backward(const DeltaSlab *p, float *dx, float *dout, const float *out, float s,
                                    const float *x) {
    size_t d = p->dh;
    if (p->normalize) {
        float proj = lane_dot(dout, out, d);
        for (size_t i = 0; i < d; i++)
            dout[i] = p->key_norm == KEYNORM_L2 ? (dout[i] - proj * out[i]) / s : (dout[i] - proj) / s;
    }
    fmap_backward(p->fmap, dx, dout, x, d);
}

// the per-row backward (the code the fast kernels replaced); G (d, d) and the
// (d) vectors u, du, dqh, dkh are work space
static double plain_backward(const DeltaSlab *p, const Plain *w, float *G, float *vec, float *dq, float *dk,
                             float *dv, float *da, float *dlam_t, const float *dy, const float *q, const float *k) {
    size_t T = p->T, d = p->dh;
    float *u = vec, *du = vec + d, *dqh = vec + 2 * d, *dkh = vec + 3 * d;
    double dlam = 0;
    memset(G, 0, d * d * sizeof(float));
    // positions in reverse; chunk boundaries do not show in the values, only
    // in the order dλ is summed (each chunk's positions, last chunk first)
    double *dll = malloc((T ? T : 1) * sizeof(double));
    for (size_t t = T; t-- > 0;) {
        const float *P = w->states + t * d * d, *kh = w->kh + t * d, *qh = w->qh + t * d, *e = w->e + t * d;
        const float *dyt = dy + t * d;
        float beta = w->beta[t], lam = lam_of(p, t), lb = lam * beta;
        for (size_t j = 0; j < d; j++) u[j] = beta * e[j];
        float ud = lane_dot(u, dyt, d);
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) G[i * d + j] = G[i * d + j] + qh[i] * dyt[j];
        for (size_t j = 0; j < d; j++) {
            du[j] = 0.0f;
            for (size_t i = 0; i < d; i++) du[j] = du[j] + kh[i] * G[i * d + j];
        }
        double dl_a = 0, dl_b = 0;
        for (size_t i = 0; i < d; i++) {
            dqh[i] = lam * lane_dot(P + i * d, dyt, d) + kh[i] * ud;
            dkh[i] = lane_dot(G + i * d, u, d);
            dl_a += lane_dot(P + i * d, G + i * d, d);
        }
        if (da) da[t] += lane_dot(du, e, d) * beta * w->omb[t];
        for (size_t j = 0; j < d; j++) dv[t * d + j] += beta * du[j];
        for (size_t i = 0; i < d; i++) {
            float pd = lane_dot(P + i * d, du, d);
            dkh[i] -= lb * pd;
            dl_b += (double)kh[i] * pd;
            for (size_t j = 0; j < d; j++) G[i * d + j] = lam * G[i * d + j] - (lb * kh[i]) * du[j];
        }
        dll[t] = (dl_a - (double)beta * dl_b) * lam;
        if (dlam_t) dlam_t[t] += (float)dll[t];
        plain_features_backward(p, dq + t * d, dqh, qh, w->sq[t], q + t * d);
        plain_features_backward(p, dk + t * d, dkh, kh, w->sk[t], k + t * d);
    }
    for (size_t c = (T + p->chunk - 1) / p->chunk; c-- > 0;) {
        size_t t0 = c * p->chunk, L = T - t0 < p->chunk ? T - t0 : p->chunk;
        for (size_t r = L; r-- > 0;) dlam += dll[t0 + r];
    }
    free(dll);
    return dlam;
}

// ---- the comparison ----

static void fill(float *x, size_t n, float scale, Rng *r) {
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
}

static int same(const void *a, const void *b, size_t bytes, const char *what, const DeltaSlab *p) {
    if (memcmp(a, b, bytes) == 0) return 1;
    fprintf(stderr, "  %s differs: d %zu T %zu chunk %zu fmap %d normalize %d key_norm %d identity %d lam_t %d\n",
            what, p->dh, p->T, p->chunk, (int)p->fmap, p->normalize, (int)p->key_norm, p->state_identity,
            p->lam_t != NULL);
    return 0;
}

// The kernel's outputs in place: q, k, v side by side in rows LD = 3d + GAP
// floats apart (as a head's slices of the projection's rows), dq, dk, dv the
// same in the gradient's rows, y and dy in rows LDY = d + GAP apart. `out`
// holds the starting values in run_case's layout and gets the results. The
// gaps hold NaN: one read would reach an output; the gradient's and y's must
// come out untouched. The rows of a second slab follow (has_next: the kernels
// ask for them ahead, which must change nothing).
enum { GAP = 7 };
static int kernel_in_place(DeltaSlab p, float *out, double *norm, double *dloglam, const float *in,
                           float *saved, float *scratch, size_t ns) {
    size_t T = p.T, d = p.dh, Td = T * d, ld = 3 * d + GAP, ldy = d + GAP;
    const float *a = in + 4 * Td;
    p.ld = ld, p.ldy = ldy, p.has_next = 1, p.next = (ptrdiff_t)(T * ld), p.next_y = (ptrdiff_t)(T * ldy);
    size_t nx = 2 * T * ld, ny = 2 * T * ldy;
    float *x = malloc((2 * nx + 2 * ny) * sizeof(float)), *g = x + nx, *y = g + nx, *dy = y + ny;
    for (size_t i = 0; i < 2 * nx + 2 * ny; i++) x[i] = NAN;
    for (size_t t = 0; t < T; t++)
        for (size_t j = 0; j < 3; j++) {  // q, k, v (in) and dq, dk, dv (out + Td ...)
            memcpy(x + t * ld + j * d, in + j * Td + t * d, d * sizeof(float));
            memcpy(g + t * ld + j * d, out + (j + 1) * Td + t * d, d * sizeof(float));
        }
    for (size_t t = 0; t < T; t++) {
        memcpy(y + t * ldy, out + t * d, d * sizeof(float));
        memcpy(dy + t * ldy, in + 3 * Td + t * d, d * sizeof(float));
    }
    for (size_t i = 0; i < ns; i++) scratch[i] = NAN;
    *norm = delta_chunk_forward(&p, y, saved, scratch, x, x + d, x + 2 * d, a);
    for (size_t i = 0; i < ns; i++) scratch[i] = NAN;
    *dloglam = delta_chunk_backward(&p, g, g + d, g + 2 * d, out + 4 * Td, p.lam_t ? out + 4 * Td + T : NULL, dy,
                                    saved, scratch, x, x + d, x + 2 * d, a);
    int gaps = 1;
    for (size_t t = 0; t < 2 * T; t++) {
        for (size_t i = t < T ? 3 * d : 0; i < ld; i++) gaps &= isnan(g[t * ld + i]);
        for (size_t i = t < T ? d : 0; i < ldy; i++) gaps &= isnan(y[t * ldy + i]);
    }
    for (size_t t = 0; t < T; t++) {
        memcpy(out + t * d, y + t * ldy, d * sizeof(float));
        for (size_t j = 0; j < 3; j++) memcpy(out + (j + 1) * Td + t * d, g + t * ld + j * d, d * sizeof(float));
    }
    free(x);
    if (!gaps) fprintf(stderr, "  in place: a write outside the rows' slices (d %zu T %zu)\n", d, T);
    return gaps;
}

// every output of one kernel run (out, ||S||, dlog λ) against the plain code's
static int same_outputs(const float *o, double n, double l, const float *want, double n_want, double l_want,
                        const DeltaSlab *p) {
    size_t T = p->T, Td = T * p->dh;
    return same(o, want, Td * sizeof(float), "y", p) && same(&n, &n_want, sizeof n, "||S||", p) &&
           same(o + Td, want + Td, Td * sizeof(float), "dq", p) &&
           same(o + 2 * Td, want + 2 * Td, Td * sizeof(float), "dk", p) &&
           same(o + 3 * Td, want + 3 * Td, Td * sizeof(float), "dv", p) &&
           same(o + 4 * Td, want + 4 * Td, 2 * T * sizeof(float), "da, dlam_t", p) &&
           same(&l, &l_want, sizeof l, "dlog λ", p);
}

// one slab through delta_chunk_forward/backward (head-major and in place) and
// the plain code, from the same inputs
static int run_case(DeltaSlab p, unsigned long long seed) {
    size_t T = p.T, d = p.dh, Td = T * d;
    Rng r;
    rng_seed(&r, seed);
    float *in = malloc((4 * Td + 2 * T) * sizeof(float));
    float *q = in, *k = q + Td, *v = k + Td, *dy = v + Td, *a = dy + Td, *lam_t = a + T;
    fill(q, Td, 1.0f, &r), fill(k, Td, 1.0f, &r), fill(v, Td, 1.0f, &r), fill(dy, Td, 1.0f, &r);
    fill(a, T, 1.5f, &r);
    for (size_t t = 0; t < T; t++) lam_t[t] = 0.8f + 0.2f * rng_f32(&r);
    if (p.lam_t) p.lam_t = lam_t;

    // outputs of each side: y, dq, dk, dv (T, d), da, dlam_t (T); gradients start non-zero (backward adds)
    size_t nout = 4 * Td + 2 * T;
    float *o1 = malloc(nout * sizeof(float)), *o2 = malloc(nout * sizeof(float)), *o3 = malloc(nout * sizeof(float));
    fill(o1, nout, 0.1f, &r);
    memcpy(o2, o1, nout * sizeof(float));
    memcpy(o3, o1, nout * sizeof(float));
    float *saved = malloc(delta_saved_floats(&p) * sizeof(float));
    // scratch is free to reuse between calls (delta.c hands one to all of a
    // task's slabs): NaN in it before each call must not reach any output
    size_t ns = delta_scratch_floats(&p);
    float *scratch = malloc(ns * sizeof(float));
    for (size_t i = 0; i < ns; i++) scratch[i] = NAN;
    double n1 = delta_chunk_forward(&p, o1, saved, scratch, q, k, v, a);
    for (size_t i = 0; i < ns; i++) scratch[i] = NAN;
    double l1 = delta_chunk_backward(&p, o1 + Td, o1 + 2 * Td, o1 + 3 * Td, o1 + 4 * Td, p.lam_t ? o1 + 4 * Td + T : NULL,
                                     dy, saved, scratch, q, k, v, a);

    Plain w;
    float *pw = malloc(((T + 1) * d * d + 3 * Td + 6 * T + d * d + 4 * d) * sizeof(float));
    w.states = pw, w.kh = w.states + (T + 1) * d * d, w.qh = w.kh + Td, w.e = w.qh + Td;
    w.sk = w.e + Td, w.sq = w.sk + T, w.beta = w.sq + T, w.omb = w.beta + T;
    float *G = w.omb + T, *vec = G + d * d;
    double n2 = plain_forward(&p, &w, o2, q, k, v, a);
    double l2 = plain_backward(&p, &w, G, vec, o2 + Td, o2 + 2 * Td, o2 + 3 * Td, o2 + 4 * Td,
                               p.lam_t ? o2 + 4 * Td + T : NULL, dy, q, k);

    double n3, l3;
    int ok3 = kernel_in_place(p, o3, &n3, &l3, in, saved, scratch, ns);
    int ok = same_outputs(o1, n1, l1, o2, n2, l2, &p);
    if (!(ok3 && same_outputs(o3, n3, l3, o2, n2, l2, &p))) {
        fprintf(stderr, "  (in place, rows %zu and %zu floats apart)\n", 3 * d + GAP, d + GAP);
        ok = 0;
    }
    free(in), free(o1), free(o2), free(o3), free(saved), free(scratch), free(pw);
    return ok;
}

static DeltaSlab slab(size_t T, size_t d, size_t chunk) {
    DeltaSlab p = {.T = T, .dh = d, .chunk = chunk, .fmap = FMAP_IDENTITY, .eps = 1e-6f, .normalize = 1,
                   .key_norm = KEYNORM_L2, .lam = 0.95f};
    return p;
}

static void test_head_sizes_bit_identical(void) {
    size_t dhs[] = {8, 16, 20, 28, 32, 48, 64, 80};
    for (size_t b = 0; b < sizeof dhs / sizeof dhs[0]; b++) {
        CHECK(run_case(slab(37, dhs[b], 16), 100 + b));  // chunks 16, 16, 5
        CHECK(run_case(slab(64, dhs[b], 64), 200 + b));  // the baby model's slab
    }
}

static void test_variants_bit_identical(void) {
    size_t dhs[] = {20, 32};
    for (size_t b = 0; b < 2; b++)
        for (int v = 0; v < 7; v++) {
            DeltaSlab p = slab(23, dhs[b], v % 3 == 0 ? 1 : v % 3 == 1 ? 7 : 23);
            p.lam = v == 0 ? 1.0f : 0.9f;
            if (v == 1 || v == 4) p.lam_t = &p.lam;  // run_case fills λ_t
            if (v >= 2) p.fmap = FMAP_ELU1, p.key_norm = KEYNORM_SUM;
            if (v == 3) p.normalize = 0;
            if (v == 5) p.state_identity = 1, p.fmap = FMAP_RELU;
            if (v == 6) p.fmap = FMAP_IDENTITY, p.chunk = 16;  // sums of identity φ (allow_identity_normalize), 8 rows at once
            CHECK(run_case(p, 300 + 10 * b + (unsigned long long)v));
        }
}

int main(void) {
    TEST(test_head_sizes_bit_identical);
    TEST(test_variants_bit_identical);
    return test_summary();
}
