// sampler.h — the next token from logits: greedy, temperature, top-k.
//
// Temperature T > 0 samples from softmax(logits / T) restricted to the top_k
// largest logits (top_k = 0 or >= V: the whole vocabulary); T = 0 is greedy
// argmax. Every draw comes from the sampler's own seeded Rng, so a seed fixes
// the whole generated sequence. Scratch is allocated once, at init.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

typedef struct {
    size_t V;
    float temperature;  // >= 0; 0 = greedy
    size_t top_k;       // 0 = all
    Rng rng;
    int *cand;          // (V) candidate token ids, best first (top-k only)
    double *p;          // (V) unnormalised probabilities of the candidates
} Sampler;

void sampler_init(Sampler *s, size_t V, float temperature, size_t top_k, uint64_t seed);
void sampler_free(Sampler *s);
// The next token for logits (V). Logits must be finite (see logits_finite).
int sampler_next(Sampler *s, const float *logits);

// Index of the largest of x (n >= 1); the lowest index among equals.
int argmax_f32(const float *x, size_t n);
// 1 if all n values are finite.
int logits_finite(const float *x, size_t n);
