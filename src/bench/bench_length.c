// bench_length.c — part "length" (SPEC §8): forward + backward time per token
// and peak memory of one sequence of N tokens, for each kind, with everything
// else fixed (the baby model, pos = none so the parameters do not grow with N,
// batch 1, block_size = N). Printed as a table naming the crossover length
// where each fast-weight kind overtakes softmax, and written to
// cost_vs_length.csv, cost_vs_length.svg and memory_vs_length.svg.
//
// Memory, two numbers, both honest about what they are:
//   peak RSS      the maximum resident set of the child process that measured
//                 the point: code, libc, the pool's threads, model, graph, all of it
//   model+graph   the bytes model_build and the graph's tape allocate: weights
//                 and gradients, activations, their gradients, saved tensors
// A point whose estimated memory exceeds what the machine has available, or
// whose predicted time exceeds --max-point-seconds, is skipped and says so.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/format_bytes.h"
#include "util/pool.h"

enum { LAYERS = 4, HEADS = 4, D_MODEL = 128 };

enum { OUT_MEDIAN = BENCH_OUT_MEDIAN, OUT_MIN = BENCH_OUT_MIN, OUT_MAX = BENCH_OUT_MAX, OUT_REPS = BENCH_OUT_REPS,
       OUT_CPU = BENCH_OUT_CPU, OUT_CPU_MEDIAN = BENCH_OUT_CPU_MEDIAN, OUT_FLOPS = BENCH_OUT_TIME_N, OUT_ALLOC };

typedef enum { PT_PENDING, PT_OK, PT_SKIPPED, PT_FAILED } PointStatus;  // PENDING: not run yet

typedef struct {
    PointStatus status;
    char note[160];
    BenchResult r;
} Point;

typedef struct {
    const BenchOpts *o;
    const char *kind;
    size_t N;
} LengthJob;

typedef struct {
    Model m;
    Graph g;
} LengthCtx;

static void forward_backward(void *ctx) {
    LengthCtx *x = ctx;
    graph_forward_backward(&x->g, &x->m);
}

static int length_child(void *ctx, double *out) {
    const LengthJob *j = ctx;
    pool_init(j->o->threads);
    Config c;
    bench_config(&c, j->kind, LAYERS, HEADS, D_MODEL, (int)j->N, 1, POS_NONE);
    LengthCtx x;
    model_build(&x.m, &c, BENCH_VOCAB);
    graph_build(&x.g, &x.m, 1, j->N);
    bench_random_tokens(x.g.tokens, j->N, BENCH_VOCAB, 1);
    bench_random_tokens(x.g.targets, j->N, BENCH_VOCAB, 2);
    BenchTime t = bench_time(j->o, NULL, forward_backward, &x);
    BenchFlops f = bench_flops_per_token(&x.m, j->N);
    bench_time_store(&t, out);
    out[OUT_FLOPS] = f.dense + f.attention;
    out[OUT_ALLOC] = bench_model_graph_bytes(&x.m, &x.g);
    graph_free(&x.g);
    model_free(&x.m);
    pool_shutdown();
    return 0;
}

// Predicted seconds of one forward + backward at N from this kind's earlier
// points: t ~ N^e with e measured between the last two points (clamped to
// [1, 2]: between linear and quadratic), or e = 2 from a single point.
static double predict_step(const BenchOpts *o, const Point *pts, size_t N) {
    int last = -1, prev = -1;
    for (int i = 0; i < o->n_seq; i++) {
        if (pts[i].status != PT_OK || o->seq[i] >= N) continue;
        if (last < 0 || o->seq[i] > o->seq[last]) {
            prev = last;
            last = i;
        } else if (prev < 0 || o->seq[i] > o->seq[prev]) {
            prev = i;
        }
    }
    if (last < 0) return 0;
    double tl = pts[last].r.out[OUT_MEDIAN], e = 2;
    if (prev >= 0) {
        double tp = pts[prev].r.out[OUT_MEDIAN];
        e = log(tl / tp) / log((double)o->seq[last] / (double)o->seq[prev]);
        e = e < 1 ? 1 : e > 2 ? 2 : e;
    }
    return tl * pow((double)N / (double)o->seq[last], e);
}

static void run_point(const BenchOpts *o, const char *kind, size_t N, Point *pts, Point *p) {
    memset(p, 0, sizeof *p);
    Config c;
    bench_config(&c, kind, LAYERS, HEADS, D_MODEL, (int)N, 1, POS_NONE);
    double need = (double)model_estimate_bytes(&c, BENCH_VOCAB, 1, N), have = bench_available_bytes();
    if (need == 0 || need > 0.8 * have) {
        char a[32], b[32];
        format_bytes(a, sizeof a, need);
        format_bytes(b, sizeof b, have);
        p->status = PT_SKIPPED;
        snprintf(p->note, sizeof p->note, "skipped: needs about %s, %s available", need ? a : "> 1 EiB", b);
        return;
    }
    // a warm-up plus min_reps timed runs (min_seconds is not a lower bound on
    // a slow point: its runs already exceed it)
    double t_pred = predict_step(o, pts, N) * (1 + o->min_reps);
    if (t_pred > o->max_point_s) {
        p->status = PT_SKIPPED;
        snprintf(p->note, sizeof p->note, "skipped: predicted %.0f s > --max-point-seconds %.0f", t_pred,
                 o->max_point_s);
        return;
    }
    LengthJob j = {.o = o, .kind = kind, .N = N};
    if (bench_in_child(length_child, &j, &p->r)) {
        p->status = PT_FAILED;
        snprintf(p->note, sizeof p->note, "failed: %s", err_msg());
        return;
    }
    p->status = PT_OK;
}

// Per-token cost of a point in microseconds: wall clock (what a user waits),
// or CPU time summed over the threads (the work done, which other processes
// on a shared machine inflate far less than the wall time). NAN if not measured.
typedef enum { BY_WALL, BY_CPU } Metric;

static double us_per_token(const Point *p, size_t N, Metric by) {
    if (p->status != PT_OK) return NAN;
    return p->r.out[by == BY_WALL ? OUT_MEDIAN : OUT_CPU_MEDIAN] / (double)N * 1e6;
}

// "linear_decay is faster per token than softmax from N = 1024 on (crossover
// ~ 700 by log-log interpolation)": the smallest measured N from which the
// kind stays faster at every longer measured N.
static void print_crossover(FILE *f, const BenchOpts *o, const Point *pts, int ks, int k, Metric by) {
    const char *a = o->kinds[k], *s = o->kinds[ks], *what = by == BY_WALL ? "wall" : "CPU";
    const Point *pa = pts + k * o->n_seq, *ps = pts + ks * o->n_seq;
    int from = -1, lastok = -1;
    for (int i = o->n_seq - 1; i >= 0; i--) {
        double ta = us_per_token(&pa[i], o->seq[i], by), ts = us_per_token(&ps[i], o->seq[i], by);
        if (isnan(ta) || isnan(ts)) continue;
        if (lastok < 0) lastok = i;
        if (ta >= ts) break;
        from = i;
    }
    fprintf(f, "  crossover (%s time) %s vs %s: ", what, a, s);
    if (lastok < 0) {
        fprintf(f, "no length measured for both\n");
        return;
    }
    if (from < 0) {
        double r = us_per_token(&pa[lastok], o->seq[lastok], by) / us_per_token(&ps[lastok], o->seq[lastok], by);
        fprintf(f, "none up to N = %zu (%s takes %.2fx the time per token there)\n", o->seq[lastok], a, r);
        return;
    }
    // the measured length just below `from` (with both kinds measured)
    int below = -1;
    for (int i = from - 1; i >= 0 && below < 0; i--)
        if (!isnan(us_per_token(&pa[i], o->seq[i], by)) && !isnan(us_per_token(&ps[i], o->seq[i], by)))
            below = i;
    if (below < 0) {
        fprintf(f, "%s is faster per token at every measured length (from N = %zu)\n", a, o->seq[from]);
        return;
    }
    // log(t_a / t_s) taken as linear in log N between the two lengths
    double n0 = (double)o->seq[below], n1 = (double)o->seq[from];
    double r0 = log(us_per_token(&pa[below], o->seq[below], by) / us_per_token(&ps[below], o->seq[below], by));
    double r1 = log(us_per_token(&pa[from], o->seq[from], by) / us_per_token(&ps[from], o->seq[from], by));
    double nx = exp(log(n0) + (log(n1) - log(n0)) * r0 / (r0 - r1));
    fprintf(f, "%s is faster per token from N = %zu on (slower at %zu); log-log interpolation puts "
               "the crossover near N = %.0f\n", a, o->seq[from], o->seq[below], nx);
}

// The length from which `kind` executes fewer attention FLOPs per token than
// the reference kind `ref` (softmax), by the FLOP model alone (AttnKind.flops): the reference the measured
// crossover is read against. 0 if not below 65536 or the kind's attention is
// not modelled. The dense part is the same
// for every kind, so only attention is compared; softmax's per-token count
// grows with N, the chunkwise kinds' does not, so a bisection finds it.
static size_t flop_crossover(const char *ref, const char *kind) {
    Config cs, ck;
    bench_config(&cs, ref, LAYERS, HEADS, D_MODEL, 64, 1, POS_NONE);
    bench_config(&ck, kind, LAYERS, HEADS, D_MODEL, 64, 1, POS_NONE);
    Model ms, mk;
    model_build(&ms, &cs, BENCH_VOCAB);
    model_build(&mk, &ck, BENCH_VOCAB);
    size_t lo = 1, hi = (size_t)1 << 16, found = 0;
    // (a NaN count, a kind bench_flops.c does not model, compares false)
    if (bench_flops_per_token(&ms, hi).attention > bench_flops_per_token(&mk, hi).attention) {
        while (lo < hi) {  // smallest N in [lo, hi] where softmax costs more
            size_t mid = lo + (hi - lo) / 2;
            if (bench_flops_per_token(&ms, mid).attention > bench_flops_per_token(&mk, mid).attention)
                hi = mid;
            else
                lo = mid + 1;
        }
        found = lo;
    }
    model_free(&ms);
    model_free(&mk);
    return found;
}

static int write_csv(const BenchOpts *o, const Point *pts) {
    AtomicFile a;
    int rc = atomic_open_in(&a, o->out, "cost_vs_length.csv");
    if (rc) return rc;
    fprintf(a.f, "kind,seq_len,status,reps,step_s_median,step_s_min,step_s_max,us_per_token,tokens_per_s,"
                 "gflops,cpu_share,cpu_us_per_token,peak_rss_bytes,alloc_bytes,note\n");
    for (int k = 0; k < o->n_kinds; k++)
        for (int i = 0; i < o->n_seq; i++) {
            const Point *p = &pts[k * o->n_seq + i];
            size_t N = o->seq[i];
            static const char *const st[] = {"pending", "ok", "skipped", "failed"};
            fprintf(a.f, "%s,%zu,%s,", o->kinds[k], N, st[p->status]);
            if (p->status == PT_OK) {
                const double *v = p->r.out;
                fprintf(a.f, "%d,%.6g,%.6g,%.6g,%.6g,%.1f,%.3f,%.3f,%.6g,%.0f,%.0f,", (int)v[OUT_REPS],
                        v[OUT_MEDIAN], v[OUT_MIN], v[OUT_MAX], us_per_token(p, N, BY_WALL),
                        (double)N / v[OUT_MEDIAN], v[OUT_FLOPS] * (double)N / v[OUT_MEDIAN] * 1e-9, v[OUT_CPU],
                        us_per_token(p, N, BY_CPU), p->r.peak_rss, v[OUT_ALLOC]);
            } else {
                fprintf(a.f, ",,,,,,,,,,,");
            }
            // the note may hold commas (error messages): quote it, doubling quotes
            fputc('"', a.f);
            for (const char *c = p->note; *c; c++) {
                if (*c == '"') fputc('"', a.f);
                fputc(*c, a.f);
            }
            fputs("\"\n", a.f);
        }
    return atomic_commit(&a);
}

static int write_charts(const BenchOpts *o, const Point *pts) {
    int K = o->n_kinds, S = o->n_seq;
    double x[BENCH_MAX_SEQ], tw[BENCH_MAX_KINDS][BENCH_MAX_SEQ], tc[BENCH_MAX_KINDS][BENCH_MAX_SEQ],
        rss[BENCH_MAX_KINDS][BENCH_MAX_SEQ], alloc[BENCH_MAX_KINDS][BENCH_MAX_SEQ];
    char lt[2 * BENCH_MAX_KINDS][64], lm[2 * BENCH_MAX_KINDS][64];
    SvgSeries st[2 * BENCH_MAX_KINDS], sm[2 * BENCH_MAX_KINDS];
    for (int i = 0; i < S; i++) x[i] = (double)o->seq[i];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < S; i++) {
            const Point *p = &pts[k * S + i];
            int ok = p->status == PT_OK;
            tw[k][i] = us_per_token(p, o->seq[i], BY_WALL);
            tc[k][i] = us_per_token(p, o->seq[i], BY_CPU);
            rss[k][i] = ok ? p->r.peak_rss / 1048576.0 : NAN;
            alloc[k][i] = ok ? p->r.out[OUT_ALLOC] / 1048576.0 : NAN;
        }
        // one colour per kind; solid and dashed are two views of the same points
        snprintf(lt[2 * k], sizeof lt[0], "%s wall", o->kinds[k]);
        snprintf(lt[2 * k + 1], sizeof lt[0], "%s CPU", o->kinds[k]);
        st[2 * k] = (SvgSeries){.label = lt[2 * k], .x = x, .y = tw[k], .n = (size_t)S, .color = k + 1};
        st[2 * k + 1] = (SvgSeries){.label = lt[2 * k + 1], .x = x, .y = tc[k], .n = (size_t)S, .dashed = 1,
                                    .color = k + 1};
        snprintf(lm[2 * k], sizeof lm[0], "%s RSS", o->kinds[k]);
        snprintf(lm[2 * k + 1], sizeof lm[0], "%s alloc", o->kinds[k]);
        sm[2 * k] = (SvgSeries){.label = lm[2 * k], .x = x, .y = rss[k], .n = (size_t)S, .color = k + 1};
        sm[2 * k + 1] = (SvgSeries){.label = lm[2 * k + 1], .x = x, .y = alloc[k], .n = (size_t)S,
                                    .dashed = 1, .color = k + 1};
    }
    char path[4200];
    SvgChart ct = {.title = "Forward + backward time per token vs sequence length (batch 1)",
                   .xlabel = "sequence length N (tokens)",
                   .ylabel = "us per token (solid: wall clock; dashed: CPU time, all threads)",
                   .logx = 1, .logy = 1};
    snprintf(path, sizeof path, "%s/cost_vs_length.svg", o->out);
    int rc = svg_line_chart(path, &ct, st, (size_t)(2 * K));
    if (rc) return rc;
    SvgChart cm = {.title = "Training memory of one sequence vs length (forward + backward)",
                   .xlabel = "sequence length N (tokens)",
                   .ylabel = "MiB (solid: peak RSS; dashed: model+graph allocated)", .logx = 1, .logy = 1};
    snprintf(path, sizeof path, "%s/memory_vs_length.svg", o->out);
    return svg_line_chart(path, &cm, sm, (size_t)(2 * K));
}

int bench_part_length(const BenchOpts *o) {
    Point pts[BENCH_MAX_KINDS * BENCH_MAX_SEQ];
    memset(pts, 0, sizeof pts);
    Config shown;  // the sizes as --set left them
    bench_config(&shown, o->kinds[0], LAYERS, HEADS, D_MODEL, 64, 1, POS_NONE);
    printf("== Cost vs length: forward + backward of one sequence of N tokens (batch 1), %d threads ==\n"
           "  model: layers %d, heads %d, d_model %d, ffn %d, vocab %d (random tokens), pos none, chunk %d%s\n"
           "  time: median of n timed runs after one warm-up (us/token: wall clock; cpu us/tok: CPU time\n"
           "  of all threads, the work itself). cpu%%: CPU time / (wall x threads); low means other\n"
           "  processes had the cores or the work did not keep every thread busy.\n"
           "  peak RSS: the measuring process's maximum resident set (everything in it).\n"
           "  model+graph: weights, gradients, activations, their gradients, saved tensors as allocated.\n\n",
           o->threads, shown.layers, shown.heads, shown.d_model, shown.ffn_mult, BENCH_VOCAB, shown.chunk,
           shown.key_norm == KEYNORM_L2 ? ", key_norm l2 (delta)" : "");
    printf("  %-13s %6s %9s %12s %9s %8s %9s %5s %5s %10s %11s\n", "kind", "N", "us/token", "cpu us/tok",
           "tokens/s", "GFLOP/s", "step s", "n", "cpu%", "peak RSS", "model+graph");
    for (int k = 0; k < o->n_kinds; k++) {
        for (int i = 0; i < o->n_seq; i++) {
            Point *p = &pts[k * o->n_seq + i];
            size_t N = o->seq[i];
            run_point(o, o->kinds[k], N, &pts[k * o->n_seq], p);
            printf("  %-13s %6zu ", o->kinds[k], N);
            if (p->status != PT_OK) {
                printf("%s\n", p->note);
            } else {
                const double *v = p->r.out;
                char rss[32], al[32];
                format_bytes(rss, sizeof rss, p->r.peak_rss);
                format_bytes(al, sizeof al, v[OUT_ALLOC]);
                printf("%9.2f %12.2f %9.0f %8.1f %9.4g %5d %4.0f%% %10s %11s\n", us_per_token(p, N, BY_WALL),
                       us_per_token(p, N, BY_CPU), (double)N / v[OUT_MEDIAN],
                       v[OUT_FLOPS] * (double)N / v[OUT_MEDIAN] * 1e-9, v[OUT_MEDIAN], (int)v[OUT_REPS],
                       100 * v[OUT_CPU], rss, al);
            }
            fflush(stdout);
        }
    }
    // the reference: the first kind that keeps a KV cache (softmax)
    int ks = -1;
    for (int k = o->n_kinds; k-- > 0;)
        if (!attn_kind_find(o->kinds[k])->state_layout) ks = k;
    if (ks >= 0) {
        printf("\n");
        for (int k = 0; k < o->n_kinds; k++)
            if (k != ks) {
                print_crossover(stdout, o, pts, ks, k, BY_WALL);
                print_crossover(stdout, o, pts, ks, k, BY_CPU);
                size_t n = flop_crossover(o->kinds[ks], o->kinds[k]);
                if (n)
                    printf("  by the FLOP count alone (AttnKind.flops), %s does fewer attention FLOPs per token "
                           "than %s from N = %zu\n", o->kinds[k], o->kinds[ks], n);
            }
    }
    printf("\n");
    int rc = write_csv(o, pts);
    if (!rc) rc = write_charts(o, pts);
    return rc;
}
