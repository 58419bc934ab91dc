// bf16.c — run-time detection of AVX-512 BF16 and the bulk conversion.
#include "kernels/bf16.h"

#include <stdlib.h>

#include "kernels/cpu.h"

const char *const precision_names[] = {"fp32", "bf16", NULL};

#if defined(BF16_HAVE_KERNELS)
#include <immintrin.h>

// cpuid says AVX512_BF16 (with F/BW/VL and the zmm state saved), and the
// process runs the avx512 path: a forced narrower one (LMTRAIN_ISA) behaves as
// a CPU without bf16 would (kernels/cpu.h).
static int cpu_has_bf16(void) { return cpu_info()->bf16 && kernel_isa() == KERNEL_AVX512; }

BF16_TARGET static void from_floats_avx512(uint16_t *dst, const float *src, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(dst + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(src + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        __m256i h = (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + i));
        _mm256_mask_storeu_epi16(dst + i, m, h);
    }
}
#endif

const char *bf16_cpu_missing(void) {
    const char *hook = getenv("LMTRAIN_CPU_NO_BF16");
    if (hook && *hook) return "this CPU has no AVX-512 BF16 (LMTRAIN_CPU_NO_BF16 is set: the test hook)";
#if defined(BF16_HAVE_KERNELS)
    if (cpu_info()->bf16 && !cpu_has_bf16())
        return "LMTRAIN_ISA forces a kernel path without AVX-512 BF16 (this CPU has avx512_bf16: unset LMTRAIN_ISA, "
               "or set avx512)";
    if (!cpu_has_bf16()) return "this CPU has no AVX-512 BF16 (avx512_bf16 in /proc/cpuinfo)";
    return NULL;
#else
    return "this build has no bf16 kernels (they need an x86-64 compiler: GCC >= 10 or Clang >= 9)";
#endif
}

void bf16_from_floats(uint16_t *dst, const float *src, size_t n) {
#if defined(BF16_HAVE_KERNELS)
    if (cpu_has_bf16()) {
        from_floats_avx512(dst, src, n);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++) dst[i] = bf16_from_float(src[i]);
}
