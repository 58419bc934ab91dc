// test_lab.c — end to end: `lmtrain lab` through the real binary. Its files
// and their row counts, the overwrite verdicts it prints, the trained-keys
// mode on a tiny run, and refusals (exit 2, nothing written).
#include <math.h>

#include "../test.h"
#include "e2e.h"

static char run_dir[512];

static size_t count_lines(const char *text, const char *prefix) {
    size_t n = 0, len = strlen(prefix);
    for (const char *p = text; p && *p; p = strchr(p, '\n')) {
        if (*p == '\n') p++;
        if (!strncmp(p, prefix, len)) n++;
    }
    return n;
}

// the line starting at p contains text
static int line_has(const char *p, const char *text) {
    const char *hit = strstr(p, text), *end = strchr(p, '\n');
    return hit && (!end || hit < end);
}

static void test_lab_gaussian(void) {
    char out[512];
    tpath(out, sizeof out, "lab");
    char *argv[] = {"lab", "--out", out, "--trials", "2", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    // the physics shows in the text: delta with L2 keys returns the second value
    double a = NAN, b = NAN;
    const char *line = strstr(e2e_out, "\ndelta-l2     16 ");
    CHECK(line && sscanf(line, "\ndelta-l2 16 %lf %lf", &a, &b) == 2);
    CHECK(fabs(a) < 1e-4 && fabs(b - 1) < 1e-4);
    CHECK(line && line_has(line + 1, "v2 alone: v1 overwritten"));
    // and the plain sum (with elu1's normaliser) returns the average
    line = strstr(e2e_out, "overwrite, keys through elu1");
    line = line ? strstr(line, "\nsum          32 ") : NULL;
    CHECK(line && sscanf(line, "\nsum 32 %lf %lf", &a, &b) == 2);
    CHECK(fabs(a - 0.5) < 1e-4 && fabs(b - 0.5) < 1e-4);
    const char *files[] = {"report.txt", "recall.csv", "overwrite.csv", "recall_cos_identity.svg",
                           "recall_acc_identity.svg", "recall_cos_elu1.svg", "recall_acc_elu1.svg"};
    for (int f = 0; f < 7; f++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", out, files[f]);
        CHECK(file_exists(p));
    }
    char p[700];
    snprintf(p, sizeof p, "%s/recall.csv", out);
    char *t = read_all(p, NULL);
    CHECK(t && !strncmp(t, "keys,feature_map,dh,N,N_over_dh,rule,cos,acc\n", 45));
    // 3 dh x 6 sizes x (3 rules for identity, where delta-sum does not apply, + 4 for elu1)
    CHECK(t && count_lines(t, "gaussian,identity,") == 54);
    CHECK(t && count_lines(t, "gaussian,elu1,") == 72);
    free(t);
    snprintf(p, sizeof p, "%s/overwrite.csv", out);
    t = read_all(p, NULL);
    CHECK(t && count_lines(t, "gaussian,") == 21);
    free(t);
}

static void test_lab_run_keys(void) {
    char out[512];
    tpath(out, sizeof out, "lab_run");
    char *argv[] = {"lab", "--run", run_dir, "--layer", "1", "--head", "1", "--trials", "2",
                    "--feature-map", "elu1", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "layer 1 head 1") != NULL);
    char p[700];
    snprintf(p, sizeof p, "%s/run_recall_cos.svg", out);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/recall.csv", out);
    char *t = read_all(p, NULL);
    // the run's head size is 8: 6 sizes x 4 rules, and as many Gaussian rows at dh 8
    CHECK(t && count_lines(t, "run,elu1,8,") == 24);
    CHECK(t && count_lines(t, "gaussian_run_dh,elu1,8,") == 24);
    free(t);
}

static void test_lab_refusals(void) {
    char out[512];
    tpath(out, sizeof out, "lab_refused");
    char *bad[][12] = {
        {"lab", "--run", run_dir, "--layer", "2", "--out", out, NULL},
        {"lab", "--trials", "0", "--out", out, NULL},
        {"lab", "--feature-map", "elu1,elu1", "--out", out, NULL},
        {"lab", "--decay", "1.5", "--out", out, NULL},
        {"lab", "--bogus", "--out", out, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_lmtrain(bad[i]);
        CHECK(rc == 2);
        CHECK(!file_exists(out));
        if (rc != 2) fprintf(stderr, "case %zu: rc %d: %s\n", i, rc, e2e_out);
    }
    char *argv[] = {"lab", "--run", run_dir, "--layer", "2", "--out", out, NULL};
    run_lmtrain(argv);
    CHECK(strstr(e2e_out, "2 layers") != NULL);
}

static void test_train_tiny_run(void) {
    char corpus[512], cfg[512], text[2048];
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg, sizeof cfg, "tiny.ini");
    tpath(run_dir, sizeof run_dir, "run");
    write_corpus(corpus, 20000);
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nseed = 7\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = linear_decay\nchunk = 5\n"
             "[train]\nsteps = 20\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 20\n"
             "eval_batches = 2\nlog_every = 10\ncheckpoint_every = 20\n", corpus);
    write_text(cfg, text);
    char *argv[] = {"--config", cfg, "--out", run_dir, NULL};
    int rc = run_lmtrain(argv);
    if (rc) fprintf(stderr, "training: %s\n", e2e_out);
    CHECK(rc == 0);
}

// Every table ends with one sentence saying what it shows, made from its own
// numbers: after each capacity and overwrite table (2 feature maps each), and
// the overwrite verdicts in it match the table's rows.
static void test_lab_tables_say_what_they_show(void) {
    char out[512];
    tpath(out, sizeof out, "lab_sentences");
    char *argv[] = {"lab", "--out", out, "--trials", "2", NULL};
    CHECK(run_lmtrain(argv) == 0);
    CHECK(count_lines(e2e_out, "What it shows: ") == 4);
    // each sentence closes a table: the next line is blank, a "(" note or the end of the tables
    for (const char *p = strstr(e2e_out, "What it shows: "); p; p = strstr(p + 1, "What it shows: ")) {
        const char *prev = p - 2;
        while (prev > e2e_out && *prev != '\n') prev--;
        CHECK(strncmp(prev + 1, "  64 ", 5) == 0 || strncmp(prev + 1, "delta-l2   ", 11) == 0);
    }
    const char *ow = strstr(e2e_out, "What it shows: a key written twice reads back, at dh = 64, sum: the average "
                                     "of v1 and v2;");
    CHECK(ow && line_has(ow, "delta-l2: v2 alone: v1 overwritten. Only delta-l2 replaces the old value"));
    const char *cap = strstr(e2e_out, "What it shows: the more pairs share the state (N/dh), the less comes back; "
                                      "at dh = 64");
    CHECK(cap != NULL);
}

int main(void) {
    (void)metrics_without_timing, (void)same_params;
    e2e_setup();
    TEST(test_train_tiny_run);
    TEST(test_lab_gaussian);
    TEST(test_lab_run_keys);
    TEST(test_lab_refusals);
    TEST(test_lab_tables_say_what_they_show);
    e2e_teardown();
    return test_summary();
}
