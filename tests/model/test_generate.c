// test_generate.c — one model, two paths: the incremental generator (KV cache /
// recurrent fast-weight state) against the training-time full forward.
//
// Greedy decoding through each path, independently, must pick exactly the same
// tokens, and at every step the next-token logits must agree to LOGIT_TOL
// (relative to the largest |logit|). The projections are bit-identical at any
// row count (gemm's contract), so the tolerance only has to cover the attention
// kinds' two forms: tiled online softmax with a vectorised exp vs a scalar
// expf loop, and the chunkwise vs the recurrent fast-weight sums.
#include <string.h>

#include "../test.h"
#include "decisive_weights.h"
#include "model/generate.h"
#include "model/model.h"
#include "small_model.h"
#include "util/err.h"
#include "util/rng.h"

// Measured worst relative logit difference over these models: 3e-7 .. 6e-7
// (a few float ulps, AVX-512). 1e-5 leaves room for other instruction sets and
// still catches every real slip tried (a position off by one, a dropped key
// shift or output norm, a cache one entry short all fail it).
#define LOGIT_TOL 1e-5

typedef struct {
    const char *kind;
    PosKind pos;
    int key_shift, output_norm, ffn_mult, state_identity, normalize;
    FeatureMap fmap;
    int layers, block;
} Variant;

// decay = data and key_norm: the options the gated kinds add
static void make_model_gated(Model *m, const Variant *v, size_t V, uint64_t seed, DecayMode decay,
                             KeyNorm key_norm) {
    Config c;
    small_config(&c, (SmallModel){v->kind, .layers = v->layers, .heads = 2, .d_model = 32, .block_size = v->block,
                                  .pos = v->pos, .key_shift = v->key_shift, .output_norm = v->output_norm,
                                  .decay = decay});
    c.key_norm = key_norm;
    c.ffn_mult = v->ffn_mult;
    c.state_init = v->state_identity ? STATE_IDENTITY : STATE_ZERO;
    c.normalize = v->normalize;
    c.feature_map = v->fmap;
    c.chunk = 5;  // chunks that do not divide the lengths
    c.seed = seed;
    model_build(m, &c, V);
    CHECK(!strcmp(m->kind->name, v->kind) && m->L == (size_t)v->layers);  // the set-up built what was asked
    decisive_weights(m, seed * 7919 + 1, -2.0f, 4.0f);  // λ in (0.12, 0.98)
}

// Logits of the last position of the full training-time forward on tokens[0..n).
static void full_forward_last(Model *m, const int *tokens, size_t n, float *out) {
    Graph g;
    graph_build(&g, m, 1, n);
    memcpy(g.tokens, tokens, n * sizeof(int));
    for (size_t t = 0; t < n; t++) g.targets[t] = tokens[t];  // any valid target: only logits are read
    graph_forward(&g);
    memcpy(out, g.logits->data + (n - 1) * m->V, m->V * sizeof(float));
    graph_free(&g);
}

static const size_t VOCAB = 29;

// the obviously-right argmax: first index of the largest value
static int argmax_ref(const float *x, size_t n) {
    int best = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = (int)i;
    return best;
}

static size_t distinct(const int *x, size_t n) {
    int seen[256] = {0};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += !seen[x[i]]++;
    return k;
}

// Greedy decoding from `prompt` up to `len` tokens, through each path on its
// own; returns the worst relative logit difference seen, and checks tokens.
static double greedy_both_paths(Model *m, const int *prompt, size_t n_prompt, size_t len) {
    int *a = xcalloc(len, sizeof(int)), *b = xcalloc(len, sizeof(int));
    float *ref = xcalloc(m->V, sizeof(float));
    memcpy(a, prompt, n_prompt * sizeof(int));
    memcpy(b, prompt, n_prompt * sizeof(int));
    // path 1: incremental
    Generator g;
    generator_init(&g, m);
    float *inc = xcalloc(len * m->V, sizeof(float));  // (len, V) logits after each prefix
    for (size_t t = 0; t + 1 < len; t++) {
        const float *lg = generator_step(&g, a[t], t);
        memcpy(inc + t * m->V, lg, m->V * sizeof(float));
        if (t + 1 >= n_prompt) a[t + 1] = argmax_ref(lg, m->V);
    }
    generator_free(&g);
    // path 2: the full forward re-run on the whole prefix at every step
    double worst = 0;
    int same = 1;
    for (size_t t = 0; t + 1 < len; t++) {
        full_forward_last(m, b, t + 1, ref);
        if (t + 1 >= n_prompt) b[t + 1] = argmax_ref(ref, m->V);
        double e = max_rel_err(inc + t * m->V, ref, m->V, 1e-6);
        if (!(e <= worst)) worst = e;
        same = same && a[t + 1] == b[t + 1];
    }
    CHECK(same);
    CHECK(worst <= LOGIT_TOL);
    // a model stuck on one token would make "same tokens" too easy
    CHECK(distinct(a, len) >= 4);
    if (!same || !(worst <= LOGIT_TOL))
        fprintf(stderr, "  %s: tokens %s, worst relative logit difference %.3g\n", m->kind->name,
                same ? "equal" : "DIFFER", worst);
    free(a);
    free(b);
    free(ref);
    free(inc);
    return worst;
}

static const int PROMPT[] = {3, 17, 5, 11};

static void make_model(Model *m, const Variant *v, size_t V, uint64_t seed) {
    make_model_gated(m, v, V, seed, DECAY_LEARNED, KEYNORM_SUM);
}

// Positions below block_size, where both paths compute the same function, for
// every kind and the options that change the per-token path.
static void test_greedy_equal_within_block(void) {
    const Variant vs[] = {
        {"softmax", POS_LEARNED, 0, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"softmax", POS_LEARNED, 1, 1, 0, 0, 1, FMAP_ELU1, 2, 24},
        {"softmax", POS_NONE, 1, 0, 1, 0, 1, FMAP_ELU1, 3, 20},
        {"linear", POS_LEARNED, 0, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"linear", POS_LEARNED, 1, 1, 1, 1, 1, FMAP_ELU1, 2, 24},
        {"linear", POS_NONE, 0, 0, 2, 0, 0, FMAP_ELU1, 2, 24},
        {"linear_decay", POS_LEARNED, 0, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"linear_decay", POS_LEARNED, 1, 1, 0, 1, 1, FMAP_RELU, 2, 24},
        {"linear_decay", POS_NONE, 1, 0, 2, 0, 1, FMAP_ELU1, 3, 20},
        // a kind with an aux input (the delta rule's β), when it is registered
        {"delta", POS_LEARNED, 1, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"delta", POS_NONE, 0, 1, 1, 1, 1, FMAP_ELU1, 2, 24},
    };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        if (!attn_kind_find(vs[i].kind)) continue;
        Model m;
        make_model(&m, &vs[i], VOCAB, 100 + i);
        double w = greedy_both_paths(&m, PROMPT, 4, (size_t)vs[i].block);
        if (getenv("VERBOSE")) printf("  variant %zu (%s): worst rel logit diff %.3g\n", i, vs[i].kind, w);
        model_free(&m);
    }
}

// decay = data (a λ per token from the block input) and L2 keys: the
// generator's step() reads the gate from each token's aux inputs, the training
// form from the slab's; both must give the same logits, within and past block_size
static void test_gated_kinds(void) {
    const Variant vs[] = {
        {"linear_decay", POS_LEARNED, 1, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"delta", POS_LEARNED, 1, 0, 2, 0, 1, FMAP_ELU1, 2, 24},
        {"delta", POS_NONE, 0, 1, 1, 1, 1, FMAP_IDENTITY, 2, 16},
    };
    KeyNorm kn[] = {KEYNORM_SUM, KEYNORM_SUM, KEYNORM_L2};
    for (size_t i = 0; i < 3; i++) {
        Model m;
        make_model_gated(&m, &vs[i], VOCAB, 300 + i, DECAY_DATA, kn[i]);
        size_t len = vs[i].pos == POS_NONE ? 3 * (size_t)vs[i].block + 7 : (size_t)vs[i].block;
        double w = greedy_both_paths(&m, PROMPT, 4, len);
        if (getenv("VERBOSE")) printf("  gated %s: worst rel logit diff %.3g\n", vs[i].kind, w);
        model_free(&m);
    }
}

// With pos = none the fast-weight state sums the whole history, so the
// recurrent path equals the full forward at any length, far past block_size.
static void test_fast_weight_unbounded_length(void) {
    const Variant vs[] = {
        {"linear", POS_NONE, 1, 0, 2, 0, 1, FMAP_ELU1, 2, 16},
        {"linear_decay", POS_NONE, 0, 1, 2, 1, 1, FMAP_ELU1, 2, 16},
    };
    for (size_t i = 0; i < 2; i++) {
        Model m;
        make_model(&m, &vs[i], VOCAB, 200 + i);
        double w = greedy_both_paths(&m, PROMPT, 4, 3 * (size_t)vs[i].block + 7);
        if (getenv("VERBOSE")) printf("  %s to %d tokens: worst rel logit diff %.3g\n", vs[i].kind,
                                      3 * vs[i].block + 7, w);
        model_free(&m);
    }
}

// softmax past its window: the cache holds the last `window` tokens. With one
// layer, no key shift and no positions, every cached key/value depends on its
// own token only, so step p must equal the full forward on tokens p-W+1 .. p.
static void test_softmax_sliding_window(void) {
    Variant v = {"softmax", POS_NONE, 0, 0, 2, 0, 1, FMAP_ELU1, 1, 8};
    Model m;
    make_model(&m, &v, VOCAB, 300);
    size_t W = m.Tmax, n = 5 * W + 3;
    int *tok = xcalloc(n, sizeof(int));
    Rng r;
    rng_seed(&r, 5);
    for (size_t i = 0; i < n; i++) tok[i] = (int)rng_below(&r, VOCAB);
    Generator g;
    generator_init(&g, &m);
    float *ref = xcalloc(m.V, sizeof(float));
    double worst = 0;
    size_t bytes_full = generator_state_bytes_used(&g);
    CHECK(bytes_full == 0);
    for (size_t p = 0; p < n; p++) {
        const float *lg = generator_step(&g, tok[p], p);
        size_t lo = p + 1 > W ? p + 1 - W : 0;
        full_forward_last(&m, tok + lo, p + 1 - lo, ref);
        double e = max_rel_err(lg, ref, m.V, 1e-6);
        if (!(e <= worst)) worst = e;
        // the cache grows to the window and then stays there
        size_t held = p + 1 < W ? p + 1 : W;
        CHECK(generator_state_bytes_used(&g) == model_inference_bytes(&m, held));
        CHECK(generator_state_bytes_used(&g) <= generator_state_bytes_allocated(&g));
    }
    CHECK(worst <= LOGIT_TOL);
    if (!(worst <= LOGIT_TOL)) fprintf(stderr, "  sliding window: worst %.3g\n", worst);
    free(ref);
    free(tok);
    generator_free(&g);
    model_free(&m);
}

// A reset generator forgets everything: the same tokens give bit-identical
// logits, and the fast-weight state does not grow with the length.
static void test_reset_and_constant_state(void) {
    const char *kinds[] = {"softmax", "linear", "linear_decay"};
    for (int k = 0; k < 3; k++) {
        Variant v = {kinds[k], POS_LEARNED, 1, 0, 1, 1, 1, FMAP_ELU1, 2, 12};
        Model m;
        make_model(&m, &v, VOCAB, 400 + (uint64_t)k);
        Generator g;
        generator_init(&g, &m);
        float *first = xcalloc(40 * m.V, sizeof(float));
        for (size_t p = 0; p < 40; p++)
            memcpy(first + p * m.V, generator_step(&g, (int)((p * 7) % VOCAB), p), m.V * sizeof(float));
        size_t used = generator_state_bytes_used(&g);
        if (k == 0) CHECK(used == model_inference_bytes(&m, 12));  // the window, not 40
        else CHECK(used == model_inference_bytes(&m, 1) && used == generator_state_bytes_allocated(&g));
        generator_reset(&g);
        CHECK(g.pos == 0);
        int same = 1;
        for (size_t p = 0; p < 40; p++) {
            const float *lg = generator_step(&g, (int)((p * 7) % VOCAB), p);
            same = same && memcmp(lg, first + p * m.V, m.V * sizeof(float)) == 0;
        }
        CHECK(same);
        free(first);
        generator_free(&g);
        model_free(&m);
    }
}

int main(void) {
    TEST(test_greedy_equal_within_block);
    TEST(test_fast_weight_unbounded_length);
    TEST(test_gated_kinds);
    TEST(test_softmax_sliding_window);
    TEST(test_reset_and_constant_state);
    return test_summary();
}
