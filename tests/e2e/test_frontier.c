// test_frontier.c — `lmtrain frontier DIR` over per-length ablations
// DIR/ctx<N>/ (what `make frontier` runs): its table against the runs'
// metrics.csv, its chart, its refusals, and a frontier whose ablation was
// interrupted (Ctrl-C at a pause point) and resumed ends with the same losses
// as one never interrupted.
#include "../test.h"
#include "e2e.h"

static char corpus[512], cfg_s[512], cfg_d[512];

static void write_cfg(char *path, const char *name, const char *kind) {
    char file[64], text[2048];
    snprintf(file, sizeof file, "%s.ini", name);
    tpath(path, 512, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\npos = none\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 20\nbatch_size = 4\nlr = 3e-3\nwarmup = 2\neval_every = 5\neval_batches = 2\n"
             "log_every = 5\ncheckpoint_every = 5\n",
             name, corpus, kind);
    write_text(path, text);
}

// `ablate` of one length into ROOT/ctx<T> with T x (64 / T) tokens a step, as make frontier runs it.
static void ablate_argv(char **argv, char *bufs, const char *root, int T) {
    char *b = bufs;
    snprintf(b, 600, "%s/ctx%d", root, T);
    snprintf(b + 600, 64, "model.block_size=%d", T);
    snprintf(b + 700, 64, "train.batch_size=%d", 64 / T);
    char *v[] = {"ablate", cfg_s, cfg_d, "--seeds", "1", "--set", b + 600, "--set", b + 700, "--out", b, "--resume", NULL};
    memcpy(argv, v, sizeof v);
}

static int pause_in_second_run(void *ctx) {
    (void)ctx;
    return setenv("LMTRAIN_PAUSE_AT", "step:28", 1);  // run 1 has 20 steps: step 8 of run 2
}

// Cells 2 and 3 (final val loss, whole split) of every table row of frontier.md.
static void loss_cells(const char *md, char *out, size_t cap) {
    out[0] = 0;
    size_t len = 0;
    for (const char *p = strstr(md, "\n| "); p; p = strstr(p + 1, "\n| ")) {
        const char *c = p + 2;
        for (int k = 0; k < 2 && c; k++) c = strchr(c + 1, '|');  // past kind and runs
        const char *e = c ? strchr(c + 1, '|') : NULL;
        e = e ? strchr(e + 1, '|') : NULL;
        if (c && e && len < cap) len += (size_t)snprintf(out + len, cap - len, "%.*s\n", (int)(e - c), c);
    }
}

static char *frontier_md(const char *root) {
    char *argv[] = {"frontier", (char *)root, NULL};
    if (run_lmtrain(argv) != 0) return NULL;
    char p[600];
    snprintf(p, sizeof p, "%s/frontier.md", root);
    return read_all(p, NULL);
}

static void test_frontier_report_and_resume(void) {
    char full[512], cut[512], log[512], bufs[2][800], p[700], q[700];
    char *argv[16];
    tpath(full, sizeof full, "full");
    tpath(cut, sizeof cut, "cut");
    tpath(log, sizeof log, "cut.log");
    for (int T = 16; T <= 32; T *= 2) {
        ablate_argv(argv, bufs[0], full, T);
        CHECK(run_lmtrain(argv) == 0);
    }
    char *a = frontier_md(full);
    CHECK(a != NULL);
    if (!a) return;
    CHECK(strstr(a, "## Context 16 (`ctx16/`)") && strstr(a, "## Context 32 (`ctx32/`)"));
    // one seed: no crossover is claimed, whatever the point estimates say
    CHECK(!strstr(a, "**Crossover"));
    CHECK(strstr(a, "**No crossover can be claimed from one seed**") ||
          strstr(a, "**No crossover found between context 16 and 32**"));
    // the final val loss of each kind and length is its run's last val_loss in metrics.csv
    for (int T = 16; T <= 32; T *= 2) {
        const char *sec;
        snprintf(p, sizeof p, "## Context %d", T);
        sec = strstr(a, p);
        const char *names[] = {"s", "d"}, *kinds[] = {"softmax", "linear_decay"};  // folders, labels
        for (int k = 0; k < 2 && sec; k++) {
            snprintf(p, sizeof p, "%s/ctx%d/%s/seed3/metrics.csv", full, T, names[k]);
            char *m = read_all(p, NULL), *last = NULL;
            double val = NAN;
            for (char *line = m ? strchr(m, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
                double v = csv_field(line + 1, 4);  // step,tokens,lr,train_loss,val_loss
                if (!isnan(v)) val = v, last = line;
            }
            CHECK(last != NULL);
            snprintf(q, sizeof q, "| %s | 1 | %.4f |", kinds[k], val);
            CHECK(strstr(sec, q) != NULL);
            free(m);
        }
    }
    snprintf(p, sizeof p, "%s/frontier.svg", full);
    char *svg = read_all(p, NULL);
    int circles = 0;
    for (const char *s = svg; s && (s = strstr(s, "<circle")); s++) circles++;
    CHECK(circles == 2 * 2 + 2);  // a point per kind and length, a legend dot per kind
    CHECK(svg && strstr(svg, "cheaper and better"));
    free(svg);
    snprintf(p, sizeof p, "%s/frontier.html", full);
    CHECK(file_exists(p));

    // the same, interrupted in the second run of ctx16 and continued by the same command
    ablate_argv(argv, bufs[1], cut, 16);
    pid_t pid = spawn_lmtrain_with(argv, log, pause_in_second_run, NULL);
    int st = 0;
    while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    CHECK(WIFSTOPPED(st));
    if (!WIFSTOPPED(st)) return;
    kill(pid, SIGINT);
    kill(pid, SIGCONT);
    CHECK(wait_status(pid) == 130);
    snprintf(p, sizeof p, "%s/ctx16/s/seed3/metrics.csv", cut);
    char *kept = metrics_without_timing(p);
    for (int T = 16; T <= 32; T *= 2) {
        ablate_argv(argv, bufs[1], cut, T);
        CHECK(run_lmtrain(argv) == 0);
    }
    char *after = metrics_without_timing(p);
    CHECK(kept && after && !strcmp(kept, after));  // the finished run was kept as it was
    snprintf(q, sizeof q, "%s/ctx16/s/seed3/metrics.csv", full);
    char *ref = metrics_without_timing(q);
    CHECK(ref && after && !strcmp(ref, after));
    free(kept), free(after), free(ref);
    char *b = frontier_md(cut);
    char la[4096], lb[4096];
    loss_cells(a, la, sizeof la);
    loss_cells(b ? b : "", lb, sizeof lb);
    CHECK(strlen(la) > 20 && !strcmp(la, lb));
    free(a);
    free(b);
}

static void test_frontier_refusals(void) {
    char empty[512];
    tpath(empty, sizeof empty, "empty");
    mkdir(empty, 0755);
    char *argv[] = {"frontier", empty, NULL};
    CHECK(run_lmtrain(argv) == 2);
    CHECK(strstr(e2e_out, "holds no ctx<N>/ ablation"));
    // a length that compares other kinds
    char mixed[512], dir[600];
    tpath(mixed, sizeof mixed, "mixed");
    snprintf(dir, sizeof dir, "%s/ctx16", mixed);
    char *a1[] = {"ablate", cfg_s, cfg_d, "--out", dir, NULL};
    CHECK(run_lmtrain(a1) == 0);
    snprintf(dir, sizeof dir, "%s/ctx32", mixed);
    char *a2[] = {"ablate", cfg_d, cfg_s, "--set", "model.block_size=32", "--set", "train.batch_size=2", "--out", dir, NULL};
    CHECK(run_lmtrain(a2) == 0);
    char *f[] = {"frontier", mixed, NULL};
    CHECK(run_lmtrain(f) == 2);
    CHECK(strstr(e2e_out, "does not compare the same kinds"));
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    write_cfg(cfg_s, "s", "softmax");
    write_cfg(cfg_d, "d", "linear_decay");
    TEST(test_frontier_report_and_resume);
    TEST(test_frontier_refusals);
    e2e_teardown();
    return test_summary();
}
