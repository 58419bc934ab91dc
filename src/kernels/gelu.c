// gelu.c — GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
// Written as x * sigmoid(2z) (since 0.5 (1 + tanh z) = 1 / (1 + exp(-2z))),
// which needs one exp and no tanh. That matters: libm's tanhf/expf are calls
// gcc cannot vectorise without -ffast-math, and GELU runs on every FFN hidden
// unit, forward and backward. So it uses vexpf (vexp.h), plain C that the
// vectoriser turns into SIMD; the AVX-512 and AVX2 paths spell the lanes out
// (16 and 8 below). It also avoids the cancellation in 1 + tanh z for
// negative z, so it is more accurate than the literal formula there.
#include "kernels/nn.h"

#include "kernels/gelu.h"
#include "kernels/vexp.h"
#include "util/pool.h"

#if defined(__AVX512F__) && defined(FP_FAST_FMAF)
#include <immintrin.h>
// 16 lanes of the scalar loops below, the same IEEE operations in the same
// order (vexpf16 is vexpf lane by lane), so every value keeps its bits
// (tests/kernels/test_gelu.c compares them). gcc vectorises the scalar loops
// itself, but turns their clamps into mask arithmetic: the backward ran at
// ~0.76 ns per value from L1 that way, ~2.5 cycles, on the Zen 5 target.

// gelu_exp (gelu.h) on 16 lanes
static inline __m512 gelu_exp16(__m512 x) {
    const __m512 k = _mm512_set1_ps(GELU_K), a = _mm512_set1_ps(GELU_A);
    __m512 x3 = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(a, x), x), x);  // GELU_A * x * x * x
    __m512 z = _mm512_mul_ps(k, _mm512_add_ps(x, x3));
    return vexpf16(_mm512_mul_ps(_mm512_set1_ps(-2.0f), z));
}

// gelu_value on 16 lanes
static inline __m512 gelu_value16(__m512 x) {
    return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), gelu_exp16(x)));
}

// gelu_grad (gelu.h) on 16 lanes
static inline __m512 gelu_grad16(__m512 x) {
    const __m512 k = _mm512_set1_ps(GELU_K), one = _mm512_set1_ps(1.0f);
    // x < -10 ? -10 : x, then x > 10 ? 10 : x; max/min return their second
    // operand for NaN, so NaN passes through as in the scalar form
    x = _mm512_max_ps(_mm512_set1_ps(-10.0f), x);
    x = _mm512_min_ps(_mm512_set1_ps(10.0f), x);
    __m512 e = gelu_exp16(x);
    __m512 sig = _mm512_div_ps(one, _mm512_add_ps(one, e));
    __m512 x2 = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(3.0f * GELU_A), x), x);  // 3 GELU_A x x
    __m512 dz = _mm512_mul_ps(k, _mm512_add_ps(one, x2));
    __m512 t = _mm512_mul_ps(_mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(2.0f), x), sig), _mm512_mul_ps(e, sig));
    return _mm512_add_ps(sig, _mm512_mul_ps(t, dz));
}
#define GELU_LANES 16
#define GELU_VEC __m512
#define GELU_LOAD _mm512_loadu_ps
#define GELU_STORE _mm512_storeu_ps
#define GELU_ZERO _mm512_setzero_ps
#define GELU_ADD _mm512_add_ps
#define GELU_MUL _mm512_mul_ps
#define gelu_value_v gelu_value16
#define gelu_grad_v gelu_grad16

#elif defined(__AVX2__) && defined(FP_FAST_FMAF)
#include <immintrin.h>
// The AVX2 path: the 16-lane forms above on 8 lanes, operation for operation
// (written out again on purpose, one width each; the loops below take either
// through GELU_LANES and its few names). Left to gcc, the scalar loops ran at 1.5-2 GB/s here, GELU a
// fifth of the baby step; test_gelu compares every lane with the scalar form.

static inline __m256 gelu_exp8(__m256 x) {
    const __m256 k = _mm256_set1_ps(GELU_K), a = _mm256_set1_ps(GELU_A);
    __m256 x3 = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(a, x), x), x);  // GELU_A * x * x * x
    __m256 z = _mm256_mul_ps(k, _mm256_add_ps(x, x3));
    return vexpf8(_mm256_mul_ps(_mm256_set1_ps(-2.0f), z));
}

static inline __m256 gelu_value8(__m256 x) {
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), gelu_exp8(x)));
}

static inline __m256 gelu_grad8(__m256 x) {
    const __m256 k = _mm256_set1_ps(GELU_K), one = _mm256_set1_ps(1.0f);
    x = _mm256_max_ps(_mm256_set1_ps(-10.0f), x);  // NaN passes through (second operand)
    x = _mm256_min_ps(_mm256_set1_ps(10.0f), x);
    __m256 e = gelu_exp8(x);
    __m256 sig = _mm256_div_ps(one, _mm256_add_ps(one, e));
    __m256 x2 = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(3.0f * GELU_A), x), x);  // 3 GELU_A x x
    __m256 dz = _mm256_mul_ps(k, _mm256_add_ps(one, x2));
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(2.0f), x), sig), _mm256_mul_ps(e, sig));
    return _mm256_add_ps(sig, _mm256_mul_ps(t, dz));
}
#define GELU_LANES 8
#define GELU_VEC __m256
#define GELU_LOAD _mm256_loadu_ps
#define GELU_STORE _mm256_storeu_ps
#define GELU_ZERO _mm256_setzero_ps
#define GELU_ADD _mm256_add_ps
#define GELU_MUL _mm256_mul_ps
#define gelu_value_v gelu_value8
#define gelu_grad_v gelu_grad8

#elif defined(VEXP_HAVE_4)
// The portable path without fast FMA (x86-64's baseline): the scalar forms on
// 4 lanes (kernels/vec4.h), operation for operation, through vexpf4. Left to
// gcc, the scalar loops ran GELU at ~1 GB/s there, a tenth of the baby step.

static inline v4f gelu_exp4(v4f x) {
    v4f z = v4f_set1(GELU_K) * (x + v4f_set1(GELU_A) * x * x * x);
    return vexpf4(v4f_set1(-2.0f) * z);
}

static inline v4f gelu_value4(v4f x) { return x / (v4f_set1(1.0f) + gelu_exp4(x)); }

// A NaN lane is the scalar form's value: which of two NaN operands an SSE
// instruction passes on depends on the operand order gcc chose (it takes + and
// * as commutative), so the NaN's sign could differ from the scalar code's.
static inline v4f gelu_grad4(v4f x0) {
    const v4f lo = v4f_set1(-10.0f), hi = v4f_set1(10.0f), one = v4f_set1(1.0f);
    v4f x = v4f_select(x0 < lo, lo, x0);
    x = v4f_select(x > hi, hi, x);
    v4f e = gelu_exp4(x);
    v4f sig = one / (one + e);
    v4f dz = v4f_set1(GELU_K) * (one + v4f_set1(3.0f * GELU_A) * x * x);
    v4f g = sig + v4f_set1(2.0f) * x * sig * (e * sig) * dz;
    v4i nan = x0 != x0;
    if (nan[0] | nan[1] | nan[2] | nan[3])
        for (int i = 0; i < 4; i++)
            if (nan[i]) g[i] = gelu_grad(x0[i]);
    return g;
}
static inline v4f v4f_zero(void) { return v4f_set1(0.0f); }
static inline v4f v4f_add(v4f a, v4f b) { return a + b; }
static inline v4f v4f_mul(v4f a, v4f b) { return a * b; }
#define GELU_LANES 4
#define GELU_VEC v4f
#define GELU_LOAD v4f_load
#define GELU_STORE v4f_store
#define GELU_ZERO v4f_zero
#define GELU_ADD v4f_add
#define GELU_MUL v4f_mul
#define gelu_value_v gelu_value4
#define gelu_grad_v gelu_grad4
#endif

// ---- forward ----

typedef struct {
    float *out;
    const float *inp;
} GeluFwd;

static void gelu_fwd_range(void *vctx, size_t lo, size_t hi) {
    const GeluFwd *k = vctx;
    float *restrict out = k->out;
    const float *restrict inp = k->inp;
    size_t i = lo;
#ifdef GELU_LANES
    for (; i + GELU_LANES <= hi; i += GELU_LANES) GELU_STORE(out + i, gelu_value_v(GELU_LOAD(inp + i)));
#endif
    for (; i < hi; i++) out[i] = gelu_value(inp[i]);
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
    int store;  // dinp = 0 + ..., dinp not read
} GeluBwd;

// The store form adds the product to +0 where the other adds it to dinp: the
// same operation on a zeroed dinp, so the same bits (-0 included: 0 + -0 = +0).
static void gelu_bwd_range(void *vctx, size_t lo, size_t hi) {
    const GeluBwd *k = vctx;
    float *restrict dinp = k->dinp;
    const float *restrict inp = k->inp, *restrict dout = k->dout;
    size_t i = lo;
#ifdef GELU_LANES
    for (; i + GELU_LANES <= hi; i += GELU_LANES) {
        GELU_VEC g = gelu_grad_v(GELU_LOAD(inp + i));
        GELU_VEC old = k->store ? GELU_ZERO() : GELU_LOAD(dinp + i);
        GELU_STORE(dinp + i, GELU_ADD(old, GELU_MUL(GELU_LOAD(dout + i), g)));
    }
#endif
    for (; i < hi; i++) dinp[i] = (k->store ? 0.0f : dinp[i]) + dout[i] * gelu_grad(inp[i]);
}

static void gelu_bwd(float *dinp, const float *inp, const float *dout, size_t n, int store) {
    // forward: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    GeluBwd k = {dinp, inp, dout, store};
    parallel_for(n, pool_grain_bytes(16), gelu_bwd_range, &k);  // x, dout read; dinp read (unless stored), written
}

// dinp (n) += dout * gelu'(inp); inp, dout (n)
void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) { gelu_bwd(dinp, inp, dout, n, 0); }

void gelu_backward_store(float *dinp, const float *inp, const float *dout, size_t n) {
    gelu_bwd(dinp, inp, dout, n, 1);
}
