// test_ablate_inputs.c — an ablation's inputs that changed under it: a stale
// RUN/eval/summary.txt (another step, batch fingerprint or window: left from
// an earlier run in the folder, or edited) is not reported as the run's
// whole-split loss; a corpus changed between two `ablate` calls (the same
// size, one byte near the end) is refused by `--resume` before any run
// trains, with the reason, and no file changes.
#include "../test.h"
#include "e2e.h"

static char corpus[512], out[512], cfg_s[512], cfg_l[512];

static void write_cfg(const char *path, const char *name, const char *kind) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 5\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = %s\n"
             "[train]\nsteps = 12\nbatch_size = 3\nwarmup = 2\neval_every = 6\neval_batches = 2\nlog_every = 3\n"
             "checkpoint_every = 6\n", name, corpus, kind);
    write_text(path, text);
}

static int ablate(int resume) {
    char *argv[] = {"ablate", cfg_s, cfg_l, "--out", out, resume ? "--resume" : NULL, NULL};
    return run_lmtrain(argv);
}

static void test_train_ablation(void) {
    int rc = ablate(0);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
}

// report.md after `lmtrain report`, malloc'd
static char *report_now(void) {
    char *argv[] = {"report", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "report: %s\n", e2e_out);
    char p[600];
    snprintf(p, sizeof p, "%s/report.md", out);
    return read_all(p, NULL);
}

// softmax's eval/summary.txt as eval wrote it, then with a loss no run has
// (7.654321) and one field changed (`field` "step", "batch_fingerprint",
// "window", or NULL: none)
static char *original_summary;
static void doctor_summary(const char *field) {
    char p[600];
    snprintf(p, sizeof p, "%s/s/seed5/eval/summary.txt", out);
    if (!original_summary) original_summary = read_all(p, NULL);
    char *t = strdup(original_summary), text[1024] = "";
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        sscanf(line, "%63s", name);
        if (!strcmp(name, "val_loss")) strcat(text, "val_loss 7.654321\n");
        else if (field && !strcmp(name, field) && !strcmp(field, "batch_fingerprint"))
            strcat(text, "batch_fingerprint 0123456789abcdef\n");
        else if (field && !strcmp(name, field)) {
            long v = strtol(line + strlen(name), NULL, 10);
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s %ld\n", name, v + 1);
        } else {
            strcat(text, line);
            strcat(text, "\n");
        }
    }
    free(t);
    write_text(p, text);
}

static void test_stale_summary_not_used(void) {
    const char *fields[] = {"step", "batch_fingerprint", "window"};
    for (int i = 0; i < 3; i++) {
        doctor_summary(fields[i]);
        char *r = report_now();
        CHECK(r && !strstr(r, "7.654"));
        if (r && strstr(r, "7.654")) fprintf(stderr, "  a summary with another %s was reported\n", fields[i]);
        free(r);
    }
    doctor_summary(NULL);  // the control: the same edit with step, fingerprint and window intact is read
    char *r = report_now();
    CHECK(r && strstr(r, "7.654"));
    free(r);
}

static void test_corpus_changed_between_calls(void) {
    // as if the ablation had stopped after its first run: the second never started
    char l_dir[600];
    snprintf(l_dir, sizeof l_dir, "rm -rf '%s/l'", out);
    CHECK(system(l_dir) == 0);
    size_t n = 0;
    char *text = read_all(corpus, &n);
    text[n - 10] = text[n - 10] == 'a' ? 't' : 'a';  // the same size, the same vocabulary
    FILE *f = fopen(corpus, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
    free(text);
    char *before = folder_digest(out);
    int rc = ablate(1);
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "same size") && strstr(e2e_out, "s/seed5"));
    CHECK(!strstr(e2e_out, "== ablate"));  // refused before any run started
    char *after = folder_digest(out);
    CHECK(!strcmp(before, after));
    if (rc != 1) fprintf(stderr, "  exit %d\n%s\n", rc, e2e_out);
    free(before);
    free(after);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(out, sizeof out, "abl");
    tpath(cfg_s, sizeof cfg_s, "s.ini");
    tpath(cfg_l, sizeof cfg_l, "l.ini");
    write_corpus(corpus, (1u << 20) + 4096);  // past 1 MiB: the change is near the end of a large file
    write_cfg(cfg_s, "s", "softmax");
    write_cfg(cfg_l, "l", "linear");
    TEST(test_train_ablation);
    TEST(test_stale_summary_not_used);
    TEST(test_corpus_changed_between_calls);
    e2e_teardown();
    return test_summary();
}
