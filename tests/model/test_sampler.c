// test_sampler.c — greedy, temperature and top-k sampling against their
// definitions.
#include <string.h>

#include "../test.h"
#include "model/sampler.h"

static const float LOGITS[8] = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f, -3.0f, 0.0f, 1.5f};

static void test_greedy_is_argmax_lowest_index(void) {
    Sampler s;
    sampler_init(&s, 8, 0.0f, 0, 1);
    CHECK(sampler_next(&s, LOGITS) == 1);  // 1 and 3 tie at 2.0: the lower id
    CHECK(argmax_f32(LOGITS, 8) == 1);
    sampler_free(&s);
    // top-k = 1 is greedy at any temperature
    sampler_init(&s, 8, 5.0f, 1, 2);
    for (int i = 0; i < 100; i++) CHECK(sampler_next(&s, LOGITS) == 1);
    sampler_free(&s);
}

static void test_same_seed_same_sequence(void) {
    Sampler a, b, c;
    sampler_init(&a, 8, 1.0f, 0, 42);
    sampler_init(&b, 8, 1.0f, 0, 42);
    sampler_init(&c, 8, 1.0f, 0, 43);
    int same = 1, differ = 0;
    for (int i = 0; i < 200; i++) {
        int x = sampler_next(&a, LOGITS), y = sampler_next(&b, LOGITS), z = sampler_next(&c, LOGITS);
        same = same && x == y;
        differ += x != z;
    }
    CHECK(same);
    CHECK(differ > 20);
    sampler_free(&a);
    sampler_free(&b);
    sampler_free(&c);
}

// Empirical frequencies against softmax(l / T) over the top k, in double.
// Each frequency must be within 5 standard errors of its probability (with
// 200 000 draws, sqrt(p(1-p)/n) <= 0.0012): a deterministic seed, so this
// either always passes or always fails.
static void check_distribution(float temperature, size_t k) {
    enum { N = 200000 };
    double p[8] = {0}, sum = 0, mx = -1e30;
    int keep[8];
    for (int i = 0; i < 8; i++) {
        // rank of i: how many logits beat it (larger, or equal with a lower id)
        int rank = 0;
        for (int j = 0; j < 8; j++) rank += LOGITS[j] > LOGITS[i] || (LOGITS[j] == LOGITS[i] && j < i);
        keep[i] = k == 0 || (size_t)rank < k;
        if (keep[i] && LOGITS[i] > mx) mx = LOGITS[i];
    }
    for (int i = 0; i < 8; i++) {
        p[i] = keep[i] ? exp(((double)LOGITS[i] - mx) / temperature) : 0.0;
        sum += p[i];
    }
    Sampler s;
    sampler_init(&s, 8, temperature, k, 7);
    size_t count[8] = {0};
    for (int n = 0; n < N; n++) count[sampler_next(&s, LOGITS)]++;
    sampler_free(&s);
    for (int i = 0; i < 8; i++) {
        double want = p[i] / sum, got = (double)count[i] / N;
        double se = sqrt(want * (1 - want) / N);
        if (!keep[i]) CHECK(count[i] == 0);
        else CHECK_NEAR(got, want, 5 * se + 1e-9);
    }
}

static void test_temperature_and_top_k_distribution(void) {
    check_distribution(1.0f, 0);
    check_distribution(0.5f, 0);
    check_distribution(2.0f, 0);
    check_distribution(1.0f, 3);  // 1, 3 (tied, both kept) and 7
    check_distribution(0.7f, 5);
    check_distribution(1.0f, 8);  // k = V: everything
    check_distribution(1.0f, 100);
}

int main(void) {
    TEST(test_greedy_is_argmax_lowest_index);
    TEST(test_same_seed_same_sequence);
    TEST(test_temperature_and_top_k_distribution);
    return test_summary();
}
