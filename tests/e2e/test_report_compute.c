// test_report_compute.c — an ablation's "Loss against compute" section:
// the CPU-seconds-to-loss table checked number by number against values this
// test computes itself from the runs' metrics.csv (by column name), the
// chart's files, and the duration estimate and progress lines ablate prints.
#include "../test.h"
#include "e2e.h"

enum { SEEDS = 3, KINDS = 2, MAXROWS = 256 };
static const char *KIND[KINDS] = {"softmax", "linear"};
static char corpus[512], cfgs[KINDS][512], out[512];

typedef struct {
    int n;
    double cpu[MAXROWS], val[MAXROWS];
} Curve;

// The evaluations (rows with a val_loss) of a metrics.csv: (cpu_s, val_loss).
static int read_curve(const char *path, Curve *c) {
    char *text = read_all(path, NULL);
    if (!text) return 0;
    int cv = csv_column(text, "val_loss"), cc = csv_column(text, "cpu_s");
    c->n = 0;
    for (char *line = strchr(text, '\n'); line && line[1] && c->n < MAXROWS; line = strchr(line + 1, '\n')) {
        double v = csv_field(line + 1, cv), x = csv_field(line + 1, cc);
        if (isnan(v)) continue;
        c->val[c->n] = v;
        c->cpu[c->n] = x;
        c->n++;
    }
    free(text);
    return cv >= 0 && cc >= 0 && c->n > 1;
}

static double time_to(const Curve *c, double level) {
    for (int i = 0; i < c->n; i++)
        if (c->val[i] <= level)
            return i == 0 ? c->cpu[0]
                          : c->cpu[i - 1] + (c->val[i - 1] - level) / (c->val[i - 1] - c->val[i]) *
                                                (c->cpu[i] - c->cpu[i - 1]);
    return NAN;
}

// The i-th '|'-separated cell of a table row (0 = the first after the leading '|').
static void cell(const char *row, int i, char *buf, size_t cap) {
    const char *p = row + 1;
    for (int k = 0; k < i && p; k++) p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
    buf[0] = 0;
    if (!p) return;
    size_t n = strcspn(p, "|\n");
    snprintf(buf, cap, "%.*s", (int)n, p);
}

static void test_time_to_loss_table(void) {
    // --estimate alone: the estimate, and nothing written
    char *est_only[] = {"ablate", cfgs[0], cfgs[1], "--seeds", "3", "--out", out, "--estimate", NULL};
    CHECK(run_lmtrain(est_only) == 0);
    CHECK(strstr(e2e_out, "estimate: about ") && !strstr(e2e_out, "== ablate"));
    CHECK(!file_exists(out));
    // --plan (make recall's way): the plan on stdout, its estimate for the jobs at once on stderr
    char planned[600];
    snprintf(planned, sizeof planned, "%s_plan", out);
    char *plan[] = {"ablate", cfgs[0], cfgs[1], "--seeds", "3", "--out", planned, "--plan", "--jobs", "2", NULL};
    CHECK(run_lmtrain(plan) == 0);
    CHECK(strstr(e2e_out, "estimate: about ") && strstr(e2e_out, "for 6 runs (2 at once)"));
    char *argv[] = {"ablate", cfgs[0], cfgs[1], "--seeds", "3", "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    // the estimate comes before the first run, the overall progress between runs
    const char *est = strstr(e2e_out, "estimate: about "), *first = strstr(e2e_out, "== ablate 1/6");
    CHECK(est && first && est < first && strstr(est, "6 runs") && strstr(est, "short measured step"));
    CHECK(strstr(e2e_out, "-- overall: 3 of 6 runs done") && strstr(e2e_out, "left (estimate; ends near"));
    CHECK(run_lmtrain(est_only) == 0);
    CHECK(strstr(e2e_out, "all 6 runs in ") && strstr(e2e_out, "are finished: nothing to train"));

    Curve c[KINDS][SEEDS];
    double reach = -INFINITY, start = INFINITY;
    for (int k = 0; k < KINDS; k++)
        for (int s = 0; s < SEEDS; s++) {
            char p[700];
            snprintf(p, sizeof p, "%s/%s/seed%d/metrics.csv", out, KIND[k], 7 + s);
            CHECK(read_curve(p, &c[k][s]));
            double m = INFINITY;
            for (int i = 0; i < c[k][s].n; i++) m = fmin(m, c[k][s].val[i]);
            reach = fmax(reach, m);
            start = fmin(start, c[k][s].val[0]);
        }
    double level[4];
    int nl = 0;
    const double frac[4] = {0.5, 0.25, 0.1, 0};
    for (int i = 0; i < 4; i++) {
        double l = ceil((reach + frac[i] * (start - reach)) * 100 - 1e-9) / 100;
        if (nl && l >= level[nl - 1]) continue;
        level[nl++] = l;
    }
    char p[700];
    snprintf(p, sizeof p, "%s/report.md", out);
    char *md = read_all(p, NULL);
    CHECK(md != NULL);
    if (!md) return;
    const char *head = strstr(md, "| kind | loss ");
    CHECK(head != NULL);
    if (!head) return;
    for (int i = 0; i < nl; i++) {  // the levels as printed
        char h[64], want[64];
        cell(head, 1 + 2 * i, h, sizeof h);
        snprintf(want, sizeof want, " loss %.2f: CPU-s ", level[i]);
        CHECK(!strcmp(h, want));
    }
    const char *row = strchr(strchr(head, '\n') + 1, '\n') + 1;  // past the |---| line
    for (int k = 0; k < KINDS; k++, row = strchr(row, '\n') + 1) {
        char name[64];
        cell(row, 0, name, sizeof name);
        CHECK(strstr(name, KIND[k]) != NULL);
        for (int i = 0; i < nl; i++) {
            double t[SEEDS], sum = 0, ss = 0;
            for (int s = 0; s < SEEDS; s++) t[s] = time_to(&c[k][s], level[i]), sum += t[s];
            double mean = sum / SEEDS;
            for (int s = 0; s < SEEDS; s++) ss += (t[s] - mean) * (t[s] - mean);
            double sd = sqrt(ss / (SEEDS - 1));
            char got[128];
            cell(row, 1 + 2 * i, got, sizeof got);
            double gm = NAN, gs = NAN;
            CHECK(sscanf(got, " %lf ± %lf", &gm, &gs) == 2);
            double tol = mean < 10 ? 0.0006 : 0.06;  // the printed precision
            CHECK_NEAR(gm, mean, tol);
            CHECK_NEAR(gs, sd, tol);
            cell(row, 2 + 2 * i, got, sizeof got);
            if (k == 0) {
                CHECK(!strcmp(got, " 1 "));
                continue;
            }
            // the ratio to softmax by seed: geometric mean, t interval on the logs (t(0.975, 2))
            double l[SEEDS], lm = 0, lss = 0;
            for (int s = 0; s < SEEDS; s++) l[s] = log(t[s] / time_to(&c[0][s], level[i])), lm += l[s] / SEEDS;
            for (int s = 0; s < SEEDS; s++) lss += (l[s] - lm) * (l[s] - lm);
            double half = 4.302653 * sqrt(lss / (SEEDS - 1)) / sqrt(SEEDS);
            double r = NAN, lo = NAN, hi = NAN;
            CHECK(sscanf(got, " %lf [%lf, %lf]", &r, &lo, &hi) == 3);
            CHECK_NEAR(r, exp(lm), 0.006);
            CHECK_NEAR(lo, exp(lm - half), 0.006);
            CHECK_NEAR(hi, exp(lm + half), 0.006);
        }
    }
    // the words name, per level, the kind with the lowest mean time
    for (int i = 0; i < nl; i++) {
        double m[KINDS] = {0, 0};
        for (int k = 0; k < KINDS; k++)
            for (int s = 0; s < SEEDS; s++) m[k] += time_to(&c[k][s], level[i]) / SEEDS;
        char want[128];
        snprintf(want, sizeof want, "- **Loss %.2f**: %s gets there first", level[i], KIND[m[1] < m[0]]);
        CHECK(strstr(md, want) != NULL);
    }
    CHECK(strstr(md, "| `softmax/seed7/` | steps 30 | 30 |"));
    free(md);
    snprintf(p, sizeof p, "%s/curves_cpu.svg", out);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/report.html", out);
    char *html = read_all(p, NULL);
    CHECK(html && strstr(html, "Validation loss against the training CPU-seconds"));
    free(html);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    tpath(out, sizeof out, "abl");
    for (int k = 0; k < KINDS; k++) {
        char file[64], text[2048];
        snprintf(file, sizeof file, "%s.ini", KIND[k]);
        tpath(cfgs[k], sizeof cfgs[k], file);
        snprintf(text, sizeof text,
                 "[run]\nname = %s\nseed = 7\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
                 "[model]\nlayers = 2\nheads = 2\nd_model = 32\nblock_size = 32\n[attention]\nkind = %s\n"
                 "[train]\nsteps = 30\nbatch_size = 4\nlr = 3e-3\nwarmup = 2\neval_every = 3\neval_batches = 2\n"
                 "log_every = 3\ncheckpoint_every = 30\n",
                 KIND[k], corpus, KIND[k]);
        write_text(cfgs[k], text);
    }
    TEST(test_time_to_loss_table);
    e2e_teardown();
    return test_summary();
}
