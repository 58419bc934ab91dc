// test_resume_checks.c — `--resume` refuses what cannot continue honestly,
// before anything trains and without changing a file: a step budget below
// the run's step, a metrics.csv that no longer reaches the checkpoint's step
// (cut short, or cut mid-line; read by column name, whatever columns it has),
// a corpus that changed since (same size, one byte near the end of a file
// larger than 1 MiB).
#include "../test.h"
#include "e2e.h"

static char corpus[512], cfg_path[512], run_dir[512];

static void write_config(const char *steps) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nseed = 7\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.1\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = softmax\n"
             "[train]\nsteps = %s\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 20\neval_batches = 2\n"
             "log_every = 5\ncheckpoint_every = 10\n",
             corpus, steps);
    write_text(cfg_path, text);
}

// A finished 60-step run, from scratch.
static int fresh_run(void) {
    write_config("60");
    char *argv[] = {"--config", cfg_path, "--out", run_dir, "--overwrite", NULL};
    int rc = run_lmtrain(argv);
    if (rc) fprintf(stderr, "training the test run failed (exit %d):\n%s\n", rc, e2e_out);
    return rc;
}

// `--resume` with steps = 80 is refused with `status`, saying `says`, and the folder is unchanged.
static void expect_resume_refused(int status, const char *says, const char *steps) {
    char *before = folder_digest(run_dir);
    char *argv[] = {"--config", cfg_path, "--out", run_dir, "--resume", "--set", (char *)steps, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == status);
    CHECK(strstr(e2e_out, says) != NULL);
    CHECK(!strstr(e2e_out, "step 61"));  // nothing trained
    char *after = folder_digest(run_dir);
    CHECK(!strcmp(before, after));
    if (rc != status || !strstr(e2e_out, says)) fprintf(stderr, "  exit %d, want %d (\"%s\"):\n%s\n", rc, status, says, e2e_out);
    free(before);
    free(after);
}

static void test_steps_below_the_runs_step(void) {
    if (fresh_run()) return;
    expect_resume_refused(2, "train.steps = 40", "train.steps=40");
    CHECK(strstr(e2e_out, "step 60") != NULL);
}

// Keeps the header and the rows of metrics.csv whose step is <= keep; with
// `cut_mid_line`, the next row too, without its end.
static void cut_metrics(long keep, int cut_mid_line) {
    char p[600];
    snprintf(p, sizeof p, "%s/metrics.csv", run_dir);
    char *text = read_all(p, NULL), *out = calloc(1, strlen(text) + 1);
    char *line = strchr(text, '\n') + 1;
    memcpy(out, text, (size_t)(line - text));
    for (char *next; line && *line; line = next) {
        next = strchr(line, '\n') + 1;
        if (strtol(line, NULL, 10) <= keep) strncat(out, line, (size_t)(next - line));
        else {
            if (cut_mid_line) strncat(out, line, (size_t)(next - line) / 2);
            break;
        }
    }
    write_text(p, out);
    free(text);
    free(out);
}

static void test_truncated_metrics_refused(void) {
    if (fresh_run()) return;
    cut_metrics(20, 0);
    expect_resume_refused(1, "metrics.csv ends at step 20", "train.steps=80");
    CHECK(strstr(e2e_out, "step 60") != NULL);
    if (fresh_run()) return;
    cut_metrics(55, 1);  // the row of step 60 half written: the file ends inside it
    expect_resume_refused(1, "metrics.csv ends at step 55", "train.steps=80");
    // a column more or less (another build's metrics.csv) is no reason to refuse: read by name
    if (fresh_run()) return;
    char p[600];
    snprintf(p, sizeof p, "%s/metrics.csv", run_dir);
    char *text = read_all(p, NULL), *moved = calloc(1, strlen(text) + 64), *o = moved;
    for (char *line = text, *next; *line; line = next) {  // "step" becomes the second column
        next = strchr(line, '\n') + 1;
        *o++ = 'x';
        *o++ = ',';
        memcpy(o, line, (size_t)(next - line));
        o += next - line;
    }
    moved[0] = 'c';
    moved[1] = ',';  // header "c,step,...": a column before step
    write_text(p, moved);
    free(text);
    free(moved);
    char *argv[] = {"--config", cfg_path, "--out", run_dir, "--resume", "--set", "train.steps=65", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  resume with an extra column: exit %d\n%s\n", rc, e2e_out);
}

// The whole corpus is fingerprinted: one byte changed near the end of a file
// larger than 1 MiB, the size kept, and a resume is refused.
static void test_corpus_changed_near_its_end(void) {
    write_corpus(corpus, (1u << 20) + 300000);
    int rc = fresh_run();
    CHECK(rc == 0);
    if (rc) return;
    size_t n = 0;
    char *text = read_all(corpus, &n);
    text[n - 10] = text[n - 10] == 'a' ? 't' : 'a';  // both in the vocabulary: only the content differs
    FILE *f = fopen(corpus, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
    free(text);
    expect_resume_refused(1, "same size", "train.steps=80");
    write_corpus(corpus, 20000);  // the small corpus again, for any later case
}

// Defect 13 for a single run: temporary files a killed writer left in the run
// folder and in RUN/eval/ go when `--resume` or `eval --run` holds the run's
// lock; a live writer's stay (its pid runs: ours). eval --run refuses while
// another lmtrain holds the run (its summary would describe a checkpoint
// being replaced), changing nothing.
static void leave_temps(const char *const *names, int n) {
    char p[700];
    snprintf(p, sizeof p, "%s/eval", run_dir);
    mkdir(p, 0777);
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", run_dir, names[i]);
        write_text(p, "half");
    }
}

static int gone(const char *name) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", run_dir, name);
    return !file_exists(p);
}

static void test_stale_temps_of_a_single_run(void) {
    if (fresh_run()) return;
    char live[64];
    snprintf(live, sizeof live, "eval/summary.txt.tmp-%ld-0", (long)getpid());
    const char *left[] = {"eval/summary.txt.tmp-999999-0", "eval/loss_by_position.csv.tmp-999999-1",
                          "checkpoint.bin.tmp-999999-2", live};
    leave_temps(left, 4);
    char *resume[] = {"--config", cfg_path, "--out", run_dir, "--resume", "--set", "train.steps=65", NULL};
    int rc = run_lmtrain(resume);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  resume: exit %d\n%s\n", rc, e2e_out);
    CHECK(gone(left[0]) && gone(left[1]) && gone(left[2]));
    CHECK(!gone(live));
    leave_temps(left, 3);
    char *eval[] = {"eval", "--run", run_dir, NULL};
    rc = run_lmtrain(eval);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  eval: exit %d\n%s\n", rc, e2e_out);
    CHECK(gone(left[0]) && gone(left[1]) && gone(left[2]));
    CHECK(!gone(live));
    // while a training holds the run: refused, nothing changed, nothing removed
    char log[600];
    snprintf(log, sizeof log, "%s/busy.log", e2e_dir);
    char *more[] = {"--config", cfg_path, "--out", run_dir, "--resume", "--set", "train.steps=70", NULL};
    int st = 0;
    pid_t pid = spawn_paused(more, log, "lock", &st);
    CHECK(pid > 0);
    if (pid <= 0) return;
    leave_temps(left, 1);  // after the training's own clean-up, which its lock allows
    char *before = folder_digest(run_dir);
    rc = run_lmtrain(eval);
    char *after = folder_digest(run_dir);
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "another lmtrain (pid") != NULL);
    CHECK(!strcmp(before, after));
    CHECK(!gone(left[0]));
    if (rc != 1) fprintf(stderr, "  eval while the run trains: exit %d\n%s\n", rc, e2e_out);
    free(before);
    free(after);
    pause_resume(pid, 0);
    CHECK(wait_status(pid) == 0);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "tiny.ini");
    tpath(run_dir, sizeof run_dir, "run");
    write_corpus(corpus, 20000);
    TEST(test_steps_below_the_runs_step);
    TEST(test_truncated_metrics_refused);
    TEST(test_stale_temps_of_a_single_run);
    TEST(test_corpus_changed_near_its_end);
    e2e_teardown();
    return test_summary();
}
