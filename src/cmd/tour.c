// tour.c — `lmtrain tour`: the article's claims about linear attention, in
// its order, each shown by a measurement made on this machine now, in one
// offline page DIR/index.html (default runs/tour).
//
// Every measurement is a real lmtrain command run as a child process of this
// same binary (tour_run.c), and the page (tour_page.c) quotes its exact
// command line. This file: the steps, and the ten sections in order.
//
// Training runs are reused: a run folder with a summary.txt is finished and
// is not trained again, and a step whose output file exists is not re-run
// (--fresh runs everything again). So a second `lmtrain tour` only rebuilds
// the page. --quick makes every run tiny (for tests: the page and its
// pictures, not the lesson).
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attention/feature_map.h"
#include "cmd/args.h"
#include "cmd/commands.h"
#include "cmd/tour.h"
#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"

// A short training run into DIR/runs/NAME, unless a finished one is there.
static int train(Tour *t, Argv *a, const char *name, const char *config, size_t steps, const char *const sets[]) {
    char dir[4200], done[4300];
    snprintf(dir, sizeof dir, "%s/runs/%s", t->dir, name);
    snprintf(done, sizeof done, "%s/summary.txt", dir);
    *a = (Argv){0};
    tour_arg(a, "--config");
    tour_arg(a, "%s", config);
    tour_arg(a, "--out");
    tour_arg(a, "%s", dir);
    tour_arg(a, "--set");
    tour_arg(a, "train.steps=%zu", steps);
    tour_arg(a, "--set");
    tour_arg(a, "train.eval_every=%zu", steps / 4 ? steps / 4 : 1);
    tour_arg(a, "--set");
    tour_arg(a, "train.checkpoint_every=%zu", steps);
    for (int i = 0; sets && sets[i]; i++) {
        tour_arg(a, "--set");
        tour_arg(a, "%s", sets[i]);
    }
    if (t->o.data) {
        tour_arg(a, "--set");
        tour_arg(a, "data.path=%s", t->o.data);
    }
    if (t->o.quick) {  // a model small enough for a test to train in seconds
        static const char *const tiny[] = {"model.layers=2", "model.d_model=32", "model.block_size=32",
                                           "train.batch_size=4", "train.eval_batches=2", "train.warmup=1", NULL};
        for (int i = 0; tiny[i]; i++) {
            tour_arg(a, "--set");
            tour_arg(a, "%s", tiny[i]);
        }
    }
    if (!t->o.fresh && tour_exists(done)) {
        fprintf(stderr, "tour: [%d/%d] runs/%s is finished: reused\n", ++t->steps_done, TOUR_STEPS, name);
        return 0;
    }
    // an unfinished run of the tour's own (stopped by Ctrl-C, say): continued from its checkpoint, or
    // trained again if it never saved one
    char ck[4300];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    if (tour_exists(ck)) tour_arg(a, "--resume");
    else if (tour_exists(dir)) tour_arg(a, "--overwrite");
    return tour_run_child(t, name, a->v);
}

// `lmtrain ARGS` unless DIR/done_file exists (a finished step is reused)
static int step(Tour *t, const char *name, Argv *a, const char *done_file) {
    char done[4400];
    snprintf(done, sizeof done, "%s/%s", t->dir, done_file);
    if (!t->o.fresh && tour_exists(done)) {
        fprintf(stderr, "tour: [%d/%d] %s is there: reused\n", ++t->steps_done, TOUR_STEPS, done_file);
        return 0;
    }
    return tour_run_child(t, name, a->v);
}

// ============================================================================
// the sections, in the article's order
// ============================================================================

static const char *const RULES[] = {"sum", "decay", "delta-sum", "delta-l2"};

// 1. a layer whose weights S each token writes: one key written twice
static void s_write(Tour *t, Argv *lab, int st) {
    tour_section(t, "write", "1. Attention as a layer whose weights each token writes",
            "Linear attention keeps a matrix S that every token writes, S ← λS + φ(k)vᵀ, and reads with "
            "φ(q)ᵀS; the write rule decides what happens when a key comes back.");
    tour_command(t, lab->v, st);
    char path[4400];
    snprintf(path, sizeof path, "%s/lab/overwrite.csv", t->dir);
    static const double dhs[3] = {16, 32, 64};
    double share[4][3], a[8], b[8];
    SvgSeries s[4];
    int marker[4];
    size_t ns = 0;
    for (int r = 0; r < 4; r++) {
        const char *want[8] = {"gaussian", "elu1", NULL, RULES[r]};
        size_t n = tour_csv_column(path, 4, want, a, 3);
        if (tour_csv_column(path, 5, want, b, 3) != n || n != 3) continue;
        for (int d = 0; d < 3; d++) share[ns][d] = fabs(b[d]) / (fabs(a[d]) + fabs(b[d]));
        s[ns] = (SvgSeries){RULES[r], dhs, share[ns], 3, r % 3, r + 1};
        marker[ns] = SVG_MARK_CIRCLE + r;
        ns++;
    }
    SvgChart c = {"One key written twice (v1, then v2): how much of v2 comes back", "head size dh",
                  "share of v2 in the read-out, |b| / (|a| + |b|)", 1, 0};
    SvgStyle sty = {.yzero = 1, .marker = marker};
    tour_put_chart(t, &c, s, ns, &sty);
    tour_see(t, "the sum and decay rules answer the repeated key with a blend of v1 and v2 (share near 0.5): "
           "the old value is never removed; delta-l2 subtracts what the key already reads before it writes, "
           "so v2 comes back alone (share 1).");
}

// 2. what the state holds: pairs against dh
static void s_capacity(Tour *t, Argv *lab, int st) {
    tour_section(t, "capacity", "2. What the state holds: pairs against head size dh",
            "A dh × dh state holds on the order of dh key/value pairs: as the pairs per state (N/dh) grow, the "
            "read-outs blur into each other.");
    tour_command(t, lab->v, st);
    tour_put_svg_file(t, "lab/recall_acc_identity.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/lab/recall.csv", t->dir);
    const char *want[8] = {"gaussian", "identity", "64", NULL, NULL, "sum"};
    double acc[8], ratio[8];
    size_t n = tour_csv_column(path, 7, want, acc, 8);
    tour_csv_column(path, 4, want, ratio, 8);
    if (n >= 6)
        tour_see(t, "each line falls as N/dh grows: at dh = 64 the sum rule reads back %.0f %% of the pairs at N/dh = %g "
               "and %.0f %% at N/dh = %g; a larger dh holds proportionally more.",
            100 * acc[2], ratio[2], 100 * acc[5], ratio[5]);
    else
        tour_see(t, "each line falls as N/dh grows; a larger dh holds proportionally more.");
}

// 3. λ and its horizon
static void s_horizon(Tour *t, Argv *tr, int st_tr, Argv *ins, int st_ins, size_t block) {
    tour_section(t, "horizon", "3. λ and its horizon",
            "With decay, a token n steps back weighs λⁿ: each head forgets after about 1/(1−λ) tokens, a "
            "horizon it learns.");
    tour_command(t, tr->v, st_tr);
    tour_command(t, ins->v, st_ins);
    tour_put_svg_file(t, "runs/decay/inspect/lambda_horizon.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/runs/decay/inspect/lambda.csv", t->dir);
    double h[256];
    size_t n = tour_csv_column(path, 4, NULL, h, 256);
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, h[i]), hi = fmax(hi, h[i]);
    if (n)
        tour_see(t, "one point per head: horizons from %.0f to %.0f tokens after this short run, against the "
               "training window of %zu (the dashed black line): memory past it is memory training never used.",
            lo, hi, block);
    else
        tour_see(t, "one point per head against the training window (the dashed black line).");
}

// 4. cost against length; a fixed state against a KV cache
static void s_cost(Tour *t, Argv *bench, int st_b, Argv *ins, int st_ins) {
    tour_section(t, "cost", "4. Cost against length, and a state of fixed size",
            "Softmax attention costs O(N²) and keeps a KV cache that grows with every token; linear attention "
            "costs O(N) and keeps one state of fixed size.");
    tour_command(t, bench->v, st_b);
    tour_put_svg_file(t, "bench/cost_vs_length.svg");
    tour_command(t, ins->v, st_ins);
    tour_put_svg_file(t, "runs/decay/inspect/memory.svg");
    char path[4400];
    snprintf(path, sizeof path, "%s/bench/cost_vs_length.csv", t->dir);
    const char *kinds[2] = {"softmax", "linear_decay"};
    double us[2][16], len[16];
    size_t n[2];
    for (int k = 0; k < 2; k++) {
        const char *want[8] = {kinds[k], NULL, "ok"};
        n[k] = tour_csv_column(path, 7, want, us[k], 16);
        if (k == 0) tour_csv_column(path, 1, want, len, 16);
    }
    if (n[0] >= 2 && n[0] == n[1])
        tour_see(t, "from %.0f to %.0f tokens softmax's time per token grew %.1f× and linear_decay's %.1f× (the first "
               "chart); in the second, the KV cache's bytes climb with every token and the state's line stays level.",
            len[0], len[n[0] - 1], us[0][n[0] - 1] / us[0][0], us[1][n[1] - 1] / us[1][0]);
    else
        tour_see(t, "softmax's time per token grows with length and linear_decay's much less (the first chart); the KV "
               "cache's bytes climb with every token and the state's line stays level (the second).");
}

// 5. training form = generation form
static void s_forms(Tour *t, Argv *ins, int st) {
    tour_section(t, "forms", "5. Training form = generation form",
            "The chunkwise-parallel form used in training and the one-token recurrent form used in generation "
            "compute the same function.");
    tour_command(t, ins->v, st);
    char path[4400];
    snprintf(path, sizeof path, "%s/runs/decay/inspect/report.txt", t->dir);
    char *rep = tour_slurp(path);
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
    tour_put_chart(t, &c, s, 3, &sty);
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, rel[i]);
    if (n)
        tour_see(t, "the largest relative difference over %zu layers is %.1e: float32 rounding (about 6e-8 per "
               "operation), not a different function; the two forms only sum in different orders.", n, worst);
    else
        tour_see(t, "differences at float32 rounding level (about 1e-7 relative).");
}

// 6. φ positive, and the normaliser
static void s_phi(Tour *t, Argv *ref, int st) {
    tour_section(t, "phi", "6. φ positive, and the normaliser",
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
    tour_put_chart(t, &c, s, 3, NULL);
    char cmd[2000];
    tour_command_text(cmd, sizeof cmd, ref->v);
    fputs("<pre>$ ", t->page);
    tour_put_html(t->page, cmd);
    fprintf(t->page, "\n(exit status %d)\n", st);
    char path[4400];
    snprintf(path, sizeof path, "%s/logs/refused.err", t->dir);
    char *err = tour_slurp(path);
    tour_put_html(t->page, err ? err : "(no stderr)");
    free(err);
    fputs("</pre>\n", t->page);
    if (st != 2) fprintf(t->page, "<p class=\"fail\">expected a refusal with exit status 2, got %d</p>\n", st), t->failed++;
    tour_see(t, "elu1 is above 0 everywhere, so φ(q)ᵀz is a sum of positive terms; identity goes negative, and the "
           "real command above refuses it (exit 2) before anything trains, saying why.");
}

// 7. float32 state: float16 drift
static void s_fp16(Tour *t, Argv *ins_l, int st_l, Argv *ins_d, int st_d) {
    tour_section(t, "fp16", "7. The state in float32",
            "The state sums every write; stored in float16 (11 significant bits) it drifts from the float32 one, "
            "and without decay the drift only grows (until the state overflows float16's 65 504).");
    tour_command(t, ins_l->v, st_l);
    tour_put_svg_file(t, "runs/linear/inspect/fp16_drift.svg");
    tour_command(t, ins_d->v, st_d);
    tour_put_svg_file(t, "runs/decay/inspect/fp16_drift.svg");
    // the largest relative error over every layer's S and z at the last row, and where a line first stops
    const char *runs[2] = {"linear", "decay"};
    double worst[2] = {0, 0}, at[2] = {0, 0}, stop_at = NAN;
    for (int r = 0; r < 2; r++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/runs/%s/inspect/fp16_drift.csv", t->dir, runs[r]);
        double tok[256], err[256];
        size_t n = tour_csv_column(path, 0, NULL, tok, 256);
        for (size_t col = 1; col < 16 && n; col++) {
            if (tour_csv_column(path, col, NULL, err, 256) != n) break;
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
        tour_see(t, "without decay (first chart) the float16 state overflows: a line ends in a cross, the first after "
               "%.0f tokens; with decay (second chart) the error levels off, %.2g after %.0f tokens.",
            stop_at, worst[1], at[1]);
    else if (at[0] > 0 && at[1] > 0)
        tour_see(t, "without decay (first chart) the float16 state's error keeps climbing, to %.2g after %.0f tokens "
               "(a line that ends in a cross would mark an overflow); with decay (second chart) it levels off, "
               "%.2g after %.0f tokens.", worst[0], at[0], worst[1], at[1]);
    else
        tour_see(t, "the float16 state's relative error climbs without decay (first chart) and levels off with decay "
               "(second chart).");
}

// 8. exact recall: the sum fails, the delta rule corrects
static void s_recall(Tour *t, Argv *lin, int st_l, Argv *del, int st_d) {
    tour_section(t, "recall", "8. Exact recall: where the sum fails and the delta rule corrects",
            "A sum of outer products cannot forget, so keys that share features read back a blend; the delta "
            "rule writes only the correction v − Sᵀk, and recalls exactly.");
    tour_command(t, lin->v, st_l);
    tour_command(t, del->v, st_d);
    static double step[2][64], acc[2][64];
    size_t n[2];
    SvgSeries s[2];
    const char *names[2] = {"recall_linear", "recall_delta"}, *labels[2] = {"linear (sum)", "delta"};
    for (int k = 0; k < 2; k++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/runs/%s/metrics.csv", t->dir, names[k]);
        double v[4096], st2[4096];
        size_t m = tour_csv_column(path, 5, NULL, v, 4096);
        tour_csv_column(path, 0, NULL, st2, 4096);
        n[k] = 0;
        for (size_t i = 0; i < m && n[k] < 64; i++)
            if (isfinite(v[i])) step[k][n[k]] = st2[i], acc[k][n[k]++] = v[i];
        s[k] = (SvgSeries){labels[k], step[k], acc[k], n[k], k, k + 1};
    }
    SvgChart c = {"Associative recall: validation accuracy while training", "step", "val accuracy", 0, 0};
    SvgStyle sty = {.yzero = 1};
    tour_put_chart(t, &c, s, 2, &sty);
    if (n[0] && n[1])
        tour_see(t, "after the same steps the delta rule reads back %.0f %% of the queried values and the sum %.0f %%: "
               "the same state, a different write.", 100 * acc[1][n[1] - 1], 100 * acc[0][n[0] - 1]);
    else
        tour_see(t, "the delta rule's accuracy climbs above the sum's with the same state size.");
}

// 9. past the training window
static void s_window(Tour *t, Argv *ev, int st, size_t block, size_t length) {
    tour_section(t, "window", "9. Past the training window",
            "Without position embeddings (pos = none) the recurrence runs on past block_size; what it has "
            "learned to do there is measured, not assumed.");
    tour_command(t, ev->v, st);
    char rel[200], path[4400];
    snprintf(rel, sizeof rel, "runs/decay/eval/loss_by_position_%zu.svg", length);
    tour_put_svg_file(t, rel);
    snprintf(path, sizeof path, "%s/runs/decay/eval/loss_by_position_%zu.csv", t->dir, length);
    double loss[1 << 14];
    size_t n = tour_csv_column(path, 1, NULL, loss, 1 << 14);
    double in = 0, out = 0;
    size_t ni = 0, no = 0;
    for (size_t i = block / 2; i < n; i++)
        if (isfinite(loss[i])) {
            if (i < block) in += loss[i], ni++;
            else out += loss[i], no++;
        }
    if (ni && no)
        tour_see(t, "the dashed line marks the training window (%zu tokens); the mean loss is %.3f in its second half "
               "and %.3f past it.", block, in / (double)ni, out / (double)no);
    else
        tour_see(t, "the dashed line marks the training window (%zu tokens): compare the loss on either side.", block);
}

// 10. the trade itself: loss against CPU-seconds at a long context
static void s_trade(Tour *t, Argv *fr, int st, size_t block) {
    tour_section(t, "trade", "10. The trade: loss against CPU-seconds",
            "What linear attention gives up per token it is meant to win back in compute: at a long context the "
            "same steps cost softmax more, so the comparison that matters is loss against CPU-seconds.");
    tour_command(t, fr->v, st);
    tour_put_svg_file(t, "frontier/curves_cpu.svg");
    const char *kinds[2] = {"softmax", "linear_decay"};
    double cpu[2] = {0, 0}, loss[2] = {NAN, NAN};
    for (int k = 0; k < 2; k++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/frontier/%s/seed1337/metrics.csv", t->dir, kinds[k]);
        static double v[1 << 14], c[1 << 14];
        size_t m = tour_csv_column(path, 4, NULL, v, 1 << 14);  // val_loss
        size_t mc = tour_csv_column(path, 8, NULL, c, 1 << 14);  // cpu_s
        for (size_t i = 0; i < m && i < mc; i++)
            if (isfinite(v[i]) && isfinite(c[i])) loss[k] = v[i], cpu[k] = c[i];
    }
    if (isfinite(loss[0]) && isfinite(loss[1]) && cpu[1] > 0)
        tour_see(t, "at %zu tokens of context the same steps took softmax %.1f CPU-seconds and linear_decay %.1f "
               "(%.2f×), to a validation loss of %.3f against %.3f. In a few hundred steps this is mostly the cost "
               "half of the trade; make frontier runs five kinds at three lengths long enough to see the loss half "
               "(docs/frontier.md).", block, cpu[0], cpu[1], cpu[0] / cpu[1], loss[0], loss[1]);
    else
        tour_see(t, "each curve ends where its run's steps ran out: at a long context softmax's curve reaches further "
               "right, the same steps costing it more CPU-seconds.");
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
                                          "configs/recall_linear.ini", "configs/recall_delta.ini",
                                          "configs/frontier_softmax.ini", "configs/frontier_linear_decay.ini"};
    for (int i = 0; i < 6; i++)
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
        to_train += t.o.fresh || !tour_exists(done);
    }
    // the trade's two runs at context 1024 (softmax, linear_decay): about 50 CPU-s at 300 steps
    char fr_done[4300];
    snprintf(fr_done, sizeof fr_done, "%s/frontier/report.md", t.dir);
    int fr_to_train = t.o.fresh || !tour_exists(fr_done);
    to_train += 2 * fr_to_train;
    if (to_train)
        fprintf(stderr, "tour: %d short training run%s of %zu steps to make, then the lab, inspect, eval and a small "
                        "bench: about %.0f CPU-s%s\n", to_train, to_train == 1 ? "" : "s", steps,
                t.o.quick ? 5.0 : 10.0 + 10.0 * (to_train - 2 * fr_to_train) * (double)steps / 300 +
                                      50.0 * fr_to_train * (double)steps / 300,
                t.o.quick ? "" : " (one to two minutes on a 2-core laptop)");
    else
        fprintf(stderr, "tour: every training run is finished (reused): only the measurements and the page\n");

    Argv lab = {0}, tr_d, tr_l, rec_l, rec_d, ins_d = {0}, ins_l = {0}, ev = {0}, bench = {0}, ref = {0}, fr = {0};
    tour_arg(&lab, "lab");
    tour_arg(&lab, "--out");
    tour_arg(&lab, "%s/lab", t.dir);
    tour_arg(&lab, "--trials");
    tour_arg(&lab, "%d", t.o.quick ? 2 : 20);
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
        tour_arg(ins[k], "inspect");
        tour_arg(ins[k], "--run");
        tour_arg(ins[k], "%s/runs/%s", t.dir, kinds[k]);
        if (t.o.quick) {
            tour_arg(ins[k], "--stretch");
            tour_arg(ins[k], "256");
        }
        char done[100], name[40];
        snprintf(done, sizeof done, "runs/%s/inspect/report.txt", kinds[k]);
        snprintf(name, sizeof name, "inspect_%s", kinds[k]);
        st_ins[k] = (k ? st_trl : st_trd) ? -1 : step(&t, name, ins[k], done);
    }
    tour_arg(&ev, "eval");
    tour_arg(&ev, "--run");
    tour_arg(&ev, "%s/runs/decay", t.dir);
    tour_arg(&ev, "--length");
    tour_arg(&ev, "%zu", length);
    char ev_done[100];
    snprintf(ev_done, sizeof ev_done, "runs/decay/eval/loss_by_position_%zu.csv", length);
    int st_ev = st_trd ? -1 : step(&t, "eval", &ev, ev_done);

    tour_arg(&bench, "bench");
    tour_arg(&bench, "--part");
    tour_arg(&bench, "length");
    tour_arg(&bench, "--quick");
    tour_arg(&bench, "--kinds");
    tour_arg(&bench, "softmax,linear_decay");
    tour_arg(&bench, "--seq");
    tour_arg(&bench, "%s", t.o.quick ? "64,128" : "256,1024,4096");
    tour_arg(&bench, "--threads");
    tour_arg(&bench, "1");
    tour_arg(&bench, "--out");
    tour_arg(&bench, "%s/bench", t.dir);
    int st_bench = step(&t, "bench", &bench, "bench/cost_vs_length.svg");

    // the trade: softmax and linear_decay, one seed, at a long context with make frontier's configs
    // (pos = none, 1 024 tokens a step); an ablation, so a stopped one continues (--resume)
    size_t fr_block = t.o.quick ? 64 : 1024;
    char fr_dir[4300];
    snprintf(fr_dir, sizeof fr_dir, "%s/frontier", t.dir);
    if (t.o.fresh) tour_remove_tree(fr_dir);
    tour_arg(&fr, "ablate");
    tour_arg(&fr, "configs/frontier_softmax.ini");
    tour_arg(&fr, "configs/frontier_linear_decay.ini");
    const char *fr_sets[12];
    char s_block[40], s_steps[40], s_eval[40], s_data[300];
    snprintf(s_block, sizeof s_block, "model.block_size=%zu", fr_block);
    snprintf(s_steps, sizeof s_steps, "train.steps=%zu", steps);
    snprintf(s_eval, sizeof s_eval, "train.eval_every=%zu", steps / 6 ? steps / 6 : 1);
    int ns = 0;
    fr_sets[ns++] = s_block;
    fr_sets[ns++] = "train.batch_size=1";
    fr_sets[ns++] = s_steps;
    fr_sets[ns++] = s_eval;
    fr_sets[ns++] = "train.eval_batches=4";
    fr_sets[ns++] = "train.warmup=10";
    if (t.o.quick) fr_sets[ns++] = "model.layers=2", fr_sets[ns++] = "model.d_model=32";
    if (t.o.data) snprintf(s_data, sizeof s_data, "data.path=%s", t.o.data), fr_sets[ns++] = s_data;
    for (int i = 0; i < ns; i++) {
        tour_arg(&fr, "--set");
        tour_arg(&fr, "%s", fr_sets[i]);
    }
    tour_arg(&fr, "--out");
    tour_arg(&fr, "%s", fr_dir);
    tour_arg(&fr, "--resume");
    int st_fr = step(&t, "frontier", &fr, "frontier/report.md");

    // the refusal: identity φ with the normaliser; it must exit 2 and write nothing
    tour_arg(&ref, "--config");
    tour_arg(&ref, "configs/linear.ini");
    tour_arg(&ref, "--set");
    tour_arg(&ref, "attention.feature_map=identity");
    tour_arg(&ref, "--set");
    tour_arg(&ref, "attention.normalize=true");
    tour_arg(&ref, "--out");
    tour_arg(&ref, "%s/runs/refused", t.dir);
    int st_ref = tour_run_child(&t, "refused", ref.v);

    // the page
    char path[4300];
    snprintf(path, sizeof path, "%s/index.html", t.dir);
    AtomicFile page;
    if ((rc = atomic_open(&page, path))) return rc;
    t.page = page.f;
    tour_page_begin(&t);
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
    s_trade(&t, &fr, st_fr, fr_block);
    fputs("</body></html>\n", t.page);
    if ((rc = atomic_commit(&page))) return rc;
    printf("tour: %s (%d sections%s)\n", path, 10, t.failed ? ", some steps failed: see the page and logs/" : "");
    if (t.failed) return err_set(ERR_RUNTIME, "tour: %d step%s failed (their sections say which; logs in %s)",
                                 t.failed, t.failed == 1 ? "" : "s", logs);
    return 0;
}
