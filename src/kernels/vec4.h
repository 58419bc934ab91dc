// vec4.h — four float lanes through GCC's vector extension (also clang's), for
// the portable path's kernels: SSE2 on any x86-64, two NEON or four scalar
// operations elsewhere. The operators act lane by lane with C's IEEE
// semantics, and -std=c11 keeps a * b + c two roundings (no FMA contraction),
// so a lane computes what the plain scalar code computes. Kernel files only.
#pragma once
#include <stdint.h>
#include <string.h>

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));  // a comparison's result: -1 (true) or 0

static inline v4f v4f_set1(float x) { return (v4f){x, x, x, x}; }
static inline v4f v4f_load(const float *p) {
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void v4f_store(float *p, v4f v) { memcpy(p, &v, sizeof v); }
// where m (a comparison) is true, a; else b
static inline v4f v4f_select(v4i m, v4f a, v4f b) { return (v4f)((m & (v4i)a) | (~m & (v4i)b)); }
