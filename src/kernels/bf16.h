// bf16.h — bfloat16 (the top 16 bits of an IEEE float32): rounding, conversion,
// whether this CPU multiplies it (AVX-512 BF16), and the [train] precision
// setting. Shared by the bf16 training GEMM (gemm_bf16.c) and bf16 generation.
//
// Build and run time. The bf16 kernels are compiled in every x86-64 build
// (-march=native or not: KERNELS=avx2 and portable too) through a function
// target attribute, BF16_TARGET, rather than behind #if __AVX512BF16__: then a
// binary built for any x86-64 still gets bf16 where the CPU has it, and the one
// gate is the run-time check bf16_cpu_missing(). Without x86-64 GCC >= 10 or
// Clang >= 9, BF16_HAVE_KERNELS is not defined and bf16 is refused.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// [train] precision: fp32 everywhere, or the matmuls' inputs in bf16 (products
// accumulated in fp32; everything else stays fp32). See docs/config.md.
typedef enum { PRECISION_FP32, PRECISION_BF16 } Precision;
// "fp32", "bf16" (index = Precision), NULL-terminated: the config's spelling.
extern const char *const precision_names[];

#if (defined(__x86_64__) || defined(__i386__)) && \
    ((defined(__clang__) && __clang_major__ >= 9) || (!defined(__clang__) && __GNUC__ >= 10))
#define BF16_HAVE_KERNELS 1
// AVX-512 BF16 (vdpbf16ps, vcvtne2ps2bf16) plus the AVX-512 subsets the kernels
// use for packing (BW: 16-bit permutes; VL: 256-bit masked forms).
#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#endif

// float32 -> bf16, round to nearest, ties to even; bit for bit what the
// hardware conversion (VCVTNEPS2BF16) gives, so scalar and vector paths agree:
// a NaN stays a NaN (quieted, sign and top payload bits kept), a denormal
// becomes a zero of its sign (the instruction treats input denormals as zero),
// values past the largest bf16 round to infinity.
static inline uint16_t bf16_from_float(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu)) return (uint16_t)((u >> 16) | 0x0040u);
    if ((u & 0x7F800000u) == 0) return (uint16_t)((u >> 16) & 0x8000u);
    u += 0x7FFFu + ((u >> 16) & 1u);  // carries into the exponent when rounding up
    return (uint16_t)(u >> 16);
}

// bf16 -> float32: exact.
static inline float bf16_to_float(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

// x rounded to the nearest bf16, as a float (what a bf16 product sees).
static inline float bf16_round(float x) { return bf16_to_float(bf16_from_float(x)); }

// dst[i] = bf16_from_float(src[i]), i < n: the hardware conversion where the
// CPU has it, else the scalar one above (the same bits either way).
void bf16_from_floats(uint16_t *dst, const float *src, size_t n);

// NULL if this process can run the bf16 kernels; otherwise why not, a phrase
// for an error message ("this CPU has no AVX-512 BF16 ..."). Checked at run
// time (cpuid, and the OS saving the AVX-512 registers). Test hook: with the
// environment variable LMTRAIN_CPU_NO_BF16 set to a non-empty value, the CPU
// is taken to lack bf16, so the refusal path can be tested on any machine.
const char *bf16_cpu_missing(void);
