// registry.c — the one list of attention kinds.
//
// A new kind is one new file defining `const AttnKind attn_NAME` and one line
// `X(NAME)` below: the list both declares the tables and fills attn_kinds[].
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
