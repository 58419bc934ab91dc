// residual.c — the residual-stream sum out = a + b. Its backward is the
// identity into both inputs, done by the caller (the tape adds dout to each).
#include "kernels/nn.h"

#include "util/pool.h"

typedef struct {
    float *out;
    const float *a, *b;
} AddFwd;

static void add_range(void *vctx, size_t lo, size_t hi) {
    const AddFwd *k = vctx;
    // no restrict on out: out == a (in-place residual add) is allowed
    float *out = k->out;
    const float *a = k->a, *b = k->b;
    for (size_t i = lo; i < hi; i++) out[i] = a[i] + b[i];
}

// out, a, b (n); out may alias a or b
void add_forward(float *out, const float *a, const float *b, size_t n) {
    AddFwd k = {out, a, b};
    parallel_for(n, pool_grain_bytes(12), add_range, &k);  // a, b read, out written
}
