// bench_train.c — part "train": tokens/s of full training steps (forward,
// backward, gradient norm, AdamW) for two model sizes and each kind, the
// GFLOP/s that is (FLOPs from bench_flops.c) and its share of the measured
// all-threads FMA peak; with several threads, also the thread efficiency
// (tokens per CPU-second against the same step on one thread). Printed and
// written to throughput.csv.
//
// The one-thread steps alternate with the all-threads ones in the same
// process (pool_limit): a ratio of two runs minutes apart on a shared machine
// reads the machine's change as much as the threads' cost (the same binary's
// thr eff read 77-93 % that way on the development machine).
//
// The batch is random tokens, drawn once: a step's cost does not depend on the
// token values, and leaving the data loader out measures the model alone.
//
// --rounds R measures the whole table R times, round after round (every row
// once per round, so each row's readings are spread over the run), then prints
// each row's median and range of % busy, thr eff and tokens/s: on a shared
// machine one reading of one row moves by several points, and a target or a
// difference between kinds is only read off the spread.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "train/optimizer.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/format_bytes.h"
#include "util/pool.h"

const BenchSize BENCH_SIZES[BENCH_N_SIZES] = {
    {"baby", 4, 4, 128, 64, 12},     // configs/*.ini: nanoGPT's CPU Shakespeare settings
    {"large", 6, 6, 384, 256, 8},   // nanoGPT's Shakespeare GPU settings, smaller batch
};

enum { OUT_MEDIAN = BENCH_OUT_MEDIAN, OUT_MIN = BENCH_OUT_MIN, OUT_MAX = BENCH_OUT_MAX, OUT_REPS = BENCH_OUT_REPS,
       OUT_CPU = BENCH_OUT_CPU, OUT_CPU_MEDIAN = BENCH_OUT_CPU_MEDIAN, OUT_DENSE = BENCH_OUT_TIME_N, OUT_ATTN,
       OUT_PARAMS, OUT_ALLOC, OUT_CPU_MEDIAN_1 };  // OUT_CPU_MEDIAN_1: the one-thread steps' (0: none)

void bench_trainer_init(BenchTrainer *x, const BenchSize *s, const char *kind, Precision p) {
    memset(x, 0, sizeof *x);
    bench_config(&x->c, kind, s->layers, s->heads, s->d_model, s->block_size, s->batch_size, POS_LEARNED);
    x->c.precision = p;
    size_t B = (size_t)s->batch_size, T = (size_t)s->block_size;
    model_build(&x->m, &x->c, BENCH_VOCAB);
    adamw_init(&x->opt, &x->m);
    graph_build_prec(&x->g, &x->m, B, T, p);
    bench_random_tokens(x->g.tokens, B * T, BENCH_VOCAB, 1);
    bench_random_tokens(x->g.targets, B * T, BENCH_VOCAB, 2);
}

void bench_trainer_free(BenchTrainer *x) {
    graph_free(&x->g);
    adamw_free(&x->opt);
    model_free(&x->m);
}

void bench_size_label(char *buf, size_t cap, const BenchSize *s) {
    snprintf(buf, cap, "%s L%d H%d C%d T%d B%d", s->name, s->layers, s->heads, s->d_model, s->block_size,
             s->batch_size);
}

int bench_next_size_job(const BenchOpts *o, size_t *at, BenchSizeJob *j, char *label, size_t cap) {
    size_t nk = o->n_kinds > 0 ? (size_t)o->n_kinds : 0;
    while (nk && *at < BENCH_N_SIZES * nk) {
        size_t si = *at / nk, k = *at % nk;
        ++*at;
        if (!(o->sizes & (1 << si))) continue;
        BenchSize s = BENCH_SIZES[si];
        Config c;
        bench_config(&c, o->kinds[k], s.layers, s.heads, s.d_model, s.block_size, s.batch_size, POS_LEARNED);
        s.layers = c.layers, s.heads = c.heads, s.d_model = c.d_model;
        s.block_size = c.block_size, s.batch_size = c.batch_size;
        *j = (BenchSizeJob){.o = o, .kind = o->kinds[k], .size = s};
        bench_size_label(label, cap, &j->size);
        return 1;
    }
    return 0;
}

static void train_step(void *ctx) {
    BenchTrainer *x = ctx;
    graph_forward_backward(&x->g, &x->m);
    double norm = grad_norm(&x->m);
    adamw_step(&x->opt, &x->m, x->c.lr, ++x->t, norm);
}

static void use_all_threads(void *ctx) {
    (void)ctx;
    pool_limit(0);
}

static void use_one_thread(void *ctx) {
    (void)ctx;
    pool_limit(1);
}

static int train_child(void *ctx, double *out) {
    const BenchSizeJob *j = ctx;
    pool_init(j->o->threads);
    BenchTrainer x;
    bench_trainer_init(&x, &j->size, j->kind, j->precision);
    BenchOpts o = *j->o;
    o.min_reps = o.train_min_reps;
    BenchTime t[2];
    if (pool_threads() > 1) {
        BenchFn const setup[2] = {use_all_threads, use_one_thread};
        bench_time_pair(&o, setup, train_step, &x, t);
        out[OUT_CPU_MEDIAN_1] = t[1].cpu_median;
        pool_limit(0);
    } else {
        t[0] = bench_time(&o, NULL, train_step, &x);
        out[OUT_CPU_MEDIAN_1] = 0;
    }
    BenchFlops f = bench_flops_per_token(&x.m, (size_t)j->size.block_size);
    bench_time_store(&t[0], out);
    out[OUT_DENSE] = f.dense;
    out[OUT_ATTN] = f.attention;
    out[OUT_PARAMS] = (double)x.m.n_weights;
    out[OUT_ALLOC] = bench_model_graph_bytes(&x.m, &x.g) + 2.0 * 4.0 * (double)x.m.n_floats;  // + Adam m, v
    bench_trainer_free(&x);
    pool_shutdown();
    return 0;
}

// What one row measured (NaN where it failed or is not defined).
typedef struct {
    double tok_s, per_cpu, busy, eff;  // tokens/s, tokens per CPU-second, % busy, thr eff (%)
} TrainFigures;

// One row of the table and of throughput.csv (round `round`): job j measured
// (and, with several threads, again on one). Returns 1 if the measurement failed.
static int train_row(const BenchOpts *o, BenchSizeJob j, const char *label, int w, FILE *csv, int round,
                     TrainFigures *f_out) {
    const BenchSize *s = &j.size;
    BenchResult r;
    if (bench_in_child(train_child, &j, &r)) {
        printf("  %-*s %-13s failed: %s\n", w, label, j.kind, err_msg());
        fprintf(csv, "%s,%s,%d,%d,%d,%d,%d,,,,,,,,,,,,,,,,,,,,%s,%d\n", s->name, j.kind, s->layers,
                s->heads, s->d_model, s->block_size, s->batch_size, precision_names[j.precision], round);
        return 1;
    }
    const double *v = r.out;
    double tokens = (double)s->block_size * s->batch_size;
    double tok_s = tokens / v[OUT_MEDIAN];
    double flops = v[OUT_DENSE] + v[OUT_ATTN];
    double gflops = flops * tok_s * 1e-9;
    double pct = o->peak_all > 0 ? 100.0 * gflops / o->peak_all : NAN;
    double per_thread_peak = o->peak_all / o->threads;
    double busy = o->peak_all > 0 ? 100.0 * flops * tokens / v[OUT_CPU_MEDIAN] * 1e-9 / per_thread_peak
                                  : NAN;
    char rss[32];
    format_bytes(rss, sizeof rss, r.peak_rss);
    // the same step on one thread: tokens per CPU-second should not fall with more threads
    double per_cpu = tokens / v[OUT_CPU_MEDIAN];
    double per_cpu_1 = v[OUT_CPU_MEDIAN_1] > 0 ? tokens / v[OUT_CPU_MEDIAN_1] : NAN;
    char eff[16] = "";
    if (!isnan(per_cpu_1)) snprintf(eff, sizeof eff, "%.0f%%", 100.0 * per_cpu / per_cpu_1);
    // a kind whose attention FLOPs bench_flops.c does not model gets "n/a", not a guess
    char mf[16] = "n/a", gf[16] = "n/a", pc[16] = "n/a", bz[16] = "n/a";
    if (!isnan(flops)) {
        snprintf(mf, sizeof mf, "%.2f", flops * 1e-6);
        snprintf(gf, sizeof gf, "%.1f", gflops);
        snprintf(pc, sizeof pc, "%.1f%%", pct);
        snprintf(bz, sizeof bz, "%.1f%%", busy);
    }
    printf("  %-*s %-13s %9.0f %10s %8s %7s %10.2f %5d %4.0f%% %7s %10s %8s\n", w, label, j.kind, tok_s,
           mf, gf, pc, v[OUT_MEDIAN] * 1e3, (int)v[OUT_REPS], 100 * v[OUT_CPU], bz, rss, eff);
    fflush(stdout);
    fprintf(csv, "%s,%s,%d,%d,%d,%d,%d,%.0f,%d,%.6g,%.6g,%.6g,%.1f,%.6g,%.6g,%.3f,%.2f,%.2f,%.3f,%.6g,%.2f,"
                 "%.0f,%.0f,%.1f,%.1f,%.4f,%s,%d\n",
            s->name, j.kind, s->layers, s->heads, s->d_model, s->block_size, s->batch_size,
            v[OUT_PARAMS], (int)v[OUT_REPS], v[OUT_MEDIAN], v[OUT_MIN], v[OUT_MAX], tok_s,
            v[OUT_DENSE], v[OUT_ATTN], gflops, o->peak_all, pct, v[OUT_CPU], v[OUT_CPU_MEDIAN], busy,
            r.peak_rss, v[OUT_ALLOC], per_cpu, per_cpu_1, per_cpu / per_cpu_1, precision_names[j.precision], round);
    *f_out = (TrainFigures){tok_s, per_cpu, isnan(flops) ? NAN : busy, 100.0 * per_cpu / per_cpu_1};
    return 0;
}

// Every row of the table: two sizes, each kind, two precisions.
enum { TRAIN_MAX_ROWS = BENCH_N_SIZES * BENCH_MAX_KINDS * 2 };

enum { FIG_BUSY, FIG_EFF, FIG_TOK_S };
static double figure(const TrainFigures *f, int which) {
    return which == FIG_BUSY ? f->busy : which == FIG_EFF ? f->eff : f->tok_s;
}

// "median (min .. max)" of one figure of row `row` over the rounds (fig[r * TRAIN_MAX_ROWS + row])
static void spread_text(char *buf, size_t cap, const TrainFigures *fig, int rounds, int row, int which,
                        const char *fmt) {
    double v[BENCH_MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) v[r] = figure(&fig[(size_t)r * TRAIN_MAX_ROWS + (size_t)row], which);
    BenchSpread s = bench_spread(v, rounds);
    if (!s.n) {
        snprintf(buf, cap, "n/a");
        return;
    }
    char a[16], b[16], c[16];
    snprintf(a, sizeof a, fmt, s.median);
    snprintf(b, sizeof b, fmt, s.min);
    snprintf(c, sizeof c, fmt, s.max);
    snprintf(buf, cap, "%s (%s .. %s)", a, b, c);
}

// After --rounds R: each row's median and range over the rounds.
static void print_spread(const TrainFigures *fig, int rounds, int n_rows, char labels[][80], const char *kinds[],
                         int w, int threads) {
    printf("\n  over the %d rounds, median (min .. max):\n", rounds);
    printf("  %-*s %-13s %-26s %-26s %s\n", w, "config", "kind", "% busy", threads ? "thr eff" : "",
           "tokens/s");
    for (int row = 0; row < n_rows; row++) {
        char busy[64], eff[64] = "", tok[64];
        spread_text(busy, sizeof busy, fig, rounds, row, FIG_BUSY, "%.1f%%");
        if (threads) spread_text(eff, sizeof eff, fig, rounds, row, FIG_EFF, "%.0f%%");
        spread_text(tok, sizeof tok, fig, rounds, row, FIG_TOK_S, "%.0f");
        printf("  %-*s %-13s %-26s %-26s %s\n", w, labels[row], kinds[row], busy, eff, tok);
    }
}

int bench_part_train(const BenchOpts *o) {
    AtomicFile a;
    int rc = atomic_open_in(&a, o->out, "throughput.csv");
    if (rc) return rc;
    fprintf(a.f, "config,kind,layers,heads,d_model,block_size,batch_size,params,reps,step_s_median,"
                 "step_s_min,step_s_max,tokens_per_s,flops_per_token_dense,flops_per_token_attention,"
                 "gflops,peak_gflops,pct_of_peak,cpu_share,cpu_s_median,pct_of_peak_while_running,peak_rss_bytes,"
                 "alloc_bytes,tokens_per_cpu_s,tokens_per_cpu_s_1thread,thread_efficiency,precision,round\n");

    printf("== Training throughput: full steps (forward + backward + AdamW), %d threads ==\n", o->threads);
    printf("  FLOPs per token: 6 x matmul weights (tied head included) + attention as its kernels\n"
           "  execute it (src/bench/bench_flops.c). Step time: median of n timed steps after one warm-up.\n"
           "  %% peak: GFLOP/s (wall clock) / the %d-thread FMA peak by CPU time, %.1f GFLOP/s.\n"
           "  cpu%%: CPU time / (wall x threads); well under 100%% means other processes had the cores.\n"
           "  %% busy: FLOPs per CPU-second / one thread's share of the peak: how much of the FMA rate the\n"
           "  threads reach while they run (time slices of other processes and idle waiting are not\n"
           "  counted; shared caches still move it, and threads that shared one core (cpu%% near\n"
           "  50%%) read higher than threads on two: docs/speed.md).\n"
           "  %s\n\n",
           o->threads, o->peak_all,
           o->threads > 1 ? "thr eff: tokens per CPU-second at these threads / the same at 1 thread (1-thread steps\n"
                            "  alternate with these, same process, each timed step after an untimed one at its\n"
                            "  count): what the extra threads cost in CPU time"
                          : "");
    if (o->precisions & 1 << PRECISION_BF16)
        printf("  bf16 rows: [train] precision = bf16, the same FLOPs counted; %% peak and %% busy stay against the\n"
               "  FP32 FMA peak, which bf16's dot product (two products per lane and instruction) can pass.\n\n");
    printf("  %-*s %-13s %9s %10s %8s %7s %10s %5s %5s %7s %10s %8s\n",
           o->precisions == 1 << PRECISION_FP32 ? 26 : 31, "config", "kind", "tokens/s", "MFLOP/tok",
           "GFLOP/s", "% peak", "step ms", "n", "cpu%", "% busy", "peak RSS", o->threads > 1 ? "thr eff" : "");
    // --precision fp32,bf16: both rows of a (size, kind), then their ratio (measured one right after the other)
    int both = o->precisions == (1 << PRECISION_FP32 | 1 << PRECISION_BF16);
    int w = o->precisions == 1 << PRECISION_FP32 ? 26 : 31;  // room for the precision after the size
    int rounds = o->rounds > 1 ? o->rounds : 1;
    // per round, the figures of row i (a row: a size, a kind, a precision, in the table's order)
    TrainFigures *fig = xmalloc((size_t)rounds * TRAIN_MAX_ROWS * sizeof *fig);
    char labels[TRAIN_MAX_ROWS][80];
    const char *kinds[TRAIN_MAX_ROWS];
    int n_rows = 0;
    BenchSizeJob j;
    char label[64];
    for (int round = 1; round <= rounds; round++) {
        if (rounds > 1) printf("  round %d of %d\n", round, rounds);
        int row = 0;
        for (size_t at = 0; bench_next_size_job(o, &at, &j, label, sizeof label);) {
            TrainFigures f[2] = {{NAN, NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}};
            for (int p = PRECISION_FP32; p <= PRECISION_BF16; p++) {
                if (!(o->precisions & 1 << p)) continue;
                j.precision = (Precision)p;
                snprintf(labels[row], sizeof labels[row], "%s%s%s", label, w > 26 ? " " : "",
                         w > 26 ? precision_names[p] : "");
                kinds[row] = j.kind;
                train_row(o, j, labels[row], w, a.f, round, &f[p]);
                fig[(size_t)(round - 1) * TRAIN_MAX_ROWS + (size_t)row++] = f[p];
            }
            if (both && !isnan(f[0].tok_s) && !isnan(f[1].tok_s))
                printf("  %-*s %-13s bf16 / fp32: tokens/s x%.2f, tokens per CPU-second x%.2f\n", w, "", j.kind,
                       f[1].tok_s / f[0].tok_s, f[1].per_cpu / f[0].per_cpu);
        }
        n_rows = row;
    }
    if (rounds > 1) print_spread(fig, rounds, n_rows, labels, kinds, w, o->threads > 1);
    free(fig);
    printf("\n");
    return atomic_commit(&a);
}
