// test_ablate.c — `lmtrain ablate`: one row per kind, parameter counts that
// differ only by the decay logits, identical batch order, and a report that
// says so (and says otherwise when the batches do differ).
#include "../test.h"
#include "e2e.h"

static char corpus[512];

static void write_cfg_b(const char *file, const char *name, const char *kind, int seed, int batch) {
    char p[512], text[2048];
    tpath(p, sizeof p, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = %d\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 12\nbatch_size = %d\nwarmup = 2\neval_every = 6\neval_batches = 2\n"
             "log_every = 3\ncheckpoint_every = 6\n",
             name, seed, corpus, kind, batch);
    write_text(p, text);
}

static void write_cfg(const char *file, const char *name, const char *kind, int seed) {
    write_cfg_b(file, name, kind, seed, 3);
}

// the parameter count in the main table's row of `kind` (the 7th column:
// kind | seeds | val loss | whole split | train loss | best val | parameters)
static long params_of(const char *report, const char *kind) {
    char key[64];
    snprintf(key, sizeof key, "\n| %s | ", kind);
    const char *p = strstr(report, key);
    for (int col = 0; p && col < 7; col++) p = strchr(p + 1, '|');
    return p ? strtol(p + 1, NULL, 10) : -1;
}

static void test_three_way_report(void) {
    char a[512], b[512], c[512], out[512], rep[600];
    write_cfg("s.ini", "s", "softmax", 5);
    write_cfg("l.ini", "l", "linear", 5);
    write_cfg("d.ini", "d", "linear_decay", 5);
    tpath(a, sizeof a, "s.ini");
    tpath(b, sizeof b, "l.ini");
    tpath(c, sizeof c, "d.ini");
    tpath(out, sizeof out, "abl");
    char *argv[] = {"ablate", a, b, c, "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(rep, sizeof rep, "%s/report.md", out);
    char *r = read_all(rep, NULL);
    CHECK(r != NULL);
    if (!r) return;
    long ps = params_of(r, "softmax"), pl = params_of(r, "linear"), pd = params_of(r, "linear_decay");
    CHECK(ps > 0 && pl == ps);
    CHECK(pd == ps + 2 * 2);  // one θ per head per layer
    CHECK(strstr(r, "same batches in the same order") != NULL);
    CHECK(strstr(r, "memory @ 1048576") != NULL);
    free(r);
    snprintf(rep, sizeof rep, "%s/curves.svg", out);
    CHECK(file_exists(rep));
    snprintf(rep, sizeof rep, "%s/d/seed5/summary.txt", out);
    CHECK(file_exists(rep));
    // report.html: report.md's tables and the charts inline, nothing fetched or run
    snprintf(rep, sizeof rep, "%s/report.html", out);
    char *h = read_all(rep, NULL);
    CHECK(h != NULL);
    if (!h) return;
    size_t svgs = 0, tables = 0;
    for (char *p = strstr(h, "<svg"); p; p = strstr(p + 1, "<svg")) svgs++;
    for (char *p = strstr(h, "<table>"); p; p = strstr(p + 1, "<table>")) tables++;
    CHECK(svgs == 5);     // loss zoomed and full, loss by position, λ horizons, memory
    CHECK(tables == 4);   // main, paired differences, memory, every run
    CHECK(strstr(h, "<td>linear_decay</td>") != NULL);
    CHECK(!strstr(h, "<script") && !strstr(h, "src=") && !strstr(h, "href=") && !strstr(h, "@import"));
    CHECK(!strstr(h, "Not available: no kind"));  // linear_decay has a λ: its horizon is drawn
    free(h);
}

// delta beside softmax: its row, its parameters (β row per head in the fused
// projection and θ per head, per layer), the same batches; and an ablation
// run again is not retrained (its runs are finished), nor run twice at once.
static void test_delta_in_ablation(void) {
    char a[512], b[512], out[512], rep[600];
    write_cfg("s3.ini", "s3", "softmax", 7);
    write_cfg("dl.ini", "dl", "delta", 7);
    tpath(a, sizeof a, "s3.ini");
    tpath(b, sizeof b, "dl.ini");
    tpath(out, sizeof out, "abl_delta");
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(rep, sizeof rep, "%s/report.md", out);
    char *r = read_all(rep, NULL);
    CHECK(r != NULL);
    if (!r) return;
    long ps = params_of(r, "softmax"), pd = params_of(r, "delta");
    CHECK(ps > 0);
    CHECK(pd == ps + 2 * (2 * 16 + 2));  // per layer: a β row of d_model weights per head, and θ per head
    CHECK(strstr(r, "same batches in the same order") != NULL);
    free(r);
    snprintf(rep, sizeof rep, "%s/dl/seed7/summary.txt", out);
    CHECK(file_exists(rep));
    snprintf(rep, sizeof rep, "%s/dl/seed7", out);
    char *before = folder_digest(rep);
    CHECK(run_lmtrain(argv) == 0);  // everything finished: the report is rebuilt, no run is touched
    CHECK(strstr(e2e_out, "finished, kept") != NULL);
    char *after = folder_digest(rep);
    CHECK(strcmp(before, after) == 0);
    free(before);
    free(after);
}

static void test_report_flags_different_batches(void) {
    char a[512], b[512], out[512], rep[600];
    write_cfg("s2.ini", "s2", "softmax", 5);
    write_cfg_b("l2.ini", "l2", "linear", 5, 2);  // another batch size: other batches for the same seed
    tpath(a, sizeof a, "s2.ini");
    tpath(b, sizeof b, "l2.ini");
    tpath(out, sizeof out, "abl2");
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    snprintf(rep, sizeof rep, "%s/report.md", out);
    char *r = read_all(rep, NULL);
    CHECK(r && strstr(r, "did not see the same training batches") != NULL);
    free(r);
}

static void test_sweep_table(void) {
    char a[512], b[512], out[512], rep[600];
    tpath(a, sizeof a, "s.ini");
    tpath(b, sizeof b, "l.ini");
    tpath(out, sizeof out, "abl3");
    char *argv[] = {"ablate", a, b, "--out", out, "--sweep", "model.d_model=8,16", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(rep, sizeof rep, "%s/report.md", out);
    char *r = read_all(rep, NULL);
    CHECK(r && strstr(r, "## Sweep over `model.d_model`") && strstr(r, "| 8 | 16 |"));
    CHECK(r && strstr(r, "sweep_model.d_model_16/s/seed5/` | 5 | finished |"));
    free(r);
    snprintf(rep, sizeof rep, "%s/sweep_model.d_model_8/l/seed5/metrics.csv", out);
    CHECK(file_exists(rep));
}

static void test_usage_errors(void) {
    char a[512];
    tpath(a, sizeof a, "s.ini");
    char *one[] = {"ablate", a, NULL};
    CHECK(run_lmtrain(one) == 2);
    char *dup[] = {"ablate", a, a, NULL};
    CHECK(run_lmtrain(dup) == 2);
    CHECK(strstr(e2e_out, "same [run] name") != NULL);
    char *bad[] = {"ablate", a, "no-such.ini", NULL};
    CHECK(run_lmtrain(bad) == 2);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    TEST(test_three_way_report);
    TEST(test_delta_in_ablation);
    TEST(test_report_flags_different_batches);
    TEST(test_sweep_table);
    TEST(test_usage_errors);
    e2e_teardown();
    return test_summary();
}
