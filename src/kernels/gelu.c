// gelu.c — GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
// Written as x * sigmoid(2z) (since 0.5 (1 + tanh z) = 1 / (1 + exp(-2z))),
// which needs one exp and no tanh. That matters: libm's tanhf/expf are calls
// gcc cannot vectorise without -ffast-math, and GELU runs on every FFN hidden
// unit, forward and backward. So it uses vexpf (vexp.h), plain C that the
// vectoriser turns into SIMD. It also avoids the cancellation in 1 + tanh z
// for negative z, so it is more accurate than the literal formula there.
#include "kernels/nn.h"

#include "kernels/gelu.h"
#include "kernels/vexp.h"
#include "util/pool.h"

// ---- forward ----

typedef struct {
    float *out;
    const float *inp;
} GeluFwd;

static void gelu_fwd_range(void *vctx, size_t lo, size_t hi) {
    const GeluFwd *k = vctx;
    float *restrict out = k->out;
    const float *restrict inp = k->inp;
    for (size_t i = lo; i < hi; i++) out[i] = gelu_value(inp[i]);
}

// out, inp (n)
void gelu_forward(float *out, const float *inp, size_t n) {
    GeluFwd k = {out, inp};
    parallel_for(n, pool_grain_bytes(8), gelu_fwd_range, &k);  // x read, out written
}

// ---- backward ----

typedef struct {
    float *dinp;
    const float *inp, *dout;
} GeluBwd;

static void gelu_bwd_range(void *vctx, size_t lo, size_t hi) {
    const GeluBwd *k = vctx;
    float *restrict dinp = k->dinp;
    const float *restrict inp = k->inp, *restrict dout = k->dout;
    for (size_t i = lo; i < hi; i++) {
        // out = x * sig, sig = 1 / (1 + e), e = exp(-2z), z = K (x + A x^3)
        // d out / dx = sig + x * sig (1 - sig) * 2 dz/dx,  1 - sig = e * sig (no cancellation)
        float x = inp[i];
        // beyond |x| = 10 the derivative is 1 (x > 0) or 0 to float precision;
        // clamping keeps x^2 in dz finite there (inf * 0 would give NaN)
        x = x < -10.0f ? -10.0f : x;
        x = x > 10.0f ? 10.0f : x;
        float z = GELU_K * (x + GELU_A * x * x * x);
        float e = vexpf(-2.0f * z);
        float sig = 1.0f / (1.0f + e);
        float dz = GELU_K * (1.0f + 3.0f * GELU_A * x * x);
        dinp[i] += dout[i] * (sig + 2.0f * x * sig * (e * sig) * dz);
    }
}

// dinp (n) += dout * gelu'(inp); inp, dout (n)
void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
    // forward: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluBwd k = {dinp, inp, dout};
    parallel_for(n, pool_grain_bytes(16), gelu_bwd_range, &k);  // x, dout read; dinp read, written
}
