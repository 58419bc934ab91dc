// test_ablate.c — `lmtrain ablate`: one row per kind, parameter counts that
// differ only by the decay logits, identical batch order, and a report that
// says so (and says otherwise when the batches do differ).
#include <math.h>

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
    CHECK(svgs == 7);     // loss zoomed and full, paired difference, loss against CPU-seconds, loss by
                          // position, λ horizons, memory
    CHECK(strstr(h, "Val loss minus softmax&#39;s, same seed") != NULL);  // the difference chart, baseline softmax
    CHECK(!strstr(h, "Recall accuracy") && !strstr(h, "val accuracy"));  // text runs log no accuracy
    CHECK(tables == 6);   // main, CPU-seconds to a loss, budgets, paired differences, memory, every run
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

// The chart in page h whose title starts with `title`: its y tick labels (the
// right-aligned texts) into y[], its x tick labels into x[]; the counts, or -1
// when there is no such chart or it says "no data".
static int chart_ticks(const char *h, const char *title, double *x, int *nx, double *y, int *ny) {
    const char *p = strstr(h, title), *end = p ? strstr(p, "</svg>") : NULL;
    if (!end) return -1;
    *nx = *ny = 0;
    for (const char *q = p; (q = strstr(q, "<text ")) && q < end; q++) {
        const char *gt = strchr(q, '>');
        char *num_end;
        double v = strtod(gt + 1, &num_end);
        if (num_end == gt + 1 || *num_end != '<') continue;  // an axis or legend label
        const char *anchor = strstr(q, "text-anchor=\"");
        if (anchor && anchor < gt && !strncmp(anchor + 13, "end\"", 4)) {
            if (*ny < 32) y[(*ny)++] = v;
        } else if (*nx < 32) {
            x[(*nx)++] = v;
        }
    }
    const char *nd = strstr(p, ">no data<");
    return nd && nd < end ? -1 : 0;
}

static void write_recall_cfg(const char *file, const char *name, const char *kind) {
    char p[512], text[2048];
    tpath(p, sizeof p, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 3\n[data]\ntask = recall\nvocab = 16\npairs = 2\nval_examples = 50\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = %s\n"
             "[train]\nsteps = 12\nbatch_size = 3\nwarmup = 2\neval_every = 6\neval_batches = 2\n"
             "log_every = 3\ncheckpoint_every = 6\n",
             name, kind);
    write_text(p, text);
}

// A recall ablation with a sweep: report.html draws validation accuracy
// against step and against the swept value, on an accuracy scale (a chart fed
// the loss, ~ln 16 = 2.8 nats here, would have ticks above 1).
static void test_recall_report_charts(void) {
    char a[512], b[512], out[512], rep[600];
    write_recall_cfg("rl.ini", "rl", "linear");
    write_recall_cfg("rd.ini", "rd", "delta");
    tpath(a, sizeof a, "rl.ini");
    tpath(b, sizeof b, "rd.ini");
    tpath(out, sizeof out, "abl_recall");
    char *argv[] = {"ablate", a, b, "--seeds", "2", "--sweep", "data.pairs=2,3", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(rep, sizeof rep, "%s/report.html", out);
    char *h = read_all(rep, NULL);
    CHECK(h != NULL);
    if (!h) return;
    size_t svgs = 0;
    for (char *p = strstr(h, "<svg"); p; p = strstr(p + 1, "<svg")) svgs++;
    CHECK(svgs == 9);  // the text report's 7, accuracy against step, accuracy against pairs
    double x[32], y[32];
    int nx, ny;
    CHECK(chart_ticks(h, "Validation accuracy (mean of 2 seeds", x, &nx, y, &ny) == 0);
    CHECK(ny >= 2 && nx >= 2);
    for (int i = 0; i < ny; i++) CHECK(y[i] >= -0.2 && y[i] <= 1.2);
    CHECK(x[0] <= 0 && x[nx - 1] >= 12);  // steps 0 .. 12
    CHECK(chart_ticks(h, "Final validation accuracy against data.pairs", x, &nx, y, &ny) == 0);
    CHECK(ny >= 2 && nx >= 2);
    for (int i = 0; i < ny; i++) CHECK(y[i] >= -0.2 && y[i] <= 1.2);
    CHECK(x[0] <= 2 && x[nx - 1] >= 3);  // the swept values 2 and 3
    CHECK(strstr(h, "Val loss minus linear&#39;s") != NULL);
    free(h);
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

// The section of report.html that starts at the heading `h2` (up to the next heading).
static char *html_section(const char *html, const char *h2) {
    const char *at = strstr(html, h2);
    if (!at) return NULL;
    const char *end = strstr(at + 1, "<h2>");
    return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

// report.html's pictures say what they show: in the memory chart linear and
// linear_decay (the same state size: one line over the other) each have a
// marker shape and a dash pattern of their own; the horizon chart's layer
// axis has integer ticks only, its y axis starts at 0 and the block_size line
// is black, not the palette's pale yellow.
static void test_report_charts_tell_lines_apart(void) {
    char a[512], b[512], out[512], rep[600];
    write_cfg("cl.ini", "linear", "linear", 5);
    write_cfg("cd.ini", "linear_decay", "linear_decay", 5);
    tpath(a, sizeof a, "cl.ini");
    tpath(b, sizeof b, "cd.ini");
    tpath(out, sizeof out, "abl_charts");
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    snprintf(rep, sizeof rep, "%s/report.html", out);
    char *h = read_all(rep, NULL);
    CHECK(h != NULL);
    if (!h) return;
    char *mem = html_section(h, "<h2>Inference memory against length</h2>");
    CHECK(mem != NULL);
    if (mem) {
        CHECK(strstr(mem, "<circle") != NULL);                           // the first kind's marker
        CHECK(strstr(mem, "width=\"6.8\" height=\"6.8\"") != NULL);  // the second's: squares
        CHECK(strstr(mem, "stroke-dasharray=\"7 4\"") != NULL);        // and its dashes
        CHECK(strstr(mem, "Kinds with the same memory share a line") != NULL);
        free(mem);
    }
    char *hz = html_section(h, "<h2>Memory horizon of the learned decay</h2>");
    CHECK(hz != NULL);
    if (hz) {
        // x tick labels (y = 463, under the plot): integers only
        size_t labels = 0;
        for (const char *p = strstr(hz, "\" y=\"463\" text-anchor=\"middle\">"); p;
             p = strstr(p + 1, "\" y=\"463\" text-anchor=\"middle\">")) {
            const char *v = strchr(p + 1, '>') + 1;
            const char *end = strchr(v, '<'), *dot = strchr(v, '.');
            CHECK(strtod(v, NULL) == floor(strtod(v, NULL)) && (!dot || dot > end));
            labels++;
        }
        CHECK(labels >= 2);
        CHECK(strstr(hz, "text-anchor=\"end\">0</text>") != NULL);  // the y axis from 0
        CHECK(strstr(hz, "#F0E442") == NULL && strstr(hz, "stroke=\"#000000\"") != NULL);
        CHECK(strstr(hz, "block_size (window)") != NULL);
        free(hz);
    }
    free(h);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    TEST(test_three_way_report);
    TEST(test_delta_in_ablation);
    TEST(test_report_flags_different_batches);
    TEST(test_sweep_table);
    TEST(test_recall_report_charts);
    TEST(test_usage_errors);
    TEST(test_report_charts_tell_lines_apart);
    e2e_teardown();
    return test_summary();
}
