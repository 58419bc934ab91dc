// test_fma_chains_neon.c — `bench --part peak` on aarch64: the NEON chains
// (kernels/fma_chains.c) do the work peak.c counts (the chains and lanes
// fma_chains_shape reports, one fused multiply-add per lane per iteration), so the GFLOP/s and the % busy
// that `bench` derives from them are right on an ARM machine. Elsewhere the
// build has no NEON: skipped, visibly.
#include "../test.h"
#include "bench/peak.h"
#include "kernels/fma_chains.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
// The sum run_chains returns, worked out one chain at a time in scalar C:
// chain i starts at 1 + i and steps acc = fma(acc, x, y); the vector adds the
// chains in order, lane by lane, then its 4 equal lanes (doubling is exact).
static float chains_ref(int chains, long iters) {
    float s = 0.0f;
    for (int i = 0; i < chains; i++) {
        float acc = 1.0f + (float)i;
        for (long it = 0; it < iters; it++) acc = fmaf(acc, 0.99999994f, 6e-8f);
        s = i == 0 ? acc : s + acc;
    }
    return (s + s) + (s + s);
}

static void test_neon_chains_do_the_counted_work(void) {
    static const long iters[] = {0, 1, 7, 5000};
    int chains, lanes;
    const char *isa;
    fma_chains_shape(&chains, &lanes, &isa);
    CHECK(strcmp(isa, "NEON") == 0);
    CHECK(lanes == 4);  // a q register holds 4 floats: 8 FLOPs per vfmaq_f32
    for (size_t t = 0; t < sizeof iters / sizeof iters[0]; t++) {
        float got = fma_chains_run(iters[t]), want = chains_ref(chains, iters[t]);
        if (memcmp(&got, &want, sizeof got) != 0)
            fprintf(stderr, "  iters %ld: run_chains %.9g, the chains by hand %.9g\n", iters[t], got, want);
        CHECK(memcmp(&got, &want, sizeof got) == 0);
    }
}

static void test_peak_names_neon(void) {
    CHECK(strcmp(peak_isa(), "NEON") == 0);
    PeakRate r = peak_gflops(1, 0.01, 1);
    CHECK(r.cpu > 0 && r.wall > 0);
}
#else
static void test_neon_chains_do_the_counted_work(void) {
    SKIP("aarch64", "an aarch64 build runs the NEON peak (this one is not: docs/testing.md)");
}
#endif

int main(void) {
    TEST(test_neon_chains_do_the_counted_work);
#if defined(__aarch64__) && defined(__ARM_NEON)
    TEST(test_peak_names_neon);
#endif
    return test_summary();
}
