// test_bf16.c — [train] precision = bf16 through the real binary: a run
// resumes from its checkpoint bit for bit and is thread-count independent,
// its folder evaluates and samples in fp32 on any CPU, and on a CPU without
// AVX-512 BF16 (simulated: LMTRAIN_CPU_NO_BF16, kernels/bf16.h) training,
// resuming, ablating and benchmarking bf16 are refused with exit 2 and
// nothing written; bench --precision fp32,bf16 measures both side by side
// (parts train and profile).
#include <stddef.h>

#include "../test.h"
#include "e2e.h"
#include "kernels/bf16.h"

static char corpus[512], cfg_path[512];

static void write_config(const char *path, const char *precision) {
    char text[4096];
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nout_dir = %s/runs\nseed = 7\nthreads = 1\n"
             "[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 32\nblock_size = 16\n"
             "[attention]\nkind = linear_decay\nchunk = 5\n"
             "[train]\nsteps = 40\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 20\n"
             "eval_batches = 2\nlog_every = 5\ncheckpoint_every = 10\nprecision = %s\n",
             e2e_dir, corpus, precision);
    write_text(path, text);
}

static int train(const char *out, const char *steps, const char *threads, int resume) {
    char set_s[64], set_t[64];
    snprintf(set_s, sizeof set_s, "train.steps=%s", steps);
    snprintf(set_t, sizeof set_t, "run.threads=%s", threads);
    char *argv[] = {"--config", cfg_path, "--out", (char *)out, "--set", set_s, "--set", set_t,
                    resume ? "--resume" : NULL, NULL};
    int rc = run_lmtrain(argv);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    return rc;
}

static int need_bf16(void) {
    const char *missing = bf16_cpu_missing();
    if (missing) SKIP("avx512_bf16", "%s", missing);
    return missing == NULL;
}

static int same_metrics(const char *a, const char *b) {
    char ma[600], mb[600];
    snprintf(ma, sizeof ma, "%s/metrics.csv", a);
    snprintf(mb, sizeof mb, "%s/metrics.csv", b);
    char *x = metrics_without_timing(ma), *y = metrics_without_timing(mb);
    int same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

static int same_checkpoints(const char *a, const char *b) {
    char ca[600], cb[600];
    snprintf(ca, sizeof ca, "%s/checkpoint.bin", a);
    snprintf(cb, sizeof cb, "%s/checkpoint.bin", b);
    return same_params(ca, cb);
}

// 40 steps in one go; stopped after 20, then --resume to 40; 40 on two
// threads; and 40 in fp32 for contrast. The first three agree bit for bit, the fp32 run does not.
static void test_bf16_resumes_bit_identical(void) {
    if (!need_bf16()) return;
    char whole[512], part[512], two[512], fp32[512], p[600];
    tpath(whole, sizeof whole, "bf16_whole");
    tpath(part, sizeof part, "bf16_part");
    tpath(two, sizeof two, "bf16_two");
    tpath(fp32, sizeof fp32, "fp32_whole");
    write_config(cfg_path, "bf16");
    CHECK(train(whole, "40", "1", 0) == 0);
    // stopped by SIGINT right after step 20 (a pause point), then resumed
    char log[600];
    tpath(log, sizeof log, "sigint.log");
    char *argv[] = {"--config", cfg_path, "--out", part, "--set", "run.threads=1", NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "step:20", &st);
    CHECK(pid > 0);
    if (pid > 0) {
        pause_resume(pid, SIGINT);
        CHECK(wait_status(pid) == 130);
    }
    CHECK(train(part, "40", "1", 1) == 0);
    CHECK(train(two, "40", "2", 0) == 0);
    CHECK(same_metrics(whole, part));
    CHECK(same_checkpoints(whole, part));
    CHECK(same_metrics(whole, two));
    CHECK(same_checkpoints(whole, two));
    write_config(cfg_path, "fp32");
    CHECK(train(fp32, "40", "1", 0) == 0);
    CHECK(!same_checkpoints(whole, fp32));  // bf16 really changed the arithmetic
    snprintf(p, sizeof p, "%s/config.ini", whole);
    char *cfg = read_all(p, NULL);
    CHECK(cfg && strstr(cfg, "precision        = bf16"));
    free(cfg);
}

// A bf16 run's folder is fp32 weights: eval and sample run where bf16 cannot.
static void test_bf16_run_evaluates_anywhere(void) {
    if (!need_bf16()) return;
    char whole[512];
    tpath(whole, sizeof whole, "bf16_whole");
    setenv("LMTRAIN_CPU_NO_BF16", "1", 1);
    char *ev[] = {"eval", "--run", whole, NULL};
    int rc = run_lmtrain(ev);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "val loss") != NULL);
    char *sa[] = {"sample", "--run", whole, "--tokens", "20", NULL};
    CHECK(run_lmtrain(sa) == 0);
    unsetenv("LMTRAIN_CPU_NO_BF16");
}

// Without AVX-512 BF16: refused (exit 2, a message that says why and what to
// do), and nothing written: no new folder, an existing run untouched.
static void test_refused_without_bf16(void) {
    char out[512], whole[512], fp32_out[512];
    tpath(out, sizeof out, "refused");
    tpath(whole, sizeof whole, "bf16_whole");  // from the first test, if it ran
    tpath(fp32_out, sizeof fp32_out, "fp32_under_hook");
    char *before = folder_digest(whole);
    setenv("LMTRAIN_CPU_NO_BF16", "1", 1);
    write_config(cfg_path, "bf16");
    char *argv[] = {"--config", cfg_path, "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 2);
    CHECK(strstr(e2e_out, "precision = bf16") && strstr(e2e_out, "AVX-512 BF16") &&
          strstr(e2e_out, "precision = fp32"));
    // --set on an fp32 config, --resume of an existing run, and ablate alike
    write_config(cfg_path, "fp32");
    char *argv2[] = {"--config", cfg_path, "--out", out, "--set", "train.precision=bf16", NULL};
    CHECK(run_lmtrain(argv2) == 2);
    char *argv3[] = {"--config", cfg_path, "--out", whole, "--set", "train.precision=bf16", "--resume", NULL};
    CHECK(run_lmtrain(argv3) == 2);
    char cfg2[512];
    tpath(cfg2, sizeof cfg2, "tiny2.ini");
    write_config(cfg2, "fp32");
    char *argv4[] = {"ablate", cfg_path, cfg2, "--set", "train.precision=bf16", "--out", out, NULL};
    CHECK(run_lmtrain(argv4) == 2);
    CHECK(strstr(e2e_out, "AVX-512 BF16") != NULL);
    CHECK(!file_exists(out));
    char *after = folder_digest(whole);
    CHECK(before && after && strcmp(before, after) == 0);
    // fp32 still trains under the hook
    char *argv5[] = {"--config", cfg_path, "--out", fp32_out, "--set", "train.steps=5", NULL};
    CHECK(run_lmtrain(argv5) == 0);
    unsetenv("LMTRAIN_CPU_NO_BF16");
    free(before);
    free(after);
}

// The first two CSV rows starting with `lead` ("\nbaby,linear,1,"): 1 if they
// exist and the first ends ",fp32", the second ",bf16"; *f, *b get them
// (from their '\n'), or NULL.
static int fp32_then_bf16(const char *csv, const char *lead, const char *after, const char **f, const char **b) {
    *f = csv ? strstr(csv, lead) : NULL;
    *b = *f ? strstr(*f + 1, lead) : NULL;
    if (!*f || !*b) return 0;
    const char *fe = strchr(*f + 1, '\n'), *be = strchr(*b + 1, '\n');
    size_t n = strlen(after) + 5;  // the precision's field, then what follows it (`after`) up to the line's end
    return fe && be && fe - *f > (ptrdiff_t)n && be - *b > (ptrdiff_t)n && !strncmp(fe - n, ",fp32", 5) &&
           !strncmp(be - n, ",bf16", 5) && !strncmp(fe - n + 5, after, n - 5) && !strncmp(be - n + 5, after, n - 5);
}

// bench --precision fp32,bf16: a row of each, side by side, and their ratio;
// in part profile, each op's rows at both precisions, the matmuls' FLOPs the
// same; bad or impossible precisions are usage errors that write nothing.
static void test_bench_precision(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "bench_prec");
    if (need_bf16()) {
        char *argv[] = {"bench", "--quick", "--part", "train,profile", "--sizes", "baby", "--kinds", "linear", "--threads", "1",
                        "--precision", "fp32,bf16", "--set", "model.layers=1", "--out", out, NULL};
        int rc = run_lmtrain(argv);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s\n", e2e_out);
        CHECK(strstr(e2e_out, "bf16 / fp32: tokens/s x") != NULL);
        snprintf(p, sizeof p, "%s/throughput.csv", out);
        char *csv = read_all(p, NULL);
        CHECK(csv && strstr(csv, ",thread_efficiency,precision,round\n"));
        const char *f, *b;
        CHECK(fp32_then_bf16(csv, "\nbaby,linear,1,", ",1", &f, &b));  // throughput.csv: then the round
        free(csv);
        const char *ratio = strstr(e2e_out, "bf16 / fp32, linear: whole step CPU x");
        CHECK(ratio != NULL);
        if (ratio) {  // both ratios measured: finite and positive (a row set that lost its matmuls reads nan)
            double whole = NAN, mm = NAN;
            CHECK(sscanf(ratio, "bf16 / fp32, linear: whole step CPU x%lf, matmul rows CPU x%lf", &whole, &mm) == 2);
            CHECK(whole > 0 && isfinite(whole) && mm > 0 && isfinite(mm));
        }
        snprintf(p, sizeof p, "%s/profile.csv", out);
        csv = read_all(p, NULL);
        CHECK(csv && strstr(csv, ",pct_of_membw,precision\n"));
        // the same GEMM at both precisions: the same FLOPs (field 9), CPU time measured (field 5)
        const char *mf, *mb;
        CHECK(fp32_then_bf16(csv, "\nbaby,linear,1,mlp.fc,bwd,", "", &mf, &mb));
        if (mf && mb) {
            CHECK(csv_field(mf + 1, 9) > 0 && csv_field(mf + 1, 9) == csv_field(mb + 1, 9));
            CHECK(csv_field(mf + 1, 5) > 0 && csv_field(mb + 1, 5) > 0);
        }
        free(csv);
    }
    char bad_dir[512];
    tpath(bad_dir, sizeof bad_dir, "bench_bad_prec");
    char *bad1[] = {"bench", "--out", bad_dir, "--precision", "fp16", NULL};
    CHECK(run_lmtrain(bad1) == 2 && strstr(e2e_out, "fp16"));
    char *bad2[] = {"bench", "--out", bad_dir, "--set", "train.precision=bf16", NULL};
    CHECK(run_lmtrain(bad2) == 2 && strstr(e2e_out, "--precision"));
    setenv("LMTRAIN_CPU_NO_BF16", "1", 1);
    char *bad3[] = {"bench", "--out", bad_dir, "--part", "train", "--precision", "fp32,bf16", NULL};
    CHECK(run_lmtrain(bad3) == 2 && strstr(e2e_out, "AVX-512 BF16"));
    char *bad4[] = {"bench", "--out", bad_dir, "--part", "profile", "--precision", "bf16", NULL};
    CHECK(run_lmtrain(bad4) == 2 && strstr(e2e_out, "AVX-512 BF16"));
    unsetenv("LMTRAIN_CPU_NO_BF16");
    CHECK(!file_exists(bad_dir));
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "tiny.ini");
    write_corpus(corpus, 20000);
    TEST(test_bf16_resumes_bit_identical);
    TEST(test_bf16_run_evaluates_anywhere);
    TEST(test_refused_without_bf16);
    TEST(test_bench_precision);
    e2e_teardown();
    return test_summary();
}
