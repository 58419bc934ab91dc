// compute.c — loss against training CPU-seconds, time to a loss level, and
// their statistics over seeds (compute.h).
#include "experiment/compute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/metrics.h"
#include "util/err.h"

double compute_time_to_loss(const ComputeCurve *c, double level) {
    for (size_t i = 0; i < c->n; i++) {
        if (!(c->val[i] <= level)) continue;
        if (i == 0) return c->cpu[0];
        double v0 = c->val[i - 1], v1 = c->val[i], t0 = c->cpu[i - 1], t1 = c->cpu[i];
        return t0 + (v0 - level) / (v0 - v1) * (t1 - t0);  // v0 > level >= v1, so v0 > v1
    }
    return NAN;
}

double compute_loss_at(const ComputeCurve *c, double x) {
    for (size_t i = 0; i + 1 < c->n; i++)
        if (x >= c->cpu[i] && x <= c->cpu[i + 1]) {
            double span = c->cpu[i + 1] - c->cpu[i];
            return span > 0 ? c->val[i] + (x - c->cpu[i]) / span * (c->val[i + 1] - c->val[i]) : c->val[i + 1];
        }
    return c->n == 1 && x == c->cpu[0] ? c->val[0] : NAN;
}

void compute_format_s(char *buf, size_t cap, double s) {
    snprintf(buf, cap, fabs(s) < 10 ? "%.3f" : fabs(s) < 1000 ? "%.1f" : "%.0f", s);
}

PairedRatio compute_paired_ratio(const double *base, const double *b, int n, double level) {
    double *la = xcalloc((size_t)n + 1, sizeof(double)), *lb = xcalloc((size_t)n + 1, sizeof(double));
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(base[i]) && isfinite(b[i]) && base[i] > 0 && b[i] > 0) {
            la[m] = log(base[i]);
            lb[m] = log(b[i]);
            m++;
        }
    PairedRatio r = {m, NAN, NAN, NAN};
    if (m) {
        PairedDiff d = stats_paired_diff(la, lb, m, level);
        r.ratio = exp(d.mean);
        if (m > 1) r.lo = exp(d.lo), r.hi = exp(d.hi);
    }
    free(la);
    free(lb);
    return r;
}

// The evaluations of one run's metrics.csv; n = 0 if it cannot be read or has no cpu_s.
static void load_curve(const char *dir, const char *rel, ComputeCurve *c) {
    memset(c, 0, sizeof *c);
    char path[4700];
    snprintf(path, sizeof path, "%s/%s/metrics.csv", dir, rel);
    MetricsTable t;
    if (metrics_read(path, &t)) {
        err_clear();
        return;
    }
    int cs = metrics_col(&t, "step"), cv = metrics_col(&t, "val_loss"), cc = metrics_col(&t, "cpu_s");
    if (cs >= 0 && cv >= 0 && cc >= 0 && t.rows) {
        c->cpu = xcalloc(t.rows, sizeof(double));
        c->val = xcalloc(t.rows, sizeof(double));
        for (size_t r = 0; r < t.rows; r++) {
            double v = t.v[r * t.cols + (size_t)cv], x = t.v[r * t.cols + (size_t)cc];
            if (isnan(v) || isnan(x)) continue;
            c->val[c->n] = v;
            c->cpu[c->n] = x;
            c->n++;
        }
        c->cpu_end = metrics_last(&t, "cpu_s");
        c->wall_end = metrics_last(&t, "elapsed_s");
        c->last_step = (long)metrics_last(&t, "step");
    }
    metrics_table_free(&t);
}

static double curve_min(const ComputeCurve *c) {
    double m = INFINITY;
    for (size_t i = 0; i < c->n; i++) m = fmin(m, c->val[i]);
    return m;
}

// Loss levels between where every run starts and the loss every run reaches:
// the worst run's best (so each level is reached by every run) plus 50, 25 and
// 10 % of the way back up to the lowest starting loss, rounded up to 0.01.
static void choose_levels(const Ablation *a, ComputeView *v) {
    double reach = -INFINITY, start = INFINITY;
    for (size_t g = 0; g < a->n_main; g++)
        for (int i = 0; i < a->group[g].n_runs; i++) {
            const ComputeCurve *c = &v->curve[a->group[g].runs[i]];
            if (!c->n) continue;
            reach = fmax(reach, curve_min(c));
            start = fmin(start, c->val[0]);
        }
    v->n_levels = 0;
    if (!isfinite(reach) || !isfinite(start) || start <= reach) return;
    const double frac[COMPUTE_MAX_LEVELS] = {0.5, 0.25, 0.1, 0};
    for (int k = 0; k < COMPUTE_MAX_LEVELS; k++) {
        double l = ceil((reach + frac[k] * (start - reach)) * 100 - 1e-9) / 100;
        if (v->n_levels && l >= v->level[v->n_levels - 1]) continue;
        v->level[v->n_levels++] = l;
    }
}

// The runs of group g with a curve, and their times to `level` by seed.
static int group_times(const Ablation *a, const ComputeView *v, size_t g, double level, double *t,
                       unsigned long long *seed) {
    int n = 0;
    for (int i = 0; i < a->group[g].n_runs; i++) {
        size_t r = a->group[g].runs[i];
        if (!v->curve[r].n) continue;
        t[n] = compute_time_to_loss(&v->curve[r], level);
        seed[n] = a->run[r].plan.seed;
        n++;
    }
    return n;
}

static void level_stats(const Ablation *a, ComputeView *v) {
    size_t cap = a->n_run + 1;
    double *t = xcalloc(cap, sizeof(double)), *t0 = xcalloc(cap, sizeof(double));
    double *pa = xcalloc(cap, sizeof(double)), *pb = xcalloc(cap, sizeof(double));
    unsigned long long *s = xcalloc(cap, sizeof *s), *s0 = xcalloc(cap, sizeof *s0);
    for (size_t k = 0; k < v->n_levels; k++) {
        int n0 = group_times(a, v, 0, v->level[k], t0, s0);
        for (size_t g = 0; g < a->n_main; g++) {
            int n = group_times(a, v, g, v->level[k], t, s), reached = 0;
            for (int i = 0; i < n; i++)
                if (isfinite(t[i])) t[reached++] = t[i], s[reached - 1] = s[i];
            size_t at = g * v->n_levels + k;
            v->time[at] = stats_summary(t, reached);
            v->reached[at] = reached;
            if (g == 0) continue;
            int m = 0;  // pairs: the same seed reached the level in both
            for (int i = 0; i < reached; i++)
                for (int j = 0; j < n0; j++)
                    if (s[i] == s0[j] && isfinite(t0[j])) pa[m] = t0[j], pb[m] = t[i], m++;
            v->ratio[at] = compute_paired_ratio(pa, pb, m, a->level);
        }
    }
    free(t), free(t0), free(pa), free(pb), free(s), free(s0);
}

// Each group's val loss on a grid of CPU-seconds from 0 to where its shortest run ends.
static void grids(const Ablation *a, ComputeView *v) {
    for (size_t g = 0; g < a->n_main; g++) {
        double end = INFINITY;
        int runs = 0;
        for (int i = 0; i < a->group[g].n_runs; i++) {
            const ComputeCurve *c = &v->curve[a->group[g].runs[i]];
            if (!c->n) continue;
            end = fmin(end, c->cpu[c->n - 1]);
            runs++;
        }
        if (!runs || !(end > 0)) continue;
        double *x = v->grid_x + g * COMPUTE_GRID;
        for (size_t p = 0; p < COMPUTE_GRID; p++) {
            x[p] = end * (double)p / (COMPUTE_GRID - 1);
            double sum = 0, lo = INFINITY, hi = -INFINITY;
            int n = 0;
            for (int i = 0; i < a->group[g].n_runs; i++) {
                const ComputeCurve *c = &v->curve[a->group[g].runs[i]];
                double y = c->n ? compute_loss_at(c, x[p]) : NAN;
                if (isnan(y)) continue;
                sum += y, lo = fmin(lo, y), hi = fmax(hi, y), n++;
            }
            size_t at = g * COMPUTE_GRID + p;
            v->grid_mean[at] = n ? sum / n : NAN;
            v->grid_lo[at] = n ? lo : NAN;
            v->grid_hi[at] = n ? hi : NAN;
        }
        v->grid_n[g] = COMPUTE_GRID;
    }
}

void compute_view_load(const Ablation *a, ComputeView *v) {
    memset(v, 0, sizeof *v);
    v->n_groups = a->n_main;
    v->n_runs = a->n_run;
    v->curve = xcalloc(a->n_run + 1, sizeof *v->curve);
    for (size_t r = 0; r < a->n_run; r++) {
        if (a->run[r].state != RUN_FINISHED) continue;
        load_curve(a->dir, a->run[r].plan.rel, &v->curve[r]);
        v->available |= v->curve[r].n > 0;
    }
    size_t ng = a->n_main + 1;
    v->time = xcalloc(ng * COMPUTE_MAX_LEVELS, sizeof *v->time);
    v->reached = xcalloc(ng * COMPUTE_MAX_LEVELS, sizeof *v->reached);
    v->ratio = xcalloc(ng * COMPUTE_MAX_LEVELS, sizeof *v->ratio);
    v->grid_x = xcalloc(ng * COMPUTE_GRID, sizeof(double));
    v->grid_mean = xcalloc(ng * COMPUTE_GRID, sizeof(double));
    v->grid_lo = xcalloc(ng * COMPUTE_GRID, sizeof(double));
    v->grid_hi = xcalloc(ng * COMPUTE_GRID, sizeof(double));
    v->grid_n = xcalloc(ng, sizeof(size_t));
    if (!v->available || !a->n_main) return;
    choose_levels(a, v);
    level_stats(a, v);
    grids(a, v);
}

void compute_view_free(ComputeView *v) {
    if (v->curve)
        for (size_t r = 0; v->curve && r < v->n_runs; r++) free(v->curve[r].cpu), free(v->curve[r].val);
    free(v->curve), free(v->time), free(v->reached), free(v->ratio);
    free(v->grid_x), free(v->grid_mean), free(v->grid_lo), free(v->grid_hi), free(v->grid_n);
    memset(v, 0, sizeof *v);
}
