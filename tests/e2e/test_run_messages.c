// test_run_messages.c — a command pointed at the wrong folder or the wrong
// kind of run says what to give instead, and writes nothing: `sample --run`
// on an ablation's config folder (the seed folder left off) names the seed
// folders; `lab --run` on a softmax run (a KV cache, no fast-weight memory)
// is refused with the kinds it takes.
#include "../test.h"
#include "e2e.h"

static char corpus[512], base[512], run_dir[700];

static void test_train_softmax_seed_run(void) {
    char cfg[512], text[2048];
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg, sizeof cfg, "tiny.ini");
    tpath(base, sizeof base, "ablation/softmax");
    snprintf(run_dir, sizeof run_dir, "%s/seed1337", base);
    write_corpus(corpus, 20000);
    snprintf(text, sizeof text,
             "[run]\nname = softmax\nseed = 1337\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = softmax\n"
             "[train]\nsteps = 10\nbatch_size = 4\neval_every = 10\neval_batches = 2\nlog_every = 10\n"
             "checkpoint_every = 10\n", corpus);
    write_text(cfg, text);
    char *argv[] = {"--config", cfg, "--out", run_dir, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "training: %s\n", e2e_out);
}

static void test_sample_names_the_seed_folders(void) {
    char other[800];
    snprintf(other, sizeof other, "%s/seed5", base);  // a folder without a checkpoint is no run to offer
    mkdir(other, 0755);
    char *before = folder_digest(base);
    char *argv[] = {"sample", "--run", base, "--tokens", "5", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "seed1337/") != NULL);
    CHECK(strstr(e2e_out, "seed5") == NULL);
    CHECK(strstr(e2e_out, "train the run first") == NULL);
    char *after = folder_digest(base);
    CHECK(!strcmp(before, after));
    if (rc != 1 || !strstr(e2e_out, "seed1337/")) fprintf(stderr, "  exit %d:\n%s\n", rc, e2e_out);
    free(before);
    free(after);
    // a folder with no run below it either: the advice to train stays
    char *argv2[] = {"sample", "--run", other, "--tokens", "5", NULL};
    CHECK(run_lmtrain(argv2) == 1 && strstr(e2e_out, "train the run first"));
}

static void test_lab_refuses_a_softmax_run(void) {
    char *before = folder_digest(base);
    char *argv[] = {"lab", "--run", run_dir, "--trials", "2", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 2);
    CHECK(strstr(e2e_out, "softmax") && strstr(e2e_out, "linear_decay") && strstr(e2e_out, "delta"));
    char *after = folder_digest(base);
    CHECK(!strcmp(before, after));  // no RUN/lab folder
    if (rc != 2) fprintf(stderr, "  exit %d:\n%s\n", rc, e2e_out);
    free(before);
    free(after);
}

int main(void) {
    e2e_setup();
    TEST(test_train_softmax_seed_run);
    TEST(test_sample_names_the_seed_folders);
    TEST(test_lab_refuses_a_softmax_run);
    e2e_teardown();
    return test_summary();
}
