// fastweight_work.h — the head of the work buffer that every fast-weight kind
// (linear, linear_decay, delta) lays out the same way:
//   work[0 .. B*H)        ||S_T||_F of each (b, h) slab after the forward
//   work[B*H .. 2*B*H)    each slab's partial dL/d(decay), summed over b later
// then, from a 16-float boundary, one slab of the kind's own saved state and
// scratch per (b, h), each `slab` floats.
#pragma once
#include <stddef.h>

#include "attention/attention.h"

// Mean over slabs of ||S_T||: the AttnKind.last_state_norm of these kinds.
static inline double fw_last_state_norm(const AttnConfig *c, size_t B, size_t T, const float *work) {
    (void)T;
    size_t BH = B * (size_t)c->heads;
    double acc = 0;
    for (size_t i = 0; i < BH; i++) acc += work[i];
    return BH ? acc / (double)BH : 0.0;
}

// The decay partials of head h summed over the batch in a fixed order (b = 0,
// 1, ...), so dθ does not depend on how slabs were spread over threads.
static inline double fw_decay_partial_sum(const float *work, size_t B, size_t H, size_t h) {
    double acc = 0;
    for (size_t b = 0; b < B; b++) acc += work[B * H + b * H + h];
    return acc;
}

static inline size_t fw_round16(size_t n) { return (n + 15) & ~(size_t)15; }

// Floats of the whole work buffer for BH slabs of `slab` floats.
static inline size_t fw_work_floats(size_t BH, size_t slab) { return fw_round16(2 * BH) + BH * slab; }

// Slab bh of the work buffer.
static inline float *fw_slab(float *work, size_t BH, size_t bh, size_t slab) {
    return work + fw_round16(2 * BH) + bh * slab;
}
