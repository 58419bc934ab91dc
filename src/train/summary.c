// summary.c — curves.svg and summary.txt of one run.
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/svg.h"
#include "train/metrics.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/format_bytes.h"
#include "util/pool.h"

static int draw_curves(const char *run_dir, const MetricsTable *t, const char *name) {
    int cs = metrics_col(t, "step"), ct = metrics_col(t, "train_loss"), cv = metrics_col(t, "val_loss");
    if (cs < 0 || ct < 0 || cv < 0) return err_set(ERR_RUNTIME, "%s/metrics.csv: missing columns", run_dir);
    double *x = xcalloc(t->rows + 1, sizeof(double)), *tr = xcalloc(t->rows + 1, sizeof(double)),
           *va = xcalloc(t->rows + 1, sizeof(double));
    for (size_t r = 0; r < t->rows; r++) {
        x[r] = t->v[r * t->cols + (size_t)cs];
        tr[r] = t->v[r * t->cols + (size_t)ct];
        va[r] = t->v[r * t->cols + (size_t)cv];
    }
    SvgSeries s[2] = {{"train", x, tr, t->rows, 1, 1}, {"val", x, va, t->rows, 0, 2}};
    char title[300], path[4200];
    snprintf(title, sizeof title, "%s: loss", name);
    SvgChart chart = {title, "step", "loss (nats/char)", 0, 0};
    snprintf(path, sizeof path, "%s/curves.svg", run_dir);
    int rc = svg_line_chart(path, &chart, s, 2);
    free(x);
    free(tr);
    free(va);
    return rc;
}

int write_run_outputs(const char *run_dir, const Model *m, const TrainState *st) {
    char path[4200];
    snprintf(path, sizeof path, "%s/metrics.csv", run_dir);
    MetricsTable t;
    int rc = metrics_read(path, &t);
    if (rc) return rc;
    const Config *c = &m->cfg;
    rc = draw_curves(run_dir, &t, c->name);
    if (rc) goto out;
    snprintf(path, sizeof path, "%s/summary.txt", run_dir);
    AtomicFile a;
    if ((rc = atomic_open(&a, path))) goto out;
    FILE *f = a.f;
    double tokens_per_s = st->elapsed_s > 0 ? (double)st->tokens / st->elapsed_s : NAN;
    fprintf(f, "run               %s\n", c->name);
    fprintf(f, "attention kind    %s\n", c->kind);
    fprintf(f, "parameters        %zu\n", m->n_weights);
    fprintf(f, "steps             %llu\n", (unsigned long long)st->step);
    fprintf(f, "tokens            %llu\n", (unsigned long long)st->tokens);
    fprintf(f, "final train loss  %.4f\n", metrics_last(&t, "train_loss"));
    fprintf(f, "final val loss    %.4f\n", metrics_last(&t, "val_loss"));
    fprintf(f, "best val loss     %.4f (step %llu)\n", st->best_val, (unsigned long long)st->best_step);
    if (c->task == TASK_RECALL) fprintf(f, "final val acc     %.4f\n", metrics_last(&t, "val_acc"));
    fprintf(f, "tokens/s          %.0f (training steps only, %d threads)\n", tokens_per_s, pool_threads());
    fprintf(f, "training time     %.1f s\n", st->elapsed_s);
    fprintf(f, "training CPU time %.1f s (process CPU time of the training steps, all threads)\n", st->cpu_s);
    if (c->cpu_seconds > 0)
        fprintf(f, "budget            cpu_seconds %g: stopped at step %llu of at most %d (%s)\n", c->cpu_seconds,
                (unsigned long long)st->step, c->steps,
                st->cpu_s >= c->cpu_seconds ? "the CPU budget was spent" : "the step cap came first");
    else
        fprintf(f, "budget            steps %d\n", c->steps);
    fprintf(f, "batch fingerprint %016llx (equal across runs that saw the same batches)\n",
            (unsigned long long)st->batch_hash);
    fprintf(f, "inference memory per sequence (%s, all %zu layers):\n",
            model_inference_bytes(m, 1) == model_inference_bytes(m, 2) ? "fixed fast-weight state" : "KV cache", m->L);
    const size_t lens[] = REPORT_LENGTHS;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char b[32];
        format_bytes(b, sizeof b, (double)model_inference_bytes(m, lens[i]));
        fprintf(f, "  %8zu tokens  %s\n", lens[i], b);
    }
    rc = atomic_commit(&a);
out:
    metrics_table_free(&t);
    return rc;
}
