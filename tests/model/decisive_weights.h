// decisive_weights.h — weights far from the 0.02 init, for tests of generation.
//
// Logits spread over several units (greedy and sampled choices are decisive)
// and activations stay O(1) at every layer: matrices z/sqrt(fan-in),
// embeddings 0.5 z, LayerNorm weights 1 + 0.2 z and biases 0.2 z, and the decay
// logits θ uniform in [theta_lo, theta_hi) (λ = sigmoid(θ)).
#pragma once
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "util/rng.h"

static inline void decisive_weights(Model *m, uint64_t seed, float theta_lo, float theta_hi) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < m->n_params; i++) {
        Tensor *t = &m->params[i].t;
        const char *nm = t->name;
        int is_ln_w = strstr(nm, ".weight") && (strstr(nm, "ln_") != NULL);
        int is_ln_b = strstr(nm, ".bias") != NULL;
        for (size_t j = 0; j < t->n; j++) {
            float z = rng_normal(&r);
            if (strstr(nm, "theta")) t->data[j] = theta_lo + (theta_hi - theta_lo) * rng_f32(&r);
            else if (is_ln_w) t->data[j] = 1.0f + 0.2f * z;
            else if (is_ln_b) t->data[j] = 0.2f * z;
            else if (!strcmp(nm, "wte") || !strcmp(nm, "wpe")) t->data[j] = 0.5f * z;
            else t->data[j] = z / sqrtf((float)t->cols);
        }
    }
}
