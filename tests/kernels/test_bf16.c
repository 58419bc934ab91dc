// test_bf16.c — bf16 rounding (ties to even, NaN, infinity, denormals) against
// hand-worked bits, the bulk conversion against the scalar one, and the run-time
// check with its test hook.
#include <stdint.h>
#include <stdlib.h>

#include "kernels/bf16.h"
#include "kernels/cpu.h"
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
// Without AVX-512 BF16 the bulk call takes the scalar path: still compared,
// so a fallback that skipped the tail or a block would fail here on any CPU.
static void bulk_matches_scalar(void) {
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
}

// 1 if every flag is in /proc/cpuinfo's first "flags" line, 0 if one is not,
// -1 if there is no such line to read.
static int cpuinfo_has(const char *const *flags, int n) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return -1;
    static char line[8192];
    int found = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            found = 1;
            for (int i = 0; i < n; i++) {
                char word[64];
                snprintf(word, sizeof word, " %s ", flags[i]);
                line[strcspn(line, "\n")] = ' ';
                if (!strstr(line, word)) found = 0;
            }
            break;
        }
    fclose(f);
    return found;
}

// Without the hook, the answer is the CPU's: the kernels run exactly where the
// kernel reports every extension they use (the OS saving the AVX-512 registers
// is implied by the kernel listing the flags at all).
static void answer_matches_cpuinfo(void) {
#if defined(BF16_HAVE_KERNELS)
    const char *const need[] = {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"};
    int has = cpuinfo_has(need, 4);
    if (has < 0) {
        SKIP("proc-cpuinfo", "no flags line in /proc/cpuinfo to compare with");
        return;
    }
    // a forced narrower path (LMTRAIN_ISA=avx2|portable) turns bf16 off too
    if (kernel_isa() != KERNEL_AVX512) has = 0;
    const char *real = bf16_cpu_missing();
    CHECK((real == NULL) == (has == 1));
    if ((real == NULL) != (has == 1)) fprintf(stderr, "  cpuinfo says %d, bf16_cpu_missing says %s\n", has, real ? real : "NULL");
#else
    CHECK(bf16_cpu_missing() != NULL);  // no kernels built: refused everywhere
#endif
}

// The nearest bf16 by arithmetic in double, ties to the even significand: an
// independent reference for bf16_from_float (no bit tricks, no AVX-512 BF16).
// Finite normal x only.
static uint16_t bf16_reference(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    uint32_t lo_bits = u & 0xFFFF0000u, hi_bits = lo_bits + 0x10000u;  // truncation, then one ulp away
    float lo = from_bits(lo_bits), hi = from_bits(hi_bits);               // hi may be infinity
    double dl = fabs((double)x - (double)lo), dh = isinf(hi) ? INFINITY : fabs((double)hi - (double)x);
    if (isinf(hi)) {  // past the largest bf16: the halfway point to the next binade decides
        double top = (double)from_bits(0x7F7F0000u), step = (double)from_bits(0x7F7F0000u) - (double)from_bits(0x7F7E0000u);
        dh = fabs(top + step - fabs((double)x));
    }
    if (dl < dh) return (uint16_t)(lo_bits >> 16);
    if (dh < dl) return (uint16_t)(hi_bits >> 16);
    return (lo_bits >> 16) % 2 == 0 ? (uint16_t)(lo_bits >> 16) : (uint16_t)(hi_bits >> 16);
}

// bf16_from_float against that reference on 2^24 normal patterns spread over
// every exponent and both signs, halfway cases made on purpose among them: on
// every CPU, since the scalar rounding is what packing and the fallbacks use.
static void rounding_against_reference(void) {
    long bad = 0, ties = 0;
    uint32_t u = 0x00800000u;
    for (long i = 0; i < (1L << 24); i++, u += 251u) {
        uint32_t b = u;
        if (i % 4 == 0) b = (b & 0xFFFF0000u) | 0x8000u;  // exactly halfway between two bf16
        if ((b & 0x7F800000u) == 0 || (b & 0x7F800000u) == 0x7F800000u) continue;  // normals only
        ties += (b & 0xFFFFu) == 0x8000u;
        float x = from_bits(b);
        if (bf16_from_float(x) != bf16_reference(x) && bad++ < 3)
            fprintf(stderr, "  %08x: got %04x, want %04x\n", b, bf16_from_float(x), bf16_reference(x));
    }
    CHECK(bad == 0);
    CHECK(ties > 1000000);
}

int main(void) {
    TEST(rounding_hand_worked);
    TEST(rounding_error_bound);
    TEST(bulk_matches_scalar);
    TEST(hook_refuses);
    TEST(answer_matches_cpuinfo);
    TEST(rounding_against_reference);
    return test_summary();
}
