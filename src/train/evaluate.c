// evaluate.c — validation during training.
#include "evaluate.h"

#include <math.h>
#include <string.h>

#include "train/interrupt.h"
#include "util/pause.h"
#include "util/rng.h"

unsigned long long eval_seed(const Config *c) { return c->seed ^ 0x76616c6964617465ull; /* "validate" */ }

size_t count_correct(const float *logits, const int *targets, size_t N, size_t V) {
    size_t ok = 0;
    for (size_t i = 0; i < N; i++) {
        if (targets[i] < 0) continue;
        const float *row = logits + i * V;
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (row[v] > row[best]) best = v;
        ok += best == (size_t)targets[i];
    }
    return ok;
}

static double eval_random_batches(Graph *g, Dataset *d, const Config *c) {
    Rng rng;
    rng_seed(&rng, eval_seed(c));
    double sum = 0;
    size_t count = 0;
    for (int i = 0; i < c->eval_batches; i++) {
        dataset_batch(d, SPLIT_VAL, &rng, g->B, g->T, g->tokens, g->targets);
        double loss = graph_forward(g);
        size_t n = graph_scored(g);
        sum += loss * (double)n;
        count += n;
        if (i == 0) pause_point("eval", NULL);
        if (interrupt_requested()) return NAN;  // asked to stop: do not make it wait for the rest
    }
    return count ? sum / (double)count : NAN;
}

// Every validation window once, B at a time; rows past the end of the last
// batch repeat window 0 with their targets masked, so they count for nothing.
int eval_windows(Graph *g, const Dataset *d, const char *pause, void (*visit)(void *ctx, const Graph *g, double loss),
                 void *ctx) {
    size_t n = dataset_eval_windows(d, SPLIT_VAL, g->T);
    for (size_t first = 0; first < n; first += g->B) {
        for (size_t b = 0; b < g->B; b++) {
            int *in = g->tokens + b * g->T, *tg = g->targets + b * g->T;  // (T) each
            size_t w = first + b < n ? first + b : 0;
            dataset_eval_window(d, SPLIT_VAL, w, g->T, in, tg);
            if (first + b >= n)
                for (size_t t = 0; t < g->T; t++) tg[t] = -1;
        }
        double loss = graph_forward(g);
        visit(ctx, g, loss);
        if (first == 0) pause_point(pause, NULL);
        if (interrupt_requested()) return interrupt_requested();
    }
    return 0;
}

typedef struct {
    double sum;
    size_t count, correct;
} WindowTotals;

static void add_totals(void *ctx, const Graph *g, double loss) {
    WindowTotals *w = ctx;
    size_t k = graph_scored(g);
    w->sum += loss * (double)k;
    w->count += k;
    w->correct += count_correct(g->logits->data, g->targets, g->B * g->T, g->logits->cols);
}

static double eval_all_windows(Graph *g, Dataset *d, double *acc) {
    WindowTotals w = {0};
    if (eval_windows(g, d, "eval", add_totals, &w)) {
        if (acc) *acc = NAN;
        return NAN;
    }
    if (acc) *acc = w.count ? (double)w.correct / (double)w.count : NAN;
    return w.count ? w.sum / (double)w.count : NAN;
}

double evaluate(Graph *g, Model *m, Dataset *d, const Config *c, double *acc) {
    (void)m;
    if (c->task == TASK_RECALL) return eval_all_windows(g, d, acc);
    return eval_random_batches(g, d, c);
}
