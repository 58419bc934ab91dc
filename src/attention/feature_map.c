// feature_map.c — array forms of phi and its backward (scalar forms in the header).
#include "feature_map.h"

void fmap_forward(FeatureMap m, float *out, const float *x, size_t n) {
    // one loop per map so each is a plain, vectorisable loop
    switch (m) {
    case FMAP_ELU1:
        for (size_t i = 0; i < n; i++) out[i] = fmap_phi(FMAP_ELU1, x[i]);
        break;
    case FMAP_RELU:
        for (size_t i = 0; i < n; i++) out[i] = fmap_phi(FMAP_RELU, x[i]);
        break;
    default:
        for (size_t i = 0; i < n; i++) out[i] = x[i];
        break;
    }
}

void fmap_backward(FeatureMap m, float *dx, const float *dout, const float *x, size_t n) {
    // out = phi(x)  =>  dx += dout * phi'(x)
    switch (m) {
    case FMAP_ELU1:
        for (size_t i = 0; i < n; i++) dx[i] += dout[i] * fmap_dphi(FMAP_ELU1, x[i]);
        break;
    case FMAP_RELU:
        for (size_t i = 0; i < n; i++) dx[i] += x[i] > 0.0f ? dout[i] : 0.0f;
        break;
    default:
        for (size_t i = 0; i < n; i++) dx[i] += dout[i];
        break;
    }
}
