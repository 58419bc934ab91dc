// test_value_weights.c — every kind's implied attention matrix (the teaching
// hook AttnKind.value_weights) reproduces the kind's own training forward:
// y_i = Σ_j W[i, j] v_j + y0_i, for random q, k, v, β logits and λ, with and
// without the normaliser, zero and identity initial state, elu1 and relu, sum
// and L2 keys (delta), one λ per head and (decay = data) one per token.
// Tolerance 1e-4 relative to max |y| (the forward is
// float32, the weights double). Also: W is causal (zero above the diagonal),
// and softmax's and the normalised linear kinds' rows sum to 1.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "test.h"
#include "util/pool.h"
#include "util/rng.h"

enum { T = 37, D = 16 };

static double check_kind(const AttnKind *kind, AttnConfig c, double lam, uint64_t seed, double *row_sum_err) {
    Rng r;
    rng_seed(&r, seed);
    size_t n = T * D, na = attn_aux(kind, &c);
    float *q = calloc(n, sizeof(float)), *k = calloc(n, sizeof(float)), *v = calloc(n, sizeof(float));
    float *y = calloc(n, sizeof(float)), *aux = calloc(T * na + 1, sizeof(float));
    float *aux_tok = calloc(T * na + 1, sizeof(float));  // (T, na): as step() and value_weights read them
    for (size_t i = 0; i < n; i++) q[i] = rng_normal(&r), k[i] = rng_normal(&r), v[i] = rng_normal(&r);
    for (size_t i = 0; i < T * na; i++) aux[i] = 2 * rng_normal(&r);  // (na, T): as forward reads them
    for (size_t t = 0; t < T; t++)
        for (size_t a = 0; a < na; a++) aux_tok[t * na + a] = aux[a * T + t];
    float theta = (float)log(lam / (1 - lam));
    const float *th = kind->uses_decay ? &theta : NULL;
    float *work = calloc(kind->work_floats(&c, 1, T) + 1, sizeof(float));
    kind->forward(&c, 1, T, y, work, q, k, v, aux, th);
    double *W = calloc(T * T, sizeof(double)), *y0 = calloc(n, sizeof(double)), lam_t[T];
    for (size_t t = 0; t < T; t++) lam_t[t] = decay_lambda_at(kind, &c, aux_tok + t * na, th, 0);
    kind->value_weights(&c, T, q, k, aux_tok, lam_t, W, y0);
    double err = 0, ymax = 1e-6;
    *row_sum_err = 0;
    for (size_t i = 0; i < T; i++) {
        double rs = 0;
        for (size_t j = 0; j < T; j++) {
            rs += W[i * T + j];
            if (j > i && W[i * T + j] != 0) err = INFINITY;  // causal
        }
        *row_sum_err = fmax(*row_sum_err, fabs(rs - 1));
        for (size_t m = 0; m < D; m++) {
            double rec = y0[i * D + m];
            for (size_t j = 0; j <= i; j++) rec += W[i * T + j] * v[j * D + m];
            err = fmax(err, fabs(rec - y[i * D + m]));
            ymax = fmax(ymax, fabs(y[i * D + m]));
        }
    }
    free(q), free(k), free(v), free(y), free(aux), free(aux_tok), free(work), free(W), free(y0);
    return err / ymax;
}

static void test_every_kind_reconstructs_its_forward(void) {
    int kinds = 0, data_kinds = 0;
    for (int ki = 0; attn_kinds[ki]; ki++) {
        const AttnKind *kind = attn_kinds[ki];
        if (!kind->value_weights) continue;
        kinds++;
        data_kinds += kind->data_decay;
        int is_delta = kind->n_aux > 0;
        for (int norm = 0; norm < 2; norm++)
            for (int ident = 0; ident < 2; ident++)
                for (int fm = 0; fm < 2; fm++)
                    for (int kn = 0; kn < (kind->uses_key_norm ? 2 : 1); kn++)
                        for (int dd = 0; dd < (kind->data_decay ? 2 : 1); dd++) {
                            if (is_delta && !norm && fm == 0) continue;  // raw elu1 keys: delta is unstable by design
                            AttnConfig c = {.heads = 1, .dh = D, .feature_map = fm ? FMAP_RELU : FMAP_ELU1,
                                            .eps = 1e-6f, .normalize = norm, .chunk = 8, .state_identity = ident,
                                            .key_norm = kn ? KEYNORM_L2 : KEYNORM_SUM, .data_decay = dd};
                            if (is_delta && !norm) c.feature_map = FMAP_RELU;
                            double rs;
                            uint64_t seed = 100 + (uint64_t)(norm * 16 + ident * 8 + fm * 4 + kn * 2 + dd);
                            double e = check_kind(kind, c, 0.9, seed, &rs);
                            CHECK(e < 1e-4);
                            if (!(e < 1e-4))
                                fprintf(stderr, "  %s normalize=%d identity=%d fmap=%d key_norm=%d data_decay=%d: rel err %.3g\n",
                                        kind->name, norm, ident, fm, kn, dd, e);
                            // attention proper: rows are convex combinations (softmax always;
                            // the linear kinds when normalised from a zero state)
                            if (!is_delta && !ident && (norm || !kind->phi_normalizer))
                                CHECK(rs < 1e-5);
                        }
    }
    CHECK(kinds >= 4);       // softmax, linear, linear_decay, delta
    CHECK(data_kinds >= 2);  // linear_decay, delta with decay = data (λ_t per token)
}

int main(void) {
    pool_init(1);
    TEST(test_every_kind_reconstructs_its_forward);
    pool_shutdown();
    return test_summary();
}
