// test_isa.c — the kernel path as a user meets it: `lmtrain --version` names
// the CPU and the path; LMTRAIN_ISA forces one the CPU allows and bench's peak
// is then that path's; an unknown or too wide one is refused, exit 2, with the
// reason, before anything is written.
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "e2e.h"

// runs lmtrain ARGV with LMTRAIN_ISA = isa (NULL: unset); its exit status
static int run_with_isa(const char *isa, char *const argv[]) {
    const char *was = getenv("LMTRAIN_ISA");
    char *keep = was ? strdup(was) : NULL;
    if (isa) setenv("LMTRAIN_ISA", isa, 1);
    else unsetenv("LMTRAIN_ISA");
    int rc = run_lmtrain(argv);
    if (keep) setenv("LMTRAIN_ISA", keep, 1), free(keep);
    else unsetenv("LMTRAIN_ISA");
    return rc;
}

static void test_version_names_cpu_and_path(void) {
    char *argv[] = {"--version", NULL};
    CHECK(run_with_isa(NULL, argv) == 0);
    CHECK(strstr(e2e_out, "lmtrain ") != NULL);
    CHECK(strstr(e2e_out, "\nkernels: ") != NULL);
    CHECK(strstr(e2e_out, "\ncpu: ") != NULL && strstr(e2e_out, "family ") != NULL);
    CHECK(run_with_isa("portable", argv) == 0);
    CHECK(strstr(e2e_out, "kernels: portable (bf16 no, vnni no;") != NULL);
    char *help[] = {"--help", NULL};
    CHECK(run_with_isa("portable", help) == 0);
    CHECK(strstr(e2e_out, "Kernels: the portable path") != NULL);
}

static void test_unknown_isa_refused_before_anything(void) {
    char out[512], cfg[512];
    tpath(out, sizeof out, "run");
    tpath(cfg, sizeof cfg, "run.ini");
    write_text(cfg, "[run]\nname = x\n");
    char *argv[] = {"train", "--config", cfg, "--out", out, NULL};
    CHECK(run_with_isa("avx1024", argv) == 2);
    CHECK(strstr(e2e_out, "LMTRAIN_ISA=avx1024: unknown kernel path") != NULL);
    CHECK(strstr(e2e_out, "allows: ") != NULL);
    CHECK(!file_exists(out));  // nothing written
}

// On this CPU: every path it allows runs; any wider is refused with exit 2.
static void test_wider_isa_refused(void) {
    char *argv[] = {"--version", NULL};
    const char *isas[] = {"portable", "avx2", "avx512"};
    int refused_after_allowed = 0, allowed = 0;
    for (int i = 0; i < 3; i++) {
        int rc = run_with_isa(isas[i], argv);
        CHECK(rc == 0 || rc == 2);
        if (rc == 0) {
            allowed = i + 1;
            CHECK(refused_after_allowed == 0);  // the allowed paths are a prefix, narrowest first
        } else {
            refused_after_allowed = 1;
            CHECK(strstr(e2e_out, "cannot run the") != NULL || strstr(e2e_out, "has no") != NULL);
            CHECK(strstr(e2e_out, "allows: ") != NULL);
        }
    }
    CHECK(allowed >= 1);
}

// bench's peak is the forced path's (so % busy is against what ran)
static void test_peak_of_forced_path(void) {
    char dir[512];
    tpath(dir, sizeof dir, "bench");
    char *argv[] = {"bench", "--part", "peak", "--quick", "--threads", "1", "--out", dir, NULL};
    char *ver[] = {"--version", NULL};
    if (run_with_isa("avx2", ver) != 0) {
        SKIP("avx2-cpu", "this CPU cannot run the avx2 kernels");
    } else {
        CHECK(run_with_isa("avx2", argv) == 0);
        CHECK(strstr(e2e_out, "FP32 FMA, AVX2+FMA") != NULL);
    }
    CHECK(run_with_isa("portable", argv) == 0);
#if defined(__aarch64__)
    CHECK(strstr(e2e_out, "FP32 FMA, NEON") != NULL);  // aarch64's one path is NEON (kernels/fma_chains.c)
#else
    CHECK(strstr(e2e_out, "FP32 FMA, 4-lane vectors") != NULL);  // plain C: GCC vectors (SSE2 on x86-64)
#endif
}

int main(void) {
    e2e_setup();
    TEST(test_version_names_cpu_and_path);
    TEST(test_unknown_isa_refused_before_anything);
    TEST(test_wider_isa_refused);
    TEST(test_peak_of_forced_path);
    e2e_teardown();
    return test_summary();
}
