// fastweight_work.h — the head of the work buffer that every fast-weight kind
// (linear, linear_decay, delta) lays out the same way:
//   work[0 .. B*H)          ||S_T||_F of each (b, h) slab after the forward
//   work[B*H .. 2*B*H)      each slab's dL/dlog λ_h (one λ per head: decay = fixed | learned)
//   work[2*B*H .. 3*B*H)    each slab's dL/dθ_h (decay = data: Σ_t dL/dx_t, x_t = g_t + θ_h)
// then, from a 16-float boundary, one slab of the kind's own saved state and
// scratch per (b, h), each `slab` floats. A backward fills the one gradient
// slot its decay has; fw_add_dtheta turns it into dL/dθ.
#pragma once
#include <stddef.h>

#include "attention/attention.h"
#include "attention/decay.h"

// Mean over slabs of ||S_T||: the AttnKind.last_state_norm of these kinds.
static inline double fw_last_state_norm(const AttnConfig *c, size_t B, size_t T, const float *work) {
    (void)T;
    size_t BH = B * (size_t)c->heads;
    double acc = 0;
    for (size_t i = 0; i < BH; i++) acc += work[i];
    return BH ? acc / (double)BH : 0.0;
}

// The two gradient slots of slab bh's decay (see the layout above).
static inline float *fw_dloglam_slot(float *work, size_t BH, size_t bh) { return work + BH + bh; }
static inline float *fw_dtheta_slot(float *work, size_t BH, size_t bh) { return work + 2 * BH + bh; }

// ADDS dL/dθ_h of every head to dtheta (H): the slabs' dL/dθ_h (decay = data),
// or their dL/dlog λ_h chained through log λ = log sigmoid(θ). Summed over b in
// a fixed order (b = 0, 1, ...), so dθ does not depend on how slabs were
// spread over threads.
static inline void fw_add_dtheta(const AttnConfig *c, float *work, size_t B, const float *theta,
                                 float *dtheta) {
    size_t H = (size_t)c->heads, BH = B * H;
    for (size_t h = 0; h < H; h++) {
        double acc = 0;
        for (size_t b = 0; b < B; b++)
            acc += c->data_decay ? *fw_dtheta_slot(work, BH, b * H + h) : *fw_dloglam_slot(work, BH, b * H + h);
        dtheta[h] += (float)(c->data_decay ? acc : decay_dx_of_dloglam(theta[h], acc));
    }
}

// The gate's backward over one slab (decay = data): dll (T) holds dL/dlog λ_t,
// g (T) the gate logits, theta_h the head's bias. ADDS dL/dx_t (x_t = g_t +
// θ_h) into dg (T, if given) and returns Σ_t dL/dx_t, the slab's dL/dθ_h.
static inline double fw_gate_backward(const float *g, double theta_h, const float *dll, float *dg, size_t T) {
    double sum = 0;
    for (size_t t = 0; t < T; t++) {
        double dx = decay_dx_of_dloglam((double)g[t] + theta_h, (double)dll[t]);
        if (dg) dg[t] += (float)dx;
        sum += dx;
    }
    return sum;
}

static inline size_t fw_round16(size_t n) { return (n + 15) & ~(size_t)15; }

// Floats of the whole work buffer for BH slabs of `slab` floats.
static inline size_t fw_work_floats(size_t BH, size_t slab) { return fw_round16(3 * BH) + BH * slab; }

// Slab bh of the work buffer.
static inline float *fw_slab(float *work, size_t BH, size_t bh, size_t slab) {
    return work + fw_round16(3 * BH) + bh * slab;
}
