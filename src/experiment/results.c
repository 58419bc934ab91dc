// results.c — reading an ablation's run folders and computing the statistics
// the report shows (see results.h).
#include "results.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiment/eval_summary.h"
#include "model/model.h"
#include "train/checkpoint.h"
#include "train/metrics.h"
#include "train/metrics_check.h"
#include "train/summary.h"
#include "util/err.h"
#include "util/file_check.h"

// ============================================================================
// One run
// ============================================================================

// "parameters N" from summary.txt (the model's own count, written at the end of training)
static size_t summary_params(const char *run_dir) {
    char path[4800], line[512];
    snprintf(path, sizeof path, "%s/summary.txt", run_dir);
    FILE *f = fopen_regular(path);
    size_t n = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "parameters %zu", &n) == 1) break;
    fclose(f);
    return n;
}

static int load_curves(RunResult *r, const MetricsTable *t) {
    int cs = metrics_col(t, "step"), ct = metrics_col(t, "train_loss"), cv = metrics_col(t, "val_loss");
    if (cs < 0 || ct < 0 || cv < 0) return -1;
    r->points = t->rows;
    r->step = xcalloc(t->rows + 1, sizeof(double));
    r->train = xcalloc(t->rows + 1, sizeof(double));
    r->val = xcalloc(t->rows + 1, sizeof(double));
    for (size_t i = 0; i < t->rows; i++) {
        r->step[i] = t->v[i * t->cols + (size_t)cs];
        r->train[i] = t->v[i * t->cols + (size_t)ct];
        r->val[i] = t->v[i * t->cols + (size_t)cv];
    }
    int ca = metrics_col(t, "val_acc");  // only the recall task logs it
    if (ca >= 0) {
        r->acc = xcalloc(t->rows + 1, sizeof(double));
        for (size_t i = 0; i < t->rows; i++) r->acc[i] = t->v[i * t->cols + (size_t)ca];
    }
    return 0;
}

// Fills r from its folder. A run whose eval/summary.txt belongs to another
// checkpoint (a folder reused) is only RUN_TRAINED.
static int load_run(RunResult *r, const char *dir) {
    char run_dir[4700], path[4800];
    snprintf(run_dir, sizeof run_dir, "%s/%s", dir, r->plan.rel);
    r->state = run_state(run_dir);
    r->val_loss = r->eval_loss = r->train_loss = r->best_val = r->val_acc = r->tokens_per_s = NAN;
    if (r->state < RUN_INTERRUPTED) return 0;
    snprintf(path, sizeof path, "%s/checkpoint.bin", run_dir);
    TrainState st;
    int rc = checkpoint_read_config(path, &r->cfg);
    if (!rc) rc = checkpoint_read_state(path, &st);
    if (rc) return r->state >= RUN_TRAINED ? rc : (r->state = RUN_EMPTY, 0);
    r->batch_hash = st.batch_hash;
    if (r->state < RUN_TRAINED) return 0;
    EvalSummary e;
    if (r->state == RUN_FINISHED) {
        if (eval_summary_read(run_dir, &e) || e.step != st.step || e.batch_hash != st.batch_hash ||
            e.window != (size_t)r->cfg.block_size)
            r->state = RUN_TRAINED;
        else if (!isfinite(e.loss) || e.loss < 0)  // a loss is finite and >= 0: anything else is no result
            return err_set(ERR_RUNTIME, "%s/eval/summary.txt: val_loss is %g, which is not a loss; the report "
                                        "would average it into the kind's figures. Evaluate the run again "
                                        "(lmtrain eval --run %s)", run_dir, e.loss, run_dir);
        else
            r->eval_loss = e.loss;
    }
    MetricsTable t;
    snprintf(path, sizeof path, "%s/metrics.csv", run_dir);
    // a file cut short would make an early val loss the run's last
    long logged = metrics_last_logged_step((long)st.step, r->cfg.log_every, r->cfg.eval_every, r->cfg.steps);
    if (r->state == RUN_FINISHED &&
        (rc = metrics_check_reaches(path, logged, (long)st.step,
                                    "the report would take an earlier step's val loss for the run's last",
                                    "restore the file, or train the run again (--overwrite)")))
        return rc;
    if ((rc = metrics_read(path, &t))) return rc;
    if (load_curves(r, &t)) {
        metrics_table_free(&t);
        return err_set(ERR_RUNTIME, "%s: missing columns", path);
    }
    if (r->state == RUN_FINISHED && t.nan_row < t.rows) {  // NaN is not "no value" (an empty cell)
        rc = err_set(ERR_RUNTIME, "%s: the row of step %.0f holds NaN in %s, which lmtrain never writes (it leaves "
                                  "a cell empty where there is no value); this run cannot be compared. Restore the "
                                  "file, or train the run again (--overwrite)",
                     path, t.v[t.nan_row * t.cols + (size_t)metrics_col(&t, "step")], t.names[t.nan_col]);
        metrics_table_free(&t);
        return rc;
    }
    r->val_loss = metrics_last(&t, "val_loss");
    r->train_loss = metrics_last(&t, "train_loss");
    r->best_val = metrics_min(&t, "val_loss");
    r->val_acc = metrics_last(&t, "val_acc");
    if (r->state == RUN_FINISHED && (!isfinite(r->val_loss) || r->val_loss < 0 || !isfinite(r->train_loss))) {
        double bad = !isfinite(r->val_loss) || r->val_loss < 0 ? r->val_loss : r->train_loss;
        metrics_table_free(&t);
        return err_set(ERR_RUNTIME, "%s: the last %s is %g, which is not a loss; this run cannot be compared", path,
                       !isfinite(r->val_loss) || r->val_loss < 0 ? "val_loss" : "train_loss", bad);
    }
    double tok = metrics_last(&t, "tokens"), el = metrics_last(&t, "elapsed_s");
    r->tokens_per_s = el > 0 ? tok / el : NAN;
    metrics_table_free(&t);
    r->params = summary_params(run_dir);
    return 0;
}

// ============================================================================
// Groups and their statistics
// ============================================================================

static GroupStats *group_of(Ablation *a, const PlanRun *p) {
    for (size_t g = 0; g < a->n_group; g++)
        if (!strcmp(a->group[g].group, p->group)) return &a->group[g];
    a->group = xrealloc(a->group, (a->n_group + 1) * sizeof *a->group);
    GroupStats *g = &a->group[a->n_group++];
    memset(g, 0, sizeof *g);
    snprintf(g->group, sizeof g->group, "%s", p->group);
    snprintf(g->sweep_key, sizeof g->sweep_key, "%s", p->sweep_key);
    snprintf(g->sweep_value, sizeof g->sweep_value, "%s", p->sweep_value);
    snprintf(g->label, sizeof g->label, "%s", p->name);
    return g;
}

typedef double (*Field)(const RunResult *r);
static double f_val(const RunResult *r) { return r->val_loss; }
static double f_eval(const RunResult *r) { return r->eval_loss; }
static double f_train(const RunResult *r) { return r->train_loss; }
static double f_best(const RunResult *r) { return r->best_val; }
static double f_acc(const RunResult *r) { return r->val_acc; }
static double f_tps(const RunResult *r) { return r->tokens_per_s; }

static Summary summarize(const Ablation *a, const GroupStats *g, Field f) {
    double *x = xcalloc((size_t)g->n_runs + 1, sizeof(double));
    int n = 0;
    for (int i = 0; i < g->n_runs; i++) {
        const RunResult *r = &a->run[g->runs[i]];
        if (r->state == RUN_FINISHED) x[n++] = f(r);
    }
    Summary s = stats_summary(x, n);
    free(x);
    return s;
}

// The run of group g with this seed, finished, or NULL.
static const RunResult *run_with_seed(const Ablation *a, const GroupStats *g, unsigned long long seed) {
    for (int i = 0; i < g->n_runs; i++) {
        const RunResult *r = &a->run[g->runs[i]];
        if (r->state == RUN_FINISHED && r->plan.seed == seed) return r;
    }
    return NULL;
}

// b − base over the seeds both groups finished, paired by seed.
static PairedDiff paired(const Ablation *a, const GroupStats *base, const GroupStats *b, Field f) {
    double *x = xcalloc((size_t)b->n_runs + 1, sizeof(double)), *y = xcalloc((size_t)b->n_runs + 1, sizeof(double));
    int n = 0;
    for (int i = 0; i < b->n_runs; i++) {
        const RunResult *rb = &a->run[b->runs[i]], *ra = run_with_seed(a, base, rb->plan.seed);
        if (rb->state != RUN_FINISHED || !ra) continue;
        x[n] = f(ra);
        y[n++] = f(rb);
    }
    PairedDiff d = stats_paired_diff(x, y, n, a->level);
    free(x);
    free(y);
    return d;
}

// The runs' series that a curve is drawn from.
typedef const double *(*Curve)(const RunResult *r);
static const double *c_val(const RunResult *r) { return r->val; }
static const double *c_acc(const RunResult *r) { return r->acc; }

// Per row k of g->step: mean and min-max of curve c over the finished runs,
// NaN where a run logged another step there or has no finite value.
static void band_curve(const Ablation *a, const GroupStats *g, Curve c, double *mean, double *lo, double *hi) {
    for (size_t k = 0; k < g->points; k++) {
        double sum = 0, l = INFINITY, h = -INFINITY;
        int n = 0, all = 1;
        for (int i = 0; i < g->n_runs && all; i++) {
            const RunResult *r = &a->run[g->runs[i]];
            if (r->state != RUN_FINISHED) continue;
            all = k < r->points && r->step[k] == g->step[k] && c(r);
            if (!all || !isfinite(c(r)[k])) continue;
            sum += c(r)[k];
            l = fmin(l, c(r)[k]);
            h = fmax(h, c(r)[k]);
            n++;
        }
        int ok = all && n == g->n_finished;
        mean[k] = ok ? sum / n : NAN;
        lo[k] = ok ? l : NAN;
        hi[k] = ok ? h : NAN;
    }
}

// Mean curves with a min-max band over the finished runs, at the rows whose
// step all of them logged (the same config logs the same steps).
static void group_curves(const Ablation *a, GroupStats *g) {
    const RunResult *first = NULL;
    for (int i = 0; i < g->n_runs && !first; i++)
        if (a->run[g->runs[i]].state == RUN_FINISHED) first = &a->run[g->runs[i]];
    if (!first) return;
    size_t n = first->points;
    g->points = n;
    g->step = xcalloc(n + 1, sizeof(double));
    g->val_mean = xcalloc(n + 1, sizeof(double));
    g->val_lo = xcalloc(n + 1, sizeof(double));
    g->val_hi = xcalloc(n + 1, sizeof(double));
    g->train_mean = xcalloc(n + 1, sizeof(double));
    for (size_t k = 0; k < n; k++) {
        double ts = 0;
        int nt = 0, all = 1;
        for (int i = 0; i < g->n_runs && all; i++) {
            const RunResult *r = &a->run[g->runs[i]];
            if (r->state != RUN_FINISHED) continue;
            all = k < r->points && r->step[k] == first->step[k];
            if (all && isfinite(r->train[k])) ts += r->train[k], nt++;
        }
        g->step[k] = first->step[k];
        g->train_mean[k] = all && nt == g->n_finished ? ts / nt : NAN;
    }
    band_curve(a, g, c_val, g->val_mean, g->val_lo, g->val_hi);
    if (!first->acc) return;
    g->acc_mean = xcalloc(n + 1, sizeof(double));
    g->acc_lo = xcalloc(n + 1, sizeof(double));
    g->acc_hi = xcalloc(n + 1, sizeof(double));
    band_curve(a, g, c_acc, g->acc_mean, g->acc_lo, g->acc_hi);
}

// Per step, the paired difference to the baseline: the seed-to-seed offset
// both runs of a seed share (their validation batches, their start) cancels,
// so this is where kinds that end close together can be told apart.
static void group_diff_curves(const Ablation *a, GroupStats *g, const GroupStats *base) {
    if (!g->points || !base->points) return;
    size_t n = g->points;
    g->dval_mean = xcalloc(n + 1, sizeof(double));
    g->dval_lo = xcalloc(n + 1, sizeof(double));
    g->dval_hi = xcalloc(n + 1, sizeof(double));
    for (size_t k = 0; k < n; k++) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        int pairs = 0, ok = 1;
        for (int i = 0; i < g->n_runs && ok; i++) {
            const RunResult *r = &a->run[g->runs[i]];
            if (r->state != RUN_FINISHED) continue;
            const RunResult *b = run_with_seed(a, base, r->plan.seed);
            if (!b) continue;
            ok = k < r->points && k < b->points && r->step[k] == g->step[k] && b->step[k] == g->step[k];
            if (!ok || !isfinite(r->val[k]) || !isfinite(b->val[k])) continue;
            double d = r->val[k] - b->val[k];
            sum += d;
            lo = fmin(lo, d);
            hi = fmax(hi, d);
            pairs++;
        }
        int have = ok && pairs == g->d_val.n && pairs > 0;
        g->dval_mean[k] = have ? sum / pairs : NAN;
        g->dval_lo[k] = have ? lo : NAN;
        g->dval_hi[k] = have ? hi : NAN;
    }
}

// Inference memory from a model of the run's shape (the state and the KV
// cache do not depend on the vocabulary, so a one-symbol vocabulary will do).
static void group_memory(GroupStats *g, const Config *c) {
    Model m;
    model_build(&m, c, 1);
    const size_t lens[] = REPORT_LENGTHS;
    for (int k = 0; k < REPORT_N_LENGTHS; k++) g->mem[k] = model_inference_bytes(&m, lens[k]);
    model_free(&m);
}

static void group_stats(Ablation *a, GroupStats *g, const GroupStats *base) {
    g->val = summarize(a, g, f_val);
    g->eval = summarize(a, g, f_eval);
    g->train = summarize(a, g, f_train);
    g->best_val = summarize(a, g, f_best);
    g->acc = summarize(a, g, f_acc);
    g->tokens_per_s = summarize(a, g, f_tps);
    if (base && base != g) {
        g->d_val = paired(a, base, g, f_val);
        g->d_eval = paired(a, base, g, f_eval);
        g->d_acc = paired(a, base, g, f_acc);
    }
    group_curves(a, g);
    if (base && base != g && !*g->sweep_key) group_diff_curves(a, g, base);
    for (int i = 0; i < g->n_runs; i++) {
        const RunResult *r = &a->run[g->runs[i]];
        if (r->state != RUN_FINISHED) continue;
        g->params = r->params;
        snprintf(g->kind, sizeof g->kind, "%s", r->cfg.kind);
        group_memory(g, &r->cfg);
        break;
    }
}

// Rows are labelled by attention kind, unless two groups of one comparison
// share a kind (then by run name, which tells them apart).
static void label_groups(Ablation *a) {
    for (size_t i = 0; i < a->n_group; i++) {
        GroupStats *g = &a->group[i];
        if (!*g->kind) continue;  // nothing finished: keep the run name
        int unique = 1;
        for (size_t j = 0; j < a->n_group; j++)
            unique &= j == i || strcmp(a->group[j].kind, g->kind) || strcmp(a->group[j].sweep_value, g->sweep_value) ||
                      strcmp(a->group[j].sweep_key, g->sweep_key);
        if (unique) snprintf(g->label, sizeof g->label, "%s", g->kind);
    }
}

static void seeds_and_batches(Ablation *a) {
    a->seeds = xcalloc(a->n_run + 1, sizeof *a->seeds);
    a->batches_paired = 1;
    for (size_t i = 0; i < a->n_run; i++) {
        const RunResult *r = &a->run[i];
        if (*r->plan.sweep_key) continue;
        size_t s = 0;
        while (s < a->n_seeds && a->seeds[s] != r->plan.seed) s++;
        if (s == a->n_seeds) a->seeds[a->n_seeds++] = r->plan.seed;
        if (r->state != RUN_FINISHED) continue;
        for (size_t j = 0; j < i; j++) {
            const RunResult *q = &a->run[j];
            if (q->state == RUN_FINISHED && !*q->plan.sweep_key && q->plan.seed == r->plan.seed &&
                q->batch_hash != r->batch_hash)
                a->batches_paired = 0;
        }
    }
}

// Moves the main-comparison group named `name` to the front, where the
// differences are taken against it.
static int put_baseline_first(Ablation *a, const char *name) {
    for (size_t j = 0; j < a->n_main; j++) {
        if (strcmp(a->group[j].group, name)) continue;
        GroupStats g = a->group[j];
        memmove(&a->group[1], &a->group[0], j * sizeof g);
        a->group[0] = g;
        return 0;
    }
    char have[1024] = "";
    for (size_t j = 0, len = 0; j < a->n_main && len < sizeof have; j++)
        len += (size_t)snprintf(have + len, sizeof have - len, "%s%s", j ? ", " : "", a->group[j].group);
    return err_set(ERR_USAGE, "--baseline %s: %s has no such run name (it has: %s)", name, a->dir, have);
}

// Every pair (i < j) of the main comparison: j − i, paired by seed.
static void all_pairs(Ablation *a) {
    size_t n = a->n_main;
    a->pair_val = xcalloc(n * n + 1, sizeof *a->pair_val);
    a->pair_eval = xcalloc(n * n + 1, sizeof *a->pair_eval);
    a->pair_acc = xcalloc(n * n + 1, sizeof *a->pair_acc);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            a->pair_val[i * n + j] = paired(a, &a->group[i], &a->group[j], f_val);
            a->pair_eval[i * n + j] = paired(a, &a->group[i], &a->group[j], f_eval);
            a->pair_acc[i * n + j] = paired(a, &a->group[i], &a->group[j], f_acc);
        }
}

// What differs between the finished main runs besides the attention module,
// their names, folders, seeds and thread counts (Ablation.differ).
static void settings_that_differ(Ablation *a) {
    const Config *first = NULL;
    for (size_t i = 0; i < a->n_run; i++) {
        const RunResult *r = &a->run[i];
        if (r->state != RUN_FINISHED || *r->plan.sweep_key) continue;
        if (!first) {
            first = &r->cfg;
            continue;
        }
        Config c = r->cfg;  // r's settings with first's [run] keys and [attention] section
        memcpy(c.name, first->name, sizeof c.name);
        memcpy(c.out_dir, first->out_dir, sizeof c.out_dir);
        c.seed = first->seed;
        c.threads = first->threads;
        c.seeds = first->seeds;
        memcpy((char *)&c + offsetof(Config, kind), (const char *)first + offsetof(Config, kind),
               offsetof(Config, steps) - offsetof(Config, kind));
        c.key_norm_given = first->key_norm_given;
        c.feature_map_given = first->feature_map_given;
        char keys[1024];
        if (!config_diff(first, &c, keys, sizeof keys, 0)) continue;
        for (char *k = strtok(keys, ", "); k; k = strtok(NULL, ", ")) {  // add each key once
            size_t len = strlen(a->differ), kl = strlen(k);
            int seen = 0;
            for (const char *p = strstr(a->differ, k); p && !seen; p = strstr(p + 1, k))
                seen = (p == a->differ || p[-1] == ' ') && (p[kl] == ',' || p[kl] == 0);
            if (!seen && len + kl + 3 < sizeof a->differ)
                snprintf(a->differ + len, sizeof a->differ - len, "%s%s", len ? ", " : "", k);
        }
    }
}

int ablation_load(Ablation *a, const char *dir) { return ablation_load_baseline(a, dir, NULL); }

int ablation_load_baseline(Ablation *a, const char *dir, const char *baseline) {
    memset(a, 0, sizeof *a);
    snprintf(a->dir, sizeof a->dir, "%s", dir);
    a->level = 0.95;
    Plan p;
    char path[4200];
    snprintf(path, sizeof path, "%s/ablation.tsv", dir);
    struct stat st;  // a plan file that is there but not a regular file is an error (plan_read), not "no plan"
    a->discovered = lstat(path, &st) != 0;
    int rc = a->discovered ? plan_discover(&p, dir) : plan_read(&p, dir);
    if (rc) return rc;
    for (size_t i = 0; i < p.n && !rc; i++)  // ablate refuses such names; a folder found or a plan edited may have one
        if (strpbrk(p.run[i].group, "|`"))
            rc = err_set(ERR_RUNTIME, "%s/%s: a '|' or '`' in a run's folder would break the report's tables; "
                                      "rename the folder%s", dir, p.run[i].rel,
                         a->discovered ? "" : " and its line in ablation.tsv");
    if (rc) {
        plan_free(&p);
        return rc;
    }
    a->n_run = p.n;
    a->run = xcalloc(p.n + 1, sizeof *a->run);
    for (size_t i = 0; i < p.n && !rc; i++) {
        RunResult *r = &a->run[i];
        r->plan = p.run[i];
        if ((rc = load_run(r, dir))) break;
        GroupStats *g = group_of(a, &r->plan);
        g->runs = xrealloc(g->runs, ((size_t)g->n_runs + 1) * sizeof *g->runs);
        g->runs[g->n_runs++] = i;
        if (r->state == RUN_FINISHED) {
            g->n_finished++;
            if (a->n_finished++ == 0) {
                a->recall = r->cfg.task == TASK_RECALL;
                a->steps = r->cfg.steps;
                a->cpu_seconds = r->cfg.cpu_seconds;
                a->batch_size = r->cfg.batch_size;
                a->block_size = r->cfg.block_size;
            }
        }
    }
    plan_free(&p);
    if (rc) {
        ablation_free(a);
        return rc;
    }
    while (a->n_main < a->n_group && !*a->group[a->n_main].sweep_key) a->n_main++;
    if (baseline && (rc = put_baseline_first(a, baseline))) {
        ablation_free(a);
        return rc;
    }
    for (size_t i = 0; i < a->n_group; i++) {
        // the baseline: the first group of the main comparison, or of the same sweep cell
        const GroupStats *base = NULL;
        for (size_t j = 0; j < a->n_group && !base; j++)
            if (!strcmp(a->group[j].sweep_key, a->group[i].sweep_key) &&
                !strcmp(a->group[j].sweep_value, a->group[i].sweep_value))
                base = &a->group[j];
        group_stats(a, &a->group[i], base);
    }
    label_groups(a);
    seeds_and_batches(a);
    all_pairs(a);
    settings_that_differ(a);
    return 0;
}

void ablation_free(Ablation *a) {
    for (size_t i = 0; i < a->n_run; i++) {
        free(a->run[i].step);
        free(a->run[i].train);
        free(a->run[i].val);
        free(a->run[i].acc);
    }
    for (size_t i = 0; i < a->n_group; i++) {
        GroupStats *g = &a->group[i];
        free(g->runs);
        free(g->step);
        free(g->val_mean);
        free(g->val_lo);
        free(g->val_hi);
        free(g->train_mean);
        free(g->acc_mean);
        free(g->acc_lo);
        free(g->acc_hi);
        free(g->dval_mean);
        free(g->dval_lo);
        free(g->dval_hi);
    }
    free(a->run);
    free(a->group);
    free(a->seeds);
    free(a->pair_val);
    free(a->pair_eval);
    free(a->pair_acc);
    memset(a, 0, sizeof *a);
}
