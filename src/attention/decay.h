// decay.h — the decay λ of the fast-weight kinds, from its logit, stably.
//
// One λ per head: λ = sigmoid(θ_h) (decay = fixed or learned). One λ per head
// and token (decay = data): λ_t = sigmoid(g_t + θ_h), where g_t = w_hᵀx_t is the
// kind's last aux input (the model projects it from the block input beside q,
// k, v) and θ_h is its bias, initialised to logit(decay_init), so that λ_t
// starts near decay_init (w_h starts small). A scalar gate per head and token,
// as in Mamba-2 and "simple GLA", but in sigmoid form: Mamba-2 and Gated
// DeltaNet write it exp(−exp(A_h)·softplus(w_hᵀx_t + b_h)), and GLA's gate is
// a vector over the key dimensions, not one scalar (docs/delta.md, "How the
// kinds relate to the literature").
#pragma once
#include <math.h>
#include <stddef.h>

#include "attention/attention.h"

// sigmoid(x) without overflow for any x
static inline double decay_sigmoid(double x) {
    if (x >= 0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

// λ from its logit θ, and back: the one place the program writes
// λ = sigmoid(θ) (attn_lambda(-θ) = 1 − λ without cancellation near λ = 1).
static inline double attn_lambda(double theta) { return decay_sigmoid(theta); }
static inline double attn_logit(double lambda) { return log(lambda / (1.0 - lambda)); }

// dL/dx from dL/dlog λ where λ = sigmoid(x): dlog λ/dx = 1 − λ = sigmoid(−x)
// (no cancellation near λ = 1). The one place a decay gradient becomes a
// logit's gradient: θ's (one λ per head) and the gate's x_t = g_t + θ_h.
static inline double decay_dx_of_dloglam(double x, double dloglam) { return dloglam * decay_sigmoid(-x); }

// log sigmoid(x) = -softplus(-x), without overflow for any x
static inline double decay_log_sigmoid(double x) {
    return x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x));
}

// Aux inputs per head and token the model projects for this kind and config:
// the kind's own (delta's β logit) and, with decay = data, the gate logit last.
static inline size_t attn_aux(const AttnKind *k, const AttnConfig *c) {
    return (size_t)k->n_aux + (c->data_decay ? 1 : 0);
}

// The gate logits of slab bh: aux is (B, H, n_aux, T), channel-major, so each
// channel of a slab is one contiguous T-vector; the gate is the last channel.
static inline const float *decay_gate_of(const AttnKind *k, const AttnConfig *c, const float *aux,
                                         size_t bh, size_t T) {
    size_t na = attn_aux(k, c);
    return aux + (bh * na + na - 1) * T;
}

// λ of head h at one token: aux_h the (n_aux) aux inputs of that head and token
// (generation's layout), theta (H) or NULL (λ = 1). For inspect and step().
static inline double decay_lambda_at(const AttnKind *k, const AttnConfig *c, const float *aux_h,
                                     const float *theta, size_t h) {
    if (!theta) return 1.0;
    double x = theta[h];
    if (c->data_decay) x += aux_h[attn_aux(k, c) - 1];
    return decay_sigmoid(x);
}
