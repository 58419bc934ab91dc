// test_ablate_resume.c — Ctrl-C during `ablate`, then the command it prints:
// the ablation ends with the same weights, metrics and report numbers as one
// never interrupted. The interruption comes at a deterministic point: the
// LMTRAIN_PAUSE_AT pause point (util/pause.h) stops the process at a given
// training step, the test sends SIGINT and lets it continue.
#include "../test.h"
#include "e2e.h"

static char corpus[512], cfg_s[512], cfg_l[512];

static void write_cfg(char *path, const char *file, const char *name, const char *kind) {
    char text[2048];
    tpath(path, 512, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 11\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 16\nbatch_size = 3\nlr = 3e-3\nwarmup = 2\neval_every = 8\neval_batches = 2\n"
             "log_every = 4\ncheckpoint_every = 5\n",
             name, corpus, kind);
    write_text(path, text);
}

static int pause_in_second_run(void *ctx) {
    (void)ctx;
    // run 1 takes steps 1..16 of the process's step count: 24 is step 8 of run 2,
    // between two checkpoints (every 5 steps), so the resume has work to redo
    return setenv("LMTRAIN_PAUSE_AT", "step:24", 1);
}

static void test_sigint_then_printed_command(void) {
    char full[512], cut[512], log[512];
    tpath(full, sizeof full, "full");
    tpath(cut, sizeof cut, "cut");
    tpath(log, sizeof log, "cut.log");
    char *ref[] = {"ablate", cfg_s, cfg_l, "--seeds", "2", "--out", full, NULL};
    CHECK(run_lmtrain(ref) == 0);

    char *argv[] = {"ablate", cfg_s, cfg_l, "--seeds", "2", "--out", cut, NULL};
    pid_t pid = spawn_lmtrain_with(argv, log, pause_in_second_run, NULL);
    int st = 0;
    while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    CHECK(WIFSTOPPED(st));  // reached the pause point
    if (!WIFSTOPPED(st)) return;
    kill(pid, SIGINT);
    kill(pid, SIGCONT);
    CHECK(wait_status(pid) == 130);
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(strstr(e2e_out, "interrupted in run 2 of 4") != NULL);
    char p[700];
    snprintf(p, sizeof p, "%s/l/seed11/summary.txt", cut);
    CHECK(!file_exists(p));
    snprintf(p, sizeof p, "%s/l/seed11/checkpoint.bin", cut);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/report.md", cut);
    CHECK(!file_exists(p));

    // the continue command, as printed, run by the shell
    const char *c = strstr(e2e_out, "Continue with:\n  ");
    CHECK(c != NULL);
    if (!c) return;
    c += strlen("Continue with:\n  ");
    char cmd[4096];
    size_t n = strcspn(c, "\n");
    // under an emulator (TEST_WRAPPER, tests/run.sh) the printed binary is the
    // target's, which this host runs only through the emulator
    const char *wrap = getenv("TEST_WRAPPER");
    snprintf(cmd, sizeof cmd, "%s%s%.*s > '%s' 2>&1", wrap ? wrap : "", wrap && *wrap ? " " : "", (int)n, c, log);
    CHECK(strstr(cmd, " --resume >") != NULL);
    CHECK(system(cmd) == 0);
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(strstr(e2e_out, "seed 11 (softmax): finished, kept") && strstr(e2e_out, "(linear): resuming"));
    // the interrupted run continued from its checkpoint (step 8), not from the start
    const char *resumed = strstr(e2e_out, "(linear): resuming"), *next = strstr(e2e_out, "== ablate 3/4");
    CHECK(resumed && next && next > resumed);
    if (resumed && next) {
        char part[4096];
        snprintf(part, sizeof part, "%.*s", (int)(next - resumed), resumed);
        CHECK(strstr(part, "(resumed)") && !strstr(part, "step 4/16") && strstr(part, "step 12/16"));
    }

    const char *runs[] = {"s/seed11", "l/seed11", "s/seed12", "l/seed12"};
    for (int i = 0; i < 4; i++) {
        char a[700], b[700];
        snprintf(a, sizeof a, "%s/%s/checkpoint.bin", full, runs[i]);
        snprintf(b, sizeof b, "%s/%s/checkpoint.bin", cut, runs[i]);
        CHECK(same_params(a, b));
        snprintf(a, sizeof a, "%s/%s/metrics.csv", full, runs[i]);
        snprintf(b, sizeof b, "%s/%s/metrics.csv", cut, runs[i]);
        char *ma = metrics_without_timing(a), *mb = metrics_without_timing(b);
        CHECK(ma && mb && strcmp(ma, mb) == 0);
        free(ma);
        free(mb);
        snprintf(a, sizeof a, "%s/%s/eval/summary.txt", full, runs[i]);
        snprintf(b, sizeof b, "%s/%s/eval/summary.txt", cut, runs[i]);
        char *ea = read_all(a, NULL), *eb = read_all(b, NULL);
        CHECK(ea && eb && strcmp(ea, eb) == 0);
        free(ea);
        free(eb);
    }
    // the reports agree from the paired differences on (the first table has tokens/s)
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/report.md", full);
    snprintf(b, sizeof b, "%s/report.md", cut);
    char *ra = read_all(a, NULL), *rb = read_all(b, NULL);
    const char *sa = ra ? strstr(ra, "## Paired differences") : NULL, *sb = rb ? strstr(rb, "## Paired differences") : NULL;
    CHECK(sa && sb && strcmp(sa, sb) == 0);
    free(ra);
    free(rb);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    write_cfg(cfg_s, "s.ini", "s", "softmax");
    write_cfg(cfg_l, "l.ini", "l", "linear");
    TEST(test_sigint_then_printed_command);
    e2e_teardown();
    return test_summary();
}
