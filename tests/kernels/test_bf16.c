// test_bf16.c — bf16 rounding (ties to even, NaN, infinity, denormals) against
// hand-worked bits, the bulk conversion against the scalar one, and the run-time
// check with its test hook.
#include <stdint.h>
#include <stdlib.h>

#include "kernels/bf16.h"
#include "test.h"

static float from_bits(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static void rounding_hand_worked(void) {
    CHECK(bf16_from_float(1.0f) == 0x3F80);
    CHECK(bf16_from_float(-2.0f) == 0xC000);
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even one, 1
    CHECK(bf16_from_float(from_bits(0x3F808000u)) == 0x3F80);
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to 0x3F82
    CHECK(bf16_from_float(from_bits(0x3F818000u)) == 0x3F82);
    // just above / below halfway
    CHECK(bf16_from_float(from_bits(0x3F808001u)) == 0x3F81);
    CHECK(bf16_from_float(from_bits(0x3F807FFFu)) == 0x3F80);
    // rounding up carries into the exponent: the largest float below 2 -> 2
    CHECK(bf16_from_float(from_bits(0x3FFFFFFFu)) == 0x4000);
    // past the largest bf16 (0x7F7F): infinity; infinities stay
    CHECK(bf16_from_float(from_bits(0x7F7FFFFFu)) == 0x7F80);
    CHECK(bf16_from_float(INFINITY) == 0x7F80);
    CHECK(bf16_from_float(-INFINITY) == 0xFF80);
    // NaN stays NaN and is quieted, even one whose payload lies only in the low 16 bits
    CHECK(bf16_from_float(from_bits(0x7F800001u)) == 0x7FC0);
    CHECK(bf16_from_float(from_bits(0xFFC00000u)) == 0xFFC0);
    CHECK(isnan(bf16_round(NAN)));
    // denormals are zero of their sign; zero stays
    CHECK(bf16_from_float(from_bits(0x00400000u)) == 0x0000);
    CHECK(bf16_from_float(from_bits(0x807FFFFFu)) == 0x8000);
    CHECK(bf16_from_float(0.0f) == 0x0000);
    // the smallest normal is exact
    CHECK(bf16_from_float(from_bits(0x00800000u)) == 0x0080);
    CHECK(bf16_to_float(0x3F81) == 1.0f + 1.0f / 128.0f);
    CHECK(bf16_round(3.14159265f) == 3.140625f);
}

// The relative rounding error of a normal value is at most 2^-8: half a bf16
// ulp (8 significant bits, 7 stored) relative to the value.
static void rounding_error_bound(void) {
    uint32_t s = 12345;
    for (int i = 0; i < 100000; i++) {
        s = s * 1664525u + 1013904223u;
        float x = from_bits((s & 0x807FFFFFu) | (uint32_t)(1 + s % 250) << 23);
        double e = fabs((double)bf16_round(x) - (double)x) / fabs((double)x);
        if (!(e <= 1.0 / 256.0)) {
            CHECK(e <= 1.0 / 256.0);
            break;
        }
    }
}

// bf16_from_floats (the hardware conversion where the CPU has it) gives the
// scalar function's bits for 2^24 patterns spread over all 2^32 (every
// exponent, both signs, NaNs, denormals) and for every tail length.
// (All 2^32 were compared once, in 7 CPU-seconds: no difference.)
static void bulk_matches_scalar(void) {
    if (bf16_cpu_missing()) SKIP("avx512_bf16", "%s: only the scalar conversion runs here", bf16_cpu_missing());
    enum { N = 4096 };
    float src[N];
    uint16_t got[N];
    long bad = 0;
    uint32_t u = 0;
    for (int blk = 0; blk < 4096; blk++) {
        for (int i = 0; i < N; i++, u += 257u) src[i] = from_bits(u);
        size_t n = (size_t)(N - blk % 17);  // tails of 0..16 elements after the whole vectors
        bf16_from_floats(got, src, n);
        for (size_t i = 0; i < n; i++) bad += got[i] != bf16_from_float(src[i]);
    }
    CHECK(bad == 0);
}

static void hook_refuses(void) {
    setenv("LMTRAIN_CPU_NO_BF16", "1", 1);
    const char *why = bf16_cpu_missing();
    CHECK(why != NULL && strstr(why, "AVX-512 BF16") != NULL);
    unsetenv("LMTRAIN_CPU_NO_BF16");
#if defined(BF16_HAVE_KERNELS)
    // without the hook, the answer is the CPU's (compare with /proc/cpuinfo by hand:
    // the e2e test uses this same function, so only the hook is asserted here)
    const char *real = bf16_cpu_missing();
    CHECK(real == NULL || strstr(real, "avx512_bf16") != NULL);
#endif
}

int main(void) {
    TEST(rounding_hand_worked);
    TEST(rounding_error_bound);
    TEST(bulk_matches_scalar);
    TEST(hook_refuses);
    return test_summary();
}
