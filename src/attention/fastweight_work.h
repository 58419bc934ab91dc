// fastweight_work.h — the head of the work buffer that every fast-weight kind
// (linear, linear_decay, delta) lays out the same way:
//   work[0 .. B*H)        ||S_T||_F of each (b, h) slab after the forward
//   work[B*H .. 2*B*H)    each slab's partial dL/d(decay), summed over b later
// followed by the kind's own saved state and scratch.
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
