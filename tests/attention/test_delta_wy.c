// test_delta_wy.c — the WY/UT chunkwise delta rule (delta_wy.c) against the
// token recurrence (delta_chunk.c), the reference it replaces for training.
//
// Both float kernels on the same slab: outputs, ||S_T||, and every gradient —
// q, k, v, the β logits a, dL/dlog λ_t per position and its sum (what θ and the
// gate logits get) — for chunk sizes 1, 7, 16, 64, = T and > T, lengths 1, 63,
// 130, λ from 0.05 to 0.999 (one λ, and one per position), both key norms
// (sum with elu1, l2 with identity φ), zero and identity initial state, head
// sizes 8, 16, 20, 32, β near 0 and 1. Tolerance: 1e-4 relative to the largest
// |recurrence value| of each tensor (observed ~1e-7..1e-6; VERBOSE=1 prints).
// The recurrence itself is checked against a double reference and finite
// differences in test_delta.c; the kind (which trains with this form) too.
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "attention/delta_chunk.h"
#include "attention/delta_wy.h"
#include "attn_check.h"
#include "test.h"
#include "util/rng.h"

typedef struct {
    const char *what;
    size_t T, dh, chunk;
    double lam;       // θ = logit(lam); per position x_t = θ + gscale·N(0,1)
    double gscale;    // 0: one λ for the slab
    KeyNorm key_norm;
    int state_identity;
    double abias;     // β logits a = abias + 1.5·N(0,1)
} Case;

static int verbose(void) { return getenv("VERBOSE") != NULL; }

static float *zeros(size_t n) { return calloc(n ? n : 1, sizeof(float)); }
static float *nans(size_t n) {
    float *x = malloc((n ? n : 1) * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = NAN;
    return x;
}

static double rel(const float *got, const float *want, size_t n) {
    return max_rel_err(got, want, n, 1e-30);
}

static void check(const Case *cs, unsigned long long seed) {
    Rng r;
    rng_seed(&r, seed);
    size_t T = cs->T, d = cs->dh, n = T * d;
    float *q = randn(&r, n, 1, 0), *k = randn(&r, n, 1, 0), *v = randn(&r, n, 1, 0);
    float *a = randn(&r, T, 1.5, cs->abias), *dy = randn(&r, n, 1, 0), *x = randn(&r, T, cs->gscale, 0);
    double theta = log(cs->lam / (1 - cs->lam));
    float *lam_t = zeros(T), *ll = zeros(T);
    for (size_t t = 0; t < T; t++) {
        lam_t[t] = (float)decay_sigmoid(theta + x[t]);
        ll[t] = (float)decay_log_sigmoid(theta + x[t]);
    }
    int per_pos = cs->gscale > 0;
    DeltaSlab p = {.T = T, .dh = d, .chunk = cs->chunk < T ? cs->chunk : T,
                   .fmap = cs->key_norm == KEYNORM_L2 ? FMAP_IDENTITY : FMAP_ELU1, .eps = 1e-6f,
                   .normalize = 1, .key_norm = cs->key_norm, .state_identity = cs->state_identity,
                   .lam = (float)decay_sigmoid(theta), .lam_t = per_pos ? lam_t : NULL,
                   .loglam = decay_log_sigmoid(theta), .ll = per_pos ? ll : NULL};
    float *y[2], *dq[2], *dk[2], *dv[2], *da[2], *dl[2];
    double norm[2] = {0, 0}, dsum[2] = {0, 0};
    for (int f = 0; f < 2; f++) {  // 0: recurrence, 1: WY
        float *saved = nans(delta_saved_floats(&p));
        float *scr = nans(f ? delta_wy_scratch_floats(&p) : delta_scratch_floats(&p));
        y[f] = nans(n), dq[f] = zeros(n), dk[f] = zeros(n), dv[f] = zeros(n), da[f] = zeros(T);
        dl[f] = zeros(T);
        if (f) {
            norm[f] = delta_wy_forward(&p, y[f], saved, scr, q, k, v, a);
            dsum[f] = delta_wy_backward(&p, dq[f], dk[f], dv[f], da[f], dl[f], dy, saved, scr, q, k, v, a);
        } else {
            norm[f] = delta_chunk_forward(&p, y[f], saved, scr, q, k, v, a);
            dsum[f] = delta_chunk_backward(&p, dq[f], dk[f], dv[f], da[f], dl[f], dy, saved, scr, q, k, v, a);
        }
        free(saved), free(scr);
    }
    double e[8] = {rel(y[1], y[0], n), rel(dq[1], dq[0], n), rel(dk[1], dk[0], n), rel(dv[1], dv[0], n),
                   rel(da[1], da[0], T), rel(dl[1], dl[0], T),
                   fabs(norm[1] - norm[0]) / fmax(norm[0], 1e-30), 0};
    double mag = 0;  // dsum relative to the per-position magnitudes it sums
    for (size_t t = 0; t < T; t++) mag += fabs(dl[0][t]);
    e[7] = fabs(dsum[1] - dsum[0]) / fmax(mag, 1e-30);
    int bad = 0;
    for (int i = 0; i < 8; i++) bad |= !(e[i] <= 1e-4);
    if (bad || verbose())
        fprintf(stderr, "  %-28s T %3zu d %2zu C %3zu lam %.3g g %.1f: y %.1e dq %.1e dk %.1e dv %.1e da %.1e "
                        "dll %.1e norm %.1e sum %.1e\n",
                cs->what, T, d, cs->chunk, cs->lam, cs->gscale, e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]);
    for (int i = 0; i < 8; i++) CHECK(e[i] <= 1e-4);
    for (int f = 0; f < 2; f++) free(y[f]), free(dq[f]), free(dk[f]), free(dv[f]), free(da[f]), free(dl[f]);
    free(q), free(k), free(v), free(a), free(dy), free(x), free(lam_t), free(ll);
}

static const Case BASE = {"base", 130, 8, 16, 0.9, 0, KEYNORM_SUM, 0, 0};

// every factor for both key norms and both decay forms
static void each(Case c, unsigned long long seed) {
    for (int kn = 0; kn < 2; kn++)
        for (int g = 0; g < 2; g++) {
            c.key_norm = kn ? KEYNORM_L2 : KEYNORM_SUM;
            c.gscale = g ? 1.0 : 0.0;
            check(&c, seed * 4 + (unsigned)(kn * 2 + g));
        }
}

static void test_chunk_sizes(void) {
    size_t chunks[] = {1, 7, 16, 64, 130, 200};
    for (size_t i = 0; i < 6; i++) {
        Case c = BASE;
        c.what = "chunk", c.chunk = chunks[i];
        each(c, 10 + i);
    }
}

static void test_lengths(void) {
    size_t lens[] = {1, 63, 130};
    size_t chunks[] = {7, 16, 64};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            Case c = BASE;
            c.what = "length", c.T = lens[i], c.chunk = chunks[j];
            each(c, 30 + 3 * i + j);
        }
}

static void test_lambda(void) {
    double lams[] = {0.05, 0.3, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < 5; i++) {
        Case c = BASE;
        c.what = "lambda", c.lam = lams[i], c.chunk = 64;
        each(c, 50 + i);
        c.what = "lambda, identity state", c.state_identity = 1, c.chunk = 7;
        each(c, 60 + i);
    }
}

static void test_head_sizes_and_beta(void) {
    size_t dhs[] = {16, 20, 32};
    for (size_t i = 0; i < 3; i++) {
        Case c = BASE;
        c.what = "head size", c.dh = dhs[i], c.T = 63, c.chunk = 16;
        each(c, 70 + i);
    }
    double ab[] = {-8, 8};
    for (size_t i = 0; i < 2; i++) {
        Case c = BASE;
        c.what = i ? "beta near 1" : "beta near 0", c.abias = ab[i], c.chunk = 16;
        each(c, 80 + i);
    }
}

int main(void) {
    TEST(test_chunk_sizes);
    TEST(test_lengths);
    TEST(test_lambda);
    TEST(test_head_sizes_and_beta);
    return test_summary();
}
