// registry.c — the one list of attention kinds.
//
// A new kind is one new file defining `const AttnKind attn_NAME` and one line
// `X(NAME)` below: the list both declares the tables and fills attn_kinds[].
#include <math.h>
#include <string.h>

#include "attention.h"

#define ATTN_KINDS(X) \
    X(softmax)        \
    X(linear)         \
    X(linear_decay)   \
    X(delta)

#define DECLARE(name) extern const AttnKind attn_##name;
ATTN_KINDS(DECLARE)
#undef DECLARE

#define ENTRY(name) &attn_##name,
const AttnKind *const attn_kinds[] = {ATTN_KINDS(ENTRY) NULL};
#undef ENTRY

const AttnKind *attn_kind_find(const char *name) {
    for (int i = 0; attn_kinds[i]; i++)
        if (strcmp(attn_kinds[i]->name, name) == 0) return attn_kinds[i];
    return NULL;
}

KeyNorm attn_default_key_norm(const AttnKind *k, int normalize) {
    return k->uses_key_norm && normalize ? k->default_key_norm : KEYNORM_SUM;
}

FeatureMap attn_default_feature_map(const AttnKind *k, KeyNorm key_norm) {
    return k->uses_key_norm && key_norm == KEYNORM_L2 ? FMAP_IDENTITY : FMAP_ELU1;
}

void attn_state_norms(const AttnKind *k, const AttnConfig *c, const float *state, size_t h, double *s_norm,
                      double *z_norm) {
    AttnStateLayout lay;
    k->state_layout(c, &lay);
    size_t d = (size_t)c->dh;
    const float *S = state + h * lay.head_stride;
    double s = 0, z = 0;
    for (size_t i = 0; i < d * d; i++) s += (double)S[i] * S[i];
    for (size_t i = 0; lay.has_z && i < d; i++) z += (double)S[d * d + i] * S[d * d + i];
    *s_norm = sqrt(s);
    *z_norm = lay.has_z ? sqrt(z) : NAN;
}
