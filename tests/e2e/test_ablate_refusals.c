// test_ablate_refusals.c — ablate, --plan, --sweep and report off the happy
// path (issue 33): every input that cannot give a paired, honest comparison is
// refused before anything trains, naming the problem, with the folder
// unchanged; what can be reported is reported as what it is.
#include "../test.h"
#include "e2e.h"

static char corpus[512];

// A tiny model (runs take a second or two): name, kind, seed, extra [train] lines.
static void write_cfg(char *path, const char *name, const char *kind, int seed, const char *train_extra) {
    char text[2048], file[64];
    static int serial;
    snprintf(file, sizeof file, "cfg%d.ini", serial++);
    tpath(path, 512, file);
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = %d\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = %s\nchunk = 8\n"
             "[train]\n%sbatch_size = 3\nwarmup = 2\neval_every = 6\neval_batches = 2\n"
             "log_every = 3\ncheckpoint_every = 6\n%s",
             name, seed, corpus, kind, strstr(train_extra, "steps") ? "" : "steps = 12\n", train_extra);
    write_text(path, text);
}

// Runs lmtrain with argv and checks: exit status `want`, the message holds
// `says`, and the folder `dir` is as it was (or still absent).
static void refused(char *const argv[], int want, const char *says, const char *dir) {
    char *before = folder_digest(dir);
    int existed = file_exists(dir);
    int rc = run_lmtrain(argv);
    CHECK(rc == want);
    CHECK(strstr(e2e_out, says) != NULL);
    if (rc != want || !strstr(e2e_out, says)) fprintf(stderr, "exit %d, want %d and \"%s\" in:\n%s\n", rc, want, says, e2e_out);
    char *after = folder_digest(dir);
    CHECK(strcmp(before, after) == 0);
    CHECK(existed == file_exists(dir));
    CHECK(strstr(e2e_out, "step ") == NULL);  // nothing trained
    free(before);
    free(after);
}

static char cs[512], cl[512], cd[512];  // softmax, linear, linear_decay with seed 5

// Defect 2: configs with different [run] seed cannot pair.
static void test_different_seeds_refused(void) {
    char other[512], out[512];
    write_cfg(other, "l6", "linear", 6, "");
    tpath(out, sizeof out, "seeds");
    char *argv[] = {"ablate", cs, other, "--seeds", "2", "--out", out, NULL};
    refused(argv, 2, "different [run] seed (5, 6)", out);
    char *plan[] = {"ablate", cs, other, "--out", out, "--plan", NULL};
    refused(plan, 2, "different [run] seed", out);
}

// Defect 3: sweeps that cannot pair or would be overridden.
static void test_sweep_refusals(void) {
    char out[512];
    tpath(out, sizeof out, "sweeps");
    char *seed[] = {"ablate", cs, cl, "--sweep", "run.seed=1,2", "--out", out, "--plan", NULL};
    refused(seed, 2, "a [run] key cannot be swept", out);
    char *twice[] = {"ablate", cs, cl, "--sweep", "train.lr=2e-3,2e-3", "--out", out, NULL};
    refused(twice, 2, "the value 2e-3 is given twice", out);
    char *same[] = {"ablate", cs, cl, "--sweep", "train.lr=2e-3,0.002", "--out", out, NULL};
    refused(same, 2, "the values 2e-3 and 0.002 give the same configuration", out);
    char *apart[] = {"ablate", cs, cl, "--sweep", "train.lr=2e-3,1e-3,0.002", "--out", out, NULL};  // not neighbours
    refused(apart, 2, "the values 2e-3 and 0.002 give the same configuration", out);
    char *twice_apart[] = {"ablate", cs, cl, "--sweep", "train.lr=2e-3,1e-3,2e-3", "--out", out, NULL};
    refused(twice_apart, 2, "the value 2e-3 is given twice", out);
    char *two[] = {"ablate", cs, cl, "--sweep", "train.lr=1e-3,2e-3", "--sweep", "model.d_model=8,16", "--out", out, NULL};
    refused(two, 2, "one --sweep per ablation", out);
    char *set[] = {"ablate", cs, cl, "--set", "train.lr=1e-3", "--sweep", "train.lr=2e-3,3e-3", "--out", out, NULL};
    refused(set, 2, "the sweep sets train.lr in every cell", out);
    char *dup[] = {"ablate", cs, cl, "--set", "train.lr=1e-3", "--set", " train.lr = 2e-3", "--out", out, NULL};
    refused(dup, 2, "set the same key", out);
}

// Defect 4: names that cannot be folders or table cells, refused before training.
static void test_bad_run_names(void) {
    char out[512], bad[512];
    tpath(out, sizeof out, "names");
    const char *names[][2] = {{"report.md", "ablation folder's own files"},
                              {"ablation.tsv", "ablation folder's own files"},
                              {"curves.svg", "ablation folder's own files"},
                              {".lmtrain.lock", "starts with '.'"},
                              {"lin|v2", "contains '|'"},
                              {"lin`v2", "contains '`'"},
                              {"sweep_x", "sweep_"},
                              {"seed5", "seed<N>"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        write_cfg(bad, names[i][0], "linear", 5, "");
        char *argv[] = {"ablate", cs, bad, "--out", out, NULL};
        refused(argv, 2, names[i][1], out);
        CHECK(strstr(e2e_out, names[i][0]) != NULL);
        char *plan[] = {"ablate", cs, bad, "--out", out, "--plan", NULL};
        refused(plan, 2, names[i][1], out);
    }
}

// A name with ".." inside it is a fine folder name: planned, read back.
static void test_dotdot_inside_a_name(void) {
    char out[512], dots[512];
    tpath(out, sizeof out, "dots");
    write_cfg(dots, "lin..v2", "linear", 5, "");
    char *plan[] = {"ablate", cs, dots, "--out", out, "--plan", NULL};
    CHECK(run_lmtrain(plan) == 0);
    CHECK(strstr(e2e_out, "lin..v2/seed5") != NULL);
    char *report[] = {"report", out, NULL};
    CHECK(run_lmtrain(report) == 1);  // nothing finished yet; but the plan reads back
    CHECK(strstr(e2e_out, "none of the 2 runs planned") != NULL);
    CHECK(strstr(e2e_out, "malformed") == NULL);
}

// Defect 14: --out with a newline; the plan's report hint quoted for the shell.
static void test_out_newline_and_quoted_hint(void) {
    char out[512];
    tpath(out, sizeof out, "two\nlines");
    char *argv[] = {"ablate", cs, cl, "--out", out, "--plan", NULL};
    refused(argv, 2, "without a newline", out);
    tpath(out, sizeof out, "it's here");
    char *plan[] = {"ablate", cs, cl, "--out", out, "--plan", NULL};
    CHECK(run_lmtrain(plan) == 0);
    char want[700];
    snprintf(want, sizeof want, " report '%s/it'\\''s here'\n", e2e_dir);
    CHECK(strstr(e2e_out, want) != NULL);
    if (!strstr(e2e_out, want)) fprintf(stderr, "want %s in %s\n", want, e2e_out);
}

// Defect 5: --out into a single training run's folder.
static void test_out_is_a_single_run(void) {
    char run[512], ini[512];
    tpath(run, sizeof run, "single");
    snprintf(ini, sizeof ini, "%s", cs);
    char *train[] = {"--config", ini, "--out", run, NULL};
    CHECK(run_lmtrain(train) == 0);
    char *argv[] = {"ablate", cs, cl, "--out", run, NULL};
    refused(argv, 2, "holds a single run", run);
    char *plan[] = {"ablate", cs, cl, "--out", run, "--plan", NULL};
    refused(plan, 2, "holds a single run", run);
}

// A finished three-way ablation that the next tests change around.
static char fin[512];
static void test_finished_ablation(void) {
    tpath(fin, sizeof fin, "fin");
    char *argv[] = {"ablate", cs, cl, cd, "--seeds", "2", "--out", fin, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    // defect 15: the verdict on the terminal, every pair
    CHECK(strstr(e2e_out, "paired differences (whole-split val loss"));
    CHECK(strstr(e2e_out, "  linear vs softmax: ") && strstr(e2e_out, "  linear_decay vs softmax: ") &&
          strstr(e2e_out, "  linear_decay vs linear: "));
}

// Defect 6 and 1: another plan in a finished folder is refused; fewer configs
// keep the recorded plan and its report.
static void test_other_plan_refused(void) {
    char other[512], p[700];
    write_cfg(other, "m", "linear", 5, "");
    char *argv[] = {"ablate", cs, other, "--seeds", "2", "--out", fin, NULL};
    refused(argv, 2, "holds another ablation", fin);
    char *plan[] = {"ablate", cs, other, "--seeds", "2", "--out", fin, "--plan", NULL};
    refused(plan, 2, "holds another ablation", fin);
    // more seeds of other configs: also another plan
    char *more[] = {"ablate", cs, cl, "--seeds", "3", "--out", fin, NULL};
    refused(more, 2, "holds another ablation", fin);  // d's seeds are missing from it, seed 7 from the record
    // another configuration under the same names
    char *lr[] = {"ablate", cs, cl, cd, "--seeds", "2", "--set", "train.lr=5e-3", "--out", fin, NULL};
    refused(lr, 2, "another configuration", fin);
    // fewer configs: the recorded plan is kept and the report still has linear_decay
    snprintf(p, sizeof p, "%s/ablation.tsv", fin);
    char *tsv = read_all(p, NULL);
    char *fewer[] = {"ablate", cs, cl, "--seeds", "2", "--out", fin, NULL};
    CHECK(run_lmtrain(fewer) == 0);
    CHECK(strstr(e2e_out, "plans 6 runs; these arguments name 4 of them") != NULL);
    char *tsv2 = read_all(p, NULL);
    CHECK(tsv && tsv2 && strcmp(tsv, tsv2) == 0);
    snprintf(p, sizeof p, "%s/report.md", fin);
    char *r = read_all(p, NULL);
    CHECK(r && strstr(r, "\n| linear_decay | 2 |"));
    free(r);
    free(tsv);
    free(tsv2);
}

// Defect 1: --plan and report while an ablate holds the folder.
static void test_plan_and_report_while_ablate_runs(void) {
    char out[512], log[512];
    tpath(out, sizeof out, "busy");
    tpath(log, sizeof log, "busy.log");
    char *argv[] = {"ablate", cs, cl, "--out", out, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "lock", &st);  // the first run's lock: ablate holds the folder's
    CHECK(pid > 0);
    if (pid <= 0) return;
    char *plan[] = {"ablate", cs, cd, "--out", out, "--plan", NULL};
    refused(plan, 1, "another lmtrain (pid", out);
    char *report[] = {"report", out, NULL};
    refused(report, 1, "cannot write the report in", out);
    pause_resume(pid, 0);
    CHECK(wait_status(pid) == 0);
}

// Defect 10: a non-finite or negative loss in eval/summary.txt is refused by
// name, not averaged.
static void test_nonfinite_eval_refused(void) {
    char p[700], text[512];
    snprintf(p, sizeof p, "%s/l/seed6/eval/summary.txt", fin);
    char *orig = read_all(p, NULL);
    CHECK(orig && !strncmp(orig, "val_loss ", 9));
    if (!orig) return;
    const char *bad[] = {"nan", "inf", "-0.5"};
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "val_loss %s%s", bad[i], strchr(orig, '\n'));
        write_text(p, text);
        char *argv[] = {"report", fin, NULL};
        refused(argv, 1, "which is not a loss", fin);
        CHECK(strstr(e2e_out, "l/seed6/eval/summary.txt") != NULL);
    }
    write_text(p, orig);
    free(orig);
    // the last val_loss of metrics.csv infinite
    snprintf(p, sizeof p, "%s/l/seed6/metrics.csv", fin);
    orig = read_all(p, NULL);
    CHECK(orig != NULL);
    if (!orig) return;
    char *bad_metrics = malloc(strlen(orig) + 16), *last = NULL;
    strcpy(bad_metrics, orig);
    for (char *q = strstr(bad_metrics, "\n"); q && q[1]; q = strstr(q + 1, "\n")) last = q + 1;
    int col = 0, cv = -1;  // val_loss's column, by header name
    for (char *q = bad_metrics; *q != '\n'; q++)
        if (q == bad_metrics || q[-1] == ',') cv = !strncmp(q, "val_loss,", 9) ? col : cv, col++;
    char *cell = last;
    for (int c = 0; c < cv && cell; c++) cell = strchr(cell, ',') + 1;
    CHECK(cv >= 0 && cell && isfinite(strtod(cell, NULL)));
    if (cv >= 0 && cell) {
        char *end = strchr(cell, ',');
        memmove(cell + 3, end, strlen(end) + 1);
        memcpy(cell, "inf", 3);
        write_text(p, bad_metrics);
        char *argv[] = {"report", fin, NULL};
        refused(argv, 1, "metrics.csv: the last val_loss is inf, which is not a loss", fin);
    }
    write_text(p, orig);
    free(bad_metrics);
    free(orig);
}

// metrics.csv's text with the cell of column `col` (by header name) in the
// row of step `step` replaced by `value`; NULL if there is no such cell.
static char *with_cell(const char *text, long step, const char *col, const char *value) {
    int c = 0, want = -1;
    size_t cl = strlen(col);
    for (const char *q = text; *q != '\n'; q++)
        if (q == text || q[-1] == ',') want = !strncmp(q, col, cl) && (q[cl] == ',' || q[cl] == '\n') ? c : want, c++;
    const char *row = strchr(text, '\n');
    while (row && row[1] && strtol(row + 1, NULL, 10) != step) row = strchr(row + 1, '\n');
    if (want < 0 || !row || !row[1]) return NULL;
    const char *cell = row + 1;
    for (int k = 0; k < want && cell; k++) cell = strchr(cell, ',') ? strchr(cell, ',') + 1 : NULL;
    if (!cell) return NULL;
    size_t end = strcspn(cell, ",\n"), at = (size_t)(cell - text);
    char *out = malloc(strlen(text) + strlen(value) + 1);
    memcpy(out, text, at);
    strcpy(out + at, value);
    strcat(out, cell + end);
    return out;
}

// `lmtrain report fin` exits 1 saying `says`, the folder unchanged (report
// trains nothing, and its messages may name steps, so not `refused`).
static void report_refused(const char *says) {
    char *before = folder_digest(fin);
    char *argv[] = {"report", fin, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, says) != NULL);
    if (rc != 1 || !strstr(e2e_out, says)) fprintf(stderr, "exit %d, want 1 and \"%s\" in:\n%s\n", rc, says, e2e_out);
    char *after = folder_digest(fin);
    CHECK(strcmp(before, after) == 0);
    free(before);
    free(after);
}

// The path (into p) and text of run l/seed6's metrics.csv in `fin`.
static char *l_metrics(char *p, size_t cap) {
    snprintf(p, cap, "%s/l/seed6/metrics.csv", fin);
    char *text = read_all(p, NULL);
    CHECK(text != NULL);
    return text;
}

// Defect 9, the report's half: a metrics.csv cut short (whole rows gone, or
// the last row half written) would show an early val loss as the final one.
// Refused by name, nothing changed.
static void test_truncated_metrics_refused(void) {
    char p[700], *orig = l_metrics(p, sizeof p);
    if (!orig) return;
    char *cut = strdup(orig), *row = strstr(cut, "\n9,");  // rows of steps 0, 3, 6, 9, 12: keep up to 6
    CHECK(row != NULL);
    if (row) {
        row[1] = 0;
        write_text(p, cut);
        report_refused("metrics.csv ends at step 6");
        CHECK(strstr(e2e_out, "l/seed6/metrics.csv") != NULL);
        // the row of step 9 half written: the file ends inside it
        strcpy(cut, orig);
        row = strstr(cut, "\n9,");
        row[6] = 0;
        write_text(p, cut);
        report_refused("metrics.csv ends at step 6");
    }
    write_text(p, orig);
    free(cut);
    free(orig);
}

// A NaN written in val_loss is not "not evaluated" (an empty cell, as the
// writer leaves it between evaluations): refused by name like inf, whether in
// the last row or in a row between evaluations; empty cells are read as before.
static void test_nan_val_loss_refused(void) {
    char p[700], *orig = l_metrics(p, sizeof p);
    if (!orig) return;
    const long steps[] = {12, 3};
    const char *nans[] = {"nan", "-nan"};
    for (int i = 0; i < 2; i++) {
        char *bad = with_cell(orig, steps[i], "val_loss", nans[i]);
        CHECK(bad != NULL);
        if (!bad) continue;
        write_text(p, bad);
        report_refused("l/seed6/metrics.csv");
        CHECK(strstr(e2e_out, "NaN") != NULL);
        free(bad);
    }
    write_text(p, orig);
    char *argv[] = {"report", fin, NULL};
    int rc = run_lmtrain(argv);  // the file as written, empty cells at steps 3 and 9: reported
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    free(orig);
}

// A run trained but not evaluated (its eval/summary.txt gone) is named and
// left out of every figure: the linear row counts one seed, not two.
static void test_unevaluated_run_not_counted(void) {
    char p[700], away[720];
    snprintf(p, sizeof p, "%s/l/seed6/eval/summary.txt", fin);
    snprintf(away, sizeof away, "%s.away", p);
    CHECK(rename(p, away) == 0);
    char *argv[] = {"report", fin, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    CHECK(strstr(e2e_out, "l/seed6") != NULL);
    snprintf(p, sizeof p, "%s/report.md", fin);
    char *md = read_all(p, NULL);
    // the row's eval-batches val loss is seed 5's last, alone (its val_loss column found by header name)
    snprintf(p, sizeof p, "%s/l/seed5/metrics.csv", fin);
    char *csv = read_all(p, NULL), want[64] = "?";
    int col = -1, c = 0;
    for (char *q = csv; q && *q != '\n'; q++)
        if (q == csv || q[-1] == ',') col = !strncmp(q, "val_loss,", 9) ? c : col, c++;
    char *last = NULL;
    for (char *q = csv ? strchr(csv, '\n') : NULL; q && q[1]; q = strchr(q + 1, '\n')) last = q + 1;
    for (int k = 0; last && k < col; k++) last = strchr(last, ',') + 1;
    if (last && col >= 0) snprintf(want, sizeof want, "\n| linear | 1 | %.4f |", strtod(last, NULL));
    CHECK(md && strstr(md, want) && strstr(md, "\n| softmax | 2 |"));
    if (!md || !strstr(md, want)) fprintf(stderr, "exit %d, want \"%s\"\n%s\n%s\n", rc, want + 1, e2e_out, md ? md : "");
    free(csv);
    free(md);
    snprintf(p, sizeof p, "%s/l/seed6/eval/summary.txt", fin);
    CHECK(rename(away, p) == 0);
}

// A '|' in a folder found without a plan (or in an edited plan) would shift
// the report's columns: refused by name.
static void test_pipe_in_found_folder(void) {
    char out[512], cmd[3000];
    tpath(out, sizeof out, "found");
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s/s' '%s/s' && cp -r '%s/l' '%s/l|2'", out, fin, out, fin, out);
    CHECK(system(cmd) == 0);
    char *argv[] = {"report", out, NULL};
    refused(argv, 1, "a '|' or '`' in a run's folder would break the report's tables", out);
    CHECK(strstr(e2e_out, "l|2/seed5") != NULL);
}

// Defect 14: an ablation.tsv that is a FIFO is an error, not "no plan".
static void test_plan_file_fifo(void) {
    char out[512], p[700];
    tpath(out, sizeof out, "fifo");
    mkdir(out, 0777);
    snprintf(p, sizeof p, "%s/ablation.tsv", out);
    CHECK(mkfifo(p, 0666) == 0);
    char *report[] = {"report", out, NULL};
    refused(report, 1, "is a FIFO", out);
    char *argv[] = {"ablate", cs, cl, "--out", out, "--plan", NULL};
    refused(argv, 1, "is a FIFO", out);
}

// Defect 13: temporary files of killed writers go when the next writer holds the lock.
static void test_stale_temps_removed(void) {
    char p[700], buf[512];
    const char *left[] = {"report.md.tmp-999999-0", "ablation.tsv.tmp-999999-1", "s/seed5/eval/summary.txt.tmp-999999-2",
                          "l/seed6/checkpoint.bin.tmp-999999-3"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", fin, left[i]);
        write_text(p, "half");
    }
    char *argv[] = {"ablate", cs, cl, cd, "--seeds", "2", "--out", fin, NULL};
    CHECK(run_lmtrain(argv) == 0);
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", fin, left[i]);
        CHECK(!file_exists(p));
    }
    CHECK(temp_files(fin, buf, sizeof buf) == 0);
    snprintf(p, sizeof p, "%s/%s", fin, left[0]);
    write_text(p, "half");
    char *report[] = {"report", fin, NULL};
    CHECK(run_lmtrain(report) == 0);
    CHECK(!file_exists(p));
}

// Defect 14: SIGINT while the report is written: not exit 0.
static void test_sigint_while_writing_report(void) {
    char log[512];
    tpath(log, sizeof log, "int.log");
    char *argv[] = {"ablate", cs, cl, cd, "--seeds", "2", "--out", fin, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "write@report.md", &st);
    CHECK(pid > 0);
    if (pid <= 0) return;
    pause_resume(pid, SIGINT);
    int rc = wait_status(pid);
    CHECK(rc == 130);
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(strstr(e2e_out, "interrupted while writing the report") != NULL);
}

// Defect 7: configs that differ in lr or steps: the header says what differs.
static void test_header_names_what_differs(void) {
    char fast[512], longer[512], out[512], p[700];
    write_cfg(fast, "lfast", "linear", 5, "lr = 5e-3\n");
    write_cfg(longer, "dlong", "linear_decay", 5, "steps = 15\n");
    tpath(out, sizeof out, "differ");
    char *argv[] = {"ablate", cs, fast, longer, "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    snprintf(p, sizeof p, "%s/report.md", out);
    char *r = read_all(p, NULL);
    CHECK(r && !strstr(r, "the same for every run"));
    CHECK(r && strstr(r, "differ in more than the attention module: train.lr, train.steps differ"));
    if (r && !strstr(r, "train.lr, train.steps differ")) fprintf(stderr, "%.900s\n", r);
    free(r);
    char *same[] = {"report", fin, NULL};
    CHECK(run_lmtrain(same) == 0);
    snprintf(p, sizeof p, "%s/report.md", fin);
    r = read_all(p, NULL);
    CHECK(r && strstr(r, "the optimiser and schedule are the same for every run") && !strstr(r, "Warning"));
    free(r);
}

// The lock is held across a run's very last write: a second writer with
// --overwrite, arriving while summary.txt is being written, is refused.
static void test_lock_held_across_last_write(void) {
    char run[512], log[512], p[700];
    tpath(run, sizeof run, "lastwrite");
    tpath(log, sizeof log, "lastwrite.log");
    char *argv[] = {"--config", cs, "--out", run, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "write@summary.txt", &st);
    CHECK(pid > 0);
    if (pid <= 0) return;
    char *second[] = {"--config", cl, "--out", run, "--overwrite", NULL};
    int rc = run_lmtrain(second);
    CHECK(rc == 1 && strstr(e2e_out, "another lmtrain (pid"));
    pause_resume(pid, 0);
    CHECK(wait_status(pid) == 0);
    snprintf(p, sizeof p, "%s/summary.txt", run);
    CHECK(file_exists(p));
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 6000);
    write_cfg(cs, "s", "softmax", 5, "");
    write_cfg(cl, "l", "linear", 5, "");
    write_cfg(cd, "d", "linear_decay", 5, "");
    TEST(test_different_seeds_refused);
    TEST(test_sweep_refusals);
    TEST(test_bad_run_names);
    TEST(test_dotdot_inside_a_name);
    TEST(test_out_newline_and_quoted_hint);
    TEST(test_out_is_a_single_run);
    TEST(test_finished_ablation);
    TEST(test_other_plan_refused);
    TEST(test_plan_and_report_while_ablate_runs);
    TEST(test_nonfinite_eval_refused);
    TEST(test_truncated_metrics_refused);
    TEST(test_nan_val_loss_refused);
    TEST(test_unevaluated_run_not_counted);
    TEST(test_plan_file_fifo);
    TEST(test_pipe_in_found_folder);
    TEST(test_stale_temps_removed);
    TEST(test_sigint_while_writing_report);
    TEST(test_header_names_what_differs);
    TEST(test_lock_held_across_last_write);
    e2e_teardown();
    return test_summary();
}
