// delta_plain.h — delta's k̂ and one position the obvious way, for the tests
// that pin the fast kernels' bits (test_fw_step.c, test_delta_bits.c).
#pragma once
#include <math.h>

#include "attention/delta_chunk.h"
#include "attention/feature_map.h"

// k̂ of one input: s = Σφ + eps (sum) or sqrt(Σφ² + eps) (l2), summed i
// ascending; k̂ = φ / s. Returns s (1 without normalize).
static inline float plain_features(const DeltaSlab *p, float *out, const float *x) {
    size_t d = p->dh;
    fmap_forward(p->fmap, out, x, d);
    if (!p->normalize) return 1.0f;
    float s = 0.0f;
    for (size_t i = 0; i < d; i++) s += p->key_norm == KEYNORM_L2 ? out[i] * out[i] : out[i];
    s = p->key_norm == KEYNORM_L2 ? sqrtf(s + p->eps) : s + p->eps;
    for (size_t i = 0; i < d; i++) out[i] /= s;
    return s;
}

// One position from state P (d, d): e = v − λ Pᵀk̂, Sn = λP + (βk̂) eᵀ, y = Snᵀq̂,
// each sum from 0 over i ascending (Sn may be P: in place). The order every
// kernel of delta_chunk.c states for these values (e may not alias y).
static inline void plain_token(size_t d, float lam, float beta, const float *P, float *Sn, const float *kh,
                               const float *qh, float *e, float *y, const float *v) {
    for (size_t j = 0; j < d; j++) {
        float r = 0.0f;
        for (size_t i = 0; i < d; i++) r += kh[i] * P[i * d + j];
        e[j] = v[j] - lam * r;
    }
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++) Sn[i * d + j] = lam * P[i * d + j] + (beta * kh[i]) * e[j];
    for (size_t j = 0; j < d; j++) {
        float r = 0.0f;
        for (size_t i = 0; i < d; i++) r += qh[i] * Sn[i * d + j];
        y[j] = r;
    }
}
