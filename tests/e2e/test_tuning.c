// test_tuning.c — the products' blocking per CPU as a user meets it
// (kernels/blocking.h): --version and bench's peak say which blocking runs
// and where it came from; `bench --part tune` writes the tuning file that
// later runs read; a corrupt or foreign file is ignored with a warning; and
// training gives the same weights and metrics whatever the blocking.
// XDG_CACHE_HOME points into the test's own folder: the user's cache is never read.
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "e2e.h"
#include "kernels/blocking.h"
#include "util/binfile.h"

static char cache[512], tfile[600], corpus[512];

static void test_version_says_blocking(void) {
    unlink(tfile);
    char *argv[] = {"--version", NULL};
    CHECK(run_lmtrain(argv) == 0);
    CHECK(strstr(e2e_out, "\nblocking: mc ") != NULL);
    CHECK(strstr(e2e_out, "; table (") != NULL || strstr(e2e_out, "; default (") != NULL);
    CHECK(strstr(e2e_out, "warning") == NULL);
}

static void test_tune_writes_file_read_later(void) {
    unlink(tfile);
    char out[512];
    tpath(out, sizeof out, "bench");
    char *argv[] = {"bench", "--part", "tune", "--quick", "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    CHECK(strstr(e2e_out, "chosen: mc ") != NULL);
    CHECK(file_exists(tfile));
    char *ver[] = {"--version", NULL};
    CHECK(run_lmtrain(ver) == 0);
    CHECK(strstr(e2e_out, "tuned (") != NULL && strstr(e2e_out, tfile) != NULL);
    char *peak[] = {"bench", "--part", "peak", "--quick", "--threads", "1", "--out", out, NULL};
    CHECK(run_lmtrain(peak) == 0);
    CHECK(strstr(e2e_out, "products' blocking: mc ") != NULL && strstr(e2e_out, "tuned (") != NULL);
}

static void test_bad_file_warned_and_ignored(void) {
    const char *bad[] = {"garbage\n", "lmtrain gemm blocking 1\ncpu OtherVendor 1 2\navx512 2 2\n"};
    for (int i = 0; i < 2; i++) {
        write_text(tfile, bad[i]);
        char *ver[] = {"--version", NULL};
        CHECK(run_lmtrain(ver) == 0);
        CHECK(strstr(e2e_out, "warning: tuning file") != NULL && strstr(e2e_out, tfile) != NULL);
        CHECK(strstr(e2e_out, "tuned (") == NULL);
    }
    unlink(tfile);
}

// trains the tiny model into dir, 1 thread; exit status
static int train_to(const char *dir, const char *kind) {
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[run]\nname = t\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 32\nblock_size = 32\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 12\nbatch_size = 8\nlr = 3e-3\nwarmup = 2\neval_every = 6\n"
             "eval_batches = 2\nlog_every = 2\ncheckpoint_every = 6\n",
             corpus, kind);
    return train_from_text(dir, ini, NULL);
}

static void test_training_same_bits_any_blocking(void) {
    const char *kinds[] = {"softmax", "delta"};
    for (int k = 0; k < 2; k++) {
        char a[512], b[512], ma[600], mb[600], name[64];
        snprintf(name, sizeof name, "blk_default_%s", kinds[k]);
        tpath(a, sizeof a, name);
        snprintf(name, sizeof name, "blk_small_%s", kinds[k]);
        tpath(b, sizeof b, name);
        unlink(tfile);
        CHECK(train_to(a, kinds[k]) == 0);
        // the smallest blocking on every path: many blocks where the default has one
        CpuInfo c = *cpu_info();
        char text[256];
        // and dYᵀ the other way from the table's on the AVX-512 and AVX2 paths
        int at = !gemm_blocking_builtin(&c, KERNEL_AVX512, NULL).pack_at;
        int at2 = !gemm_blocking_builtin(&c, KERNEL_AVX2, NULL).pack_at;
        snprintf(text, sizeof text,
                 "lmtrain gemm blocking 1\ncpu %s %d %d\navx512 2 2 %d\navx2 2 2 %d\nportable 2 2\n",
                 c.vendor[0] ? c.vendor : "unknown", c.family, c.model, at, at2);
        write_text(tfile, text);
        CHECK(train_to(b, kinds[k]) == 0);
        char *ver[] = {"--version", NULL};
        CHECK(run_lmtrain(ver) == 0 && strstr(e2e_out, "mc 2 tiles, nc 2 tiles, dYᵀ ") != NULL &&
              strstr(e2e_out, "; tuned") != NULL);
        if (kernel_isa() != KERNEL_PORTABLE) {
            int want = kernel_isa() == KERNEL_AVX512 ? at : at2;
            CHECK(strstr(e2e_out, want ? "dYᵀ packed where its rows are 4 KiB apart;" : "dYᵀ read in place;") != NULL);
        }
        unlink(tfile);
        snprintf(ma, sizeof ma, "%s/metrics.csv", a);
        snprintf(mb, sizeof mb, "%s/metrics.csv", b);
        char *x = metrics_without_timing(ma), *y = metrics_without_timing(mb);
        CHECK(x && y && strcmp(x, y) == 0);
        free(x), free(y);
        snprintf(ma, sizeof ma, "%s/checkpoint.bin", a);
        snprintf(mb, sizeof mb, "%s/checkpoint.bin", b);
        CHECK(same_params(ma, mb));
    }
}

int main(void) {
    e2e_setup();
    tpath(cache, sizeof cache, "cache");
    setenv("XDG_CACHE_HOME", cache, 1);
    CHECK(blocking_file_path(cpu_info(), NULL, tfile, sizeof tfile) == 0);
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 20000);
    TEST(test_version_says_blocking);
    TEST(test_tune_writes_file_read_later);
    TEST(test_bad_file_warned_and_ignored);
    TEST(test_training_same_bits_any_blocking);
    e2e_teardown();
    return test_summary();
}
