// test_gelu.c — gelu_forward/backward against the literal tanh formula in
// double (values over the whole float range, central-difference gradients),
// SIMD body vs scalar tail agreement, and add_forward; plus bit-identical
// results for 1, 2 and 3 threads.
#include "kernels/nn.h"
#include "nn_check.h"

#define PI 3.14159265358979323846  // M_PI is not ISO C

// the definition, literally: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// For z < -3, 1 + tanh z cancels (to exactly 0 in double below z ~ -19), so
// there the reference uses the identity 1 + tanh z = 2 / (1 + exp(-2z)) in
// double instead; above, the literal form loses at most e^6 ulp of double.
static double gelu_ref(double x) {
    double z = sqrt(2.0 / PI) * (x + 0.044715 * x * x * x);
    if (z > -3) return 0.5 * x * (1.0 + tanh(z));
    return x * exp(2 * z) / (1.0 + exp(2 * z));
}

static double gelu_ref_grad_fd(double x) {
    double h = 1e-5 * (fabs(x) > 1 ? fabs(x) : 1);
    return (gelu_ref(x + h) - gelu_ref(x - h)) / (2 * h);
}

// inputs: a dense sweep of [-12, 12], tiny and huge magnitudes, signed zeros
static size_t gelu_inputs(float *x) {
    size_t n = 0;
    for (int i = -2400; i <= 2400; i++) x[n++] = (float)i * 0.005f + 0.0013f;
    const float special[] = {0.0f,   -0.0f,  1e-30f, -1e-30f, 1e-7f,  -1e-7f, 0.5f,   -0.5f,
                             3.0f,   -3.0f,  9.5f,   -9.5f,   20.0f,  -20.0f, 50.0f,  -50.0f,
                             1e4f,   -1e4f,  1e15f,  -1e15f,  1e30f,  3e38f};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++) x[n++] = special[i];
    return n;
}

// Forward: x / (1 + exp(-2z)) vs 0.5 x (1 + tanh z). Both are the same
// function; the float one errs by a few ulp plus the error of z (4 roundings,
// <= 2 eps relative) amplified by the exp into |2z| * 2 eps. Where the exact
// value is below the float range it must still be tiny.
static void test_gelu_forward_matches_definition(void) {
    float x[5000], out[5000];
    size_t n = gelu_inputs(x);
    gelu_forward(out, x, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        double xd = x[i], want = gelu_ref(xd);
        double z2 = fabs(2 * sqrt(2.0 / PI) * (xd + 0.044715 * xd * xd * xd));
        // + |x| 1e-37: the kernel clamps exp(-2z) to <= e^88, so values below
        // |x| e^-88 come out as about that instead of underflowing to 0
        double tol = (4 + 2 * (z2 < 200 ? z2 : 200)) * FLT_EPSILON * fabs(want) + fabs(xd) * 1e-37;
        if (!(fabs(out[i] - want) <= tol)) {
            if (bad++ < 5) fprintf(stderr, "    gelu(%.9g) = %.9g, want %.9g\n", xd, out[i], want);
        }
    }
    CHECK(bad == 0);
    CHECK(out[n - 22] == 0.0f);           // gelu(0) = 0
    CHECK(isnan(out[0] * 0) == 0);        // finite everywhere in the sweep
    float nan_in = NAN, nan_out;
    gelu_forward(&nan_out, &nan_in, 1);
    CHECK(isnan(nan_out));                // NaN detection must keep working
}

// Backward: central differences of the double definition, for every input of
// the sweep (|x| <= 1e4; beyond that the FD step itself breaks down).
static void test_gelu_backward_fd(void) {
    float x[5000], dout[5000], dx[5000], dx0[5000];
    size_t n = gelu_inputs(x);
    Rng rng;
    rng_seed(&rng, 3);
    fill_uniform(&rng, dout, n, -1.0f, 1.0f);
    fill_uniform(&rng, dx0, n, -1.0f, 1.0f);
    memcpy(dx, dx0, n * sizeof(float));
    gelu_backward(dx, x, dout, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(x[i]) > 1e4f) continue;
        double xd = x[i], want = dout[i] * gelu_ref_grad_fd(xd);
        double z2 = fabs(2 * sqrt(2.0 / PI) * (xd + 0.044715 * xd * xd * xd));
        // gelu' is in [-0.17, 1.13]: bound by ulps of 1, amplified like the forward
        double tol = (8 + 2 * (z2 < 200 ? z2 : 200)) * FLT_EPSILON;
        if (!(fabs(dx[i] - (dx0[i] + want)) <= tol)) {
            if (bad++ < 5)
                fprintf(stderr, "    gelu'(%.9g) * %.6g: got %.9g want %.9g\n", xd, dout[i],
                        dx[i] - dx0[i], want);
        }
    }
    CHECK(bad == 0);
    // far out the derivative is exactly 0 or 1, with no NaN from inf / inf
    float big[4] = {1e30f, -1e30f, 3e38f, -200.0f}, ones[4] = {1, 1, 1, 1}, d[4] = {0};
    gelu_backward(d, big, ones, 4);
    CHECK(d[0] == 1.0f && d[2] == 1.0f);
    CHECK(fabs(d[1]) < 1e-30 && fabs(d[3]) < 1e-30);
}

// The vectorised body, its peel and its scalar tail must compute the same
// bits: fill every position with one value and require identical outputs.
static void test_gelu_simd_and_tail_agree(void) {
    const float vals[] = {-4.1f, -0.77f, 0.3f, 2.9f, 7.3f};
    float x[67], out[67], d[67], ones[67];
    for (size_t v = 0; v < sizeof vals / sizeof *vals; v++) {
        for (size_t i = 0; i < 67; i++) x[i] = vals[v], ones[i] = 1.0f, d[i] = 0.0f;
        // start at x + 1 so the data is not 64-byte aligned
        gelu_forward(out + 1, x + 1, 66);
        gelu_backward(d + 1, x + 1, ones + 1, 66);
        for (size_t i = 2; i < 67; i++) {
            CHECK(memcmp(&out[i], &out[1], sizeof(float)) == 0);
            CHECK(memcmp(&d[i], &d[1], sizeof(float)) == 0);
        }
    }
}

// Every input of the sweep, plus NaN, the infinities and the clamp's edges:
// the array call (16-lane bodies on AVX-512) against the same value passed
// alone (the scalar tail), bit for bit, forward and backward.
static void test_gelu_lanes_match_scalar(void) {
    static float x[4900], out[4900], d[4900], dout[4900];
    size_t n = gelu_inputs(x);
    const float more[] = {NAN, -NAN, INFINITY, -INFINITY, 10.0f, -10.0f, nextafterf(10.0f, 11.0f),
                          nextafterf(-10.0f, -11.0f), 87.0f, -87.0f, 44.0f, -44.0f};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) x[n++] = more[i];
    for (size_t i = 0; i < n; i++) dout[i] = 0.25f + (float)(i % 7) * 0.5f, d[i] = (float)(i % 3) - 1.0f;
    gelu_forward(out, x, n);
    gelu_backward(d, x, dout, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float o1, d1 = (float)(i % 3) - 1.0f;
        gelu_forward(&o1, &x[i], 1);
        gelu_backward(&d1, &x[i], &dout[i], 1);
        if (memcmp(&o1, &out[i], sizeof o1) != 0 || memcmp(&d1, &d[i], sizeof d1) != 0)
            if (bad++ < 5)
                fprintf(stderr, "    x = %.9g: fwd %.9g vs %.9g, bwd %.9g vs %.9g\n", x[i], out[i], o1, d[i], d1);
    }
    CHECK(bad == 0);
}

static void test_add_forward(void) {
    float a[37], b[37], out[37];
    Rng rng;
    rng_seed(&rng, 5);
    fill_uniform(&rng, a, 37, -2, 2);
    fill_uniform(&rng, b, 37, -2, 2);
    add_forward(out, a, b, 37);
    for (int i = 0; i < 37; i++) CHECK(out[i] == a[i] + b[i]);
    add_forward(a, a, b, 37);  // in place, as a residual update would do it
    for (int i = 0; i < 37; i++) CHECK(a[i] == out[i]);
}

typedef struct {
    size_t n;
    float *x, *y, *dout;
} GeluDet;

static void gelu_det_run(void *vctx, unsigned char *bytes) {
    GeluDet *k = vctx;
    float *out = (float *)bytes, *dx = out + k->n, *sum = dx + k->n;  // (n) each
    gelu_forward(out, k->x, k->n);
    gelu_backward(dx, k->x, k->dout, k->n);
    add_forward(sum, k->x, k->y, k->n);
}

// n = 400003: over 3 tasks of POOL_MIN_TASK_BYTES for gelu's forward (8 bytes
// an element), its backward (16) and add (12)
static void test_gelu_add_thread_count_invariant(void) {
    GeluDet k = {400003, NULL, NULL, NULL};
    Rng rng;
    rng_seed(&rng, 9);
    k.x = xmalloc(k.n * sizeof(float));
    k.y = xmalloc(k.n * sizeof(float));
    k.dout = xmalloc(k.n * sizeof(float));
    fill_uniform(&rng, k.x, k.n, -6, 6);
    fill_uniform(&rng, k.y, k.n, -6, 6);
    fill_uniform(&rng, k.dout, k.n, -1, 1);
    CHECK(same_bits_for_1_2_3_threads(gelu_det_run, &k, 3 * k.n * sizeof(float), 3));
    free(k.x), free(k.y), free(k.dout);
}

int main(void) {
    TEST(test_gelu_forward_matches_definition);
    TEST(test_gelu_backward_fd);
    TEST(test_gelu_simd_and_tail_agree);
    TEST(test_gelu_lanes_match_scalar);
    TEST(test_add_forward);
    TEST(test_gelu_add_thread_count_invariant);
    pool_shutdown();
    return test_summary();
}
