// softmax_cache.h — the `softmax` kind's generation form (AttnKind.step and
// the state functions beside it): a ring-buffer KV cache of `window` entries
// per head, K stored in panels of 16 cache slots so that one query is scored
// against 16 keys per vector operation, four panels interleaved by dimension
// so that the four scored together are read as one stream (layout in
// softmax_cache.c). Every output is the same chain of
// float operations as the obvious loop over keys and dimensions, so the layout
// changes no value (tests/attention/test_softmax.c).
// With AttnConfig.kv_bf16 the cache holds K and V in bf16 (rounded to
// nearest even as inserted, half the bytes); a step then gives the bits the
// fp32 cache gives holding those rounded values.
#pragma once
#include "attention/attn_kernel_names.h"
#include <stddef.h>

#include "attention/attention.h"

extern size_t sm_cache_floats(const AttnConfig *c, size_t window);
extern void sm_cache_reset(const AttnConfig *c, float *state, size_t window);
// y (H, dh) for the token at pos with q, k, v (H, dh); inserts k, v first
extern void sm_cache_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y, const float *q,
                   const float *k, const float *v);
extern void sm_cache_extend(const AttnConfig *c, float *state, size_t window, size_t have, size_t pos);
