// feature_map.c — array forms of phi and its backward (scalar forms in the header).
// One loop per map, branch-free bodies, so that each vectorises.
#include "feature_map.h"

#if defined(__AVX512F__) && defined(FP_FAST_FMAF)
#include <immintrin.h>
// 16 values of elu+1: vexpf16 gives vexpf's bits lane by lane (test_vexp), so
// these are the scalar loop's values; gcc's own vectorisation of that loop ran
// about 1.4x slower in a loop over 4096 values on the Zen 4 target
static inline void elu1_16(float *out, const float *x) {
    __m512 v = _mm512_loadu_ps(x), zero = _mm512_setzero_ps();
    __mmask16 pos = _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ);  // false for NaN, as x > 0.0f
    __m512 e = vexpf16(_mm512_mask_blend_ps(pos, v, zero));
    _mm512_storeu_ps(out, _mm512_mask_blend_ps(pos, e, _mm512_add_ps(v, _mm512_set1_ps(1.0f))));
}

// 16 values of elu+1's backward, dx += dout * (x > 0 ? 1 : exp(x)), the
// scalar loop's operations lane by lane (gcc's vectorisation of that loop
// spends its time on mask arithmetic: delta's backward calls it per row)
static inline void elu1_backward_16(float *dx, const float *dout, const float *x) {
    __m512 v = _mm512_loadu_ps(x), zero = _mm512_setzero_ps();
    __mmask16 pos = _mm512_cmp_ps_mask(v, zero, _CMP_GT_OQ);  // false for NaN, as x > 0.0f
    __m512 e = vexpf16(_mm512_mask_blend_ps(pos, v, zero));
    __m512 slope = _mm512_mask_blend_ps(pos, e, _mm512_set1_ps(1.0f));
    _mm512_storeu_ps(dx, _mm512_add_ps(_mm512_loadu_ps(dx), _mm512_mul_ps(_mm512_loadu_ps(dout), slope)));
}
#define FMAP_LANES 16
#define elu1_v elu1_16
#define elu1_backward_v elu1_backward_16

#elif defined(__AVX2__) && defined(FP_FAST_FMAF)
#include <immintrin.h>
// The AVX2 path: the two forms above on 8 lanes (vexpf8), operation for
// operation; the elu+1 map's exp was most of the linear kinds' attention time
// on this path when gcc vectorised the scalar loops
static inline void elu1_8(float *out, const float *x) {
    __m256 v = _mm256_loadu_ps(x), zero = _mm256_setzero_ps();
    __m256 pos = _mm256_cmp_ps(v, zero, _CMP_GT_OQ);  // false for NaN, as x > 0.0f
    __m256 e = vexpf8(_mm256_blendv_ps(v, zero, pos));
    _mm256_storeu_ps(out, _mm256_blendv_ps(e, _mm256_add_ps(v, _mm256_set1_ps(1.0f)), pos));
}

static inline void elu1_backward_8(float *dx, const float *dout, const float *x) {
    __m256 v = _mm256_loadu_ps(x), zero = _mm256_setzero_ps();
    __m256 pos = _mm256_cmp_ps(v, zero, _CMP_GT_OQ);
    __m256 e = vexpf8(_mm256_blendv_ps(v, zero, pos));
    __m256 slope = _mm256_blendv_ps(e, _mm256_set1_ps(1.0f), pos);
    _mm256_storeu_ps(dx, _mm256_add_ps(_mm256_loadu_ps(dx), _mm256_mul_ps(_mm256_loadu_ps(dout), slope)));
}
#define FMAP_LANES 8
#define elu1_v elu1_8
#define elu1_backward_v elu1_backward_8
#endif

void fmap_forward(FeatureMap m, float *out, const float *x, size_t n) {
    switch (m) {
    case FMAP_ELU1: {
        size_t i = 0;
#ifdef FMAP_LANES
        for (; i + FMAP_LANES <= n; i += FMAP_LANES) elu1_v(out + i, x + i);
#endif
        for (; i < n; i++) {
            float xi = x[i], e = vexpf(xi > 0.0f ? 0.0f : xi);  // NaN -> NaN
            out[i] = xi > 0.0f ? xi + 1.0f : e;
        }
        break;
    }
    case FMAP_RELU:
        for (size_t i = 0; i < n; i++) out[i] = fmap_phi(FMAP_RELU, x[i]);
        break;
    default:
        if (out != x) memmove(out, x, n * sizeof(float));
        break;
    }
}

void fmap_backward(FeatureMap m, float *dx, const float *dout, const float *x, size_t n) {
    // out = phi(x)  =>  dx += dout * phi'(x)
    switch (m) {
    case FMAP_ELU1: {
        size_t i = 0;
#ifdef FMAP_LANES
        for (; i + FMAP_LANES <= n; i += FMAP_LANES) elu1_backward_v(dx + i, dout + i, x + i);
#endif
        for (; i < n; i++) {
            float xi = x[i], e = vexpf(xi > 0.0f ? 0.0f : xi);
            dx[i] += dout[i] * (xi > 0.0f ? 1.0f : e);
        }
        break;
    }
    case FMAP_RELU:
        for (size_t i = 0; i < n; i++) dx[i] += x[i] > 0.0f ? dout[i] : 0.0f;
        break;
    default:
        for (size_t i = 0; i < n; i++) dx[i] += dout[i];
        break;
    }
}

void fmap_backward_phi(FeatureMap m, float *dx, const float *dout, const float *x,
                       const float *phi, size_t n) {
    if (m != FMAP_ELU1) {  // relu, identity: the slope needs no exp anyway
        fmap_backward(m, dx, dout, x, n);
        return;
    }
    // elu1: phi'(x) = 1 (x > 0), exp(x) = phi(x) (x <= 0)
    for (size_t i = 0; i < n; i++) dx[i] += dout[i] * (x[i] > 0.0f ? 1.0f : phi[i]);
}

void fmap_backward_phi_rows(FeatureMap m, float *dx, size_t ldx, const float *dout, const float *x,
                            const float *phi, size_t rows, size_t n) {
    if (ldx == n) {  // contiguous: one pass
        fmap_backward_phi(m, dx, dout, x, phi, rows * n);
        return;
    }
    for (size_t r = 0; r < rows; r++) fmap_backward_phi(m, dx + r * ldx, dout + r * n, x + r * ldx, phi + r * n, n);
}
