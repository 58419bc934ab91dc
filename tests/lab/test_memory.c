// test_memory.c — the memory lab's physics: what each write rule must return
// for a repeated key (worked out by hand in each test), capacity against the
// textbook signal-to-noise law, and the lab's rules against the attention
// kinds' own one-token steps (the lab must be the models' memory, not a cousin).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "attention/attention.h"
#include "lab/experiment.h"
#include "lab/memory.h"
#include "util/rng.h"

static LabMemSpec spec(LabRule r, size_t dh, FeatureMap f) {
    return (LabMemSpec){r, dh, f, 0.9f, 1.0f, 1e-6f, f != FMAP_IDENTITY};
}

static const LabKeys GAUSS = {NULL, 0};

// sum: S = φ(k)(v1 + v2)ᵀ, z = 2φ(k), so y = (v1 + v2)/2 exactly: the average
static void test_sum_returns_the_average(void) {
    LabMemSpec sp = spec(LAB_SUM, 32, FMAP_ELU1);
    LabOverwrite o = lab_overwrite(&sp, &GAUSS, 10, 7);
    CHECK_NEAR(o.first, 0.5, 1e-5);
    CHECK_NEAR(o.second, 0.5, 1e-5);
}

// decay: S = λφ(k)v1ᵀ + φ(k)v2ᵀ, z = (1 + λ)φ(k): y = (λv1 + v2)/(1 + λ)
static void test_decay_weights_the_second(void) {
    LabMemSpec sp = spec(LAB_DECAY, 16, FMAP_ELU1);
    LabOverwrite o = lab_overwrite(&sp, &GAUSS, 10, 7);
    CHECK_NEAR(o.first, 0.9 / 1.9, 1e-5);
    CHECK_NEAR(o.second, 1.0 / 1.9, 1e-5);
}

// delta with unit keys and β = 1: the second write replaces v1 by v2 exactly.
// With β = 1/2: S = k̂v1ᵀ/2 after the first write, then + k̂(v2 − v1/2)ᵀ/2,
// so y = v1/4 + v2/2.
static void test_delta_l2_overwrites(void) {
    for (int f = 0; f < 3; f++) {
        LabMemSpec sp = spec(LAB_DELTA_L2, 32, (FeatureMap)f);
        LabOverwrite o = lab_overwrite(&sp, &GAUSS, 10, 3);
        CHECK_NEAR(o.first, 0.0, 1e-5);
        CHECK_NEAR(o.second, 1.0, 1e-5);
        CHECK_NEAR(o.cos_second, 1.0, 1e-5);
    }
    LabMemSpec sp = spec(LAB_DELTA_L2, 32, FMAP_ELU1);
    sp.beta = 0.5f;
    LabOverwrite o = lab_overwrite(&sp, &GAUSS, 10, 3);
    CHECK_NEAR(o.first, 0.25, 1e-5);
    CHECK_NEAR(o.second, 0.5, 1e-5);
}

// delta with sum-normalised keys: k̂ = φ(k)/Σφ(k) has n² = ‖k̂‖² < 1, so the
// second write corrects only a fraction: S = k̂((1 − n²)v1 + v2)ᵀ and the read
// with q̂ = k̂ gives y = n²(1 − n²)v1 + n²v2. One fixed key, n² by hand.
static void test_delta_sum_corrects_a_fraction(void) {
    size_t d = 4;
    LabMemSpec sp = spec(LAB_DELTA_SUM, d, FMAP_RELU);
    sp.eps = 0;
    float k[4] = {1, 2, 0, 1}, v1[4] = {1, 0, 0, 0}, v2[4] = {0, 1, 0, 0}, y[4];
    double n2 = (1.0 + 4.0 + 0.0 + 1.0) / 16.0;  // ‖k/4‖²
    LabMemory m;
    labmem_init(&m, &sp);
    labmem_write(&m, k, v1);
    labmem_write(&m, k, v2);
    labmem_read(&m, k, y);
    CHECK_NEAR(y[0], n2 * (1 - n2), 1e-6);
    CHECK_NEAR(y[1], n2, 1e-6);
    CHECK_NEAR(y[2], 0, 1e-7);
    labmem_free(&m);
}

// Capacity. Identity φ, unnormalised sum: the read of key i is
// |k_i|²v_i + Σ_{j≠i}(k_j·k_i)v_j; signal |k|² ≈ dh, each cross term ~ √dh, so
// cos(y, v_i) ≈ 1/√(1 + N/dh) whatever dh: retrieval degrades with N/dh.
static void test_sum_capacity_follows_n_over_dh(void) {
    LabMemSpec sp = spec(LAB_SUM, 64, FMAP_IDENTITY);
    const size_t N[] = {8, 64, 256};
    double prev = 2;
    for (size_t i = 0; i < 3; i++) {
        LabRecall r = lab_recall(&sp, &GAUSS, N[i], 20, 11);
        CHECK_NEAR(r.cos, 1.0 / sqrt(1.0 + (double)N[i] / 64.0), 0.03);
        CHECK(r.cos < prev);
        prev = r.cos;
    }
    // nearly every key comes back well under capacity, most are lost far past it
    CHECK(lab_recall(&sp, &GAUSS, 8, 20, 11).acc > 0.99);
    LabMemSpec small = spec(LAB_SUM, 16, FMAP_IDENTITY);
    CHECK(lab_recall(&small, &GAUSS, 64, 20, 11).acc < 0.4);
}

// Orthonormal keys (rows of the identity) do not interfere: every rule that
// normalises keys to unit length reads each value back exactly up to dh pairs.
static void test_orthogonal_keys_are_exact(void) {
    size_t d = 16;
    float pool[16 * 16] = {0};
    for (size_t i = 0; i < d; i++) pool[i * d + i] = 1;
    LabKeys keys = {pool, d};
    LabMemSpec sp = spec(LAB_DELTA_L2, d, FMAP_IDENTITY);
    LabRecall r = lab_recall(&sp, &keys, d, 5, 1);
    CHECK_NEAR(r.cos, 1.0, 1e-5);
    CHECK_NEAR(r.acc, 1.0, 0);
    sp.rule = LAB_SUM;
    r = lab_recall(&sp, &keys, d, 5, 1);
    CHECK_NEAR(r.cos, 1.0, 1e-5);
}

// Every rule sees the same pairs: same seed, same keys and values, so two runs
// agree bit for bit and a different seed changes the numbers.
static void test_trials_are_paired_and_seeded(void) {
    LabMemSpec sp = spec(LAB_DELTA_L2, 16, FMAP_ELU1);
    LabRecall a = lab_recall(&sp, &GAUSS, 16, 4, 5), b = lab_recall(&sp, &GAUSS, 16, 4, 5);
    LabRecall c = lab_recall(&sp, &GAUSS, 16, 4, 6);
    CHECK(a.cos == b.cos && a.acc == b.acc);
    CHECK(a.cos != c.cos);
}

// ---- the lab's rules are the attention kinds' rules ----

// Writes n random (k, v) through the kind's one-token step (one head) and
// through the lab; the lab's S must equal the kind's, and the lab's read of the
// last query the kind's output at the last step (a kind reads after writing).
static void against_kind(const char *kind_name, LabRule rule, float lambda, float beta, FeatureMap f) {
    enum { D = 8, N = 12 };
    const AttnKind *kind = attn_kind_find(kind_name);
    CHECK(kind != NULL);
    if (!kind) return;
    AttnConfig c = {.heads = 1, .dh = D, .feature_map = f, .eps = 1e-6f, .normalize = 1, .chunk = 1};
    // λ = 1 (the plain delta rule): θ = NULL, which the delta kind reads as λ = 1 exactly
    float theta = lambda < 1 ? logf(lambda / (1 - lambda)) : 0, aux = logf(beta / (1 - beta));
    const float *th = kind->uses_decay && lambda < 1 ? &theta : NULL;
    float *state = calloc(kind->state_floats(&c, 1), sizeof(float));
    kind->state_reset(&c, state, 1);
    LabMemSpec sp = {rule, D, f, lambda, beta, 1e-6f, 1};
    LabMemory m;
    labmem_init(&m, &sp);
    Rng r;
    rng_seed(&r, 99);
    float q[D], k[D], v[D], y_kind[D], y_lab[D];
    for (int t = 0; t < N; t++) {
        for (int i = 0; i < D; i++) q[i] = rng_normal(&r), k[i] = rng_normal(&r), v[i] = rng_normal(&r);
        kind->step(&c, state, 1, (size_t)t, y_kind, q, k, v, &aux, th);
        labmem_write(&m, k, v);
    }
    labmem_read(&m, q, y_lab);
    CHECK(max_rel_err(m.S, state, D * D, 1e-6) < 1e-5);
    CHECK(max_rel_err(y_lab, y_kind, D, 1e-6) < 1e-5);
    labmem_free(&m);
    free(state);
}

static void test_rules_match_the_kinds(void) {
    against_kind("linear", LAB_SUM, 0.5f, 0.5f, FMAP_ELU1);
    against_kind("linear_decay", LAB_DECAY, 0.8f, 0.5f, FMAP_ELU1);
    against_kind("linear_decay", LAB_DECAY, 0.95f, 0.5f, FMAP_RELU);
    against_kind("delta", LAB_DELTA_SUM, 1.0f, 0.7f, FMAP_ELU1);
    against_kind("delta", LAB_DELTA_SUM, 1.0f, 0.99f, FMAP_RELU);
}

int main(void) {
    TEST(test_sum_returns_the_average);
    TEST(test_decay_weights_the_second);
    TEST(test_delta_l2_overwrites);
    TEST(test_delta_sum_corrects_a_fraction);
    TEST(test_sum_capacity_follows_n_over_dh);
    TEST(test_orthogonal_keys_are_exact);
    TEST(test_trials_are_paired_and_seeded);
    TEST(test_rules_match_the_kinds);
    return test_summary();
}
