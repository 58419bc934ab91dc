// test_cpu_budget.c — training's CPU-seconds and the CPU budget
// ([train] cpu_seconds): cpu_s in metrics.csv is process CPU time, not wall
// time (a run throttled by SIGSTOP/SIGCONT: its wall time grows, its CPU time
// does not); a budget stops the run at a step boundary with everything written;
// bad budgets are refused before anything is written; a resumed run sums its
// sessions' CPU time and keeps its budget; older checkpoints and metrics.csv
// files without the CPU column still resume.
#include "../test.h"
#include "e2e.h"
#include "train/checkpoint.h"

static char corpus[512];

static void tiny_ini(char *buf, size_t cap, const char *train_extra) {
    snprintf(buf, cap,
             "[run]\nname = t\nseed = 5\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = softmax\n"
             "[train]\nbatch_size = 4\nwarmup = 2\neval_every = 40\neval_batches = 2\nlog_every = 5\n"
             "checkpoint_every = 50\n%s",
             corpus, train_extra);
}

// dir = the test folder's NAME, and its config NAME.ini with train_extra in [train].
static void run_cfg(char *dir, char *cfg, const char *name, const char *train_extra) {
    char ini[2048];
    tpath(dir, 512, name);
    snprintf(cfg, 600, "%s.ini", dir);
    tiny_ini(ini, sizeof ini, train_extra);
    write_text(cfg, ini);
}

// The last data row of a metrics.csv, and the value of a named column in it.
static double last_value(const char *path, const char *col) {
    char *text = read_all(path, NULL);
    if (!text) return NAN;
    int c = csv_column(text, col);
    size_t len = strlen(text);
    while (len && text[len - 1] == '\n') text[--len] = 0;
    char *last = strrchr(text, '\n');
    double v = c >= 0 && last ? csv_field(last + 1, c) : NAN;
    free(text);
    return v;
}

// Every row's cpu_s never falls, and it is there in every row.
static int cpu_column_rises(const char *path, int *rows) {
    char *text = read_all(path, NULL);
    if (!text) return 0;
    int c = csv_column(text, "cpu_s"), ok = 1;
    double prev = -1;
    *rows = 0;
    for (char *line = strchr(text, '\n'); c >= 0 && line && line[1]; line = strchr(line + 1, '\n')) {
        double v = csv_field(line + 1, c);
        if (!(v >= prev)) ok = 0;
        prev = v;
        (*rows)++;
    }
    free(text);
    return ok && c >= 0;
}

static void test_cpu_not_wall_and_budget_stop(void) {
    char dir[512], cfg[600], path[700];
    run_cfg(dir, cfg, "throttled", "steps = 100000000\ncpu_seconds = 0.4\n");
    char log[512];
    tpath(log, sizeof log, "throttled.log");
    char *argv[] = {"--config", cfg, "--out", dir, NULL};
    pid_t pid = spawn_lmtrain(argv, log);
    // throttle: stopped 4/5 of the time, so its wall time runs ~5x its CPU time
    int st = 0, done = 0;
    while (!done) {
        kill(pid, SIGSTOP);
        sleep_us(40000);
        kill(pid, SIGCONT);
        sleep_us(10000);
        pid_t w = waitpid(pid, &st, WNOHANG);
        done = w == pid;
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    double cpu = last_value(path, "cpu_s"), wall = last_value(path, "elapsed_s"), step = last_value(path, "step");
    CHECK(cpu >= 0.4 && cpu < 1.0);  // stopped at the first step boundary past the budget
    CHECK(wall > 2 * cpu);           // the stopped time is wall time, never CPU time
    CHECK(step > 0 && step < 100000000);
    CHECK(!isnan(last_value(path, "val_loss")));  // the last step is evaluated, as the last of `steps`
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    char *s = read_all(path, NULL);
    CHECK(s && strstr(s, "budget            cpu_seconds 0.4: stopped at step") &&
          strstr(s, "the CPU budget was spent") && strstr(s, "training CPU time"));
    free(s);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    TrainState ts;
    CHECK(checkpoint_read_state(path, &ts) == 0 && (double)ts.step == step);
    CHECK(ts.cpu_s >= 0.4 && fabs(ts.cpu_s - cpu) < 0.001);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    s = read_all(path, NULL);
    CHECK(s && strstr(s, "cpu_seconds      = 0.4"));
    free(s);
}

static void test_bad_budgets_refused(void) {
    const char *bad[][2] = {
        {"train.cpu_seconds=0", "more than 0"},       {"train.cpu_seconds=-3", "cpu_seconds"},
        {"train.cpu_seconds=abc", "expected a number"}, {"train.cpu_seconds=nan", "cpu_seconds"},
    };
    char ini[2048];
    tiny_ini(ini, sizeof ini, "steps = 20\n");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[512];
        tpath(dir, sizeof dir, "refused");
        char *extra[] = {"--set", (char *)bad[i][0], NULL};
        CHECK(train_from_text(dir, ini, extra) == 2);
        CHECK(strstr(e2e_out, bad[i][1]) != NULL);
        CHECK(!file_exists(dir));  // nothing written
    }
    // a budget needs an explicit steps: the schedule's length and the cap
    char dir[512];
    tpath(dir, sizeof dir, "nosteps");
    tiny_ini(ini, sizeof ini, "cpu_seconds = 5\n");
    CHECK(train_from_text(dir, ini, NULL) == 2);
    CHECK(strstr(e2e_out, "cpu_seconds = 5 needs [train] steps given too"));
    CHECK(!file_exists(dir));
    char *with_steps[] = {"--set", "train.steps=6", NULL};  // given by --set: accepted
    CHECK(train_from_text(dir, ini, with_steps) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    char *s = read_all(path, NULL);
    CHECK(s && strstr(s, "stopped at step 6 of at most 6 (the step cap came first)"));
    free(s);
}

static void test_resume_sums_sessions_and_keeps_budget(void) {
    char dir[512], cfg[600], log[512], path[700];
    run_cfg(dir, cfg, "resumed", "steps = 100000000\ncpu_seconds = 0.3\n");
    tpath(log, sizeof log, "resumed.log");
    char *argv[] = {"--config", cfg, "--out", dir, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "step:30", &st);
    CHECK(pid > 0);
    if (pid <= 0) return;
    pause_resume(pid, SIGINT);
    CHECK(wait_status(pid) == 130);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    TrainState first;
    CHECK(checkpoint_read_state(path, &first) == 0 && first.step == 30 && first.cpu_s > 0 && first.cpu_s < 0.3);
    char *resume[] = {"--config", cfg, "--out", dir, "--resume", NULL};
    CHECK(run_lmtrain(resume) == 0);
    TrainState end;
    CHECK(checkpoint_read_state(path, &end) == 0 && end.step > 30 && end.cpu_s >= 0.3);
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    int rows = 0;
    CHECK(cpu_column_rises(path, &rows) && rows > 7);  // the second session counts on from the first
    CHECK(fabs(last_value(path, "cpu_s") - end.cpu_s) < 0.001);
}

// A version-3 checkpoint (before cpu_s) reads with cpu_s = 0, and a metrics.csv
// without the column keeps its columns when the run resumes.
static void test_older_files_resume(void) {
    char dir[512], cfg[600], path[700];
    run_cfg(dir, cfg, "old", "steps = 20\n");
    char *argv[] = {"--config", cfg, "--out", dir, "--set", "train.steps=10", NULL};
    CHECK(run_lmtrain(argv) == 0);
    // the checkpoint as version 3: the state without its last field
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    BinFile f;
    CHECK(binfile_read(path, &f) == 0);
    BinSection sec[8];
    size_t n = 0;
    for (size_t i = 0; i < f.n && n < 8; i++, n++) {
        sec[n] = (BinSection){f.sec[i].name, (const char *)f.buf + f.sec[i].off, f.sec[i].bytes};
        if (!strcmp(f.sec[i].name, "state")) sec[n].bytes = 13 * 8;
    }
    CHECK(binfile_write_atomic(path, 3, sec, n) == 0);
    binfile_free(&f);
    TrainState ts;
    CHECK(checkpoint_read_state(path, &ts) == 0 && ts.step == 10 && ts.cpu_s == 0);
    // metrics.csv without cpu_s, as an older lmtrain wrote it
    snprintf(path, sizeof path, "%s/metrics.csv", dir);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "sed -i 's/,cpu_s$//; 2,$ s/,[^,]*$//' '%s'", path);
    CHECK(system(cmd) == 0);
    char *before = read_all(path, NULL);
    CHECK(before && !strstr(before, "cpu_s"));
    char *resume[] = {"--config", cfg, "--out", dir, "--resume", NULL};
    CHECK(run_lmtrain(resume) == 0);
    char *after = read_all(path, NULL);
    CHECK(after && before && !strncmp(after, before, strlen(before)) && !strstr(after, "cpu_s"));
    // every row has as many cells as the header
    int ok = 1, cols = -1;
    for (char *line = after; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        int c = 1;
        for (char *p = line; *p && *p != '\n'; p++) c += *p == ',';
        if (cols < 0) cols = c;
        ok &= c == cols;
    }
    CHECK(ok);
    free(before);
    free(after);
}

// An ablation of budgeted runs: its report names the budget, not the step cap
// as if every run had trained that many steps.
static void test_report_names_the_budget(void) {
    char dir[512], cfg[600], cfg2[700], out[600], path[700];
    run_cfg(dir, cfg, "budget_ablation", "steps = 100000000\ncpu_seconds = 0.2\n");
    char *ini = read_all(cfg, NULL), *k = ini ? strstr(ini, "kind = softmax") : NULL, *n = ini ? strstr(ini, "name = t\n") : NULL;
    CHECK(k && n);
    if (!k || !n) return;
    memcpy(k, "kind = linear\n", 14);  // over "kind = softmax" (14 characters)
    n[7] = 'u';                         // name = u
    snprintf(cfg2, sizeof cfg2, "%s_linear.ini", dir);
    write_text(cfg2, ini);
    free(ini);
    snprintf(out, sizeof out, "%s_out", dir);
    char *argv[] = {"ablate", cfg, cfg2, "--seeds", "1", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(path, sizeof path, "%s/report.md", out);
    char *s = read_all(path, NULL);
    CHECK(s && strstr(s, "0.2 CPU-seconds of training (at most 100000000 steps) of 4 x 16 tokens"));
    CHECK(s && !strstr(s, "100000000 steps of"));
    free(s);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 6000);
    TEST(test_cpu_not_wall_and_budget_stop);
    TEST(test_bad_budgets_refused);
    TEST(test_resume_sums_sessions_and_keeps_budget);
    TEST(test_older_files_resume);
    TEST(test_report_names_the_budget);
    e2e_teardown();
    return test_summary();
}
