// test_vexp.c — vexpf, the program's one float exp, against libm's double exp
// over its whole range (to the 2 ulp it claims), its edge behaviour, the SIMD
// body vs scalar tail agreement, and vexpf_n (the row form: vexpf16 on the
// AVX-512 path) bit for bit. On the path this process runs (LMTRAIN_ISA:
// tests/run.sh runs it on every path the CPU has); vexpf here is that path's
// scalar vexpf (kernels/vexp.h: vexpf_one).
#include "kernels/vexp.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#include "kernels/gemm.h"  // gemm_isa: which path runs
#include "test.h"

static float vexp_array_out[4096];

// the row form the kernels' loops use (vexpf_n: vexpf16 on 16 lanes on the
// AVX-512 path, a loop gcc vectorises elsewhere)
static void vexp_array(float *restrict out, const float *restrict x, size_t n) { vexpf_n(out, x, n); }

// Error in ulps of the true result (double exp, the ulp of its float
// binade) over every 61st float of [-87, 88] by bit pattern: all binades of
// x, from the denormals around 0 up, both signs (~36 M points). vexpf
// claims 1 ulp with FMA, 2 without; the range reduction is exact and the
// polynomial within 1e-8 relative, so what is left is the rounding of the
// Horner steps and the final product.
static double ulp_of(double w) {
    int e;
    frexp(w, &e);
    return ldexp(1.0, e - 24);
}

static void vexp_sweep(uint32_t b0, uint32_t b1, double *worst, float *at) {
    float x[4096];
    size_t n = 0;
    for (uint64_t b = b0; b <= b1; b += 61) {
        uint32_t u = (uint32_t)b;
        memcpy(&x[n++], &u, sizeof u);
        if (n == 4096 || b + 61 > b1) {
            vexp_array(vexp_array_out, x, n);
            for (size_t i = 0; i < n; i++) {
                double want = exp((double)x[i]);
                double e = fabs(vexp_array_out[i] - want) / ulp_of(want);
                if (!(e <= *worst)) *worst = e, *at = x[i];
            }
            n = 0;
        }
    }
}

static void test_vexp_accuracy(void) {
    double worst = 0;
    float at = 0;
    vexp_sweep(0x80000000u, 0xC2AE0000u, &worst, &at);  // -0 down to -87
    vexp_sweep(0x00000000u, 0x42B00000u, &worst, &at);  // +0 up to 88
    // every float of the range, once: 0.94 ulp at x = 26.69 with FMA; two
    // roundings per Horner step without (the plain-C path): 1.17 ulp seen
    const double bound = strcmp(gemm_isa(), "plain-c") != 0 ? 1.0 : 2.0;
    CHECK(worst <= bound);
    if (t_case_failed) fprintf(stderr, "    worst %.3g ulp at x = %.9g\n", worst, at);
}

// vexpf_n is vexpf on every lane (vexpf16 on the AVX-512 path, vexpf8 on AVX2,
// vexpf4 on the portable x86-64 one): the same bits
// for every input, edges included
static void test_vexpf16_is_vexpf(void) {
    size_t mismatches = 0;
    float x[16], got[16];
    for (uint64_t b = 0; b <= 0xFFFFFFFFu; b += 16 * 4099) {  // every sign and binade, NaN, inf
        for (uint32_t i = 0; i < 16; i++) {
            uint32_t u = (uint32_t)(b + i * 4099u);
            memcpy(&x[i], &u, sizeof u);
        }
        vexpf_n(got, x, 16);
        for (int i = 0; i < 16; i++) {
            float want = vexpf(x[i]);
            if (memcmp(&got[i], &want, sizeof want) != 0 && !(isnan(got[i]) && isnan(want))) mismatches++;
        }
    }
    // where x / ln2 is a half-integer (round to n or n + 1): one rounding in
    // vexpf, so two roundings would show here first
    for (int k = -126; k <= 127; k++) {
        float x0 = (float)((k + 0.5) * 0.69314718055994530942);
        for (int i = 0; i < 16; i++) x[i] = x0;
        for (int j = 0; j < 8; j++) {
            for (int i = 0; i < 16; i++) x[i] = j % 2 ? nextafterf(x[i], INFINITY) : nextafterf(x[i], -INFINITY);
            for (int i = 1; i < 16; i++) x[i] = nextafterf(x[i - 1], j % 2 ? INFINITY : -INFINITY);
            vexpf_n(got, x, 16);
            for (int i = 0; i < 16; i++) {
                float want = vexpf(x[i]);
                if (memcmp(&got[i], &want, sizeof want) != 0) mismatches++;
            }
        }
    }
    const float edge[16] = {0.0f, -0.0f, -87.0f, -87.5f, 88.0f, 89.0f, -INFINITY, INFINITY,
                            NAN, 1e-30f, -1e-30f, 0.34657359f, -0.34657359f, 10.5f, -10.5f, 1.0f};
    vexpf_n(got, edge, 16);
    for (int i = 0; i < 16; i++) {
        float want = vexpf(edge[i]);
        if (memcmp(&got[i], &want, sizeof want) != 0 && !(isnan(got[i]) && isnan(want))) mismatches++;
    }
    CHECK(mismatches == 0);
}

static void test_vexp_edges(void) {
    CHECK(vexpf(0.0f) == 1.0f);
    CHECK(vexpf(-0.0f) == 1.0f);
    CHECK(vexpf(-87.5f) == 0.0f);          // below -87: 0, as it leaves the normal floats
    CHECK(vexpf(-1e30f) == 0.0f);
    CHECK(vexpf(-INFINITY) == 0.0f);       // a masked logit gets probability 0
    CHECK(vexpf(89.0f) == vexpf(88.0f));   // above 88: held at exp(88), never inf
    CHECK(vexpf(INFINITY) == vexpf(88.0f));
    CHECK(isfinite(vexpf(88.0f)) && vexpf(88.0f) > 1.6e38f);
    CHECK(isnan(vexpf(NAN)));
}

// every position of a vectorised loop (body, peel, tail) gives the same bits
static void test_vexp_simd_and_tail_agree(void) {
    const float vals[] = {-86.9f, -20.3f, -1.0f, -1e-6f, 0.3466f, 5.5f, 87.9f};
    float x[67], out[67];
    for (size_t v = 0; v < sizeof vals / sizeof *vals; v++) {
        for (size_t i = 0; i < 67; i++) x[i] = vals[v];
        vexp_array(out + 1, x + 1, 66);
        for (size_t i = 2; i < 67; i++) CHECK(memcmp(&out[i], &out[1], sizeof(float)) == 0);
    }
}

int main(void) {
    TEST(test_vexp_accuracy);
    TEST(test_vexp_edges);
    TEST(test_vexp_simd_and_tail_agree);
    TEST(test_vexpf16_is_vexpf);
    return test_summary();
}
