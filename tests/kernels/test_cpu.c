// test_cpu.c — the choice of the kernel path (kernels/cpu.h): the widest the
// CPU allows by default; LMTRAIN_ISA forces one no wider; a wider or unknown
// one is refused with a message naming what the CPU has. On made-up CPUs, so
// every case runs on any machine.
#include <string.h>

#include "../test.h"
#include "kernels/cpu.h"
#include "kernels/gemm.h"

static CpuInfo fake(int avx2, int avx512) {
    CpuInfo c;
    memset(&c, 0, sizeof c);
    strcpy(c.vendor, "GenuineIntel");
    strcpy(c.brand, "Test CPU");
    c.has[KERNEL_PORTABLE] = 1, c.has[KERNEL_AVX2] = avx2, c.has[KERNEL_AVX512] = avx512;
    return c;
}

static void test_default_is_widest(void) {
    char err[256] = "";
    CpuInfo hw = fake(1, 0), sk = fake(1, 1), old = fake(0, 0);
#if defined(__x86_64__)
    CHECK(kernel_isa_choose(&hw, NULL, err, sizeof err) == KERNEL_AVX2);
    CHECK(kernel_isa_choose(&sk, "", err, sizeof err) == KERNEL_AVX512);
#else
    CHECK(kernel_isa_choose(&sk, NULL, err, sizeof err) == KERNEL_PORTABLE);  // the one path built
    (void)hw;
#endif
    CHECK(kernel_isa_choose(&old, NULL, err, sizeof err) == KERNEL_PORTABLE);
}

static void test_forced_narrower(void) {
    char err[256] = "";
    CpuInfo sk = fake(1, 1);
    CHECK(kernel_isa_choose(&sk, "portable", err, sizeof err) == KERNEL_PORTABLE);
#if defined(__x86_64__)
    CHECK(kernel_isa_choose(&sk, "avx2", err, sizeof err) == KERNEL_AVX2);
    CHECK(kernel_isa_choose(&sk, "avx512", err, sizeof err) == KERNEL_AVX512);
#endif
}

static void test_wider_refused(void) {
    char err[256] = "";
    CpuInfo hw = fake(1, 0);
    CHECK(kernel_isa_choose(&hw, "avx512", err, sizeof err) == -1);
    CHECK(strstr(err, "LMTRAIN_ISA=avx512") != NULL);
#if defined(__x86_64__)
    CHECK(strstr(err, "Test CPU") != NULL);            // what the CPU is
    CHECK(strstr(err, "allows: avx2, portable") != NULL);  // and what it allows
#endif
    CpuInfo old = fake(0, 0);
    CHECK(kernel_isa_choose(&old, "avx2", err, sizeof err) == -1);
    CHECK(strstr(err, "allows: portable") != NULL);
}

static void test_unknown_refused(void) {
    char err[256] = "";
    CpuInfo sk = fake(1, 1);
    CHECK(kernel_isa_choose(&sk, "avx1024", err, sizeof err) == -1);
    CHECK(strstr(err, "unknown") != NULL && strstr(err, "avx1024") != NULL);
    CHECK(kernel_isa_choose(&sk, "AVX2", err, sizeof err) == -1);  // the names are lower case
}

// the process runs the path it reports, and the products run that path's kernels
static void test_running_path(void) {
    KernelIsa k = kernel_isa();
    CHECK(cpu_info()->has[k]);
#if defined(__aarch64__)
    const char *want = "neon";  // aarch64's one path, portable, is NEON (gemm_kernels.h)
#else
    const char *want = k == KERNEL_AVX512 ? "avx512" : k == KERNEL_AVX2 ? "avx2" : "plain-c";
#endif
    CHECK(strcmp(gemm_isa(), want) == 0);
    const char *forced = getenv("LMTRAIN_ISA");
    if (forced && *forced) CHECK(strcmp(kernel_isa_name(k), forced) == 0);
}

int main(void) {
    TEST(test_default_is_widest);
    TEST(test_forced_narrower);
    TEST(test_wider_refused);
    TEST(test_unknown_refused);
    TEST(test_running_path);
    return test_summary();
}
