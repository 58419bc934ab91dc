// test_crossentropy.c — crossentropy_forward/backward (softmax fused with the
// NLL) against a double log-softmax reference: probs, per-row losses and the
// mean with some targets < 0 (unscored), central-difference gradients of the
// logits, large logits, degenerate sizes, and bit-identical results for 1, 2
// and 3 threads.
#include "kernels/nn.h"
#include "nn_check.h"

// reference loss: mean over rows with target >= 0 of logsumexp(l) - l[target],
// the composition log-softmax then pick, in double
static double ce_ref(double *probs, double *losses, const double *l, const int *tgt, size_t N,
                     size_t V) {
    double total = 0;
    size_t scored = 0;
    for (size_t r = 0; r < N; r++) {
        const double *lr = l + r * V;
        double mx = lr[0], s = 0;
        for (size_t v = 1; v < V; v++) mx = fmax(mx, lr[v]);
        for (size_t v = 0; v < V; v++) s += exp(lr[v] - mx);
        // relative to the max, so logits near +-1000 lose nothing to cancellation
        double lse0 = log(s);
        if (probs)
            for (size_t v = 0; v < V; v++) probs[r * V + v] = exp((lr[v] - mx) - lse0);
        double loss = tgt[r] >= 0 ? lse0 - (lr[tgt[r]] - mx) : 0;
        if (losses) losses[r] = loss;
        if (tgt[r] >= 0) total += loss, scored++;
    }
    return scored ? total / (double)scored : 0;
}

typedef struct {
    double *l;
    const int *tgt;
    size_t N, V;
    double dloss;
} CeLoss;

static double ce_loss(void *vctx) {
    CeLoss *k = vctx;
    return k->dloss * ce_ref(NULL, NULL, k->l, k->tgt, k->N, k->V);
}

// `spread` scales the logits; `shift` moves them all (softmax must not care)
static void check_shape(size_t N, size_t V, float spread, float shift, int unscored_every,
                        uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    size_t NV = N * V;
    int *tgt = xmalloc(N * sizeof(int));
    size_t want_scored = 0;
    for (size_t r = 0; r < N; r++) {
        int unscored = unscored_every && r % (size_t)unscored_every == 1;
        tgt[r] = unscored ? -1 - (int)(r % 3) : (int)rng_below(&rng, V);
        want_scored += !unscored;
    }
    float *l = xmalloc(NV * sizeof(float)), *probs = xmalloc(NV * sizeof(float)),
          *losses = xmalloc(N * sizeof(float)), *dl = xmalloc(NV * sizeof(float)),
          *dl0 = xmalloc(NV * sizeof(float));
    fill_uniform(&rng, l, NV, shift - spread, shift + spread);
    fill_uniform(&rng, dl0, NV, -0.1f, 0.1f);
    double *ld = xmalloc(NV * sizeof(double)), *pd = xmalloc(NV * sizeof(double)),
           *lossd = xmalloc(N * sizeof(double)), *g = xmalloc(NV * sizeof(double));
    to_double(ld, l, NV);

    size_t n_scored = 12345;
    double mean = crossentropy_forward(probs, losses, l, tgt, N, V, &n_scored);
    double want = ce_ref(pd, lossd, ld, tgt, N, V);
    CHECK(n_scored == want_scored);
    // probs: a few ulp, plus the rounding of l - max in float, which the exp
    // turns into a relative error of eps/2 |l - max|. Measured in those units.
    // losses: log of a sum of float-rounded exps, a few ulp of max(1, loss).
    double ep = 0, el = 0;
    for (size_t r = 0; r < N; r++) {
        double mx = ld[r * V];
        for (size_t v = 1; v < V; v++) mx = fmax(mx, ld[r * V + v]);
        for (size_t v = 0; v < V; v++) {
            size_t i = r * V + v;
            double unit = (1 + fabs(ld[i] - mx) / 8) * FLT_EPSILON * pd[i] + 1e-45;
            ep = fmax(ep, fabs(probs[i] - pd[i]) / unit);
        }
        el = fmax(el, fabs(losses[r] - lossd[r]) / fmax(1, lossd[r]));
    }
    CHECK(ep <= 8);
    CHECK(el <= 8 * FLT_EPSILON);
    CHECK_NEAR(mean, want, 8 * FLT_EPSILON * fmax(1, want));
    for (size_t r = 0; r < N; r++)
        if (tgt[r] < 0) CHECK(losses[r] == 0.0f);

    // NULL losses: same mean, bit for bit
    CHECK(crossentropy_forward(probs, NULL, l, tgt, N, V, NULL) == mean);

    // backward: dlogits += (probs - onehot) * dloss / n_scored
    float dloss = 0.75f;
    memcpy(dl, dl0, NV * sizeof(float));
    crossentropy_backward(dl, probs, tgt, N, V, n_scored, dloss);
    CeLoss L = {ld, tgt, N, V, dloss};
    fd_grad(g, ld, NV, ce_loss, &L);
    double eg = grad_err(dl, dl0, g, NV, 1e-3);
    // |grad| <= dloss / n_scored; errors are a few ulp of that plus of the init
    CHECK(eg <= 8 * FLT_EPSILON);
    for (size_t r = 0; r < N; r++)
        if (tgt[r] < 0) CHECK(memcmp(dl + r * V, dl0 + r * V, V * sizeof(float)) == 0);
    if (t_case_failed)
        fprintf(stderr, "    N=%zu V=%zu spread=%g shift=%g: probs %.3g ulp, losses %.3g grad %.3g\n", N, V,
                spread, shift, ep, el, eg);
    free(tgt), free(l), free(probs), free(losses), free(dl), free(dl0), free(ld), free(pd);
    free(lossd), free(g);
}

static void test_crossentropy_odd_shapes(void) {
    size_t Ns[] = {1, 3, 17}, Vs[] = {2, 5, 33, 65};
    uint64_t seed = 200;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++) check_shape(Ns[i], Vs[j], 3.0f, 0.0f, 3, seed++);
}

// logits far from 0 (and widely spread) must neither overflow nor lose the loss
static void test_crossentropy_large_logits(void) {
    check_shape(17, 33, 3.0f, 1000.0f, 4, 301);
    check_shape(17, 33, 3.0f, -1000.0f, 0, 302);
    check_shape(5, 65, 40.0f, 0.0f, 2, 303);
}

// V = 1: the only class has probability 1, loss 0 and zero gradient
static void test_crossentropy_single_class(void) {
    float l[3] = {5.0f, -3.0f, 0.0f}, p[3], losses[3], dl[3] = {0};
    int tgt[3] = {0, -1, 0};
    size_t n;
    CHECK(crossentropy_forward(p, losses, l, tgt, 3, 1, &n) == 0.0);
    CHECK(n == 2);
    for (int r = 0; r < 3; r++) CHECK(p[r] == 1.0f && losses[r] == 0.0f);
    crossentropy_backward(dl, p, tgt, 3, 1, n, 1.0f);
    for (int r = 0; r < 3; r++) CHECK(dl[r] == 0.0f);
}

// nothing scored: mean 0, n_scored 0, probs still computed, no gradient
static void test_crossentropy_nothing_scored(void) {
    float l[2 * 3] = {1, 2, 3, 0, 0, 0}, p[6], losses[2] = {7, 7}, dl[6] = {0};
    int tgt[2] = {-1, -5};
    size_t n = 99;
    CHECK(crossentropy_forward(p, losses, l, tgt, 2, 3, &n) == 0.0);
    CHECK(n == 0);
    CHECK(losses[0] == 0.0f && losses[1] == 0.0f);
    CHECK_NEAR(p[3], 1.0 / 3.0, 1e-7);
    crossentropy_backward(dl, p, tgt, 2, 3, n, 1.0f);
    for (int i = 0; i < 6; i++) CHECK(dl[i] == 0.0f);
}

// a target >= V is a caller bug: the loss is NaN (loud), nothing out of bounds
static void test_crossentropy_target_out_of_range(void) {
    float l[2 * 3] = {1, 2, 3, 3, 2, 1}, p[6], losses[2], dl[6] = {0};
    int tgt[2] = {0, 3};
    size_t n;
    CHECK(isnan(crossentropy_forward(p, losses, l, tgt, 2, 3, &n)));
    CHECK(isnan(losses[1]) && !isnan(losses[0]));
    crossentropy_backward(dl, p, tgt, 2, 3, n, 1.0f);
    CHECK(dl[3] == p[3] / 2 && dl[5] == p[5] / 2);  // probs only, no onehot anywhere
}

typedef struct {
    size_t N, V;
    int *tgt;
    float *l;
} CeDet;

static void ce_det_run(void *vctx, unsigned char *bytes) {
    CeDet *k = vctx;
    float *probs = (float *)bytes, *losses = probs + k->N * k->V, *dl = losses + k->N;
    size_t n;
    double mean = crossentropy_forward(probs, losses, k->l, k->tgt, k->N, k->V, &n);
    memcpy(dl + k->N * k->V, &mean, sizeof mean);
    crossentropy_backward(dl, probs, k->tgt, k->N, k->V, n, 1.0f);
}

// N = 13000, V = 37: the forward's 255 blocks of 51 rows and the backward's
// rows both split in 3 tasks at 3 threads
static void test_crossentropy_thread_count_invariant(void) {
    CeDet k = {13000, 37, NULL, NULL};
    Rng rng;
    rng_seed(&rng, 41);
    k.tgt = xmalloc(k.N * sizeof(int));
    for (size_t r = 0; r < k.N; r++) k.tgt[r] = r % 5 == 2 ? -1 : (int)rng_below(&rng, k.V);
    k.l = xmalloc(k.N * k.V * sizeof(float));
    fill_uniform(&rng, k.l, k.N * k.V, -4, 4);
    size_t bytes = (2 * k.N * k.V + k.N) * sizeof(float) + sizeof(double);
    CHECK(same_bits_for_1_2_3_threads(ce_det_run, &k, bytes, 2));
    free(k.tgt), free(k.l);
}

int main(void) {
    TEST(test_crossentropy_odd_shapes);
    TEST(test_crossentropy_large_logits);
    TEST(test_crossentropy_single_class);
    TEST(test_crossentropy_nothing_scored);
    TEST(test_crossentropy_target_out_of_range);
    TEST(test_crossentropy_thread_count_invariant);
    pool_shutdown();
    return test_summary();
}
