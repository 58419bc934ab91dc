// eval.c — `lmtrain eval --run DIR`: the whole validation split, once.
//
// Training's validation loss is an estimate from a few random windows; this is
// the exact number: the consecutive non-overlapping windows of block_size
// tokens from the start of the split (the final partial window dropped, see
// dataset_eval_windows), every scored position of every window counted once.
// Besides the mean loss and bits per character (loss / ln 2) it keeps the loss
// at each position of the window: position t has seen t+1 tokens, so the curve
// shows how much each attention kind gains from longer context.
//
// Writes DIR/eval/loss_by_position.csv and DIR/eval/loss_by_position.svg, and
// DIR/eval/summary.txt (the figure the ablation report reads).
//
// --length N scores windows of N tokens instead of block_size: the split cut
// into consecutive windows of N, each read from a fresh state. Past block_size
// only for runs with pos = none (a learned position embedding has no row for
// position block_size or later; refused, with the reason). The loss by
// position then runs to N - 1: whether the model still predicts as well, or
// better, at positions it never trained at is the extrapolation question.
// Files: DIR/eval/loss_by_position_N.csv and .svg (no summary.txt: the
// report's figure is the one at block_size).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/eval_summary.h"
#include "model/model.h"
#include "cmd/args.h"
#include "cmd/commands.h"
#include "cmd/eval_generate.h"
#include "kernels/matvec_i8.h"
#include "cmd/run_load.h"
#include "format/svg.h"
#include "train/evaluate.h"
#include "train/interrupt.h"
#include "train/run_folder.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/format_bytes.h"
#include "util/mem_limit.h"
#include "util/pause.h"
#include "util/pool.h"

static const double LN2 = 0.69314718055994530942;  // bits = nats / ln 2

typedef struct {
    size_t T, windows;
    double *sum;         // (T) summed loss at each position
    size_t *count;       // (T) scored positions
    size_t correct;      // argmax == target (reported for recall)
} PosLoss;

static void add_by_position(void *ctx, const Graph *g, double batch_loss) {
    (void)batch_loss;
    PosLoss *p = ctx;
    size_t B = g->B, T = g->T;
    const float *loss = graph_position_losses(g);  // (B*T)
    for (size_t b = 0; b < B; b++)
        for (size_t t = 0; t < T; t++) {
            if (g->targets[b * T + t] < 0) continue;
            p->sum[t] += loss[b * T + t];
            p->count[t]++;
        }
    p->correct += count_correct(g->logits->data, g->targets, B * T, g->logits->cols);
}

// Every validation window once (eval_windows, train/evaluate.h), the loss
// kept by position. Returns the signal that asked to stop (interrupt.h: only
// under ablate, which installs the handlers; `lmtrain eval` alone just dies on
// Ctrl-C), checked every batch.
static int eval_split(Graph *g, const Dataset *d, PosLoss *p) {
    return eval_windows(g, d, "eval_split", add_by_position, p);
}

// name: the files' stem, "loss_by_position" or "loss_by_position_N"
static int write_outputs(const LoadedRun *r, const PosLoss *p, const char *dir, const char *name) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    AtomicFile a;
    int rc = atomic_open(&a, path);
    if (rc) return rc;
    fprintf(a.f, "position,loss,bits,count\n");
    double *x = xcalloc(p->T, sizeof(double)), *y = xcalloc(p->T, sizeof(double));
    for (size_t t = 0; t < p->T; t++) {
        x[t] = (double)t;
        y[t] = p->count[t] ? p->sum[t] / (double)p->count[t] : NAN;
        if (p->count[t])
            fprintf(a.f, "%zu,%.6f,%.6f,%zu\n", t, y[t], y[t] / LN2, p->count[t]);
        else  // recall scores only the query positions: no value here
            fprintf(a.f, "%zu,,,0\n", t);
    }
    if ((rc = atomic_commit(&a))) goto out;
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    char title[300];
    if (p->T == r->model.Tmax)
        snprintf(title, sizeof title, "%s (%s): validation loss by position in the window", r->cfg.name,
                 r->cfg.kind);
    else
        snprintf(title, sizeof title, "%s (%s): loss by position in windows of %zu (trained on %zu)",
                 r->cfg.name, r->cfg.kind, p->T, r->model.Tmax);
    SvgChart chart = {title, "position in the context window (tokens seen - 1)", "loss (nats/token)", 0, 0};
    SvgSeries s = {r->cfg.kind, x, y, p->T, 0, 0};
    char edge[64];
    snprintf(edge, sizeof edge, "training window: %zu", r->model.Tmax);
    SvgStyle st = {0};
    if (p->T > r->model.Tmax) st.mark_label = edge, st.mark_x = (double)r->model.Tmax;  // past it: mark the edge
    rc = svg_styled_chart(path, &chart, NULL, &s, NULL, 1, &st);
out:
    free(x);
    free(y);
    return rc;
}

// T: the window length scored (block_size unless --length)
static int run_eval(const LoadedRun *r, Model *m, size_t T) {
    const Dataset *d = r->data;
    PosLoss p = {.T = T};
    p.windows = dataset_eval_windows(d, SPLIT_VAL, p.T);
    if (p.windows == 0)
        return err_set(ERR_RUNTIME, "eval: the validation split of %s holds no full window of %zu tokens",
                       r->dir, p.T);
    p.sum = xcalloc(p.T, sizeof(double));
    p.count = xcalloc(p.T, sizeof(size_t));
    // as many tokens per forward as a training batch, so a long window costs no more memory per token
    size_t B = (size_t)r->cfg.batch_size * m->Tmax / T;
    if (B < 1) B = 1;
    if (B > p.windows) B = p.windows;
    Graph g;
    graph_build(&g, m, B, p.T);
    int sig = eval_split(&g, d, &p);
    graph_free(&g);
    if (sig) {
        free(p.sum);
        free(p.count);
        fprintf(stderr, "lmtrain: stopped by %s during the whole-split evaluation of %s; nothing written\n",
                interrupt_name(sig), r->dir);
        return 128 + sig;
    }

    double sum = 0;
    size_t n = 0;
    for (size_t t = 0; t < p.T; t++) {
        sum += p.sum[t];
        n += p.count[t];
    }
    double loss = n ? sum / (double)n : NAN;
    int recall = r->cfg.task == TASK_RECALL;
    size_t split = dataset_split_tokens(d, SPLIT_VAL);
    printf("run             %s (%s, step %llu)\n", r->dir, r->cfg.kind, (unsigned long long)r->st.step);
    if (recall)
        printf("validation set  %zu sequences of %zu tokens, all of them\n", p.windows, p.T);
    else
        printf("validation set  %zu windows of %zu tokens: the whole split (%zu tokens; the last %zu "
               "cannot fill a window)\n", p.windows, p.T, split, split - p.windows * p.T);
    printf("tokens scored   %zu\n", n);
    printf("val loss        %.4f nats/token\n", loss);
    printf("%-15s %.4f\n", recall ? "bits/token" : "bits/char", loss / LN2);
    if (recall) printf("val acc         %.4f\n", n ? (double)p.correct / (double)n : NAN);

    char dir[4200], name[64];
    snprintf(dir, sizeof dir, "%s/eval", r->dir);
    if (T == m->Tmax) snprintf(name, sizeof name, "loss_by_position");
    else snprintf(name, sizeof name, "loss_by_position_%zu", T);
    int rc = make_dirs(dir);
    if (!rc) rc = write_outputs(r, &p, dir, name);
    if (!rc) printf("loss by position: %s/%s.csv and .svg\n", dir, name);
    EvalSummary es = {.loss = loss, .tokens = n, .window = T, .step = r->st.step, .batch_hash = r->st.batch_hash};
    if (!rc && T == m->Tmax) rc = eval_summary_write(r->dir, &es);
    free(p.sum);
    free(p.count);
    return rc;
}

// --length past block_size needs a model without learned positions; recall
// sequences have one length. Checked before anything is written.
static int check_length(const LoadedRun *r, size_t T) {
    if (r->cfg.task == TASK_RECALL && T != r->model.Tmax)
        return err_set(ERR_USAGE, "eval: --length %zu: a recall run's validation sequences are %zu tokens long, "
                                  "by construction; --length applies to text runs", T, r->model.Tmax);
    if (T > r->model.Tmax && r->model.wpe)
        return err_set(ERR_USAGE, "eval: --length %zu is longer than block_size %zu, but %s learned a position "
                                  "embedding for positions 0..%zu only and has none for later positions; "
                                  "train with [model] pos = none (e.g. configs/nopos_*.ini) to score longer "
                                  "windows", T, r->model.Tmax, r->dir, r->model.Tmax - 1);
    return 0;
}

// What the evaluation of windows of T tokens will allocate, against what this
// process may use (a cgroup's limit included): refused before the allocation
// rather than killed by the kernel halfway. weights < 0: the training graph
// over the batch run_eval builds; else the generator, whose KV cache (softmax)
// grows with T.
static int check_eval_memory(const LoadedRun *r, size_t T, int weights) {
    const Model *m = &r->model;
    double need;
    if (weights < 0) {
        size_t B = (size_t)r->cfg.batch_size * m->Tmax / T;
        need = (double)model_estimate_bytes(&r->cfg, m->V, B < 1 ? 1 : B, T);
        if (need == 0) need = INFINITY;
    } else {
        need = 2.0 * (double)m->n_floats * sizeof(float) +  // the weights and the generator's packed copy
               (double)m->L * (double)m->kind->memory_bytes(&m->acfg, T);
    }
    char from[1400], a[32], b[32];
    double have = memory_limit_bytes(from, sizeof from);
    if (have <= 0 || need <= 0.9 * have) return 0;
    format_bytes(a, sizeof a, need);
    format_bytes(b, sizeof b, have);
    return err_set(ERR_USAGE, "eval: --length %zu needs about %s of memory (%s), and %s allows %s; use a "
                              "shorter --length", T, isfinite(need) ? a : "more than 16 EiB",
                   weights < 0 ? "the graph over a batch of windows" : "the weights and the generation state",
                   from, b);
}

// length 0: block_size; weights < 0: the training graph, else the generation
// path with the weights held that way (eval_generate.h). The training graph's
// evaluation writes into DIR/eval, so it holds the run's lock (a training
// writing the run is refused by name: the summary would describe a checkpoint
// being replaced) and, under it, removes what killed writers left there.
static int eval_folder(const char *run_dir, size_t length, int weights) {
    LoadedRun r;
    int rc = run_load(&r, run_dir);
    if (rc) return rc;
    DirLock lock = {.fd = -1};
    if (weights < 0 && !(rc = dir_lock_take(&lock, run_dir, "evaluate"))) run_folder_remove_stale(run_dir);
    size_t T = length ? length : r.model.Tmax;
    if (!rc && !(rc = check_length(&r, T)) && !(rc = check_eval_memory(&r, T, weights))) {
        if (weights >= 0) {
            rc = eval_generate(&r, T, (GenWeights)weights);
        } else {
            pool_init(r.cfg.threads);
            rc = run_eval(&r, &r.model, T);
        }
    }
    dir_lock_release(&lock);
    run_unload(&r);
    return rc;
}

int cmd_eval(int argc, char **argv) {
    const char *run = NULL, *weights = NULL;
    size_t length = 0;
    const ArgOpt opts[] = {
        {"--run", ARG_STRING, &run, "DIR", .help = "the run folder (with checkpoint.bin)", .required = 1},
        {"--length", ARG_SIZE, &length, "N", .help = "window length; past block_size only for pos = none runs",
         .lo = 1, .hi = (double)((size_t)1 << 24), .shown_default = "the run's block_size"},
        {"--weights", ARG_STRING, &weights, "W",
         .help = "score through the generation path (`sample`'s, one token at a time) with the weights in fp32, "
                 "bf16 or int8; prints the loss, writes no file",
         .shown_default = "none: the training graph"},
    };
    const ArgSpec spec = {"eval", "--run DIR [--length N] [--weights W]",
                          "The exact validation loss over the whole split, and the loss at each position of\n"
                          "the window (DIR/eval/loss_by_position.csv and .svg).",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);
    int w = weights ? gen_weights_from_name(weights) : -1;
    if (weights && w < 0)
        return args_status(err_set(ERR_USAGE, "eval: --weights must be fp32, bf16 or int8, not \"%s\"", weights));
    const char *missing = w == GEN_WEIGHTS_INT8 ? matvec_i8_cpu_missing() : NULL;
    if (missing) return args_status(err_set(ERR_USAGE, "eval: --weights int8: %s; use bf16 or fp32", missing));
    return eval_folder(run, length, w);
}

int eval_run_folder(const char *run_dir) { return eval_folder(run_dir, 0, -1); }
