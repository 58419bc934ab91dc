// test_eval_window.c — `eval` past the training window, and eval's memory
// check. With pos = none, `eval --length N --weights fp32` (the generation
// path, one token at a time) scores the same windows as `eval --length N` (the
// training graph) and must give the same loss, softmax included (its KV cache
// holds the whole window, not block_size tokens sliding); a window too long for
// the memory a cgroup allows is refused up front, the limit named, nothing
// written; and so is a training run (its check read the RAM only).
#include "../test.h"
#include "e2e.h"

static char corpus[512];
static char runs[2][512];
static const char *kinds[2] = {"softmax", "linear"};

static void train_nopos(int i) {
    char cfg[600], text[2048];
    tpath(runs[i], sizeof runs[i], kinds[i]);
    snprintf(cfg, sizeof cfg, "%s.ini", runs[i]);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\npos = none\n[attention]\nkind = %s\n"
             "[train]\nsteps = 30\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 30\neval_batches = 2\n"
             "log_every = 10\ncheckpoint_every = 30\n", kinds[i], corpus, kinds[i]);
    write_text(cfg, text);
    char *argv[] = {"--config", cfg, "--out", runs[i], NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "training %s: %s\n", kinds[i], e2e_out);
}

// The "val loss" an eval prints (NAN if it failed).
static double eval_loss(const char *run, const char *length, const char *weights) {
    char *with[] = {"eval", "--run", (char *)run, "--length", (char *)length, "--weights", (char *)weights, NULL};
    char *plain[] = {"eval", "--run", (char *)run, "--length", (char *)length, NULL};
    int rc = run_lmtrain(weights ? with : plain);
    double loss = NAN;
    char *p = strstr(e2e_out, "val loss");
    if (!rc && p) sscanf(p, "val loss %lf", &loss);
    if (rc) fprintf(stderr, "  eval %s --length %s: exit %d\n%s\n", run, length, rc, e2e_out);
    return loss;
}

// Past block_size (16): 80 tokens a window, both paths, the printed 4 decimals
// (1e-4 for the two printings' rounding plus float rounding).
static void test_generation_path_past_the_window(void) {
    for (int i = 0; i < 2; i++) {
        double graph = eval_loss(runs[i], "80", NULL), gen = eval_loss(runs[i], "80", "fp32");
        CHECK(isfinite(graph) && isfinite(gen));
        CHECK(fabs(graph - gen) <= 1e-4 + 1e-6);
        if (!(fabs(graph - gen) <= 1e-4 + 1e-6))
            fprintf(stderr, "  %s: graph %.4f, generation path %.4f\n", kinds[i], graph, gen);
        // and within the window, as before
        CHECK(fabs(eval_loss(runs[i], "16", NULL) - eval_loss(runs[i], "16", "fp32")) <= 1e-4 + 1e-6);
    }
}

// A fake cgroup (tests only: LMTRAIN_CGROUP_ROOT, LMTRAIN_PROC_CGROUP) with `limit` in memory.max.
static void fake_cgroup(const char *limit) {
    char root[512], proc[600], max[600];
    tpath(root, sizeof root, "cgroup");
    snprintf(max, sizeof max, "%s/small", root);
    mkdir(root, 0755);
    mkdir(max, 0755);
    snprintf(max, sizeof max, "%s/small/memory.max", root);
    write_text(max, limit);
    snprintf(proc, sizeof proc, "%s/proc", root);
    write_text(proc, "0::/small\n");
    setenv("LMTRAIN_CGROUP_ROOT", root, 1);
    setenv("LMTRAIN_PROC_CGROUP", proc, 1);
}

static void test_memory_checked_up_front(void) {
    fake_cgroup("1048576\n");  // 1 MiB: the graph over 3000 tokens, or softmax's cache of 7000, need more
    for (int i = 0; i < 2; i++) {
        char *before = folder_digest(runs[i]);
        char *graph[] = {"eval", "--run", runs[i], "--length", "3000", NULL};
        char *gen[] = {"eval", "--run", runs[i], "--length", "7000", "--weights", "fp32", NULL};
        char **cmds[] = {graph, gen};
        for (int c = 0; c < 2; c++) {
            if (i == 1 && c == 1) continue;  // linear's state does not grow with the window: it fits
            int rc = run_lmtrain(cmds[c]);
            CHECK(rc == 2);
            CHECK(strstr(e2e_out, "cgroup") && strstr(e2e_out, "small/memory.max") && strstr(e2e_out, "--length"));
            if (rc != 2) fprintf(stderr, "  %s %s: exit %d\n%s\n", kinds[i], c ? "--weights" : "", rc, e2e_out);
        }
        char *after = folder_digest(runs[i]);
        CHECK(!strcmp(before, after));
        free(before);
        free(after);
    }
    // a limit that fits: the same evals run
    fake_cgroup("max\n");
    CHECK(isfinite(eval_loss(runs[0], "3000", NULL)) && isfinite(eval_loss(runs[0], "7000", "fp32")));
    unsetenv("LMTRAIN_CGROUP_ROOT");
    unsetenv("LMTRAIN_PROC_CGROUP");
}

static void test_training_reads_the_cgroup_limit(void) {
    char out[512], cfg[600];
    tpath(out, sizeof out, "never");
    snprintf(cfg, sizeof cfg, "%s.ini", runs[0]);
    fake_cgroup("1048576\n");
    char *argv[] = {"--config", cfg, "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 2);
    CHECK(strstr(e2e_out, "cgroup") && strstr(e2e_out, "small/memory.max"));
    CHECK(!file_exists(out));
    fake_cgroup("max\n");
    CHECK(run_lmtrain(argv) == 0);
    unsetenv("LMTRAIN_CGROUP_ROOT");
    unsetenv("LMTRAIN_PROC_CGROUP");
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 40000);
    for (int i = 0; i < 2; i++) train_nopos(i);
    TEST(test_generation_path_past_the_window);
    TEST(test_memory_checked_up_front);
    TEST(test_training_reads_the_cgroup_limit);
    e2e_teardown();
    return test_summary();
}
