// gelu.c — GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
// Written as x * sigmoid(2z) (since 0.5 (1 + tanh z) = 1 / (1 + exp(-2z))),
// which needs one exp and no tanh. That matters: libm's tanhf/expf are calls
// gcc cannot vectorise without -ffast-math, and GELU runs on every FFN hidden
// unit, forward and backward. So this file carries its own exp, plain C that
// the vectoriser turns into SIMD. It also avoids the cancellation in 1 + tanh z
// for negative z, so it is more accurate than the literal formula there.
#include "kernels/nn.h"

#include <stdint.h>
#include <string.h>

#include "util/pool.h"

#define GELU_GRAIN 8192  // elements per task: the exp makes each one ~20 flops

static const float GELU_K = 0.7978845608028654f;  // sqrt(2 / pi)
static const float GELU_A = 0.044715f;

// exp(x), x clamped to [-87, 88] so that 2^n stays a normal float: the result
// is in [1.6e-38, 1.7e38], never 0 or inf, and NaN stays NaN. Error ~1-2 ulp.
//   x = n ln2 + r, |r| <= ln2 / 2; exp(x) = 2^n exp(r)
static inline float exp_clamped(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    // n = round(x / ln2) by the 1.5 * 2^23 trick: adding it leaves n in the
    // low mantissa bits of t (round-to-nearest), with no float->int conversion
    const float magic = 12582912.0f;
    float t = x * 1.44269504088896341f + magic;
    float n = t - magic;
    // Cody-Waite: ln2_hi has 15 significant bits, so n * ln2_hi is exact
    float r = x - n * 0.693145751953125f;
    r = r - n * 1.428606820309417e-6f;
    // Taylor to r^7: the truncation error r^8 / 8! < 1e-8 relative for |r| <= 0.347
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    // 2^n: bits(t) - bits(magic) = n; biased exponent n + 127 in [1, 254]
    uint32_t tb, sb;
    memcpy(&tb, &t, sizeof tb);
    sb = (tb - 0x4B400000u + 127u) << 23;
    float s;
    memcpy(&s, &sb, sizeof s);
    return p * s;
}

// ---- forward ----

typedef struct {
    float *out;
    const float *inp;
} GeluFwd;

static void gelu_fwd_range(void *vctx, size_t lo, size_t hi) {
    const GeluFwd *k = vctx;
    float *restrict out = k->out;
    const float *restrict inp = k->inp;
    for (size_t i = lo; i < hi; i++) {
        float x = inp[i];
        float z = GELU_K * (x + GELU_A * x * x * x);
        out[i] = x / (1.0f + exp_clamped(-2.0f * z));
    }
}

// out, inp (n)
void gelu_forward(float *out, const float *inp, size_t n) {
    GeluFwd k = {out, inp};
    parallel_for(n, GELU_GRAIN, gelu_fwd_range, &k);
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
        float e = exp_clamped(-2.0f * z);
        float sig = 1.0f / (1.0f + e);
        float dz = GELU_K * (1.0f + 3.0f * GELU_A * x * x);
        dinp[i] += dout[i] * (sig + 2.0f * x * sig * (e * sig) * dz);
    }
}

// dinp (n) += dout * gelu'(inp); inp, dout (n)
void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
    // forward: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluBwd k = {dinp, inp, dout};
    parallel_for(n, GELU_GRAIN, gelu_bwd_range, &k);
}
