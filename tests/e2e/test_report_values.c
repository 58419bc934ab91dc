// test_report_values.c — the report's numbers checked by value against the
// run folders' own files: tables read back by column header, every pair of
// kinds (issue 34: linear_decay − linear), pairing by seed when the kinds'
// seed lists differ in order or in members, and the band and difference
// charts' edges at given steps read back from the SVG through its own ticks.
#include "../test.h"
#include "e2e.h"

static char corpus[512], cfg[3][512], out[512];
static const char *const NAMES[3] = {"s", "l", "d"}, *const KINDS[3] = {"softmax", "linear", "linear_decay"};
enum { SEEDS = 3, SEED0 = 5 };

static void write_cfg(char *path, const char *name, const char *kind) {
    char text[2048], file[64];
    snprintf(file, sizeof file, "%s.ini", name);
    tpath(path, 512, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = %d\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 12\nbatch_size = 3\nlr = 3e-3\nwarmup = 2\neval_every = 4\neval_batches = 2\n"
             "log_every = 2\ncheckpoint_every = 6\n",
             name, SEED0, corpus, kind);
    write_text(path, text);
}

// ---- the runs' own numbers ----------------------------------------------------
static double eval_loss(int kind, int seed) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s/seed%d/eval/summary.txt", out, NAMES[kind], seed);
    char *t = read_all(p, NULL);
    double v = NAN;
    if (!t || sscanf(t, "val_loss %lf", &v) != 1) v = NAN;
    free(t);
    return v;
}

// metrics.csv's val_loss by step (NaN where not evaluated), read by header name; the row count.
static int val_curve(int kind, int seed, double *step, double *val, int cap) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s/seed%d/metrics.csv", out, NAMES[kind], seed);
    char *t = read_all(p, NULL);
    if (!t) return 0;
    int cs = -1, cv = -1, col = 0, n = 0;
    for (char *q = t; *q && *q != '\n'; q++)
        if (q == t || q[-1] == ',') {
            if (!strncmp(q, "step,", 5)) cs = col;
            if (!strncmp(q, "val_loss,", 9) || !strncmp(q, "val_loss\n", 9)) cv = col;
            col++;
        }
    for (char *line = strchr(t, '\n'); line && line[1] && n < cap; line = strchr(line + 1, '\n')) {
        step[n] = csv_field(line + 1, cs);
        val[n] = csv_field(line + 1, cv);
        n++;
    }
    free(t);
    return cs < 0 || cv < 0 ? 0 : n;
}

static double last_val(int kind, int seed) {
    double s[256], v[256], last = NAN;
    int n = val_curve(kind, seed, s, v, 256);
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) last = v[i];
    return last;
}

// ---- statistics from their definitions ------------------------------------------
static void mean_sd(const double *x, int n, double *m, double *sd) {
    double s = 0, q = 0;
    for (int i = 0; i < n; i++) s += x[i];
    *m = s / n;
    for (int i = 0; i < n; i++) q += (x[i] - *m) * (x[i] - *m);
    *sd = n > 1 ? sqrt(q / (n - 1)) : NAN;
}

// "+m [lo, hi]" of the paired differences d[0..n), t(0.975, n-1) from the table
static void interval_text(char *buf, size_t cap, const double *d, int n) {
    static const double t975[] = {0, 12.706205, 4.302653, 3.182446};
    double m, sd;
    mean_sd(d, n, &m, &sd);
    double half = t975[n - 1] * sd / sqrt((double)n);
    snprintf(buf, cap, "%+.4f [%+.4f, %+.4f]", m, m - half, m + half);
}

// ---- a Markdown table read by its column headers -------------------------------
// The cell in column `col` (header text, exact) of the row whose leading cells
// is `row` ("linear_decay − linear"), in the first table after the line that
// starts with `heading`; malloc'd, trimmed; NULL if any part is missing.
static char *md_cell(const char *doc, const char *heading, const char *row, const char *col) {
    const char *h = doc ? strstr(doc, heading) : NULL;
    const char *hdr = h ? strstr(h, "\n|") : NULL;
    if (!hdr) return NULL;
    hdr++;
    int want = -1, c = 0;
    for (const char *p = hdr + 1; *p && *p != '\n'; c++) {
        const char *e = strchr(p, '|');
        if (!e) break;
        const char *a = p, *b = e;
        while (a < b && *a == ' ') a++;
        while (b > a && b[-1] == ' ') b--;
        if ((size_t)(b - a) == strlen(col) && !strncmp(a, col, (size_t)(b - a))) want = c;
        p = e + 1;
    }
    if (want < 0) return NULL;
    char key[300];
    snprintf(key, sizeof key, "\n| %s |", row);
    const char *end_of_table = strstr(hdr, "\n\n");
    const char *r = strstr(hdr, key);
    if (!r || (end_of_table && r > end_of_table)) return NULL;
    const char *p = r + 2;
    for (int i = 0; i < want; i++) {
        p = strchr(p, '|');
        if (!p) return NULL;
        p++;
    }
    const char *e = strchr(p, '|');
    if (!e) return NULL;
    while (*p == ' ') p++;
    while (e > p && e[-1] == ' ') e--;
    char *cell = calloc(1, (size_t)(e - p) + 1);
    memcpy(cell, p, (size_t)(e - p));
    return cell;
}

static void check_cell(const char *doc, const char *heading, const char *row, const char *col, const char *want) {
    char *got = md_cell(doc, heading, row, col);
    CHECK(got && !strcmp(got, want));
    if (!got || strcmp(got, want))
        fprintf(stderr, "  %s / %s / %s: got \"%s\", want \"%s\"\n", heading, row, col, got ? got : "(none)", want);
    free(got);
}

static char *report(void) {
    char p[700];
    snprintf(p, sizeof p, "%s/report.md", out);
    return read_all(p, NULL);
}

static void test_train(void) {
    tpath(out, sizeof out, "abl");
    char seeds[8];
    snprintf(seeds, sizeof seeds, "%d", SEEDS);
    char *argv[] = {"ablate", cfg[0], cfg[1], cfg[2], "--seeds", seeds, "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
}

// The main table's two loss columns, by header: swapping them fails.
static void test_main_table_by_header(void) {
    char *r = report();
    for (int k = 0; k < 3; k++) {
        double e[SEEDS], v[SEEDS], m, sd;
        for (int s = 0; s < SEEDS; s++) e[s] = eval_loss(k, SEED0 + s), v[s] = last_val(k, SEED0 + s);
        char want[100];
        mean_sd(e, SEEDS, &m, &sd);
        snprintf(want, sizeof want, "%.4f ± %.4f", m, sd);
        check_cell(r, "## Final validation", KINDS[k], "val loss, whole split", want);
        mean_sd(v, SEEDS, &m, &sd);
        snprintf(want, sizeof want, "%.4f ± %.4f", m, sd);
        check_cell(r, "## Final validation", KINDS[k], "val loss, eval batches", want);
        snprintf(want, sizeof want, "%d", SEEDS);
        check_cell(r, "## Final validation", KINDS[k], "seeds", want);
    }
    free(r);
}

// b − a for every pair, from the per-seed numbers: against the baseline, and
// (issue 34) linear_decay − linear in its own table, the same on the terminal.
static void test_every_pair(void) {
    char *r = report();
    const int pairs[][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int p = 0; p < 3; p++) {
        int a = pairs[p][0], b = pairs[p][1];
        double de[SEEDS], dv[SEEDS];
        for (int s = 0; s < SEEDS; s++) {
            de[s] = eval_loss(b, SEED0 + s) - eval_loss(a, SEED0 + s);
            dv[s] = last_val(b, SEED0 + s) - last_val(a, SEED0 + s);
        }
        char we[100], wv[100], row[100];
        interval_text(we, sizeof we, de, SEEDS);
        interval_text(wv, sizeof wv, dv, SEEDS);
        const char *heading = "## Paired differences";
        if (a == 0) snprintf(row, sizeof row, "%s", KINDS[b]);
        else snprintf(row, sizeof row, "%s − %s", KINDS[b], KINDS[a]);
        check_cell(r, heading, row, "Δ val loss, whole split", we);
        check_cell(r, heading, row, "Δ val loss, eval batches", wv);
        char sentence[200];
        snprintf(sentence, sizeof sentence, "- **%s vs %s**: whole-split val loss %s by %.4f", KINDS[b], KINDS[a],
                 we[0] == '+' ? "higher" : "lower", fabs(strtod(we, NULL)));
        CHECK(r && strstr(r, sentence));
    }
    CHECK(r && strstr(r, "## Paired differences against softmax, and between the other kinds"));
    free(r);
    char *html_path = malloc(700);
    snprintf(html_path, 700, "%s/report.html", out);
    char *h = read_all(html_path, NULL);
    CHECK(h && strstr(h, "<tr><td>linear_decay − linear</td>"));
    if (h && !strstr(h, "<tr><td>linear_decay − linear</td>")) fprintf(stderr, "%s\n", strstr(h, "Paired differences"));
    free(h);
    free(html_path);
}

// ---- charts read back by value ----------------------------------------------------
// The y value at pixel py and the x value at pixel px of the chart whose
// title starts with `title`, from its tick labels (a y label sits 4 px below
// its tick, an x label exactly under it).
typedef struct {
    double y0, py0, ky, x0, px0, kx;
} Axes;

static int chart_axes(const char *svg, Axes *ax) {
    double yv[2], yp[2], xv[2], xp[2];
    int ny = 0, nx = 0;
    for (const char *q = svg; (q = strstr(q, "<text ")); q++) {
        const char *gt = strchr(q, '>');
        char *num_end;
        double v = strtod(gt + 1, &num_end);
        if (num_end == gt + 1 || *num_end != '<') continue;
        double x = NAN, y = NAN;
        sscanf(q, "<text x=\"%lf\" y=\"%lf\"", &x, &y);
        const char *anchor = strstr(q, "text-anchor=\"");
        if (anchor && anchor < gt && !strncmp(anchor + 13, "end\"", 4)) {
            if (ny < 2) yv[ny] = v, yp[ny] = y - 4, ny++;
        } else if (nx < 2) {
            xv[nx] = v, xp[nx] = x, nx++;
        }
    }
    if (ny < 2 || nx < 2) return -1;
    *ax = (Axes){yv[0], yp[0], (yv[1] - yv[0]) / (yp[1] - yp[0]), xv[0], xp[0], (xv[1] - xv[0]) / (xp[1] - xp[0])};
    return 0;
}

// The band number `which` (in drawing order) of svg: its upper and lower edge
// as (step, value) points; how many points per edge.
static int band_edges(const char *svg, int which, double *x, double *hi, double *lo, int cap) {
    Axes ax;
    if (chart_axes(svg, &ax)) return 0;
    const char *p = svg;
    for (int i = 0; i <= which && p; i++) {
        p = strstr(p, "fill-opacity=\"0.2\"");
        if (p && i < which) p++;
    }
    if (!p) return 0;
    const char *d = strstr(p, " d=\"");
    double px[512], py[512];
    int n = 0;
    for (const char *q = d + 4; *q != '"' && n < 512;) {
        while (*q == 'M' || *q == 'L' || *q == ' ' || *q == '\n') q++;
        if (*q == 'Z' || *q == '"') break;
        char *e;
        px[n] = strtod(q, &e);
        py[n] = strtod(e, &e);
        q = e;
        n++;
    }
    int m = n / 2;
    for (int k = 0; k < m && k < cap; k++) {
        x[k] = ax.x0 + (px[k] - ax.px0) * ax.kx;
        hi[k] = ax.y0 + (py[k] - ax.py0) * ax.ky;
        lo[k] = ax.y0 + (py[n - 1 - k] - ax.py0) * ax.ky;
    }
    return m;
}

static char *svg_file(const char *name) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", out, name);
    return read_all(p, NULL);
}

// Per evaluated step: the min and max over seeds of kind b's val loss minus
// kind a's with the same seed (a < 0: kind b's own val loss).
static int expected_band(int a, int b, double *step, double *lo, double *hi) {
    double sb[SEEDS][256], vb[SEEDS][256], sa[SEEDS][256], va[SEEDS][256];
    int n = 0, m = 0;
    for (int s = 0; s < SEEDS; s++) {
        n = val_curve(b, SEED0 + s, sb[s], vb[s], 256);
        if (a >= 0) val_curve(a, SEED0 + s, sa[s], va[s], 256);
    }
    for (int k = 0; k < n; k++) {
        if (!isfinite(vb[0][k])) continue;
        double l = INFINITY, h = -INFINITY;
        for (int s = 0; s < SEEDS; s++) {
            double d = vb[s][k] - (a >= 0 ? va[s][k] : 0);
            l = fmin(l, d), h = fmax(h, d);
        }
        step[m] = sb[0][k], lo[m] = l, hi[m] = h;
        m++;
    }
    return m;
}

static void check_band(const char *file, int band, int a, int b) {
    char *svg = svg_file(file);
    double x[64], lo[64], hi[64], es[64], elo[64], ehi[64];
    int n = svg ? band_edges(svg, band, x, hi, lo, 64) : 0, m = expected_band(a, b, es, elo, ehi);
    CHECK(n == m && m >= 3);
    double span = 0;
    for (int k = 0; k < m; k++) span = fmax(span, ehi[k] - elo[k]);
    for (int k = 0; k < n && k < m; k++) {
        double tol = 0.004 * span + 1e-6;  // the chart's pixels are printed to 0.01
        CHECK_NEAR(x[k], es[k], 0.05);
        CHECK_NEAR(hi[k], ehi[k], tol);
        CHECK_NEAR(lo[k], elo[k], tol);
    }
    free(svg);
}

// curves.svg: softmax's val band (the first band) is the min-max over seeds;
// curves_diff.svg: linear_decay's band (the second) is the min-max of its
// per-seed differences to softmax.
static void test_band_charts_by_value(void) {
    check_band("curves.svg", 0, -1, 0);
    check_band("curves.svg", 2, -1, 2);
    check_band("curves_diff.svg", 0, 0, 1);
    check_band("curves_diff.svg", 1, 0, 2);
}

// Pairing is by seed, not by list position: ablation.tsv rewritten with
// linear's seeds in another order and linear_decay's middle seed left out.
static void test_pairing_by_seed(void) {
    char p[700], line[700];
    snprintf(p, sizeof p, "%s/ablation.tsv", out);
    char *orig = read_all(p, NULL);
    CHECK(orig != NULL);
    if (!orig) return;
    FILE *f = fopen(p, "w");
    fprintf(f, "# lmtrain ablation: run folder, group, seed, sweep key, sweep value\n");
    const int order[3][3] = {{5, 6, 7}, {7, 5, 6}, {5, 7, 0}};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) {
            if (!order[k][i]) continue;
            snprintf(line, sizeof line, "%s/seed%d\t%s\t%d\t-\t-\n", NAMES[k], order[k][i], NAMES[k], order[k][i]);
            fputs(line, f);
        }
    fclose(f);
    char *argv[] = {"report", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    char *r = report();
    double d[3];
    char want[100];
    // linear − softmax: all three seeds, whatever the order
    for (int s = 0; s < 3; s++) d[s] = eval_loss(1, SEED0 + s) - eval_loss(0, SEED0 + s);
    interval_text(want, sizeof want, d, 3);
    check_cell(r, "## Paired differences", "linear", "Δ val loss, whole split", want);
    // linear_decay − softmax and − linear: seeds 5 and 7 only
    for (int a = 0; a < 2; a++) {
        d[0] = eval_loss(2, 5) - eval_loss(a, 5);
        d[1] = eval_loss(2, 7) - eval_loss(a, 7);
        interval_text(want, sizeof want, d, 2);
        const char *row = a ? "linear_decay − linear" : "linear_decay";
        check_cell(r, "## Paired differences", row, "Δ val loss, whole split", want);
        check_cell(r, "## Paired differences", row, "pairs", "2");
    }
    free(r);
    write_text(p, orig);
    free(orig);
    CHECK(run_lmtrain(argv) == 0);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 6000);
    for (int k = 0; k < 3; k++) write_cfg(cfg[k], NAMES[k], KINDS[k]);
    TEST(test_train);
    TEST(test_main_table_by_header);
    TEST(test_every_pair);
    TEST(test_band_charts_by_value);
    TEST(test_pairing_by_seed);
    e2e_teardown();
    return test_summary();
}
