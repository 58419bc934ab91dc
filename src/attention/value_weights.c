// value_weights.c — see value_weights.h. Plain double loops: T is a few dozen
// positions (a picture), so clarity over speed.
#include "attention/value_weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "attention/delta_chunk.h"
#include "attention/feature_map.h"
#include "util/err.h"

extern const AttnKind attn_delta;  // (its aux layout: attn_aux)

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

// Λ(j, i) = λ_{j+1}···λ_i: the decay from token j (from −1: the initial state) to token i >= j
static double span(const double *lam, long j, size_t i) {
    double p = 1;
    for (size_t s = (size_t)(j + 1); s <= i; s++) p *= lam[s];
    return p;
}

void softmax_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                           const float *aux, const double *lam, double *W, double *y0) {
    (void)aux, (void)lam;
    size_t d = (size_t)c->dh;
    double scale = 1.0 / sqrt((double)d);
    memset(W, 0, T * T * sizeof(double));
    memset(y0, 0, T * d * sizeof(double));
    for (size_t i = 0; i < T; i++) {
        double *w = W + i * T, mx = -INFINITY, sum = 0;
        for (size_t j = 0; j <= i; j++) {
            w[j] = dotf(q + i * d, k + j * d, d) * scale;
            if (w[j] > mx) mx = w[j];
        }
        for (size_t j = 0; j <= i; j++) sum += (w[j] = exp(w[j] - mx));
        for (size_t j = 0; j <= i; j++) w[j] /= sum;
    }
}

void linear_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                          const float *aux, const double *lam, double *W, double *y0) {
    (void)aux;  // λ_t comes in lam
    size_t d = (size_t)c->dh;
    float *pq = xcalloc(T * d, sizeof(float)), *pk = xcalloc(T * d, sizeof(float));
    fmap_forward(c->feature_map, pq, q, T * d);
    fmap_forward(c->feature_map, pk, k, T * d);
    memset(W, 0, T * T * sizeof(double));
    for (size_t i = 0; i < T; i++) {
        // S_0 = I, z_0 = 1 (state_identity) decay like any write: weight λ^(i+1)
        double init = c->state_identity ? span(lam, -1, i) : 0, den = c->eps, qsum = 0;
        for (size_t m = 0; m < d; m++) qsum += pq[i * d + m];
        for (size_t j = 0; j <= i; j++) den += (W[i * T + j] = span(lam, (long)j, i) * dotf(pq + i * d, pk + j * d, d));
        den += init * qsum;
        if (!c->normalize) den = 1;
        for (size_t j = 0; j <= i; j++) W[i * T + j] /= den;
        for (size_t m = 0; m < d; m++) y0[i * d + m] = init * pq[i * d + m] / den;  // φ(q_i)ᵀ(λ^(i+1) I)
    }
    free(pq);
    free(pk);
}

void delta_value_weights(const AttnConfig *c, size_t T, const float *q, const float *k,
                         const float *aux, const double *lam, double *W, double *y0) {
    size_t d = (size_t)c->dh, na = attn_aux(&attn_delta, c);
    DeltaSlab p = {.T = T, .dh = d, .chunk = 1, .fmap = c->feature_map, .eps = c->eps,
                   .normalize = c->normalize, .key_norm = c->key_norm,
                   .state_identity = c->state_identity};
    float *kh = xcalloc(T * d, sizeof(float)), *qh = xcalloc(T * d, sizeof(float));
    for (size_t t = 0; t < T; t++) {
        delta_features(&p, kh + t * d, k + t * d);  // the kind's own k̂, q̂
        delta_features(&p, qh + t * d, q + t * d);
    }
    // u = M v + cu: M (T, T) lower triangular, cu (T, d) the initial state's part.
    // u_t = β_t (v_t − Σ_{j<t} λ^(t−j) (k̂_t·k̂_j) u_j − λ^(t+1) S_0ᵀk̂_t)
    double *M = xcalloc(T * T, sizeof(double)), *cu = xcalloc(T * d, sizeof(double));
    for (size_t t = 0; t < T; t++) {
        float beta, omb;
        delta_beta(aux[t * na], &beta, &omb);  // the β logit: the token's first aux input
        double *Mt = M + t * T, *ct = cu + t * d;
        Mt[t] = 1;
        if (c->state_identity)
            for (size_t m = 0; m < d; m++) ct[m] = -span(lam, -1, t) * kh[t * d + m];
        for (size_t j = 0; j < t; j++) {
            double l = span(lam, (long)j, t) * dotf(kh + t * d, kh + j * d, d);
            for (size_t r = 0; r <= j; r++) Mt[r] -= l * M[j * T + r];
            for (size_t m = 0; m < d; m++) ct[m] -= l * cu[j * d + m];
        }
        for (size_t r = 0; r <= t; r++) Mt[r] *= beta;
        for (size_t m = 0; m < d; m++) ct[m] *= beta;
    }
    // y_i = Σ_{j≤i} λ^(i−j) (q̂_i·k̂_j) u_j + λ^(i+1) S_0ᵀq̂_i, so W = A M
    memset(W, 0, T * T * sizeof(double));
    for (size_t i = 0; i < T; i++) {
        double *y = y0 + i * d;
        for (size_t m = 0; m < d; m++) y[m] = c->state_identity ? span(lam, -1, i) * qh[i * d + m] : 0;
        for (size_t j = 0; j <= i; j++) {
            double a = span(lam, (long)j, i) * dotf(qh + i * d, kh + j * d, d);
            for (size_t r = 0; r <= j; r++) W[i * T + r] += a * M[j * T + r];
            for (size_t m = 0; m < d; m++) y[m] += a * cu[j * d + m];
        }
    }
    free(kh);
    free(qh);
    free(M);
    free(cu);
}
