// test_init_pairing.c — what makes an ablation paired: with the same seed,
// every kind starts from the same initial values in every tensor it shares
// with another kind, whatever extra tensors (θ, the delta rule's β rows) a
// kind adds. A tensor's values depend on the seed and its name only, so
// adding, removing or reordering other tensors shifts nothing.
#include <string.h>

#include "model/model.h"
#include "small_model.h"
#include "test.h"

static const char *const KINDS[] = {"softmax", "linear", "linear_decay", "delta"};
enum { N_KINDS = sizeof KINDS / sizeof KINDS[0], V = 29 };

static void build(Model *m, const char *kind, unsigned long long seed, int output_norm) {
    Config c;
    small_config(&c, (SmallModel){kind, .layers = 2, .heads = 2, .d_model = 16, .block_size = 8,
                                  .output_norm = output_norm});
    c.seed = seed;
    model_build(m, &c, V);
    CHECK(!strcmp(m->kind->name, kind));  // the set-up built the kind asked for
}

static const Tensor *find(const Model *m, const char *name) {
    for (size_t i = 0; i < m->n_params; i++)
        if (!strcmp(m->params[i].t.name, name)) return &m->params[i].t;
    return NULL;
}

// Every tensor of `a` that `b` also has (by name) holds the same values over
// their common prefix (the rows both have: q | k | v of the fused projection).
// Returns how many tensors were compared; *differ counts those that did not match.
static int compare(const Model *a, const Model *b, int *differ) {
    int compared = 0;
    *differ = 0;
    for (size_t i = 0; i < a->n_params; i++) {
        const Tensor *x = &a->params[i].t, *y = find(b, x->name);
        if (!y) continue;
        CHECK(x->cols == y->cols);
        size_t n = x->n < y->n ? x->n : y->n;
        compared++;
        if (memcmp(x->data, y->data, n * sizeof(float)) != 0) (*differ)++;
    }
    return compared;
}

static void test_kinds_share_initial_weights(void) {
    Model m[N_KINDS];
    for (int k = 0; k < N_KINDS; k++) build(&m[k], KINDS[k], 42, 0);
    for (int a = 0; a < N_KINDS; a++)
        for (int b = 0; b < N_KINDS; b++) {
            int differ = 0, n = compare(&m[a], &m[b], &differ);
            CHECK(n >= 4 + 2 * 8);  // wte, wpe, ln_f.{weight,bias}, 8 per layer
            CHECK(differ == 0);
            if (differ) fprintf(stderr, "  %s vs %s: %d shared tensors differ\n", KINDS[a], KINDS[b], differ);
        }
    // the kinds do differ in their tensors: θ for linear_decay, extra rows for delta
    CHECK(find(&m[2], "h.0.attn.theta") != NULL && find(&m[0], "h.0.attn.theta") == NULL);
    CHECK(find(&m[3], "h.0.attn.qkv.weight")->n > find(&m[0], "h.0.attn.qkv.weight")->n);
    for (int k = 0; k < N_KINDS; k++) model_free(&m[k]);
}

static void test_extra_tensors_shift_nothing(void) {
    // output_norm adds two tensors per layer in the middle of the list
    Model plain, normed;
    build(&plain, "linear", 7, 0);
    build(&normed, "linear", 7, 1);
    CHECK(normed.n_params == plain.n_params + 2 * 2);
    int differ = 0;
    CHECK(compare(&plain, &normed, &differ) == (int)plain.n_params);
    CHECK(differ == 0);
    model_free(&plain);
    model_free(&normed);
}

static void test_seed_changes_every_random_tensor(void) {
    // the check above could pass with a seed-independent init; it must not be
    Model a, b;
    build(&a, "softmax", 1, 0);
    build(&b, "softmax", 2, 0);
    int differ = 0, n = compare(&a, &b, &differ);
    CHECK(n == (int)a.n_params);
    CHECK(differ == 2 + 2 * 4);  // wte, wpe and per layer qkv, proj, fc, fc_proj (LayerNorms are constant)
    model_free(&a);
    model_free(&b);
}

int main(void) {
    TEST(test_kinds_share_initial_weights);
    TEST(test_extra_tensors_shift_nothing);
    TEST(test_seed_changes_every_random_tensor);
    return test_summary();
}
