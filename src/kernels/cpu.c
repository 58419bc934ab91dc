// cpu.c — cpuid / xgetbv, and the choice of the kernel path (cpu.h).
// Baseline code: it reads the CPU, it never runs a wider instruction.
#include "kernels/cpu.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

// XCR0, the state components the OS saves on a context switch (xgetbv with
// ecx = 0). Only called when cpuid says OSXSAVE.
static unsigned long long xcr0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (unsigned long long)hi << 32 | lo;
}

static void read_cpu(CpuInfo *c) {
    unsigned a = 0, b = 0, cx = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &cx, &d)) return;
    unsigned max = a;
    memcpy(c->vendor, &b, 4), memcpy(c->vendor + 4, &d, 4), memcpy(c->vendor + 8, &cx, 4);
    c->vendor[12] = 0;
    __get_cpuid(1, &a, &b, &cx, &d);
    unsigned fam = a >> 8 & 15, mod = a >> 4 & 15;
    if (fam == 15) fam += a >> 20 & 255;
    if (fam == 6 || fam >= 15) mod += (a >> 16 & 15) << 4;
    c->family = (int)fam, c->model = (int)mod;
    int fma = cx >> 12 & 1, osxsave = cx >> 27 & 1, avx = cx >> 28 & 1;
    unsigned long long x = osxsave ? xcr0() : 0;
    int ymm_saved = (x & 6) == 6;             // SSE + AVX state
    int zmm_saved = ymm_saved && (x & 0xE0) == 0xE0;  // opmask, ZMM_Hi256, Hi16_ZMM
    unsigned b7 = 0, c7 = 0, a71 = 0;
    if (max >= 7) {
        unsigned aa = 0, dd = 0, bb = 0, cc = 0;
        __get_cpuid_count(7, 0, &aa, &bb, &cc, &dd);
        b7 = bb, c7 = cc;
        if (aa >= 1) __get_cpuid_count(7, 1, &a71, &bb, &cc, &dd);
    }
    int avx2 = b7 >> 5 & 1, f = b7 >> 16 & 1, dq = b7 >> 17 & 1, bw = b7 >> 30 & 1, vl = b7 >> 31 & 1;
    c->has[KERNEL_PORTABLE] = 1;
    c->has[KERNEL_AVX2] = avx && avx2 && fma && ymm_saved;
    c->has[KERNEL_AVX512] = c->has[KERNEL_AVX2] && f && dq && bw && vl && zmm_saved;
    c->vnni = c->has[KERNEL_AVX512] && (c7 >> 11 & 1);
    c->bf16 = c->has[KERNEL_AVX512] && (a71 >> 5 & 1);
    unsigned ext = 0;
    __get_cpuid(0x80000000u, &ext, &b, &cx, &d);
    if (ext >= 0x80000004u) {
        unsigned r[12];
        for (unsigned i = 0; i < 3; i++) __get_cpuid(0x80000002u + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
        char s[49];
        memcpy(s, r, 48);
        s[48] = 0;
        const char *p = s;
        while (*p == ' ') p++;
        snprintf(c->brand, sizeof c->brand, "%s", p);
        for (size_t n = strlen(c->brand); n && c->brand[n - 1] == ' ';) c->brand[--n] = 0;
    }
}
#else
static void read_cpu(CpuInfo *c) { c->has[KERNEL_PORTABLE] = 1; }
#endif

const CpuInfo *cpu_info(void) {
    static CpuInfo c;
    static int known;
    if (!known) {
        read_cpu(&c);
        c.has[KERNEL_PORTABLE] = 1;
        known = 1;
    }
    return &c;
}

static const char *const ISA_NAMES[KERNEL_N_ISAS] = {"portable", "avx2", "avx512"};

const char *kernel_isa_name(KernelIsa isa) { return isa >= 0 && isa < KERNEL_N_ISAS ? ISA_NAMES[isa] : "?"; }

int kernel_isa_built(KernelIsa isa) {
#if defined(__x86_64__)
    return isa >= 0 && isa < KERNEL_N_ISAS;
#else
    return isa == KERNEL_PORTABLE;
#endif
}

// "avx2, portable": the paths this CPU and this build allow, widest first
static void allowed_list(const CpuInfo *cpu, char *out, size_t n) {
    out[0] = 0;
    for (int i = KERNEL_N_ISAS - 1; i >= 0; i--)
        if (cpu->has[i] && kernel_isa_built((KernelIsa)i))
            snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? ", " : "", ISA_NAMES[i]);
}

int kernel_isa_choose(const CpuInfo *cpu, const char *env, char *err, size_t errlen) {
    int widest = KERNEL_PORTABLE;
    for (int i = 0; i < KERNEL_N_ISAS; i++)
        if (cpu->has[i] && kernel_isa_built((KernelIsa)i)) widest = i;
    if (!env || !*env) return widest;
    char allowed[64];
    allowed_list(cpu, allowed, sizeof allowed);
    for (int i = 0; i < KERNEL_N_ISAS; i++) {
        if (strcmp(env, ISA_NAMES[i]) != 0) continue;
        if (!kernel_isa_built((KernelIsa)i)) {
            snprintf(err, errlen, "LMTRAIN_ISA=%s: this build has no %s kernels; it allows: %s", env, env, allowed);
            return -1;
        }
        if (!cpu->has[i]) {
            snprintf(err, errlen,
                     "LMTRAIN_ISA=%s: this CPU (%s%s%s) cannot run the %s kernels; it allows: %s", env,
                     cpu->brand[0] ? cpu->brand : cpu->vendor[0] ? cpu->vendor : "unknown",
                     cpu->vendor[0] ? ", widest path " : "", cpu->vendor[0] ? ISA_NAMES[widest] : "", env, allowed);
            return -1;
        }
        return i;
    }
    snprintf(err, errlen, "LMTRAIN_ISA=%s: unknown kernel path (one of avx512, avx2, portable; this CPU allows: %s)",
             env, allowed);
    return -1;
}

void kernel_describe(char *out, size_t n) {
    const CpuInfo *c = cpu_info();
    KernelIsa k = kernel_isa();
    char allowed[64];
    allowed_list(c, allowed, sizeof allowed);
    int wide = k == KERNEL_AVX512;
    snprintf(out, n, "kernels: %s (bf16 %s, vnni %s; this CPU allows %s)\ncpu: %s%s%s, family %d model %d",
             kernel_isa_name(k), wide && c->bf16 ? "yes" : "no", wide && c->vnni ? "yes" : "no", allowed,
             c->brand[0] ? c->brand : "(no brand string)", c->vendor[0] ? ", " : "", c->vendor, c->family,
             c->model);
}
