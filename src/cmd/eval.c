// eval_cmd.c — `lmtrain eval --run DIR`: the whole validation split, once.
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/eval_summary.h"
#include "model/model.h"
#include "cmd/commands.h"
#include "cmd/run_load.h"
#include "format/svg.h"
#include "train/evaluate.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/pool.h"

static const double LN2 = 0.69314718055994530942;  // bits = nats / ln 2

typedef struct {
    size_t T, windows;
    double *sum;         // (T) summed loss at each position
    size_t *count;       // (T) scored positions
    size_t correct;      // argmax == target (reported for recall)
} PosLoss;

// Every validation window once, B at a time. Rows past the last window repeat
// window 0 with every target masked, so they count for nothing.
static void eval_split(Graph *g, const Dataset *d, PosLoss *p) {
    size_t B = g->B, T = g->T, V = g->logits->cols;
    for (size_t first = 0; first < p->windows; first += B) {
        for (size_t b = 0; b < B; b++) {
            int *in = g->tokens + b * T, *tg = g->targets + b * T;  // (T) each
            size_t w = first + b < p->windows ? first + b : 0;
            dataset_eval_window(d, SPLIT_VAL, w, T, in, tg);
            if (first + b >= p->windows)
                for (size_t t = 0; t < T; t++) tg[t] = -1;
        }
        graph_forward(g);
        const float *loss = graph_position_losses(g);  // (B*T)
        for (size_t b = 0; b < B; b++)
            for (size_t t = 0; t < T; t++) {
                if (g->targets[b * T + t] < 0) continue;
                p->sum[t] += loss[b * T + t];
                p->count[t]++;
            }
        p->correct += count_correct(g->logits->data, g->targets, B * T, V);
    }
}

static int write_outputs(const LoadedRun *r, const PosLoss *p, const char *dir) {
    char path[4300];
    snprintf(path, sizeof path, "%s/loss_by_position.csv", dir);
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
    snprintf(path, sizeof path, "%s/loss_by_position.svg", dir);
    char title[300];
    snprintf(title, sizeof title, "%s (%s): validation loss by position in the window", r->cfg.name,
             r->cfg.kind);
    SvgChart chart = {title, "position in the context window (tokens seen - 1)", "loss (nats/token)", 0, 0};
    SvgSeries s = {r->cfg.kind, x, y, p->T, 0, 0};
    rc = svg_line_chart(path, &chart, &s, 1);
out:
    free(x);
    free(y);
    return rc;
}

static int run_eval(const LoadedRun *r, Model *m) {
    const Dataset *d = r->data;
    PosLoss p = {.T = m->Tmax};
    p.windows = dataset_eval_windows(d, SPLIT_VAL, p.T);
    if (p.windows == 0)
        return err_set(ERR_RUNTIME, "eval: the validation split of %s holds no full window of %zu tokens",
                       r->dir, p.T);
    p.sum = xcalloc(p.T, sizeof(double));
    p.count = xcalloc(p.T, sizeof(size_t));
    size_t B = (size_t)r->cfg.batch_size;
    if (B > p.windows) B = p.windows;
    Graph g;
    graph_build(&g, m, B, p.T);
    eval_split(&g, d, &p);
    graph_free(&g);

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

    char dir[4200];
    snprintf(dir, sizeof dir, "%s/eval", r->dir);
    int rc = make_dirs(dir);
    if (!rc) rc = write_outputs(r, &p, dir);
    EvalSummary es = {.loss = loss, .tokens = n, .window = p.T, .step = r->st.step, .batch_hash = r->st.batch_hash};
    if (!rc) rc = eval_summary_write(r->dir, &es);
    if (!rc) printf("loss by position: %s/loss_by_position.csv and .svg\n", dir);
    free(p.sum);
    free(p.count);
    return rc;
}

int cmd_eval(int argc, char **argv) {
    const char *run = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--run") && i + 1 < argc) run = argv[++i];
        else if (!strcmp(argv[i], "--run")) return err_set(ERR_USAGE, "eval: --run needs a value");
        else return err_set(ERR_USAGE, "eval: unknown option '%s'\nusage: lmtrain eval --run DIR", argv[i]);
    }
    if (!run) return err_set(ERR_USAGE, "eval: missing --run DIR (a run folder with checkpoint.bin)");
    return eval_run_folder(run);
}

int eval_run_folder(const char *run_dir) {
    LoadedRun r;
    int rc = run_load(&r, run_dir);
    if (rc) return rc;
    pool_init(r.cfg.threads);
    rc = run_eval(&r, &r.model);
    run_unload(&r);
    return rc;
}
