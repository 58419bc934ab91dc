// feature_map.c — array forms of phi and its backward (scalar forms in the header).
// One loop per map, branch-free bodies, so that each vectorises.
#include "feature_map.h"

void fmap_forward(FeatureMap m, float *out, const float *x, size_t n) {
    switch (m) {
    case FMAP_ELU1:
        for (size_t i = 0; i < n; i++) {
            float xi = x[i], e = vexpf(xi > 0.0f ? 0.0f : xi);  // NaN -> NaN
            out[i] = xi > 0.0f ? xi + 1.0f : e;
        }
        break;
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
    case FMAP_ELU1:
        for (size_t i = 0; i < n; i++) {
            float xi = x[i], e = vexpf(xi > 0.0f ? 0.0f : xi);
            dx[i] += dout[i] * (xi > 0.0f ? 1.0f : e);
        }
        break;
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
