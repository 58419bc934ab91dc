// test_ablate_seeds.c — `ablate --seeds N`, `--plan`, `lmtrain report`:
// the report's statistics recomputed here from the run folders' own numbers,
// a finished ablation re-run only rebuilds its report, an unfinished one is
// refused without --resume and completed with it, and a plan run through
// `xargs -P 2` then `report` gives the numbers of the sequential ablation.
#include "../test.h"
#include "e2e.h"

static char corpus[512], cfg_s[512], cfg_l[512], cfg_d[512];

static void write_cfg(char *path, const char *file, const char *name, const char *kind, const char *extra) {
    char text[2048];
    tpath(path, 512, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 5\nthreads = 1\n%s[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\nsteps = 16\nbatch_size = 3\nlr = 3e-3\nwarmup = 2\neval_every = 8\neval_batches = 2\n"
             "log_every = 4\ncheckpoint_every = 8\n",
             name, extra, corpus, kind);
    write_text(path, text);
}

// the whole-split val loss a run's eval/summary.txt holds
static double eval_loss(const char *out, const char *name, int seed) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s/seed%d/eval/summary.txt", out, name, seed);
    char *t = read_all(p, NULL);
    double v = NAN;
    if (t && sscanf(t, "val_loss %lf", &v) != 1) v = NAN;
    free(t);
    return v;
}

// text between the first `from` and the next `to` (malloc'd; "" if absent)
static char *section(const char *doc, const char *from, const char *to) {
    const char *a = doc ? strstr(doc, from) : NULL, *b = a ? strstr(a + 1, to) : NULL;
    size_t n = a ? (b ? (size_t)(b - a) : strlen(a)) : 0;
    char *s = malloc(n + 1);
    memcpy(s, a ? a : "", n);
    s[n] = 0;
    return s;
}

static char *report_of(const char *out) {
    char p[600];
    snprintf(p, sizeof p, "%s/report.md", out);
    return read_all(p, NULL);
}

// The statistics, recomputed from their definitions: mean and sample sd of
// softmax's three whole-split losses, and the paired t interval of linear −
// softmax with t(0.975, 2) = 4.302653 from the table.
static void test_seeds_statistics(void) {
    char out[512];
    tpath(out, sizeof out, "seq");
    char *argv[] = {"ablate", cfg_s, cfg_l, cfg_d, "--seeds", "3", "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    double s[3], l[3], d[3];
    for (int i = 0; i < 3; i++) {
        s[i] = eval_loss(out, "s", 5 + i);
        l[i] = eval_loss(out, "l", 5 + i);
        d[i] = l[i] - s[i];
        CHECK(isfinite(s[i]) && isfinite(l[i]));
    }
    char *r = report_of(out);
    CHECK(r != NULL);
    if (!r) return;
    double m = (s[0] + s[1] + s[2]) / 3;
    double sd = sqrt(((s[0] - m) * (s[0] - m) + (s[1] - m) * (s[1] - m) + (s[2] - m) * (s[2] - m)) / 2);
    char want[200];
    snprintf(want, sizeof want, "| %.4f ± %.4f |", m, sd);
    CHECK(strstr(r, "\n| softmax | 3 |") && strstr(strstr(r, "\n| softmax | 3 |"), want));
    double dm = (d[0] + d[1] + d[2]) / 3;
    double dsd = sqrt(((d[0] - dm) * (d[0] - dm) + (d[1] - dm) * (d[1] - dm) + (d[2] - dm) * (d[2] - dm)) / 2);
    double half = 4.302653 * dsd / sqrt(3.0);
    snprintf(want, sizeof want, "| %+.4f [%+.4f, %+.4f] | %s |", dm, dm - half, dm + half,
             dm - half > 0 || dm + half < 0 ? "resolved" : "within noise");
    char *diffs = section(r, "## Paired differences", "## Inference");
    CHECK(strstr(diffs, want) != NULL);
    if (!strstr(diffs, want)) fprintf(stderr, "want %s in\n%s\n", want, diffs);
    CHECK(strstr(diffs, "**linear vs softmax**") && strstr(diffs, "**linear_decay vs softmax**"));
    free(diffs);
    CHECK(strstr(r, "3 seeds per kind (5, 6, 7)") != NULL);
    CHECK(strstr(r, "fingerprints agree, seed by seed") != NULL);
    free(r);
    // the band chart and its zoom
    char p[600];
    snprintf(p, sizeof p, "%s/curves.svg", out);
    char *svg = read_all(p, NULL);
    CHECK(svg && strstr(svg, "fill-opacity=\"0.2\"") && strstr(svg, "softmax val (3)"));
    free(svg);
    snprintf(p, sizeof p, "%s/curves_zoom.svg", out);
    svg = read_all(p, NULL);
    CHECK(svg && strstr(svg, "fill-opacity=\"0.2\"") && strstr(svg, "clip-path=\"url(#plot-area)\""));
    free(svg);
    snprintf(p, sizeof p, "%s/curves_diff.svg", out);
    svg = read_all(p, NULL);
    CHECK(svg && strstr(svg, "softmax (baseline)") && strstr(svg, "linear (3)") && strstr(svg, "fill-opacity"));
    free(svg);
}

// Re-running a finished ablation trains nothing: checkpoints untouched, the
// report rebuilt identical.
static void test_rerun_only_rebuilds(void) {
    char out[512], ck[600], rep[600];
    tpath(out, sizeof out, "seq");
    snprintf(ck, sizeof ck, "%s/l/seed6/checkpoint.bin", out);
    snprintf(rep, sizeof rep, "%s/report.md", out);
    size_t n0 = 0, n1 = 0;
    char *before = read_all(ck, &n0), *report = read_all(rep, NULL);
    unlink(rep);
    char *argv[] = {"ablate", cfg_s, cfg_l, cfg_d, "--seeds", "3", "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    CHECK(strstr(e2e_out, "all 9 runs in") && strstr(e2e_out, "rebuilding the report without training"));
    CHECK(strstr(e2e_out, "step 4/16") == NULL);
    char *after = read_all(ck, &n1), *again = read_all(rep, NULL);
    CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0);
    CHECK(report && again && strcmp(report, again) == 0);
    free(before);
    free(after);
    free(report);
    free(again);
}

// An unfinished run (here: its summary removed) is refused without --resume,
// with the command that continues; --resume finishes it with the same numbers.
static void test_unfinished_needs_resume(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "seq");
    snprintf(p, sizeof p, "%s/d/seed7/summary.txt", out);
    char *summary = read_all(p, NULL);
    double before = eval_loss(out, "d", 7);
    unlink(p);
    char *argv[] = {"ablate", cfg_s, cfg_l, cfg_d, "--seeds", "3", "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 2);
    CHECK(strstr(e2e_out, "d/seed7 was interrupted") != NULL);
    CHECK(strstr(e2e_out, " --seeds 3 --out ") && strstr(e2e_out, " --resume\n"));
    CHECK(!file_exists(p));  // refused: nothing written
    char *resume[] = {"ablate", cfg_s, cfg_l, cfg_d, "--seeds", "3", "--out", out, "--resume", NULL};
    CHECK(run_lmtrain(resume) == 0);
    char *again = read_all(p, NULL);
    CHECK(summary && again && strstr(again, "final val loss") && eval_loss(out, "d", 7) == before);
    free(summary);
    free(again);
}

static void test_seeds_from_config_and_bad_counts(void) {
    char a[512], b[512], out[512], p[600];
    write_cfg(a, "s2.ini", "s2", "softmax", "seeds = 2\n");
    write_cfg(b, "l2.ini", "l2", "linear", "seeds = 2\n");
    tpath(out, sizeof out, "cfgseeds");
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    snprintf(p, sizeof p, "%s/l2/seed6/eval/summary.txt", out);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/l2/seed7", out);
    CHECK(!file_exists(p));
    // bad counts: exit 2, nothing created
    tpath(out, sizeof out, "never");
    const char *bad[] = {"0", "-1", "2x", ""};
    for (int i = 0; i < 4; i++) {
        char *v[] = {"ablate", cfg_s, cfg_l, "--seeds", (char *)bad[i], "--out", out, NULL};
        CHECK(run_lmtrain(v) == 2);
        CHECK(strstr(e2e_out, "--seeds") != NULL);
    }
    char *jobs[] = {"ablate", cfg_s, cfg_l, "--jobs", "2", "--out", out, NULL};
    CHECK(run_lmtrain(jobs) == 2);
    CHECK(!file_exists(out));
}

// Under an emulator (TEST_WRAPPER, tests/run.sh) the plan's lines name the
// target's binary, which this host runs only through the emulator: each
// occurrence of it in the plan file gets the emulator in front.
static void wrap_plan(const char *plan) {
    const char *wrap = getenv("TEST_WRAPPER");
    if (!wrap || !*wrap) return;
    char *text = read_all(plan, NULL);
    const char *at = text ? strstr(text, " && ") : NULL;  // cd DIR && BINARY train ...
    CHECK(at != NULL);
    if (!at) {
        free(text);
        return;
    }
    at += 4;
    char bin[1024], word[1030];
    snprintf(bin, sizeof bin, "%.*s", (int)strcspn(at, " "), at);
    snprintf(word, sizeof word, " %s ", bin);
    FILE *f = fopen(plan, "w");
    const char *p = text, *q;
    for (; (q = strstr(p, word)); p = q + strlen(word)) fprintf(f, "%.*s %s%s", (int)(q - p), p, wrap, word);
    fputs(p, f);
    fclose(f);
    free(text);
}

// The plan, run by xargs two at a time, then `report`: the same statistics and
// per-run numbers as the sequential ablation of test_seeds_statistics.
static void test_plan_through_xargs(void) {
    char out[512], plan[512], cmd[2048];
    tpath(out, sizeof out, "par");
    tpath(plan, sizeof plan, "plan.txt");
    char *argv[] = {"ablate", cfg_s, cfg_l, cfg_d, "--seeds", "3", "--out", out, "--plan", "--jobs", "2", NULL};
    CHECK(run_lmtrain(argv) == 0);
    // stdout and stderr share e2e_out: keep the command lines
    FILE *f = fopen(plan, "w");
    int lines = 0;
    for (char *line = strtok(e2e_out, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "cd ", 3)) {
            fprintf(f, "%s\n", line);
            lines++;
            CHECK(strstr(line, " --set run.threads=") && strstr(line, " eval --run "));
        }
    fclose(f);
    CHECK(lines == 9);
    wrap_plan(plan);
    char *none[] = {"report", out, NULL};
    CHECK(run_lmtrain(none) == 1);  // planned, nothing run yet
    CHECK(strstr(e2e_out, "none of the 9 runs") != NULL);
    // the first four lines, then a report that names the five missing runs
    snprintf(cmd, sizeof cmd, "head -n 4 '%s' | tr '\\n' '\\0' | xargs -0 -n 1 -P 2 sh -c > /dev/null 2>&1", plan);
    CHECK(system(cmd) == 0);
    CHECK(run_lmtrain(none) == 0);
    CHECK(strstr(e2e_out, "d/seed7: not started") && strstr(e2e_out, "4 of 9 runs finished"));
    char *partial = report_of(out);
    CHECK(partial && strstr(partial, "Incomplete: 5 of 9 runs are not finished"));
    free(partial);
    snprintf(cmd, sizeof cmd, "tail -n +5 '%s' | tr '\\n' '\\0' | xargs -0 -n 1 -P 2 sh -c > /dev/null 2>&1", plan);
    CHECK(system(cmd) == 0);
    CHECK(run_lmtrain(none) == 0);
    char seq[512];
    tpath(seq, sizeof seq, "seq");
    char *a = report_of(seq), *b = report_of(out);
    const char *parts[][2] = {{"## Paired differences", "## Inference"}, {"## Every run", "\n\n\n"}};
    for (int i = 0; i < 2; i++) {
        char *x = section(a, parts[i][0], parts[i][1]), *y = section(b, parts[i][0], parts[i][1]);
        CHECK(*x && strcmp(x, y) == 0);
        free(x);
        free(y);
    }
    free(a);
    free(b);
}

// Run folders without the ablation.tsv that names them: `report` finds them
// (path order: l2 before s2, so linear is the baseline); a folder with no runs
// at all is an error.
static void test_report_finds_runs_without_plan_file(void) {
    char out[512], p[600];
    tpath(out, sizeof out, "cfgseeds");
    snprintf(p, sizeof p, "%s/ablation.tsv", out);
    CHECK(unlink(p) == 0);
    char *argv[] = {"report", out, NULL};
    CHECK(run_lmtrain(argv) == 0);
    char *r = report_of(out);
    CHECK(r && strstr(r, "has no `ablation.tsv`") && strstr(r, "the baseline is the first, linear"));
    CHECK(r && strstr(r, "\n| linear | 2 |") && strstr(r, "\n| softmax | 2 |") && strstr(r, "`s2/seed6/` | 6 | finished"));
    free(r);
    tpath(out, sizeof out, "no-runs");
    mkdir(out, 0777);
    char *empty[] = {"report", out, NULL};
    CHECK(run_lmtrain(empty) == 1);
    CHECK(strstr(e2e_out, "no runs under") != NULL);
}

// --baseline: the differences against another kind; the softmax − linear
// difference is minus the linear − softmax one, interval mirrored.
static void test_report_baseline(void) {
    char out[512];
    tpath(out, sizeof out, "seq");
    char *r0 = report_of(out);
    char *first = section(r0 ? strstr(r0, "## Paired differences") : NULL, "\n| linear | 3 | ", "\n");
    char *argv[] = {"report", out, "--baseline", "l", NULL};
    CHECK(run_lmtrain(argv) == 0);
    char *r1 = report_of(out);
    CHECK(r1 && strstr(r1, "## Paired differences against linear"));
    double m0 = NAN, lo0 = NAN, hi0 = NAN, m1 = NAN, lo1 = NAN, hi1 = NAN;
    const char *row = r1 ? strstr(strstr(r1, "## Paired differences"), "\n| softmax | 3 | ") : NULL;
    CHECK(sscanf(first, "\n| linear | 3 | %lf [%lf, %lf]", &m0, &lo0, &hi0) == 3);
    CHECK(row && sscanf(row, "\n| softmax | 3 | %lf [%lf, %lf]", &m1, &lo1, &hi1) == 3);
    CHECK_NEAR(m1, -m0, 1.5e-4);  // both printed to 4 decimals
    CHECK_NEAR(lo1, -hi0, 1.5e-4);
    CHECK_NEAR(hi1, -lo0, 1.5e-4);
    char *bad[] = {"report", out, "--baseline", "nope", NULL};
    CHECK(run_lmtrain(bad) == 2);
    CHECK(strstr(e2e_out, "it has: s, l, d") != NULL);
    free(first);
    free(r0);
    free(r1);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 8000);
    write_cfg(cfg_s, "s.ini", "s", "softmax", "");
    write_cfg(cfg_l, "l.ini", "l", "linear", "");
    write_cfg(cfg_d, "d.ini", "d", "linear_decay", "");
    TEST(test_seeds_statistics);
    TEST(test_rerun_only_rebuilds);
    TEST(test_unfinished_needs_resume);
    TEST(test_seeds_from_config_and_bad_counts);
    TEST(test_plan_through_xargs);
    TEST(test_report_finds_runs_without_plan_file);
    TEST(test_report_baseline);
    e2e_teardown();
    return test_summary();
}
