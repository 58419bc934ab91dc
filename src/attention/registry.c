// registry.c — the one list of attention kinds. A new kind is one line here.
#include <string.h>

#include "attention.h"

extern const AttnKind attn_softmax, attn_linear, attn_linear_decay, attn_delta;

const AttnKind *const attn_kinds[] = {
    &attn_softmax,
    &attn_linear,
    &attn_linear_decay,
    &attn_delta,
    NULL,
};

const AttnKind *attn_kind_find(const char *name) {
    for (int i = 0; attn_kinds[i]; i++)
        if (strcmp(attn_kinds[i]->name, name) == 0) return attn_kinds[i];
    return NULL;
}
