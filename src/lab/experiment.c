// experiment.c — capacity and overwrite experiments (see experiment.h).
#include "lab/experiment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gemm.h"
#include "util/err.h"
#include "util/rng.h"

static double dot(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

static double cosine(const float *a, const float *b, size_t n) {
    double na = dot(a, a, n), nb = dot(b, b, n);
    return na > 0 && nb > 0 ? dot(a, b, n) / sqrt(na * nb) : 0.0;
}

static void trial_rng(Rng *r, uint64_t seed, size_t trial) {
    rng_seed(r, seed * 0x9E3779B97F4A7C15ull + (uint64_t)trial);
}

// keys (N, dh): N distinct pool rows (a partial Fisher-Yates shuffle of the
// row indices idx (n_pool)), or fresh Gaussian draws
static void draw_keys(Rng *r, const LabKeys *keys, size_t dh, size_t N, size_t *idx, float *out) {
    if (!keys->pool) {
        for (size_t i = 0; i < N * dh; i++) out[i] = rng_normal(r);
        return;
    }
    for (size_t i = 0; i < keys->n_pool; i++) idx[i] = i;
    for (size_t i = 0; i < N; i++) {
        size_t j = i + (size_t)rng_below(r, keys->n_pool - i), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        memcpy(out + i * dh, keys->pool + idx[i] * dh, dh * sizeof(float));
    }
}

LabRecall lab_recall(const LabMemSpec *sp, const LabKeys *keys, size_t N, size_t trials,
                     uint64_t seed) {
    size_t d = sp->dh;
    float *k = xcalloc(N * d, sizeof(float)), *v = xcalloc(N * d, sizeof(float));
    float *vn = xcalloc(N * d, sizeof(float)), *y = xcalloc(N * d, sizeof(float));  // (N, dh) each
    float *g = xcalloc(N * N, sizeof(float));  // (N, N): g[i, j] = y_i · v_j/|v_j|
    size_t *idx = keys->pool ? xcalloc(keys->n_pool, sizeof(size_t)) : NULL;
    LabMemory m;
    labmem_init(&m, sp);
    double cos_sum = 0, right = 0;
    for (size_t t = 0; t < trials; t++) {
        Rng r;
        trial_rng(&r, seed, t);
        draw_keys(&r, keys, d, N, idx, k);
        for (size_t i = 0; i < N * d; i++) v[i] = rng_normal(&r);
        for (size_t i = 0; i < N; i++) {
            double n = sqrt(dot(v + i * d, v + i * d, d));
            for (size_t j = 0; j < d; j++) vn[i * d + j] = (float)(v[i * d + j] / n);
        }
        labmem_reset(&m);
        for (size_t i = 0; i < N; i++) labmem_write(&m, k + i * d, v + i * d);
        for (size_t i = 0; i < N; i++) labmem_read(&m, k + i * d, y + i * d);
        // the nearest stored value by cosine is the largest y_i · v̂_j (y_i's
        // own norm is common to the row): one matrix product for all pairs
        gemm_serial(0, 1, N, N, d, 1.0f, y, d, vn, d, 0.0f, g, N);
        for (size_t i = 0; i < N; i++) {
            cos_sum += cosine(y + i * d, v + i * d, d);
            const float *row = g + i * N;
            int nearest = 1;  // no other stored value as close (a tie counts as wrong)
            for (size_t j = 0; j < N && nearest; j++)
                if (j != i && row[j] >= row[i]) nearest = 0;
            right += nearest;
        }
    }
    labmem_free(&m);
    free(k);
    free(v);
    free(vn);
    free(y);
    free(g);
    free(idx);
    double n = (double)N * (double)trials;
    return (LabRecall){cos_sum / n, right / n};
}

LabOverwrite lab_overwrite(const LabMemSpec *sp, const LabKeys *keys, size_t trials, uint64_t seed) {
    size_t d = sp->dh;
    float *k = xcalloc(d, sizeof(float)), *v1 = xcalloc(d, sizeof(float));
    float *v2 = xcalloc(d, sizeof(float)), *y = xcalloc(d, sizeof(float));
    size_t *idx = keys->pool ? xcalloc(keys->n_pool, sizeof(size_t)) : NULL;
    LabMemory m;
    labmem_init(&m, sp);
    LabOverwrite o = {0, 0, 0, 0};
    for (size_t t = 0; t < trials; t++) {
        Rng r;
        trial_rng(&r, seed, t);
        draw_keys(&r, keys, d, 1, idx, k);
        for (size_t i = 0; i < d; i++) v1[i] = rng_normal(&r);
        for (size_t i = 0; i < d; i++) v2[i] = rng_normal(&r);
        labmem_reset(&m);
        labmem_write(&m, k, v1);
        labmem_write(&m, k, v2);
        labmem_read(&m, k, y);
        // normal equations of min ‖y − a v1 − b v2‖²
        double g11 = dot(v1, v1, d), g12 = dot(v1, v2, d), g22 = dot(v2, v2, d);
        double r1 = dot(y, v1, d), r2 = dot(y, v2, d), det = g11 * g22 - g12 * g12;
        o.first += (r1 * g22 - r2 * g12) / det;
        o.second += (r2 * g11 - r1 * g12) / det;
        o.cos_first += cosine(y, v1, d);
        o.cos_second += cosine(y, v2, d);
    }
    labmem_free(&m);
    free(k);
    free(v1);
    free(v2);
    free(y);
    free(idx);
    double n = (double)trials;
    return (LabOverwrite){o.first / n, o.second / n, o.cos_first / n, o.cos_second / n};
}
