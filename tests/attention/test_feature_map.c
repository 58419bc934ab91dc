// test_feature_map.c — phi and its slope.
//
// References are the formulas in double (libm exp). Tolerances:
//   phi, phi' vs the double formulas, relative                    2.4e-7
//   phi' vs central differences of the double phi                 1e-6 relative
// The array forms must be bit-identical to the scalar forms (the chunked
// training form and the generation step must apply the very same phi).
#include <stdlib.h>
#include <string.h>

#include "attention/feature_map.h"
#include "test.h"
#include "util/rng.h"

static double phi_d(FeatureMap m, double x) {
    if (m == FMAP_ELU1) return x > 0 ? x + 1 : exp(x);
    if (m == FMAP_RELU) return x > 0 ? x : 0;
    return x;
}
static double dphi_d(FeatureMap m, double x) {
    if (m == FMAP_ELU1) return x > 0 ? 1 : exp(x);
    if (m == FMAP_RELU) return x > 0 ? 1 : 0;
    return 1;
}

static const double ULP2 = 2.0 * 1.1920929e-7;  // phi and phi' vs the double formulas

// elu1's x <= 0 branch is vexpf (tests/kernels/test_vexp.c checks its
// accuracy); here only what phi itself must keep: continuity at 0, 0 far
// below, NaN through.
static void test_elu1_edges(void) {
    CHECK(fmap_phi(FMAP_ELU1, 0.0f) == 1.0f);   // continuous at 0: exp(0) = 0 + 1 exactly
    CHECK(fmap_phi(FMAP_ELU1, -0.0f) == 1.0f);
    CHECK(fmap_phi(FMAP_ELU1, -87.5f) == 0.0f);
    CHECK(fmap_phi(FMAP_ELU1, -INFINITY) == 0.0f);
    CHECK(isnan(fmap_phi(FMAP_ELU1, NAN)));
    CHECK(fmap_dphi(FMAP_ELU1, 0.0f) == 1.0f);
    CHECK(isnan(fmap_dphi(FMAP_ELU1, NAN)));
}

static void test_phi_and_slope(void) {
    Rng r;
    rng_seed(&r, 7);
    for (int m = 0; m < 3; m++) {
        double ep = 0, ed = 0, efd = 0;
        for (int i = 0; i < 20000; i++) {
            float x = 6.0f * rng_normal(&r);
            double p = phi_d((FeatureMap)m, x), d = dphi_d((FeatureMap)m, x);
            ep = fmax(ep, fabs(fmap_phi((FeatureMap)m, x) - p) / fmax(fabs(p), 1e-30));
            ed = fmax(ed, fabs(fmap_dphi((FeatureMap)m, x) - d) / fmax(fabs(d), 1e-30));
            if (fabs(x) > 1e-3) {  // away from the kink of relu
                double h = 1e-6, f = (phi_d((FeatureMap)m, x + h) - phi_d((FeatureMap)m, x - h)) / (2 * h);
                efd = fmax(efd, fabs(fmap_dphi((FeatureMap)m, x) - f) / fmax(fabs(f), 1.0));
            }
        }
        if (!(ep <= ULP2 && ed <= ULP2 && efd <= 1e-6))
            fprintf(stderr, "  map %d: phi %.3g dphi %.3g fd %.3g\n", m, ep, ed, efd);
        CHECK(ep <= ULP2);
        CHECK(ed <= ULP2);
        CHECK(efd <= 1e-6);
    }
    CHECK(fmap_phi(FMAP_RELU, -2.0f) == 0.0f && fmap_dphi(FMAP_RELU, -2.0f) == 0.0f);
    CHECK(fmap_phi(FMAP_ELU1, -1000.0f) == 0.0f);
    // NaN in, NaN out: the trainer's NaN detection must see it
    CHECK(isnan(fmap_phi(FMAP_ELU1, NAN)) && isnan(fmap_phi(FMAP_RELU, NAN)) &&
          isnan(fmap_phi(FMAP_IDENTITY, NAN)));
}

static void test_array_forms_match_scalar(void) {
    Rng r;
    rng_seed(&r, 8);
    size_t n = 1037;  // not a multiple of any vector width
    float *x = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    float *dout = malloc(n * sizeof(float)), *dx1 = malloc(n * sizeof(float));
    float *dx2 = malloc(n * sizeof(float)), *alias = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = 4.0f * rng_normal(&r), dout[i] = rng_normal(&r);
    x[3] = 0.0f, x[5] = -0.0f, x[7] = -100.0f;
    for (int m = 0; m < 3; m++) {
        FeatureMap fm = (FeatureMap)m;
        fmap_forward(fm, out, x, n);
        memcpy(alias, x, n * sizeof(float));
        fmap_forward(fm, alias, alias, n);  // in place
        int ok = 1;
        for (size_t i = 0; i < n; i++) {  // bit for bit (the sign of a zero too)
            float want = fmap_phi(fm, x[i]);
            ok &= memcmp(&out[i], &want, sizeof want) == 0 && memcmp(&alias[i], &want, sizeof want) == 0;
        }
        CHECK(ok);
        // backward ADDS: from a base of 1
        for (size_t i = 0; i < n; i++) dx1[i] = dx2[i] = 1.0f;
        fmap_backward(fm, dx1, dout, x, n);
        fmap_backward_phi(fm, dx2, dout, x, out, n);
        ok = 1;
        for (size_t i = 0; i < n; i++)
            ok &= dx1[i] == 1.0f + dout[i] * fmap_dphi(fm, x[i]) && dx2[i] == dx1[i];
        CHECK(ok);
    }
    float xn[3] = {NAN, 1.0f, -1.0f}, on[3];
    fmap_forward(FMAP_ELU1, on, xn, 3);
    CHECK(isnan(on[0]) && on[1] == 2.0f);
    fmap_forward(FMAP_RELU, on, xn, 3);
    CHECK(isnan(on[0]) && on[2] == 0.0f);
    // NaN inside a run of 16 (a vector path, where the target has one) and in the tail
    float xv[35], ov[35];
    for (size_t i = 0; i < 35; i++) xv[i] = (float)i - 17.0f;
    xv[2] = xv[20] = xv[33] = NAN;
    fmap_forward(FMAP_ELU1, ov, xv, 35);
    CHECK(isnan(ov[2]) && isnan(ov[20]) && isnan(ov[33]) && ov[30] == 14.0f && ov[3] == vexpf(-14.0f));
    free(x), free(out), free(dout), free(dx1), free(dx2), free(alias);
}

// fmap_backward_phi_rows over rows ld apart (strips of wider rows, as the
// fast-weight kinds read the projection in place) against the array form on
// each row: the same bits, and nothing outside the strips touched
static void test_rows_form_matches_array_form(void) {
    Rng r;
    rng_seed(&r, 9);
    size_t rows = 7, n = 21, ld = 50;  // n not a multiple of a vector width
    float *x = malloc(rows * ld * sizeof(float)), *phi = malloc(rows * n * sizeof(float));
    float *dout = malloc(rows * n * sizeof(float)), *dx = malloc(rows * ld * sizeof(float));
    float *want = malloc(rows * ld * sizeof(float));
    for (size_t i = 0; i < rows * ld; i++) x[i] = 3.0f * rng_normal(&r), dx[i] = rng_normal(&r);
    for (size_t i = 0; i < rows * n; i++) dout[i] = rng_normal(&r);
    x[2] = 0.0f, x[ld + 4] = -0.0f;
    for (int m = 0; m < 3; m++) {
        FeatureMap fm = (FeatureMap)m;
        for (size_t q = 0; q < rows; q++) fmap_forward(fm, phi + q * n, x + q * ld, n);
        memcpy(want, dx, rows * ld * sizeof(float));
        for (size_t q = 0; q < rows; q++) fmap_backward_phi(fm, want + q * ld, dout + q * n, x + q * ld, phi + q * n, n);
        float *got = malloc(rows * ld * sizeof(float));
        memcpy(got, dx, rows * ld * sizeof(float));
        fmap_backward_phi_rows(fm, got, ld, dout, x, phi, rows, n);
        CHECK(memcmp(got, want, rows * ld * sizeof(float)) == 0);
        free(got);
    }
    free(x), free(phi), free(dout), free(dx), free(want);
}

int main(void) {
    TEST(test_elu1_edges);
    TEST(test_phi_and_slope);
    TEST(test_array_forms_match_scalar);
    TEST(test_rows_form_matches_array_form);
    return test_summary();
}
