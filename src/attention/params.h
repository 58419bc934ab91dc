// params.h — the parameters an attention kind owns, for one configuration.
//
// Every kind gets the same projections from the model (q, k, v: the first 3C
// rows of a layer's attn.qkv.weight; attn.proj.weight). What a kind owns
// besides is read from its table (AttnKind.uses_decay, n_aux, data_decay)
// here, in one place: the model allocates, names and initialises exactly
// this list (model.c), and inspect prints it. The names and inits are part
// of the checkpoint and export formats.
#pragma once
#include <stddef.h>

#include "attention/attention.h"

typedef enum {
    // rows of the layer's attn.qkv.weight after q | k | v, `per_head` for each
    // head, head by head: per-token inputs projected with q, k, v (the aux
    // channels of attention.h); initialised with that matrix (normal, std
    // 0.02, from its own random stream), weight decay as it
    ATTN_OWN_QKV_ROWS,
    // a tensor of its own, (1, H), `name` in each layer: the decay logit θ_h,
    // λ = sigmoid(θ) (decay.h); initialised to logit([attention] decay_init),
    // no weight decay, frozen with decay = fixed
    ATTN_OWN_THETA,
} AttnOwnPlace;

typedef struct {
    AttnOwnPlace place;
    const char *name;  // ATTN_OWN_THETA: the tensor in the layer ("attn.theta"); rows: what they project
    const char *what;  // what it is, in words
    size_t per_head;   // rows (of d_model) or floats per head
    int learnable;     // 0: stays at its init (θ with decay = fixed)
} AttnOwnParam;

enum { ATTN_MAX_OWN = 3 };

// What kind k owns under config c, into out (ATTN_MAX_OWN entries): its own
// aux rows, then the decay gate's row (decay = data), then θ; returns how many.
// The aux rows listed add up to attn_aux(k, c) per head.
size_t attn_own_params(const AttnKind *k, const AttnConfig *c, AttnOwnParam *out);

// The rows per head the list adds to attn.qkv.weight after q | k | v.
static inline size_t attn_own_rows(const AttnOwnParam *own, size_t n) {
    size_t rows = 0;
    for (size_t i = 0; i < n; i++)
        if (own[i].place == ATTN_OWN_QKV_ROWS) rows += own[i].per_head;
    return rows;
}
