// test_optim.c — adamw_update against hand-computed steps and a double
// reference of several steps, SIMD body vs scalar tail agreement; global_norm
// against a long double sum; bit-identical results for 1, 2 and 3 threads.
#include "kernels/nn.h"
#include "nn_check.h"

// With a constant gradient, m / (1 - b1^t) = g' and v / (1 - b2^t) = g'^2
// exactly, so each step is p = p (1 - lr wd) - lr g' / (|g'| + eps): by hand,
// p = 1, g' = 0.5 * 2 = 1, lr 0.1, wd 0.1 gives 0.89, 0.7811, 0.673289; without
// decay 0.9, 0.8, 0.7. Betas 3/4 and 15/16 are exact in float, so the moments
// after three steps are exactly 1 - (3/4)^3 and 1 - (15/16)^3.
static void test_adamw_hand_computed(void) {
    float p[2] = {1.0f, 1.0f}, g[2] = {0.5f, 0.5f}, m[2] = {0}, v[2] = {0};
    const double want_wd[3] = {0.89, 0.7811, 0.673289}, want_nowd[3] = {0.9, 0.8, 0.7};
    for (long step = 1; step <= 3; step++) {
        adamw_update(p, g, m, v, 1, 0.1f, 0.75f, 0.9375f, 1e-8f, 0.1f, 2.0f, step);
        adamw_update(p + 1, g + 1, m + 1, v + 1, 1, 0.1f, 0.75f, 0.9375f, 1e-8f, 0.0f, 2.0f, step);
        // a few float roundings per step on values <= 1
        CHECK_NEAR(p[0], want_wd[step - 1], 4e-7 * (double)step);
        CHECK_NEAR(p[1], want_nowd[step - 1], 4e-7 * (double)step);
    }
    CHECK(m[0] == 0.578125f);       // 1 - 27/64
    CHECK(v[0] == 0.176025390625f); // 1 - 3375/4096
}

typedef struct {
    double p, m, v;
} AdamRef;

// the formula, in double, on float-valued hyper-parameters
static void adamw_ref(AdamRef *s, double g, double lr, double b1, double b2, double eps, double wd,
                      double scale, long step) {
    g *= scale;
    s->m = b1 * s->m + (1 - b1) * g;
    s->v = b2 * s->v + (1 - b2) * g * g;
    double mhat = s->m / (1 - pow(b1, (double)step)), vhat = s->v / (1 - pow(b2, (double)step));
    s->p = s->p * (1 - lr * wd);
    s->p -= lr * mhat / (sqrt(vhat) + eps);
}

// five steps on 37 values (vector body + tail) with fresh random gradients,
// some of them 0, against the double reference
static void test_adamw_matches_double_reference(void) {
    enum { n = 37 };
    const float lr = 3e-3f, b1 = 0.9f, b2 = 0.99f, eps = 1e-8f, scale = 0.6f;
    for (int with_wd = 0; with_wd <= 1; with_wd++) {
        float wd = with_wd ? 0.1f : 0.0f;
        Rng rng;
        rng_seed(&rng, 51 + (uint64_t)with_wd);
        float p[n], g[n], m[n] = {0}, v[n] = {0};
        AdamRef ref[n];
        fill_uniform(&rng, p, n, -2, 2);
        for (int i = 0; i < n; i++) ref[i] = (AdamRef){p[i], 0, 0};
        double ep = 0, em = 0, ev = 0;
        for (long step = 1; step <= 5; step++) {
            fill_uniform(&rng, g, n, -3, 3);
            g[step] = 0.0f;
            adamw_update(p, g, m, v, n, lr, b1, b2, eps, wd, scale, step);
            double mmax = 0, vmax = 0;
            for (int i = 0; i < n; i++) {
                adamw_ref(&ref[i], g[i], lr, b1, b2, eps, wd, scale, step);
                mmax = fmax(mmax, fabs(ref[i].m));
                vmax = fmax(vmax, ref[i].v);
            }
            for (int i = 0; i < n; i++) {
                // p: an ulp of p per step plus a few ulp of the step (<= ~lr)
                double pu = (double)step * FLT_EPSILON * (fabs(ref[i].p) + 8 * lr);
                ep = fmax(ep, fabs(p[i] - ref[i].p) / pu);
                // m mixes signs (it can cancel to ~0), so it is measured against
                // the largest m; v is a sum of positives, measured elementwise
                em = fmax(em, fabs(m[i] - ref[i].m) / (FLT_EPSILON * mmax));
                ev = fmax(ev, fabs(v[i] - ref[i].v) / (FLT_EPSILON * (ref[i].v + 1e-30 * vmax)));
            }
        }
        // in units of the bounds above; m and v: a couple of roundings per step
        CHECK(ep <= 1.0);
        CHECK(em <= 5.0);
        CHECK(ev <= 5.0);
        if (t_case_failed) fprintf(stderr, "    wd=%g: p %.3g m %.3g v %.3g\n", wd, ep, em, ev);
    }
}

// every position (SIMD lanes, scalar tail) must produce the same bits
static void test_adamw_simd_and_tail_agree(void) {
    enum { n = 37 };
    float p[n], g[n], m[n], v[n];
    for (int i = 0; i < n; i++) p[i] = 0.7f, g[i] = -1.3f, m[i] = 0.2f, v[i] = 0.05f;
    adamw_update(p, g, m, v, n, 1e-2f, 0.9f, 0.95f, 1e-6f, 0.1f, 0.8f, 7);
    for (int i = 1; i < n; i++) {
        CHECK(memcmp(&p[i], &p[0], sizeof(float)) == 0);
        CHECK(memcmp(&m[i], &m[0], sizeof(float)) == 0);
        CHECK(memcmp(&v[i], &v[0], sizeof(float)) == 0);
    }
}

static void test_global_norm(void) {
    CHECK(global_norm(NULL, 0) == 0.0);
    float one[1] = {-3.0f};
    CHECK(global_norm(one, 1) == 3.0);
    // squares beyond the float range: the accumulation must be in double
    float big[2] = {3e38f, -3e38f};
    CHECK_NEAR(global_norm(big, 2), sqrt(2.0) * (double)big[0], 1e-15 * 4.3e38);
    size_t sizes[] = {37, 8191, 100003};
    Rng rng;
    rng_seed(&rng, 61);
    for (size_t s = 0; s < 3; s++) {
        size_t n = sizes[s];
        float *g = xmalloc(n * sizeof(float));
        fill_uniform(&rng, g, n, -1, 1);
        long double sum = 0;
        for (size_t i = 0; i < n; i++) sum += (long double)g[i] * g[i];
        double want = (double)sqrtl(sum);
        // double sums: worst case n eps_double relative, far below 1e-12 here
        CHECK_NEAR(global_norm(g, n), want, 1e-12 * want);
        free(g);
    }
}

typedef struct {
    size_t n;
    float *p, *g, *m, *v;
} OptDet;

static void opt_det_run(void *vctx, unsigned char *bytes) {
    OptDet *k = vctx;
    float *p = (float *)bytes, *m = p + k->n, *v = m + k->n;
    memcpy(p, k->p, k->n * sizeof(float));
    memcpy(m, k->m, k->n * sizeof(float));
    memcpy(v, k->v, k->n * sizeof(float));
    adamw_update(p, k->g, m, v, k->n, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, 0.5f, 3);
    double norm = global_norm(k->g, k->n);
    memcpy(v + k->n, &norm, sizeof norm);
}

// n = 100003: global_norm has 13 blocks of 8192, adamw 13 grains of 8192
static void test_optim_thread_count_invariant(void) {
    OptDet k = {100003, NULL, NULL, NULL, NULL};
    Rng rng;
    rng_seed(&rng, 71);
    k.p = xmalloc(k.n * sizeof(float));
    k.g = xmalloc(k.n * sizeof(float));
    k.m = xmalloc(k.n * sizeof(float));
    k.v = xmalloc(k.n * sizeof(float));
    fill_uniform(&rng, k.p, k.n, -1, 1);
    fill_uniform(&rng, k.g, k.n, -1, 1);
    fill_uniform(&rng, k.m, k.n, -0.1f, 0.1f);
    fill_uniform(&rng, k.v, k.n, 0, 0.01f);
    CHECK(same_bits_for_1_2_3_threads(opt_det_run, &k, 3 * k.n * sizeof(float) + sizeof(double), 2));
    free(k.p), free(k.g), free(k.m), free(k.v);
}

// adamw_update_spans in one dispatch against adamw_update called span by span
// (wd where the span decays, 0 elsewhere): every element of a span gets the
// same bits, the gaps between spans stay untouched, at 1, 2 and 3 threads.
// Spans of awkward lengths around the 8192-element grain, one of length 1,
// gaps of 0 and several elements, both decay flags side by side.
static void test_adamw_spans_match_per_span(void) {
    enum { N = 40000 };
    const AdamSpan spans[] = {{0, 5, 1}, {5, 9000, 0}, {9010, 8192, 1}, {17202, 1, 1},
                              {17210, 13001, 0}, {30211, 9700, 1}};
    const size_t ns = sizeof spans / sizeof spans[0];
    Rng rng;
    rng_seed(&rng, 73);
    float *p0 = xmalloc(N * sizeof(float)), *g = xmalloc(N * sizeof(float)), *m0 = xmalloc(N * sizeof(float));
    float *v0 = xmalloc(N * sizeof(float));
    fill_uniform(&rng, p0, N, -1, 1);
    fill_uniform(&rng, g, N, -1, 1);
    fill_uniform(&rng, m0, N, -0.1f, 0.1f);
    fill_uniform(&rng, v0, N, 0, 0.01f);
    float *want = xmalloc(3 * N * sizeof(float)), *got = xmalloc(3 * N * sizeof(float));
    memcpy(want, p0, N * sizeof(float));
    memcpy(want + N, m0, N * sizeof(float));
    memcpy(want + 2 * N, v0, N * sizeof(float));
    pool_init(1);
    for (size_t s = 0; s < ns; s++) {
        size_t o = spans[s].offset;
        adamw_update(want + o, g + o, want + N + o, want + 2 * N + o, spans[s].n, 1e-3f, 0.9f, 0.99f, 1e-8f,
                     spans[s].decay ? 0.1f : 0.0f, 0.5f, 4);
    }
    for (int t = 1; t <= 3; t++) {
        pool_init(t);
        memcpy(got, p0, N * sizeof(float));
        memcpy(got + N, m0, N * sizeof(float));
        memcpy(got + 2 * N, v0, N * sizeof(float));
        adamw_update_spans(got, g, got + N, got + 2 * N, spans, ns, 1e-3f, 0.9f, 0.99f, 1e-8f, 0.1f, 0.5f, 4);
        CHECK(memcmp(got, want, 3 * N * sizeof(float)) == 0);
    }
    CHECK(memcmp(want + 5, p0 + 5, 5 * sizeof(float)) != 0);  // the spans did move their elements
    CHECK(memcmp(want + 9005, p0 + 9005, 5 * sizeof(float)) == 0);  // a gap did not move
    pool_init(1);
    free(p0), free(g), free(m0), free(v0), free(want), free(got);
}

int main(void) {
    TEST(test_adamw_hand_computed);
    TEST(test_adamw_matches_double_reference);
    TEST(test_adamw_simd_and_tail_agree);
    TEST(test_global_norm);
    TEST(test_optim_thread_count_invariant);
    TEST(test_adamw_spans_match_per_span);
    pool_shutdown();
    return test_summary();
}
