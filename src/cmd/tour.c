// tour.c — `lmtrain tour`: the article's claims about linear attention, in
// its order, each shown by a measurement made on this machine now, in one
// offline page DIR/index.html (default runs/tour).
//
// Every measurement is a real lmtrain command run as a child process of this
// same binary (/proc/self/exe): its stdout and stderr go to DIR/logs/, and the
// page quotes the exact command line. The page is plain HTML with the SVG
// charts inline: no script, no font, nothing fetched.
//
// Training runs are reused: a run folder with a summary.txt is finished and
// is not trained again, and a step whose output file exists is not re-run
// (--fresh runs everything again). So a second `lmtrain tour` only rebuilds
// the page. --quick makes every run tiny (for tests: the page and its
// pictures, not the lesson).
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attention/feature_map.h"
#include "cmd/args.h"
#include "cmd/commands.h"
#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"

typedef struct {
    const char *out, *data;
    int quick, fresh;
    size_t steps;
} TourOpts;

typedef struct {
    TourOpts o;
    char dir[4096];
    FILE *page;   // the page being written (an AtomicFile's stream)
    int figures;  // ids of the inline SVGs made unique with this counter
    int failed;   // steps that failed (their section says so)
    int steps_done;  // for the progress lines "[k/N]"
} Tour;

enum { TOUR_STEPS = 10 };  // lab, 4 training runs, 2 inspects, eval, bench, the refusal

// ============================================================================
// child processes
// ============================================================================

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

// The command line as the reader would type it ("lmtrain ..."), for the page.
static void command_text(char *buf, size_t cap, char *const argv[]) {
    size_t n = (size_t)snprintf(buf, cap, "lmtrain");
    for (int i = 0; argv[i] && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, " %s", argv[i]);
}

// Runs `lmtrain ARGV...` (this binary) with stdout and stderr in DIR/logs/NAME.out
// and .err; returns its exit status (128 + signal if killed, -1 if it did not start).
static int run_child(Tour *t, const char *name, char *const argv[]) {
    char out[4300], err[4300], cmd[2000];
    snprintf(out, sizeof out, "%s/logs/%s.out", t->dir, name);
    snprintf(err, sizeof err, "%s/logs/%s.err", t->dir, name);
    command_text(cmd, sizeof cmd, argv);
    fprintf(stderr, "tour: [%d/%d] %s\n", ++t->steps_done, TOUR_STEPS, cmd);
    char *full[64];
    int n = 0;
    full[n++] = "lmtrain";
    for (int i = 0; argv[i] && n < 63; i++) full[n++] = argv[i];
    full[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0) _exit(127);
        execv("/proc/self/exe", full);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// A file's whole text (NULL if it cannot be read); the caller frees it.
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    char chunk[8192];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (!buf) buf = calloc(1, 1);
    else buf[n] = 0;
    return buf;
}

// ============================================================================
// the page
// ============================================================================

static const char *STYLE =
    "body{font-family:sans-serif;max-width:900px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}"
    "h2{margin-top:2.2em;border-bottom:1px solid #ddd}p.claim{font-size:1.1em}"
    "pre{background:#f5f5f5;padding:8px;overflow-x:auto;white-space:pre-wrap}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}"
    "p.see{background:#eef6ee;padding:6px 10px}p.fail{background:#fbeaea;padding:6px 10px}";

static void put_html(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static const char SVG_NS[] = " xmlns=\"http://www.w3.org/2000/svg\"";

// An SVG document inline, its ids ("id=", "url(#") prefixed so two charts' clip paths never meet.
static void put_svg(Tour *t, const char *doc) {
    int k = t->figures++;
    fputs("<figure>", t->page);
    for (const char *p = doc; *p;) {
        if (!strncmp(p, "id=\"", 4)) {
            fprintf(t->page, "id=\"t%d-", k);
            p += 4;
        } else if (!strncmp(p, "url(#", 5)) {
            fprintf(t->page, "url(#t%d-", k);
            p += 5;
        } else if (!strncmp(p, "<?xml", 5)) {
            const char *e = strstr(p, "?>");
            p = e ? e + 2 : p + strlen(p);
        } else if (!strncmp(p, SVG_NS, strlen(SVG_NS))) {  // HTML needs no namespace: the page names no URL
            p += strlen(SVG_NS);
        } else {
            fputc(*p++, t->page);
        }
    }
    fputs("</figure>\n", t->page);
}

// The SVG file at DIR/rel inline, or a line saying it is missing.
static void put_svg_file(Tour *t, const char *rel) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", t->dir, rel);
    char *doc = slurp(path);
    if (doc && strstr(doc, "<svg")) put_svg(t, doc);
    else fprintf(t->page, "<p class=\"fail\">missing picture: %s (see logs/)</p>\n", rel), t->failed++;
    free(doc);
}

// A chart made here, inline.
static void put_chart(Tour *t, const SvgChart *c, const SvgSeries *s, size_t n, const SvgStyle *st) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) {
        fprintf(stderr, "lmtrain: out of memory\n");
        exit(1);
    }
    svg_styled_chart_fprint(m, c, NULL, s, NULL, n, st);
    fclose(m);
    put_svg(t, buf);
    free(buf);
}

static void section(Tour *t, const char *id, const char *title, const char *claim) {
    fprintf(t->page, "<h2 id=\"%s\">", id);
    put_html(t->page, title);
    fputs("</h2>\n<p class=\"claim\">", t->page);
    put_html(t->page, claim);
    fputs("</p>\n", t->page);
}

static void command(Tour *t, char *const argv[], int status) {
    char cmd[2000];
    command_text(cmd, sizeof cmd, argv);
    fputs("<pre>$ ", t->page);
    put_html(t->page, cmd);
    fputs("</pre>\n", t->page);
    if (status != 0) fprintf(t->page, "<p class=\"fail\">this command exited with status %d (its output is in logs/)</p>\n", status), t->failed++;
}

static void see(Tour *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void see(Tour *t, const char *fmt, ...) {
    char buf[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs("<p class=\"see\">What to see: ", t->page);
    put_html(t->page, buf);
    fputs("</p>\n", t->page);
}

// ============================================================================
// reading what the commands wrote
// ============================================================================

// The numeric column `col` (from 0) of the CSV file's data rows whose text
// columns match: want[c] non-NULL means column c must equal it. Up to cap values.
static size_t csv_column(const char *path, size_t col, const char *const want[8], double *v, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    size_t n = 0;
    if (!fgets(line, sizeof line, f)) line[0] = 0;  // the header
    while (n < cap && fgets(line, sizeof line, f)) {
        char *cell[16];
        size_t k = 0;
        for (char *p = line; k < 16;) {
            cell[k++] = p;
            char *c = strpbrk(p, ",\n");
            if (!c) break;
            int end = *c == '\n';
            *c = 0;
            if (end) break;
            p = c + 1;
        }
        int ok = col < k;
        for (size_t c = 0; c < 8 && ok; c++)
            if (want && want[c] && (c >= k || strcmp(cell[c], want[c]))) ok = 0;
        if (ok) v[n++] = cell[col][0] ? strtod(cell[col], NULL) : NAN;
    }
    fclose(f);
    return n;
}

// ============================================================================
// the measurements
// ============================================================================

enum { MAX_ARGS = 40 };
typedef struct {
    char *v[MAX_ARGS];
    char store[MAX_ARGS][300];
    int n;
} Argv;

static void arg(Argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(Argv *a, const char *fmt, ...) {
    if (a->n >= MAX_ARGS - 1) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
    va_end(ap);
    a->v[a->n] = a->store[a->n];
    a->v[++a->n] = NULL;
}

// A short training run into DIR/runs/NAME, unless a finished one is there.
static int train(Tour *t, Argv *a, const char *name, const char *config, size_t steps, const char *const sets[]) {
    char dir[4200], done[4300];
    snprintf(dir, sizeof dir, "%s/runs/%s", t->dir, name);
    snprintf(done, sizeof done, "%s/summary.txt", dir);
    *a = (Argv){0};
    arg(a, "--config");
    arg(a, "%s", config);
    arg(a, "--out");
    arg(a, "%s", dir);
    arg(a, "--set");
    arg(a, "train.steps=%zu", steps);
    arg(a, "--set");
    arg(a, "train.eval_every=%zu", steps / 4 ? steps / 4 : 1);
    arg(a, "--set");
    arg(a, "train.checkpoint_every=%zu", steps);
    for (int i = 0; sets && sets[i]; i++) {
        arg(a, "--set");
        arg(a, "%s", sets[i]);
    }
    if (t->o.data) {
        arg(a, "--set");
        arg(a, "data.path=%s", t->o.data);
    }
    if (t->o.quick) {  // a model small enough for a test to train in seconds
        static const char *const tiny[] = {"model.layers=2", "model.d_model=32", "model.block_size=32",
                                           "train.batch_size=4", "train.eval_batches=2", "train.warmup=1", NULL};
        for (int i = 0; tiny[i]; i++) {
            arg(a, "--set");
            arg(a, "%s", tiny[i]);
        }
    }
    if (!t->o.fresh && exists(done)) {
        fprintf(stderr, "tour: [%d/%d] runs/%s is finished: reused\n", ++t->steps_done, TOUR_STEPS, name);
        return 0;
    }
    // an unfinished run of the tour's own (stopped by Ctrl-C, say): continued from its checkpoint, or
    // trained again if it never saved one
    char ck[4300];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    if (exists(ck)) arg(a, "--resume");
    else if (exists(dir)) arg(a, "--overwrite");
    return run_child(t, name, a->v);
}

// `lmtrain ARGS` unless DIR/done_file exists (a finished step is reused)
static int step(Tour *t, const char *name, Argv *a, const char *done_file) {
    char done[4400];
    snprintf(done, sizeof done, "%s/%s", t->dir, done_file);
    if (!t->o.fresh && exists(done)) {
        fprintf(stderr, "tour: [%d/%d] %s is there: reused\n", ++t->steps_done, TOUR_STEPS, done_file);
        return 0;
    }
    return run_child(t, name, a->v);
}

// ============================================================================
// the sections, in the article's order
// ============================================================================

static const char *const RULES[] = {"sum", "decay", "delta-sum", "delta-l2"};

// 1. a layer whose weights S each token writes: one key written twice
static void s_write(Tour *t, Argv *lab, int st) {
    section(t, "write", "1. Attention as a layer whose weights each token writes",
            "Linear attention keeps a matrix S that every token writes, S ← λS + φ(k)vᵀ, and reads with "
            "φ(q)ᵀS; the write rule decides what happens when a key comes back.");
    command(t, lab->v, st);
    char path[4400];
    snprintf(path, sizeof path, "%s/lab/overwrite.csv", t->dir);
    static const double dhs[3] = {16, 32, 64};
    double share[4][3], a[8], b[8];
    SvgSeries s[4];
    int marker[4];
    size_t ns = 0;
    for (int r = 0; r < 4; r++) {
        const char *want[8] = {"gaussian", "elu1", NULL, RULES[r]};
        size_t n = csv_column(path, 4, want, a, 3);
        if (csv_column(path, 5, want, b, 3) != n || n != 3) continue;
        for (int d = 0; d < 3; d++) share[ns][d] = fabs(b[d]) / (fabs(a[d]) + fabs(b[d]));
        s[ns] = (SvgSeries){RULES[r], dhs, share[ns], 3, r % 3, r + 1};
        marker[ns] = SVG_MARK_CIRCLE + r;
        ns++;
    }
    SvgChart c = {"One key written twice (v1, then v2): how much of v2 comes back", "head size dh",
                  "share of v2 in the read-out, |b| / (|a| + |b|)", 1, 0};
    SvgStyle sty = {.yzero = 1, .marker = marker};
    put_chart(t, &c, s, ns, &sty);
    see(t, "the sum and decay rules answer the repeated key with a blend of v1 and v2 (share near 0.5): "
           "the old value is never removed; delta-l2 subtracts what the key already reads before it writes, "
           "so v2 comes back alone (share 1).");
}

// 2. what the state holds: pairs against dh
static void s_capacity(Tour *t, Argv *lab, int st) {
    section(t, "capacity", "2. What the state holds: pairs against head size dh",
            "A dh × dh state holds on the order of dh key/value pairs: as the pairs per state (N/dh) grow, the "
            "read-outs blur into each other.");
    command(t, lab->v, st);
    put_svg_file(t, "lab/recall_acc_identity.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/lab/recall.csv", t->dir);
    const char *want[8] = {"gaussian", "identity", "64", NULL, NULL, "sum"};
    double acc[8], ratio[8];
    size_t n = csv_column(path, 7, want, acc, 8);
    csv_column(path, 4, want, ratio, 8);
    if (n >= 6)
        see(t, "each line falls as N/dh grows: at dh = 64 the sum rule reads back %.0f %% of the pairs at N/dh = %g "
               "and %.0f %% at N/dh = %g; a larger dh holds proportionally more.",
            100 * acc[2], ratio[2], 100 * acc[5], ratio[5]);
    else
        see(t, "each line falls as N/dh grows; a larger dh holds proportionally more.");
}

// 3. λ and its horizon
static void s_horizon(Tour *t, Argv *tr, int st_tr, Argv *ins, int st_ins, size_t block) {
    section(t, "horizon", "3. λ and its horizon",
            "With decay, a token n steps back weighs λⁿ: each head forgets after about 1/(1−λ) tokens, a "
            "horizon it learns.");
    command(t, tr->v, st_tr);
    command(t, ins->v, st_ins);
    put_svg_file(t, "runs/decay/inspect/lambda_horizon.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/runs/decay/inspect/lambda.csv", t->dir);
    double h[256];
    size_t n = csv_column(path, 4, NULL, h, 256);
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, h[i]), hi = fmax(hi, h[i]);
    if (n)
        see(t, "one point per head: horizons from %.0f to %.0f tokens after this short run, against the "
               "training window of %zu (the dashed black line): memory past it is memory training never used.",
            lo, hi, block);
    else
        see(t, "one point per head against the training window (the dashed black line).");
}

// 4. cost against length; a fixed state against a KV cache
static void s_cost(Tour *t, Argv *bench, int st_b, Argv *ins, int st_ins) {
    section(t, "cost", "4. Cost against length, and a state of fixed size",
            "Softmax attention costs O(N²) and keeps a KV cache that grows with every token; linear attention "
            "costs O(N) and keeps one state of fixed size.");
    command(t, bench->v, st_b);
    put_svg_file(t, "bench/cost_vs_length.svg");
    command(t, ins->v, st_ins);
    put_svg_file(t, "runs/decay/inspect/memory.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/bench/cost_vs_length.csv", t->dir);
    const char *kinds[2] = {"softmax", "linear_decay"};
    double us[2][16], len[16];
    size_t n[2];
    for (int k = 0; k < 2; k++) {
        const char *want[8] = {kinds[k], NULL, "ok"};
        n[k] = csv_column(path, 7, want, us[k], 16);
        if (k == 0) csv_column(path, 1, want, len, 16);
    }
    if (n[0] >= 2 && n[0] == n[1])
        see(t, "from %.0f to %.0f tokens softmax's time per token grew %.1f× and linear_decay's %.1f× (the first "
               "chart); in the second, the KV cache's bytes climb with every token and the state's line stays level.",
            len[0], len[n[0] - 1], us[0][n[0] - 1] / us[0][0], us[1][n[1] - 1] / us[1][0]);
    else
        see(t, "softmax's time per token grows with length and linear_decay's much less (the first chart); the KV "
               "cache's bytes climb with every token and the state's line stays level (the second).");
}

// 5. training form = generation form
static void s_forms(Tour *t, Argv *ins, int st) {
    section(t, "forms", "5. Training form = generation form",
            "The chunkwise-parallel form used in training and the one-token recurrent form used in generation "
            "compute the same function.");
    command(t, ins->v, st);
    char path[4400];
    snprintf(path, sizeof path, "%s/runs/decay/inspect/report.txt", t->dir);
    char *rep = slurp(path);
    double x[64], d[64], rel[64];
    size_t n = 0;
    for (const char *p = rep ? strstr(rep, "attn layer ") : NULL; p && n < 63; p = strstr(p + 1, "attn layer ")) {
        unsigned layer;
        double mv;
        if (sscanf(p, "attn layer %u %lf %lf %lf", &layer, &d[n], &mv, &rel[n]) == 4) x[n] = layer, n++;
    }
    free(rep);
    double eps[64];  // the scale to read them against: one float32 rounding
    for (size_t i = 0; i < n; i++) eps[i] = 5.96e-8;
    SvgSeries s[3] = {{"max |difference|", x, d, n, 0, 1}, {"relative to max |value|", x, rel, n, 1, 2},
                      {"float32 rounding 6e-8", x, eps, n, 2, 7}};
    SvgChart c = {"Attention output: training form against generation form, per layer", "layer",
                  "difference (log scale)", 0, 1};
    SvgStyle sty = {.xint = 1};
    put_chart(t, &c, s, 3, &sty);
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, rel[i]);
    if (n)
        see(t, "the largest relative difference over %zu layers is %.1e: float32 rounding (about 6e-8 per "
               "operation), not a different function; the two forms only sum in different orders.", n, worst);
    else
        see(t, "differences at float32 rounding level (about 1e-7 relative).");
}

// 6. φ positive, and the normaliser
static void s_phi(Tour *t, Argv *ref, int st) {
    section(t, "phi", "6. φ positive, and the normaliser",
            "The read-out divides by φ(q)ᵀz, a sum of φ(q)·φ(k); that is a safe denominator only if φ is "
            "positive, so lmtrain refuses identity φ with normalize = true.");
    static double x[61], y[3][61];
    static const FeatureMap maps[3] = {FMAP_ELU1, FMAP_RELU, FMAP_IDENTITY};
    for (int i = 0; i < 61; i++) {
        x[i] = -3 + i * 0.1;
        for (int m = 0; m < 3; m++) y[m][i] = fmap_phi(maps[m], (float)x[i]);
    }
    SvgSeries s[3] = {{"elu1: elu(x) + 1", x, y[0], 61, 0, 1}, {"relu", x, y[1], 61, 1, 2},
                      {"identity", x, y[2], 61, 2, 3}};
    SvgChart c = {"The feature maps φ (lmtrain's own fmap_phi)", "x", "φ(x)", 0, 0};
    put_chart(t, &c, s, 3, NULL);
    char cmd[2000];
    command_text(cmd, sizeof cmd, ref->v);
    fputs("<pre>$ ", t->page);
    put_html(t->page, cmd);
    fprintf(t->page, "\n(exit status %d)\n", st);
    char path[4400];
    snprintf(path, sizeof path, "%s/logs/refused.err", t->dir);
    char *err = slurp(path);
    put_html(t->page, err ? err : "(no stderr)");
    free(err);
    fputs("</pre>\n", t->page);
    if (st != 2) fprintf(t->page, "<p class=\"fail\">expected a refusal with exit status 2, got %d</p>\n", st), t->failed++;
    see(t, "elu1 is above 0 everywhere, so φ(q)ᵀz is a sum of positive terms; identity goes negative, and the "
           "real command above refuses it (exit 2) before anything trains, saying why.");
}

// 7. float32 state: float16 drift
static void s_fp16(Tour *t, Argv *ins_l, int st_l, Argv *ins_d, int st_d) {
    section(t, "fp16", "7. The state in float32",
            "The state sums every write; stored in float16 (11 significant bits) it drifts from the float32 one, "
            "and without decay the drift only grows (until the state overflows float16's 65 504).");
    command(t, ins_l->v, st_l);
    put_svg_file(t, "runs/linear/inspect/fp16_drift.svg");
    command(t, ins_d->v, st_d);
    put_svg_file(t, "runs/decay/inspect/fp16_drift.svg");
    // the largest relative error over every layer's S and z at the last row, and where a line first stops
    const char *runs[2] = {"linear", "decay"};
    double worst[2] = {0, 0}, at[2] = {0, 0}, stop_at = NAN;
    for (int r = 0; r < 2; r++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/runs/%s/inspect/fp16_drift.csv", t->dir, runs[r]);
        double tok[256], err[256];
        size_t n = csv_column(path, 0, NULL, tok, 256);
        for (size_t col = 1; col < 16 && n; col++) {
            if (csv_column(path, col, NULL, err, 256) != n) break;
            for (size_t i = 0; i < n; i++)
                if (!isfinite(err[i])) {
                    if (r == 0 && i > 0 && !(tok[i - 1] >= stop_at)) stop_at = tok[i - 1];
                    break;
                }
            if (isfinite(err[n - 1])) worst[r] = fmax(worst[r], err[n - 1]);
            at[r] = tok[n - 1];
        }
    }
    if (isfinite(stop_at))
        see(t, "without decay (first chart) the float16 state overflows: a line ends in a cross, the first after "
               "%.0f tokens; with decay (second chart) the error levels off, %.2g after %.0f tokens.",
            stop_at, worst[1], at[1]);
    else if (at[0] > 0 && at[1] > 0)
        see(t, "without decay (first chart) the float16 state's error keeps climbing, to %.2g after %.0f tokens "
               "(a line that ends in a cross would mark an overflow); with decay (second chart) it levels off, "
               "%.2g after %.0f tokens.", worst[0], at[0], worst[1], at[1]);
    else
        see(t, "the float16 state's relative error climbs without decay (first chart) and levels off with decay "
               "(second chart).");
}

// 8. exact recall: the sum fails, the delta rule corrects
static void s_recall(Tour *t, Argv *lin, int st_l, Argv *del, int st_d) {
    section(t, "recall", "8. Exact recall: where the sum fails and the delta rule corrects",
            "A sum of outer products cannot forget, so keys that share features read back a blend; the delta "
            "rule writes only the correction v − Sᵀk, and recalls exactly.");
    command(t, lin->v, st_l);
    command(t, del->v, st_d);
    static double step[2][64], acc[2][64];
    size_t n[2];
    SvgSeries s[2];
    const char *names[2] = {"recall_linear", "recall_delta"}, *labels[2] = {"linear (sum)", "delta"};
    for (int k = 0; k < 2; k++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/runs/%s/metrics.csv", t->dir, names[k]);
        double v[4096], st2[4096];
        size_t m = csv_column(path, 5, NULL, v, 4096);
        csv_column(path, 0, NULL, st2, 4096);
        n[k] = 0;
        for (size_t i = 0; i < m && n[k] < 64; i++)
            if (isfinite(v[i])) step[k][n[k]] = st2[i], acc[k][n[k]++] = v[i];
        s[k] = (SvgSeries){labels[k], step[k], acc[k], n[k], k, k + 1};
    }
    SvgChart c = {"Associative recall: validation accuracy while training", "step", "val accuracy", 0, 0};
    SvgStyle sty = {.yzero = 1};
    put_chart(t, &c, s, 2, &sty);
    if (n[0] && n[1])
        see(t, "after the same steps the delta rule reads back %.0f %% of the queried values and the sum %.0f %%: "
               "the same state, a different write.", 100 * acc[1][n[1] - 1], 100 * acc[0][n[0] - 1]);
    else
        see(t, "the delta rule's accuracy climbs above the sum's with the same state size.");
}

// 9. past the training window
static void s_window(Tour *t, Argv *ev, int st, size_t block, size_t length) {
    section(t, "window", "9. Past the training window",
            "Without position embeddings (pos = none) the recurrence runs on past block_size; what it has "
            "learned to do there is measured, not assumed.");
    command(t, ev->v, st);
    char rel[200], path[4400];
    snprintf(rel, sizeof rel, "runs/decay/eval/loss_by_position_%zu.svg", length);
    put_svg_file(t, rel);
    snprintf(path, sizeof path, "%s/runs/decay/eval/loss_by_position_%zu.csv", t->dir, length);
    double loss[1 << 14];
    size_t n = csv_column(path, 1, NULL, loss, 1 << 14);
    double in = 0, out = 0;
    size_t ni = 0, no = 0;
    for (size_t i = block / 2; i < n; i++)
        if (isfinite(loss[i])) {
            if (i < block) in += loss[i], ni++;
            else out += loss[i], no++;
        }
    if (ni && no)
        see(t, "the dashed line marks the training window (%zu tokens); the mean loss is %.3f in its second half "
               "and %.3f past it.", block, in / (double)ni, out / (double)no);
    else
        see(t, "the dashed line marks the training window (%zu tokens): compare the loss on either side.", block);
}

// ============================================================================
// the command
// ============================================================================

static int parse(int argc, char **argv, TourOpts *o) {
    *o = (TourOpts){.out = "runs/tour", .steps = 300};
    const ArgOpt opts[] = {
        {"--out", ARG_STRING, &o->out, "DIR", .help = "where the runs, logs and index.html go"},
        {"--steps", ARG_SIZE, &o->steps, "N", .help = "training steps of the short runs", .lo = 4, .hi = 1e6},
        {"--data", ARG_STRING, &o->data, "FILE", .help = "the text corpus of the training runs",
         .shown_default = "the configs' data/tinyshakespeare.txt"},
        {"--quick", ARG_FLAG, &o->quick, NULL, .help = "tiny models and few steps: the page and its pictures "
                                                     "in seconds, not the lesson (for tests)"},
        {"--fresh", ARG_FLAG, &o->fresh, NULL, .help = "run every step again instead of reusing finished ones"},
    };
    const ArgSpec spec = {"tour", "[options]",
                          "The article's claims about linear attention, in order, each shown by a measurement\n"
                          "made on this machine now: one offline page DIR/index.html. Finished runs and steps\n"
                          "are reused, so a second tour only rebuilds the page.",
                          ARGS_TABLE(opts)};
    return args_parse(&spec, argc, argv);
}

int cmd_tour(int argc, char **argv) {
    Tour t = {0};
    int rc = parse(argc, argv, &t.o);
    if (rc) return args_status(rc);
    if (t.o.quick && t.o.steps == 300) t.o.steps = 4;
    // the command lines are kept in fixed cells (Argv.store): paths that long are refused, not cut
    if (strlen(t.o.out) > 200 || (t.o.data && strlen(t.o.data) > 200))
        return err_set(ERR_USAGE, "tour: --out and --data are limited to 200 characters here");
    snprintf(t.dir, sizeof t.dir, "%s", t.o.out);
    // refused before anything is made: the configs the runs start from, and the corpus
    static const char *const configs[] = {"configs/linear_decay.ini", "configs/linear.ini",
                                          "configs/recall_linear.ini", "configs/recall_delta.ini"};
    for (int i = 0; i < 4; i++)
        if (access(configs[i], R_OK))
            return err_set(ERR_USAGE, "tour: %s: %s (run the tour from lmtrain's folder, where configs/ is)",
                           configs[i], strerror(errno));
    const char *corpus = t.o.data ? t.o.data : "data/tinyshakespeare.txt";
    struct stat cs;
    int bad = stat(corpus, &cs) ? errno : !S_ISREG(cs.st_mode) ? -1 : access(corpus, R_OK) ? errno : 0;
    if (bad)
        return err_set(ERR_USAGE, "tour: the corpus %s: %s (%s)", corpus, bad > 0 ? strerror(bad) : "not a regular file",
                       t.o.data ? "--data FILE names it" : "`make data` puts it there, or give --data FILE");
    char logs[4200];
    snprintf(logs, sizeof logs, "%s/logs", t.dir);
    if ((rc = make_dirs(logs))) return rc;
    size_t steps = t.o.steps, block = t.o.quick ? 32 : 64, length = 4 * block;
    // the estimate, before anything runs: what is left to train (the rest takes seconds); measured with
    // the defaults (300 steps, all 4 runs): about 50 CPU-s for the whole tour on a Zen 5
    static const char *const run_names[] = {"decay", "linear", "recall_linear", "recall_delta"};
    int to_train = 0;
    for (int i = 0; i < 4; i++) {
        char done[4300];
        snprintf(done, sizeof done, "%s/runs/%s/summary.txt", t.dir, run_names[i]);
        to_train += t.o.fresh || !exists(done);
    }
    if (to_train)
        fprintf(stderr, "tour: %d short training run%s of %zu steps to make, then the lab, inspect, eval and a small "
                        "bench: about %.0f CPU-s%s\n", to_train, to_train == 1 ? "" : "s", steps,
                t.o.quick ? 5.0 : 10.0 + 10.0 * to_train * (double)steps / 300,
                t.o.quick ? "" : " (a minute or two on a 2-core laptop)");
    else
        fprintf(stderr, "tour: every training run is finished (reused): only the measurements and the page\n");

    Argv lab = {0}, tr_d, tr_l, rec_l, rec_d, ins_d = {0}, ins_l = {0}, ev = {0}, bench = {0}, ref = {0};
    arg(&lab, "lab");
    arg(&lab, "--out");
    arg(&lab, "%s/lab", t.dir);
    arg(&lab, "--trials");
    arg(&lab, "%d", t.o.quick ? 2 : 20);
    int st_lab = step(&t, "lab", &lab, "lab/overwrite.csv");

    static const char *const no_pos[] = {"model.pos=none", NULL};
    int st_trd = train(&t, &tr_d, "decay", "configs/linear_decay.ini", steps, no_pos);
    int st_trl = train(&t, &tr_l, "linear", "configs/linear.ini", steps, no_pos);
    char pairs[40];
    snprintf(pairs, sizeof pairs, "data.pairs=%d", t.o.quick ? 2 : 4);
    const char *const rec_sets[] = {pairs, "data.val_examples=200", NULL};
    int st_rl = train(&t, &rec_l, "recall_linear", "configs/recall_linear.ini", steps, rec_sets);
    int st_rd = train(&t, &rec_d, "recall_delta", "configs/recall_delta.ini", steps, rec_sets);

    const char *kinds[2] = {"decay", "linear"};
    Argv *ins[2] = {&ins_d, &ins_l};
    int st_ins[2];
    for (int k = 0; k < 2; k++) {
        arg(ins[k], "inspect");
        arg(ins[k], "--run");
        arg(ins[k], "%s/runs/%s", t.dir, kinds[k]);
        if (t.o.quick) {
            arg(ins[k], "--stretch");
            arg(ins[k], "256");
        }
        char done[100], name[40];
        snprintf(done, sizeof done, "runs/%s/inspect/report.txt", kinds[k]);
        snprintf(name, sizeof name, "inspect_%s", kinds[k]);
        st_ins[k] = (k ? st_trl : st_trd) ? -1 : step(&t, name, ins[k], done);
    }
    arg(&ev, "eval");
    arg(&ev, "--run");
    arg(&ev, "%s/runs/decay", t.dir);
    arg(&ev, "--length");
    arg(&ev, "%zu", length);
    char ev_done[100];
    snprintf(ev_done, sizeof ev_done, "runs/decay/eval/loss_by_position_%zu.csv", length);
    int st_ev = st_trd ? -1 : step(&t, "eval", &ev, ev_done);

    arg(&bench, "bench");
    arg(&bench, "--part");
    arg(&bench, "length");
    arg(&bench, "--quick");
    arg(&bench, "--kinds");
    arg(&bench, "softmax,linear_decay");
    arg(&bench, "--seq");
    arg(&bench, "%s", t.o.quick ? "64,128" : "256,1024,4096");
    arg(&bench, "--threads");
    arg(&bench, "1");
    arg(&bench, "--out");
    arg(&bench, "%s/bench", t.dir);
    int st_bench = step(&t, "bench", &bench, "bench/cost_vs_length.svg");

    // the refusal: identity φ with the normaliser; it must exit 2 and write nothing
    arg(&ref, "--config");
    arg(&ref, "configs/linear.ini");
    arg(&ref, "--set");
    arg(&ref, "attention.feature_map=identity");
    arg(&ref, "--set");
    arg(&ref, "attention.normalize=true");
    arg(&ref, "--out");
    arg(&ref, "%s/runs/refused", t.dir);
    int st_ref = run_child(&t, "refused", ref.v);

    // the page
    char path[4300];
    snprintf(path, sizeof path, "%s/index.html", t.dir);
    AtomicFile page;
    if ((rc = atomic_open(&page, path))) return rc;
    t.page = page.f;
    fprintf(t.page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<title>lmtrain tour: linear attention, measured</title><style>%s</style></head><body>\n", STYLE);
    fputs("<h1>Linear attention, measured on this machine</h1>\n<p>Each section states one claim of the article "
          "lmtrain was built from, the command that measured it here (its full output is in <code>logs/</code>), "
          "the picture, and what to see in it.", t.page);
    if (t.o.quick) fputs(" <strong>Built with --quick: tiny models and a few steps, so the numbers show the "
                         "machinery, not the lesson.</strong>", t.page);
    fputs("</p>\n", t.page);
    s_write(&t, &lab, st_lab);
    s_capacity(&t, &lab, st_lab);
    s_horizon(&t, &tr_d, st_trd, &ins_d, st_ins[0], block);
    s_cost(&t, &bench, st_bench, &ins_d, st_ins[0]);
    s_forms(&t, &ins_d, st_ins[0]);
    s_phi(&t, &ref, st_ref);
    s_fp16(&t, &ins_l, st_ins[1], &ins_d, st_ins[0]);
    s_recall(&t, &rec_l, st_rl, &rec_d, st_rd);
    s_window(&t, &ev, st_ev, block, length);
    fputs("</body></html>\n", t.page);
    if ((rc = atomic_commit(&page))) return rc;
    printf("tour: %s (%d sections%s)\n", path, 9, t.failed ? ", some steps failed: see the page and logs/" : "");
    if (t.failed) return err_set(ERR_RUNTIME, "tour: %d step%s failed (their sections say which; logs in %s)",
                                 t.failed, t.failed == 1 ? "" : "s", logs);
    return 0;
}
