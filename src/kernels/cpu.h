// cpu.h — what the CPU can run, and which kernel path this process runs.
//
// One binary runs on every x86-64: the kernel files are compiled once per
// path (kernels/isa.h) and kernels/dispatch.c picks one before main, from
// cpuid (and xgetbv: the OS must save the ymm / zmm registers, or the wider
// instructions fault even where cpuid lists them):
//   avx512    AVX-512 F, BW, VL, DQ + AVX2 + FMA, the OS saving zmm and the
//             mask registers; bf16 products and int8 generation where the CPU
//             also has AVX-512 BF16 / VNNI
//   avx2      AVX2 + FMA, the OS saving ymm
//   portable  plain C: any x86-64 (SSE2), and every other target
// LMTRAIN_ISA=avx512|avx2|portable forces a path no wider than the CPU's (a
// forced narrower path also turns bf16 and VNNI off: the process behaves as a
// CPU without them would); a wider or unknown value is refused, exit 2, before
// anything runs.
#pragma once
#include <stddef.h>

typedef enum { KERNEL_PORTABLE, KERNEL_AVX2, KERNEL_AVX512, KERNEL_N_ISAS } KernelIsa;

typedef struct {
    char vendor[13];   // "GenuineIntel", "AuthenticAMD", ... ("" off x86)
    char brand[49];    // the brand string, trimmed ("" where the CPU has none)
    int family, model;  // display family / model (extended fields folded in)
    int has[KERNEL_N_ISAS];  // which paths it can run (the OS's register support included)
    int bf16, vnni;          // AVX-512 BF16 / VNNI, with the zmm state saved
} CpuInfo;

// This CPU, read once.
const CpuInfo *cpu_info(void);

// "avx512", "avx2", "portable"
const char *kernel_isa_name(KernelIsa isa);
// The path this process runs (chosen before main).
KernelIsa kernel_isa(void);
// Whether this build has a variant for isa at all (x86-64: all three; other
// targets: portable).
int kernel_isa_built(KernelIsa isa);

// The path for LMTRAIN_ISA = env (NULL or "": the widest the CPU and the build
// allow). On a refusal returns -1 with the reason in err.
int kernel_isa_choose(const CpuInfo *cpu, const char *env, char *err, size_t errlen);

// One line for --version and bench: "kernels avx512 (bf16, vnni), CPU ..."
void kernel_describe(char *out, size_t n);
