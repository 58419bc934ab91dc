// estimate.c — the duration of an ablation, estimated before it trains from a
// short measured step per config, and its progress while it runs (estimate.h).
#include "experiment/estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "train/checkpoint.h"
#include "train/data.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "util/err.h"
#include "util/pool.h"
#include "util/rng.h"

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int estimate_step(const Config *c, double *wall_s, double *cpu_s) {
    Dataset *d = NULL;
    int rc = dataset_open(c, &d);
    if (rc) return rc;
    pool_init(c->threads);
    size_t B = (size_t)c->batch_size, T = (size_t)c->block_size;
    Model m;
    AdamW o;
    Graph g;
    model_build(&m, c, (size_t)dataset_vocab_size(d));
    adamw_init(&o, &m);
    graph_build_prec(&g, &m, B, T, c->precision);
    Rng rng;
    rng_seed(&rng, c->seed);
    enum { WARM = 1, TIMED = 2 };
    double w0 = 0, c0 = 0;
    for (int i = 0; i < WARM + TIMED; i++) {
        if (i == WARM) w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        dataset_batch(d, SPLIT_TRAIN, &rng, B, T, g.tokens, g.targets);
        StepStats ss;
        train_step(&g, &m, &o, i, &ss);  // a non-finite step costs the same: its result is not kept
    }
    *wall_s = (clock_s(CLOCK_MONOTONIC) - w0) / TIMED;
    *cpu_s = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / TIMED;
    graph_free(&g);
    adamw_free(&o);
    model_free(&m);
    dataset_free(d);
    return 0;
}

long estimate_steps_left(const Config *c, double step_cpu_s, long steps_done) {
    long left = c->steps - steps_done;
    if (left < 0) left = 0;
    if (c->cpu_seconds > 0 && step_cpu_s > 0) {  // the budget may end it first
        double budget_left = c->cpu_seconds / step_cpu_s - (double)steps_done;
        if (budget_left < 0) budget_left = 0;
        if (budget_left < (double)left) left = (long)ceil(budget_left);
    }
    return left;
}

double estimate_run_seconds(const Config *c, double step_wall_s, double step_cpu_s, long steps_done,
                            size_t val_windows) {
    long left = estimate_steps_left(c, step_cpu_s, steps_done);
    double forward = step_wall_s / 3;  // a forward pass of one batch, roughly a third of a step
    double evals = (double)(left / c->eval_every + 1) * c->eval_batches * forward;
    double whole_split = (double)val_windows * forward / (double)c->batch_size;
    return (double)left * step_wall_s + evals + whole_split;
}

// Equal but for the keys that do not change a step's cost.
static int same_cost(const Config *a, const Config *b) {
    Config x = *b;
    x.seed = a->seed;
    memcpy(x.name, a->name, sizeof x.name);
    memcpy(x.out_dir, a->out_dir, sizeof x.out_dir);
    return config_diff(a, &x, NULL, 0, 0) == 0;
}

static long steps_done(const char *dir) {
    char path[4200];
    TrainState st;
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    return checkpoint_read_state(path, &st) == 0 ? (long)st.step : 0;
}

void estimate_format(char *buf, size_t cap, double s) {
    if (!(s >= 0) || isinf(s)) snprintf(buf, cap, "?");
    else if (s < 90) snprintf(buf, cap, "%.0f s", s);
    else if (s < 5400) snprintf(buf, cap, "%.0f min", s / 60);
    else snprintf(buf, cap, "%.0f h %02.0f min", floor(s / 3600), fmod(floor(s / 60), 60));
}

int estimate_plan(Estimate *e, const Config *cfgs, const char *const *dirs, const int *todo, size_t n, int jobs,
                  FILE *out) {
    memset(e, 0, sizeof *e);
    e->n = n;
    e->run_s = xcalloc(n ? n : 1, sizeof(double));
    double t0 = clock_s(CLOCK_MONOTONIC);
    double *wall = xcalloc(n ? n : 1, sizeof(double)), *cpu = xcalloc(n ? n : 1, sizeof(double));
    size_t *windows = xcalloc(n ? n : 1, sizeof(size_t));
    int *measured = xcalloc(n ? n : 1, sizeof(int)), rc = 0, configs = 0;
    long steps_total = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        if (!todo[k]) continue;
        size_t j = 0;
        while (j < k && !(measured[j] && same_cost(&cfgs[j], &cfgs[k]))) j++;
        if (j < k) {
            wall[k] = wall[j], cpu[k] = cpu[j], windows[k] = windows[j];
        } else {
            if ((rc = estimate_step(&cfgs[k], &wall[k], &cpu[k]))) break;
            Dataset *d = NULL;
            if ((rc = dataset_open(&cfgs[k], &d))) break;
            windows[k] = dataset_eval_windows(d, SPLIT_VAL, (size_t)cfgs[k].block_size);
            dataset_free(d);
            configs++;
        }
        measured[k] = 1;
        long done = steps_done(dirs[k]);
        e->run_s[k] = estimate_run_seconds(&cfgs[k], wall[k], cpu[k], done, windows[k]);
        e->total_s += e->run_s[k];
        e->cpu_s += (double)estimate_steps_left(&cfgs[k], cpu[k], done) * cpu[k];
        steps_total += estimate_steps_left(&cfgs[k], cpu[k], done);
    }
    int runs = 0;
    for (size_t k = 0; k < n; k++) runs += todo[k] != 0;
    if (!rc && runs) {
        char total[64], cpu_total[64], at_once[64] = "";
        int j = jobs < 1 ? 1 : jobs < runs ? jobs : runs;
        if (j > 1) snprintf(at_once, sizeof at_once, " (%d at once)", j);
        estimate_format(total, sizeof total, e->total_s / j);
        estimate_format(cpu_total, sizeof cpu_total, e->cpu_s);
        fprintf(out, "estimate: about %s of wall time for %d run%s%s (%ld steps at most; %s of CPU time in "
                     "training steps) on %d thread%s each, from a short measured step of each of %d config%s; the "
                     "machine's load changes it\n",
                total, runs, runs == 1 ? "" : "s", at_once, steps_total, cpu_total, pool_threads(),
                pool_threads() == 1 ? "" : "s", configs, configs == 1 ? "" : "s");
        fflush(out);
    }
    free(wall);
    free(cpu);
    free(windows);
    free(measured);
    e->measured_s = clock_s(CLOCK_MONOTONIC) - t0;
    e->started = clock_s(CLOCK_MONOTONIC);
    return rc;
}

void estimate_progress(const Estimate *e, size_t k, FILE *out) {
    if (!e->run_s || k >= e->n || e->run_s[k] == 0) return;  // nothing estimated, or a finished run
    double spent = clock_s(CLOCK_MONOTONIC) - e->started, est_done = 0, est_left = 0;
    int done = 0, left = 0;
    for (size_t j = 0; j < e->n; j++) {
        if (e->run_s[j] == 0) continue;
        if (j < k) est_done += e->run_s[j], done++;
        else est_left += e->run_s[j], left++;
    }
    // the runs done so far tell how far off the estimate is on this machine now
    double scale = est_done > 0 && spent > 0 ? spent / est_done : 1;
    double remain = est_left * scale;
    char a[64], b[64], at[32] = "?";
    estimate_format(a, sizeof a, spent);
    estimate_format(b, sizeof b, remain);
    time_t end = time(NULL) + (time_t)remain;
    struct tm tm;
    if (gmtime_r(&end, &tm)) strftime(at, sizeof at, "%H:%M UTC", &tm);
    fprintf(out, "-- overall: %d of %d runs done, %s spent, about %s left (estimate; ends near %s)\n", done,
            done + left, a, b, at);
    fflush(out);
}

void estimate_free(Estimate *e) {
    free(e->run_s);
    memset(e, 0, sizeof *e);
}
