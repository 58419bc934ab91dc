// memory.c — the four write rules of the memory lab (formulas in memory.h).
#include "lab/memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/feature_map.h"
#include "util/err.h"

const char *lab_rule_name(LabRule r) {
    static const char *const names[LAB_N_RULES] = {"sum", "decay", "delta-sum", "delta-l2"};
    return r < LAB_N_RULES ? names[r] : "?";
}

void labmem_init(LabMemory *m, const LabMemSpec *sp) {
    m->sp = *sp;
    m->S = xcalloc(sp->dh * sp->dh, sizeof(float));
    m->z = xcalloc(sp->dh, sizeof(float));
    m->phi = xcalloc(sp->dh, sizeof(float));
}

void labmem_free(LabMemory *m) {
    free(m->S);
    free(m->z);
    free(m->phi);
    m->S = m->z = m->phi = NULL;
}

void labmem_reset(LabMemory *m) {
    memset(m->S, 0, m->sp.dh * m->sp.dh * sizeof(float));
    memset(m->z, 0, m->sp.dh * sizeof(float));
}

// m->phi = φ(x), normalised as the rule reads and writes keys
static void feature(LabMemory *m, const float *x) {
    size_t d = m->sp.dh;
    float sum = 0, sq = 0;
    for (size_t i = 0; i < d; i++) {
        m->phi[i] = fmap_phi(m->sp.fmap, x[i]);
        sum += m->phi[i];
        sq += m->phi[i] * m->phi[i];
    }
    float scale = 1.0f;
    if (m->sp.rule == LAB_DELTA_SUM) scale = 1.0f / (sum + m->sp.eps);
    else if (m->sp.rule == LAB_DELTA_L2) scale = 1.0f / (sqrtf(sq) + m->sp.eps);
    if (scale != 1.0f)
        for (size_t i = 0; i < d; i++) m->phi[i] *= scale;
}

void labmem_write(LabMemory *m, const float *k, const float *v) {
    size_t d = m->sp.dh;
    float *S = m->S, *z = m->z;
    feature(m, k);
    const float *f = m->phi;
    switch (m->sp.rule) {
    case LAB_DECAY:
    case LAB_SUM:
        if (m->sp.rule == LAB_DECAY) {  // forget a little of everything, then the plain write
            for (size_t i = 0; i < d * d; i++) S[i] *= m->sp.lambda;
            for (size_t i = 0; i < d; i++) z[i] *= m->sp.lambda;
        }
        for (size_t i = 0; i < d; i++) {
            for (size_t j = 0; j < d; j++) S[i * d + j] += f[i] * v[j];
            z[i] += f[i];
        }
        break;
    case LAB_DELTA_SUM:
    case LAB_DELTA_L2:
        // column j: S[:, j] += β k̂ (v_j − k̂ᵀ S[:, j]); a column's correction reads
        // only that column, so updating column by column is the whole-matrix update
        for (size_t j = 0; j < d; j++) {
            float old = 0;
            for (size_t i = 0; i < d; i++) old += f[i] * S[i * d + j];
            float delta = m->sp.beta * (v[j] - old);
            for (size_t i = 0; i < d; i++) S[i * d + j] += f[i] * delta;
        }
        break;
    default: break;
    }
}

void labmem_read(LabMemory *m, const float *q, float *y) {
    size_t d = m->sp.dh;
    feature(m, q);
    const float *f = m->phi;
    for (size_t j = 0; j < d; j++) y[j] = 0;
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++) y[j] += f[i] * m->S[i * d + j];
    if ((m->sp.rule == LAB_SUM || m->sp.rule == LAB_DECAY) && m->sp.normalize) {
        float den = m->sp.eps;
        for (size_t i = 0; i < d; i++) den += f[i] * m->z[i];
        for (size_t j = 0; j < d; j++) y[j] /= den;
    }
}
