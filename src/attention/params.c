// params.c — see params.h.
#include "attention/params.h"

size_t attn_own_params(const AttnKind *k, const AttnConfig *c, AttnOwnParam *out) {
    size_t n = 0;
    if (k->n_aux)
        out[n++] = (AttnOwnParam){ATTN_OWN_QKV_ROWS, "aux", k->aux_what, (size_t)k->n_aux, 1};
    if (k->uses_decay && c->data_decay)
        out[n++] = (AttnOwnParam){ATTN_OWN_QKV_ROWS, "gate", "the decay gate g_t = w_hᵀx_t (λ_t = sigmoid(g_t + θ_h))",
                                  1, 1};
    if (k->uses_decay)
        out[n++] = (AttnOwnParam){ATTN_OWN_THETA, "attn.theta",
                                  c->data_decay ? "θ_h, the decay gate's bias" : "θ_h, the decay logit (λ = sigmoid θ)", 1,
                                  c->decay_learned};
    return n;
}
