// bench_profile.c — part "profile": where the time of a training step goes.
//
// The step is the one part "train" times (forward, backward, gradient norm,
// AdamW) on the same two model sizes. The tape's per-node clocks
// (tape_profile_start) time every node of the forward and of the backward;
// nodes are grouped by their role in the block — the tensor name with its
// layer prefix dropped ("h.2.attn.qkv" -> "attn.qkv") — so all layers of one
// role add up to one row. The machine may be shared, so shares and rates are
// by CPU time (the process's, all pool threads), which other processes'
// time slices do not inflate; wall figures are printed beside them:
//   % step   its CPU time over the step's (the rows sum to 100 %)
//   wall     its wall time, and wait: the part of it the calling thread spent
//            waiting for pool workers after its own share (imbalance +
//            wake-up latency; CPU-free, so only in wall time)
//   GFLOP/s  its FLOPs (as bench_flops.c counts them) per CPU-second, and
//   % busy   that over one thread's FMA peak (the peak part, by CPU time):
//            the "busy" measure of part "train", per op
//   GB/s     for element-wise ops, the bytes a minimal implementation must
//            move (each input read once, each output written once, a += as
//            read + write) per CPU-second; % bw is that over the measured
//            one-thread DRAM read bandwidth. Activations of the baby model sit
//            in cache, so these can exceed 100 %: it says how far from "free"
//            an op is, not that it is memory-bound.
// Means over the profiled steps (after one untimed warm-up step).
//
// --precision fp32,bf16 profiles each (size, kind) at both matmul precisions,
// one right after the other, and prints their ratio: the whole step's CPU time
// and the matmul rows' (the GEMMs bf16 changes; every other op stays fp32).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "train/optimizer.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/pool.h"

// ---- rows ----------------------------------------------------------------------

// "a+b": a product with an element-wise op in its epilogue (ops.h: fused ops)
static const char *const ROLES[] = {"embed",    "ln_1",     "attn.qkv",          "attn", "attn.ln_head",
                                    "attn.proj+residual",   "ln_2",     "mlp.fc", "mlp.gelu",
                                    "mlp.proj+residual",    "ln_f",     "logits", "loss",
                                    "other"};
enum { N_ROLES = sizeof ROLES / sizeof ROLES[0] };
// rows: forward roles, backward roles, then the step's parts outside the tape
enum { ROW_ZERO = 2 * N_ROLES, ROW_NORM, ROW_ADAM, N_ROWS };
// per step; F_MATMUL: 1 if the row's nodes include a matmul (a flag, not summed)
enum { F_WALL, F_CPU, F_WAIT, F_FLOPS, F_BYTES, F_MATMUL, N_FIELDS };
// pool dispatches per step (parallel_for calls that woke the workers): the
// tape's forward + backward, the gradient norm, AdamW
// OUT_TRAIN_*: the same steps again without clocks, as training runs them
// (the passes sharded: autograd/tape.h), per step
enum { OUT_STEP_WALL = N_ROWS * N_FIELDS, OUT_STEP_CPU, OUT_STEPS, OUT_DISP_TAPE, OUT_DISP_NORM, OUT_DISP_ADAM,
       OUT_TRAIN_WALL, OUT_TRAIN_CPU, OUT_TRAIN_DISP, OUT_TRAIN_STEPS, OUT_TOTAL };
_Static_assert(OUT_TOTAL <= BENCH_CHILD_OUT, "profile rows do not fit the child's result");

static int role_of(const char *name) {
    if (!strncmp(name, "h.", 2)) {  // "h.<layer>.<role>"
        const char *dot = strchr(name + 2, '.');
        if (dot) name = dot + 1;
    }
    for (int r = 0; r < N_ROLES - 1; r++)
        if (!strcmp(name, ROLES[r])) return r;
    return N_ROLES - 1;
}

// ---- work per node -------------------------------------------------------------

// FLOPs and bytes of one node, forward (dir 0) or backward (dir 1).
static void node_work(const Node *n, int dir, const BenchFlops *f, const Model *m, size_t tokens,
                      double *flops, double *bytes) {
    const char *op = n->op->name;
    double e = 4.0 * (double)n->out->n;  // bytes of the output tensor
    *flops = *bytes = 0;
    if (!strncmp(op, "matmul", 6)) {  // a product, alone or with an op in its epilogue
        double mnk = 2.0 * (double)n->in[0]->rows * (double)n->in[0]->cols * (double)n->in[1]->rows;
        *flops = dir == 0 ? mnk : mnk * ((n->in[0]->grad != NULL) + (n->in[1]->grad != NULL));
    } else if (!strcmp(op, "attention")) {
        double per_layer = (double)tokens / (double)m->L;
        *flops = (dir == 0 ? f->attention_fwd : f->attention - f->attention_fwd) * per_layer;
    } else if (!strcmp(op, "embed")) {
        *bytes = dir == 0 ? 3 * e : 5 * e;  // rows of wte, wpe -> out; dout -> dwte, dwpe (+=)
    } else if (!strcmp(op, "layernorm") || !strcmp(op, "gelu")) {
        *bytes = dir == 0 ? 2 * e : 4 * e;  // x -> out; dout, x -> dx (+=)
    } else if (!strcmp(op, "add")) {
        *bytes = dir == 0 ? 3 * e : 6 * e;  // a, b -> out; dout -> da, db (+=)
    } else if (!strcmp(op, "crossentropy")) {
        double nv = 4.0 * (double)n->in[0]->n;
        *bytes = dir == 0 ? 2 * nv : 3 * nv;  // logits -> probs; probs -> dlogits (+=)
    }
}

// ---- the measuring child -------------------------------------------------------

typedef struct {
    double wall, cpu;
} Clock2;

static Clock2 clock2(void) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    return (Clock2){(double)a.tv_sec + 1e-9 * (double)a.tv_nsec, (double)b.tv_sec + 1e-9 * (double)b.tv_nsec};
}

static void row_add(double *out, int row, Clock2 a, double wait0) {
    Clock2 b = clock2();
    out[row * N_FIELDS + F_WALL] += b.wall - a.wall;
    out[row * N_FIELDS + F_CPU] += b.cpu - a.cpu;
    out[row * N_FIELDS + F_WAIT] += pool_wait_seconds() - wait0;
}

static int profile_child(void *ctx, double *out) {
    const BenchSizeJob *j = ctx;
    pool_init(j->o->threads);
    BenchTrainer x;
    bench_trainer_init(&x, &j->size, j->kind, j->precision);
    Model *m = &x.m;
    Graph *g = &x.g;
    size_t T = (size_t)j->size.block_size, tokens = T * (size_t)j->size.batch_size;
    for (int i = 0; i < OUT_TOTAL; i++) out[i] = 0;

    double norm = 0;
    graph_forward_backward(g, m);  // warm-up: first touch, pool threads awake
    adamw_step(&x.opt, m, x.c.lr, ++x.t, grad_norm(m));
    Tape *tp = &g->tape;
    tape_profile_start(tp);
    int steps = 0;
    double total = 0;
    while (steps < j->o->max_reps && (steps < j->o->min_reps || total < j->o->min_seconds)) {
        Clock2 s0 = clock2();
        unsigned long d0 = pool_dispatches();
        graph_forward_backward(g, m);
        unsigned long d1 = pool_dispatches();
        Clock2 a = clock2();
        double w0 = pool_wait_seconds();
        norm = grad_norm(m);
        row_add(out, ROW_NORM, a, w0);
        unsigned long d2 = pool_dispatches();
        a = clock2();
        w0 = pool_wait_seconds();
        adamw_step(&x.opt, m, x.c.lr, ++x.t, norm);
        row_add(out, ROW_ADAM, a, w0);
        unsigned long d3 = pool_dispatches();
        out[OUT_DISP_TAPE] += (double)(d1 - d0);
        out[OUT_DISP_NORM] += (double)(d2 - d1);
        out[OUT_DISP_ADAM] += (double)(d3 - d2);
        Clock2 s1 = clock2();
        out[OUT_STEP_WALL] += s1.wall - s0.wall;
        out[OUT_STEP_CPU] += s1.cpu - s0.cpu;
        total += s1.wall - s0.wall;
        steps++;
    }

    BenchFlops f = bench_flops_per_token(m, T);
    for (size_t i = 0; i < tp->n_nodes; i++) {
        const Node *n = &tp->nodes[i];
        int r = role_of(n->out->name);
        for (int dir = 0; dir < 2; dir++) {
            const NodeClock *k = dir == 0 ? &tp->clock_fwd[i] : &tp->clock_bwd[i];
            if (!k->calls) continue;
            double *row = out + (dir * N_ROLES + r) * N_FIELDS, fl, by;
            row[F_WALL] += k->wall;
            row[F_CPU] += k->cpu;
            row[F_WAIT] += k->wait;
            node_work(n, dir, &f, m, tokens, &fl, &by);
            row[F_FLOPS] += fl * (double)k->calls / steps;  // per step, like the times below
            row[F_BYTES] += by * (double)k->calls / steps;
            if (!strncmp(n->op->name, "matmul", 6)) row[F_MATMUL] = 1;
        }
    }
    double *z = out + ROW_ZERO * N_FIELDS;
    z[F_WALL] = tp->clock_zero.wall;
    z[F_CPU] = tp->clock_zero.cpu;
    z[F_WAIT] = tp->clock_zero.wait;
    // only the gradients no node writes are zeroed up front; each of the
    // others just before the node that writes it first, inside that node's row
    double zeroed = 0;
    for (size_t q = tp->zero_start[tp->n_nodes]; q < tp->zero_start[tp->n_nodes + 1]; q++)
        zeroed += (double)tp->zero_list[q]->n;
    z[F_BYTES] = 4.0 * zeroed;
    out[ROW_NORM * N_FIELDS + F_BYTES] = 4.0 * (double)m->n_floats;
    out[ROW_ADAM * N_FIELDS + F_BYTES] = 7 * 4.0 * (double)m->n_floats;  // p, g, m, v in; p, m, v out
    for (int r = 0; r < N_ROWS; r++)
        for (int fi = F_WALL; fi <= F_WAIT; fi++) out[r * N_FIELDS + fi] /= steps;
    out[OUT_STEP_WALL] /= steps;
    out[OUT_STEP_CPU] /= steps;
    for (int i = OUT_DISP_TAPE; i <= OUT_DISP_ADAM; i++) out[i] /= steps;
    out[OUT_STEPS] = steps;
    tape_profile_stop(tp);
    pool_profile(1);  // counts the dispatches (and adds a clock read to each: no node clocks)
    Clock2 t0 = clock2();
    for (int s = 0; s < steps; s++) {
        graph_forward_backward(g, m);
        adamw_step(&x.opt, m, x.c.lr, ++x.t, grad_norm(m));
        out[OUT_TRAIN_STEPS]++;
    }
    Clock2 t1 = clock2();
    out[OUT_TRAIN_WALL] = (t1.wall - t0.wall) / steps;
    out[OUT_TRAIN_CPU] = (t1.cpu - t0.cpu) / steps;
    out[OUT_TRAIN_DISP] = (double)pool_dispatches() / steps;
    pool_profile(0);
    bench_trainer_free(&x);
    pool_shutdown();
    return 0;
}

// ---- the table -----------------------------------------------------------------

static const char *row_name(int r, const char **dir) {
    if (r < N_ROLES) {
        *dir = "fwd";
        return ROLES[r];
    }
    if (r < 2 * N_ROLES) {
        *dir = "bwd";
        return ROLES[r - N_ROLES];
    }
    *dir = r == ROW_ZERO ? "bwd" : "step";
    return r == ROW_ZERO ? "zero act grads" : r == ROW_NORM ? "grad norm" : "AdamW";
}

static void print_row(FILE *csv, const BenchOpts *o, const char *label, const char *kind, Precision prec,
                      const char *name, const char *dir, const double *v, double step_cpu) {
    char gf[16] = "", bz[16] = "", gb[16] = "", bw[16] = "";
    double gflops = NAN, gbs = NAN, busy = NAN;
    if (v[F_FLOPS] > 0 && v[F_CPU] > 0) {
        gflops = v[F_FLOPS] / v[F_CPU] * 1e-9;
        busy = 100.0 * gflops / o->peak_1;
        snprintf(gf, sizeof gf, "%.1f", gflops);
        snprintf(bz, sizeof bz, "%.0f%%", busy);
    }
    if (v[F_BYTES] > 0 && v[F_CPU] > 0) {
        gbs = v[F_BYTES] / v[F_CPU] * 1e-9;
        snprintf(gb, sizeof gb, "%.1f", gbs);
        snprintf(bw, sizeof bw, "%.0f%%", 100.0 * gbs / o->mem_gbs);
    }
    printf("  %-18s %-4s %6.1f%% %9.3f %9.3f %7.3f %8s %6s %7s %6s\n", name, dir, 100.0 * v[F_CPU] / step_cpu,
           v[F_CPU] * 1e3, v[F_WALL] * 1e3, v[F_WAIT] * 1e3, gf, bz, gb, bw);
    fprintf(csv, "%s,%s,%d,%s,%s,%.6g,%.4f,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%s\n", label, kind, o->threads,
            name, dir, v[F_CPU] * 1e3, 100.0 * v[F_CPU] / step_cpu, v[F_WALL] * 1e3, v[F_WAIT] * 1e3, v[F_FLOPS],
            v[F_BYTES], gflops, busy, gbs, o->mem_gbs > 0 ? 100.0 * gbs / o->mem_gbs : NAN,
            precision_names[prec]);
}

// Profiles job j: its table on stdout, its rows in csv. *step_cpu and
// *matmul_cpu get the CPU seconds per step of the whole step and of the rows
// holding matmuls (NAN if the measurement failed).
static void profile_job(const BenchOpts *o, const BenchSizeJob *j, FILE *csv, double *step_cpu,
                        double *matmul_cpu) {
    const char *cfg = j->size.name, *kind = j->kind;
    Precision prec = j->precision;
    BenchResult r;
    *step_cpu = *matmul_cpu = NAN;
    if (bench_in_child(profile_child, (void *)j, &r)) {
        printf("  failed: %s\n", err_msg());
        return;
    }
    const double *v = r.out;
    double step = v[OUT_STEP_WALL];
    printf("  %-18s %-4s %7s %9s %9s %7s %8s %6s %7s %6s\n", "op", "dir", "% step", "cpu ms", "wall ms",
           "wait", "GFLOP/s", "% busy", "GB/s", "% bw");
    double sum[N_FIELDS] = {0}, mm = 0;
    for (int row = 0; row < N_ROWS; row++) {
        const double *x = v + row * N_FIELDS;
        for (int fi = 0; fi < N_FIELDS; fi++)
            if (!isnan(x[fi])) sum[fi] += x[fi];  // NaN: attention FLOPs of an unmodelled kind
        if (x[F_MATMUL]) mm += x[F_CPU];
        if (x[F_WALL] == 0 && x[F_FLOPS] == 0) continue;  // a role this model does not have
        const char *dir, *name = row_name(row, &dir);
        print_row(csv, o, cfg, kind, prec, name, dir, x, v[OUT_STEP_CPU]);
    }
    double untimed[N_FIELDS] = {0};
    untimed[F_WALL] = step - sum[F_WALL];
    untimed[F_CPU] = v[OUT_STEP_CPU] - sum[F_CPU];
    print_row(csv, o, cfg, kind, prec, "between ops", "step", untimed, v[OUT_STEP_CPU]);
    double all[N_FIELDS] = {step, v[OUT_STEP_CPU], sum[F_WAIT], sum[F_FLOPS], 0};
    print_row(csv, o, cfg, kind, prec, "whole step", "step", all, v[OUT_STEP_CPU]);
    double trained[N_FIELDS] = {v[OUT_TRAIN_WALL], v[OUT_TRAIN_CPU], NAN, sum[F_FLOPS], 0};
    print_row(csv, o, cfg, kind, prec, "step as trained", "step", trained, v[OUT_STEP_CPU]);
    printf("  pool waits: %.3f ms of %.3f ms (%.1f%%); CPU %.3f ms/step, of it matmuls %.3f ms; %d steps profiled\n",
           sum[F_WAIT] * 1e3, step * 1e3, 100.0 * sum[F_WAIT] / step, v[OUT_STEP_CPU] * 1e3, mm * 1e3,
           (int)v[OUT_STEPS]);
    printf("  pool dispatches per step: %.0f (forward + backward %.0f, grad norm %.0f, AdamW %.0f)\n",
           v[OUT_DISP_TAPE] + v[OUT_DISP_NORM] + v[OUT_DISP_ADAM], v[OUT_DISP_TAPE], v[OUT_DISP_NORM],
           v[OUT_DISP_ADAM]);
    printf("  as trained (sharded passes, no clocks; %d steps): CPU %.3f ms/step, wall %.3f ms, %.0f pool dispatches\n",
           (int)v[OUT_TRAIN_STEPS], v[OUT_TRAIN_CPU] * 1e3, v[OUT_TRAIN_WALL] * 1e3, v[OUT_TRAIN_DISP]);
    fflush(stdout);
    *step_cpu = v[OUT_STEP_CPU];
    *matmul_cpu = mm;
}

int bench_part_profile(const BenchOpts *o) {
    AtomicFile a;
    int rc = atomic_open_in(&a, o->out, "profile.csv");
    if (rc) return rc;
    fprintf(a.f, "config,kind,threads,op,direction,cpu_ms_per_step,pct_of_step_cpu,wall_ms_per_step,pool_wait_ms,"
                 "flops_per_step,bytes_per_step,gflops,pct_busy,gbs,pct_of_membw,precision\n");
    printf("== Profile: one training step per op (tape clocks per node, all layers of a role summed), %d threads ==\n"
           "  By CPU time (all threads; robust to other processes): %% step, cpu ms, GFLOP/s and GB/s per\n"
           "  CPU-second. %% busy: GFLOP/s over one thread's FMA peak (%.1f GFLOP/s). wall ms: the op's wall\n"
           "  time; wait: of that, the caller waiting for pool workers. GB/s: bytes an element-wise op must\n"
           "  move; %% bw: over the 1-thread DRAM read bandwidth (%.1f GB/s; data in cache can beat it).\n"
           "  a+b: a product with op b in its epilogue (GFLOP/s counts the product). The ops run node by\n"
           "  node, so each can be clocked; training shards each pass by sequence instead (autograd/tape.h:\n"
           "  one pool dispatch for the rows of all its ops). `step as trained`: the same steps that way,\n"
           "  unclocked (its %% step: against the clocked step's CPU).\n",
           o->threads, o->peak_1, o->mem_gbs);
    if (o->precisions & 1 << PRECISION_BF16)
        printf("  bf16: [train] precision = bf16, only the matmul rows change; their %% busy stays against the\n"
               "  FP32 FMA peak, which bf16's dot product (two products per lane and instruction) can pass.\n");
    int both = o->precisions == (1 << PRECISION_FP32 | 1 << PRECISION_BF16);
    BenchSizeJob j;
    char label[64];
    for (size_t at = 0; bench_next_size_job(o, &at, &j, label, sizeof label);) {
        double step[2] = {NAN, NAN}, mm[2] = {NAN, NAN};
        for (int p = PRECISION_FP32; p <= PRECISION_BF16; p++) {
            if (!(o->precisions & 1 << p)) continue;
            j.precision = (Precision)p;
            printf("\n  %s, %s, %s matmuls\n", label, j.kind, precision_names[p]);
            profile_job(o, &j, a.f, &step[p], &mm[p]);
        }
        if (both && !isnan(step[0]) && !isnan(step[1]))
            printf("  bf16 / fp32, %s: whole step CPU x%.2f, matmul rows CPU x%.2f\n", j.kind, step[1] / step[0],
                   mm[1] / mm[0]);
    }
    printf("\n");
    return atomic_commit(&a);
}
