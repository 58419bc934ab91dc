// sampler.c — greedy, temperature and top-k sampling (see sampler.h).
#include "sampler.h"

#include <math.h>
#include <stdlib.h>

#include "util/err.h"

void sampler_init(Sampler *s, size_t V, float temperature, size_t top_k, uint64_t seed) {
    s->V = V;
    s->temperature = temperature;
    s->top_k = top_k >= V ? 0 : top_k;  // k >= V keeps everything: same as no top-k
    rng_seed(&s->rng, seed);
    s->cand = xcalloc(V, sizeof *s->cand);
    s->p = xcalloc(V, sizeof *s->p);
}

void sampler_free(Sampler *s) {
    free(s->cand);
    free(s->p);
    s->cand = NULL;
    s->p = NULL;
}

int argmax_f32(const float *x, size_t n) {
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return (int)best;
}

int logits_finite(const float *x, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

// token a ranks before token b: larger logit, then lower id (a fixed total order,
// so ties never depend on anything but the logits)
static int ranks_before(const float *logits, int a, int b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
}

// cand[0..k) = the k best tokens, best first. Insertion into a sorted prefix:
// O(V k), no allocation, and V is at most 256 for a byte-level vocabulary.
static void top_k(int *cand, const float *logits, size_t V, size_t k) {
    size_t n = 0;
    for (size_t t = 0; t < V; t++) {
        int tok = (int)t;
        if (n == k && !ranks_before(logits, tok, cand[k - 1])) continue;
        size_t i = n < k ? n++ : k - 1;  // when full, the last one falls out
        while (i > 0 && ranks_before(logits, tok, cand[i - 1])) {
            cand[i] = cand[i - 1];
            i--;
        }
        cand[i] = tok;
    }
}

// uniform in [0, 1) with 53 random bits
static double uniform01(Rng *r) { return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

int sampler_next(Sampler *s, const float *logits) {
    if (s->temperature == 0.0f) return argmax_f32(logits, s->V);
    size_t n = s->V;
    if (s->top_k) {
        top_k(s->cand, logits, s->V, s->top_k);
        n = s->top_k;
    } else {
        for (size_t i = 0; i < n; i++) s->cand[i] = (int)i;
    }
    // p_i = exp((l_i - max) / T), in double: no overflow, and the largest is 1
    double mx = logits[s->cand[0]];
    for (size_t i = 1; i < n; i++)
        if (logits[s->cand[i]] > mx) mx = logits[s->cand[i]];
    double sum = 0, inv_t = 1.0 / (double)s->temperature;
    for (size_t i = 0; i < n; i++) {
        s->p[i] = exp(((double)logits[s->cand[i]] - mx) * inv_t);
        sum += s->p[i];
    }
    double u = uniform01(&s->rng) * sum, acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += s->p[i];
        if (u < acc) return s->cand[i];
    }
    // u lands past the last partial sum only through rounding: take the last
    // candidate with nonzero probability
    for (size_t i = n; i-- > 0;)
        if (s->p[i] > 0) return s->cand[i];
    return s->cand[0];
}
