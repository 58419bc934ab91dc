// test_fw_step.c — the fast-weight kinds' one-token steps against their
// plainer forms, bit for bit.
//
// delta_features (one input) and delta_normalize_n (n inputs' k̂ at once,
// their sums side by side) against the normalisation written out plainly, one
// input at a time: the values and the divisors, every feature map, key_norm
// sum and l2, normalize on and off, n = 1 .. DELTA_FEATURES_MAX, head sizes 1 .. 130.
//
// delta: delta_token_inplace (generation's step: e in registers, the update
// and the read-out in one pass per column strip) against plain_token
// (delta_plain.h: three obvious passes, e, the update, the read-out; the
// training recurrence's kernels are pinned to the same code in
// test_delta_bits.c), the same state through many tokens, head sizes 1 .. 130.
//
// linear, linear_decay:
// step() updates and reads each row of S in one pass, in vectors (linear.c);
// the reference below updates every row first and then reads S out, one float
// at a time, in the order the contract states (linear.c, fw_step):
//   S_ij = λ S_ij + φ(k)_i v_j,  z_i = λ z_i + φ(k)_i          (λ = 1 for `linear`)
//   y_j = ((0 + φ(q)_0 S_0j) + φ(q)_1 S_1j) + ...,  den = ((eps + φ(q)_0 z_0) + ...) ,
//   y_j /= den when normalize.
// Same IEEE operations per value, so the states and outputs must agree in every
// bit, over many tokens: head sizes around the vector width (1 .. 130: the
// groups of 4, 3, 2, 1 vectors and the scalar tail; above 64 the rows come in
// blocks), each feature map, normalize on and off, zero and identity state, a
// fixed λ and λ per token (decay = data).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "attention/delta_chunk.h"
#include "attention/feature_map.h"
#include "delta_plain.h"
#include "test.h"
#include "util/rng.h"

extern const AttnKind attn_linear, attn_linear_decay;

// the two-pass step, one value at a time; state per head S (d, d) then z (d)
static void reference_step(const AttnKind *K, const AttnConfig *c, float *state, float *y, const float *q,
                           const float *k, const float *v, const float *aux, const float *theta) {
    size_t d = (size_t)c->dh, na = attn_aux(K, c);
    for (size_t h = 0; h < (size_t)c->heads; h++) {
        float *S = state + h * (d * d + d), *z = S + d * d, *yh = y + h * d;
        float lam = K->uses_decay ? (float)decay_lambda_at(K, c, aux + h * na, theta, h) : 1.0f;
        for (size_t i = 0; i < d; i++) {
            float p = fmap_phi(c->feature_map, k[h * d + i]);
            for (size_t j = 0; j < d; j++) S[i * d + j] = lam * S[i * d + j] + p * v[h * d + j];
            z[i] = lam * z[i] + p;
        }
        float den = c->eps;
        for (size_t j = 0; j < d; j++) yh[j] = 0.0f;
        for (size_t i = 0; i < d; i++) {
            float p = fmap_phi(c->feature_map, q[h * d + i]);
            for (size_t j = 0; j < d; j++) yh[j] += p * S[i * d + j];
            den += p * z[i];
        }
        if (c->normalize)
            for (size_t j = 0; j < d; j++) yh[j] /= den;
    }
}

static void fill(float *x, size_t n, float scale, Rng *r) {
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
}

// T tokens through step() and the reference from the same reset state;
// returns 1 when every state and output bit agreed at every token
static int run_case(const AttnKind *K, AttnConfig c, size_t T, unsigned long long seed) {
    size_t H = (size_t)c.heads, d = (size_t)c.dh, na = attn_aux(K, &c), nst = K->state_floats(&c, 0);
    float *s0 = malloc(nst * sizeof(float)), *s1 = malloc(nst * sizeof(float));
    float *q = malloc(H * d * sizeof(float)), *k = malloc(H * d * sizeof(float));
    float *v = malloc(H * d * sizeof(float)), *y0 = malloc(H * d * sizeof(float));
    float *y1 = malloc(H * d * sizeof(float)), *aux = malloc((H * na + 1) * sizeof(float));
    float theta[2] = {1.5f, 3.0f};  // λ = sigmoid(θ): 0.82, 0.95
    Rng r;
    rng_seed(&r, seed);
    K->state_reset(&c, s0, 0);
    K->state_reset(&c, s1, 0);
    int ok = 1;
    for (size_t t = 0; t < T && ok; t++) {
        fill(q, H * d, 1.0f, &r), fill(k, H * d, 1.0f, &r), fill(v, H * d, 1.0f, &r);
        fill(aux, H * na, 2.0f, &r);
        const float *th = K->uses_decay ? theta : NULL;
        K->step(&c, s0, 0, t, y0, q, k, v, aux, th);
        reference_step(K, &c, s1, y1, q, k, v, aux, th);
        ok = memcmp(y0, y1, H * d * sizeof(float)) == 0 && memcmp(s0, s1, nst * sizeof(float)) == 0;
    }
    free(s0), free(s1), free(q), free(k), free(v), free(y0), free(y1), free(aux);
    return ok;
}

static void test_step_bit_identical_to_two_pass_form(void) {
    const AttnKind *kinds[] = {&attn_linear, &attn_linear_decay};
    size_t dhs[] = {1, 5, 16, 17, 32, 40, 48, 63, 64, 65, 80, 130};
    FeatureMap maps[] = {FMAP_ELU1, FMAP_RELU, FMAP_IDENTITY};
    unsigned long long seed = 1;
    for (size_t a = 0; a < 2; a++)
        for (size_t b = 0; b < sizeof dhs / sizeof dhs[0]; b++)
            for (size_t m = 0; m < 3; m++)
                for (int variant = 0; variant < 4; variant++) {
                    const AttnKind *K = kinds[a];
                    AttnConfig c = {.heads = 2, .dh = (int)dhs[b], .feature_map = maps[m], .eps = 1e-6f,
                                    .normalize = variant & 1, .chunk = 4, .state_identity = (variant >> 1) & 1};
                    for (int data = 0; data <= K->data_decay; data++) {
                        c.data_decay = data;
                        int ok = run_case(K, c, 12, seed++);
                        if (!ok)
                            fprintf(stderr, "  %s dh %zu fmap %d normalize %d identity %d data %d differs\n",
                                    K->name, dhs[b], (int)maps[m], c.normalize, c.state_identity, data);
                        CHECK(ok);
                    }
                }
}

static void test_delta_inplace_bit_identical_to_plain_token(void) {
    size_t dhs[] = {1, 5, 16, 17, 32, 40, 48, 63, 64, 65, 80, 130};
    for (size_t b = 0; b < sizeof dhs / sizeof dhs[0]; b++) {
        size_t d = dhs[b];
        float *S0 = malloc(d * d * sizeof(float)), *S1 = malloc(d * d * sizeof(float));
        float *kh = malloc(d * sizeof(float)), *qh = malloc(d * sizeof(float)), *v = malloc(d * sizeof(float));
        float *e = malloc(d * sizeof(float)), *y0 = malloc(d * sizeof(float)), *y1 = malloc(d * sizeof(float));
        Rng r;
        rng_seed(&r, 40 + d);
        fill(S0, d * d, 0.3f, &r);
        memcpy(S1, S0, d * d * sizeof(float));
        int ok = 1;
        for (int t = 0; t < 12 && ok; t++) {
            fill(kh, d, 0.5f, &r), fill(qh, d, 0.5f, &r), fill(v, d, 1.0f, &r);
            float lam = t % 3 ? 0.9f : 1.0f, beta = 0.25f + 0.05f * (float)t;
            plain_token(d, lam, beta, S0, S0, kh, qh, e, y0, v);
            delta_token_inplace(d, lam, beta, S1, kh, qh, y1, v);
            ok = memcmp(S0, S1, d * d * sizeof(float)) == 0 && memcmp(y0, y1, d * sizeof(float)) == 0;
        }
        if (!ok) fprintf(stderr, "  delta dh %zu differs\n", d);
        CHECK(ok);
        free(S0), free(S1), free(kh), free(qh), free(v), free(e), free(y0), free(y1);
    }
}

static void test_delta_normalize_n_bit_identical(void) {
    size_t dhs[] = {1, 5, 16, 17, 32, 65, 130};
    FeatureMap maps[] = {FMAP_ELU1, FMAP_RELU, FMAP_IDENTITY};
    Rng r;
    rng_seed(&r, 77);
    for (size_t b = 0; b < sizeof dhs / sizeof dhs[0]; b++)
        for (size_t m = 0; m < 3; m++)
            for (int variant = 0; variant < 3; variant++) {
                size_t d = dhs[b];
                DeltaSlab p = {.dh = d, .fmap = maps[m], .eps = 1e-6f, .normalize = variant > 0,
                               .key_norm = variant == 2 ? KEYNORM_L2 : KEYNORM_SUM};
                float *x = malloc(DELTA_FEATURES_MAX * d * sizeof(float));
                float *want = malloc(DELTA_FEATURES_MAX * d * sizeof(float)), *got = malloc(DELTA_FEATURES_MAX * d * sizeof(float));
                float want_s[DELTA_FEATURES_MAX], got_s[DELTA_FEATURES_MAX];
                fill(x, DELTA_FEATURES_MAX * d, 1.0f, &r);
                int ok = 1;
                for (size_t c = 0; c < DELTA_FEATURES_MAX; c++) {
                    want_s[c] = plain_features(&p, want + c * d, x + c * d);
                    float s1 = delta_features(&p, got + c * d, x + c * d);
                    ok &= memcmp(&s1, &want_s[c], sizeof s1) == 0;
                }
                ok &= memcmp(want, got, DELTA_FEATURES_MAX * d * sizeof(float)) == 0;
                for (size_t n = 1; n <= DELTA_FEATURES_MAX; n++) {
                    fmap_forward(p.fmap, got, x, n * d);
                    for (size_t c = 0; c < n; c++) got_s[c] = 1.0f;
                    delta_normalize_n(&p, got, n, got_s);
                    ok &= memcmp(want, got, n * d * sizeof(float)) == 0;
                    ok &= memcmp(want_s, got_s, n * sizeof(float)) == 0;
                }
                if (!ok) fprintf(stderr, "  features dh %zu fmap %d variant %d differ\n", d, (int)maps[m], variant);
                CHECK(ok);
                free(x), free(want), free(got);
            }
}

int main(void) {
    TEST(test_delta_normalize_n_bit_identical);
    TEST(test_step_bit_identical_to_two_pass_form);
    TEST(test_delta_inplace_bit_identical_to_plain_token);
    return test_summary();
}
