// report_svg.c — curves.svg and curves_zoom.svg from an Ablation, and the
// files report_write() produces.
//
// The full-range chart shows training from its start, where losses fall from
// ~4 to ~2 nats; on that scale a 0.05-nat difference between kinds is a few
// pixels. The zoom shows only validation loss from half-way on, scaled to the
// spread of the bands there. Both bands also hold the seed-to-seed spread
// that paired runs share (each seed has its own validation batches), so the
// third chart draws the paired difference to the baseline, where it cancels.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/report.h"
#include "experiment/report_compute.h"
#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/err.h"

void report_zoom_range(const Ablation *a, double *x0, double *ylo, double *yhi) {
    *x0 = 0.5 * a->steps;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < a->n_main; i++) {
        const GroupStats *g = &a->group[i];
        for (size_t k = 0; k < g->points; k++) {
            if (g->step[k] < *x0 || !isfinite(g->val_lo[k]) || !isfinite(g->val_hi[k])) continue;
            lo = fmin(lo, g->val_lo[k]);
            hi = fmax(hi, g->val_hi[k]);
        }
    }
    if (!(lo <= hi)) lo = hi = 0;  // nothing to zoom on: the chart fits itself
    double pad = 0.08 * (hi - lo) + 1e-4;
    *ylo = lo - pad;
    *yhi = hi + pad;
}

void report_curves_fprint(const Ablation *a, FILE *out, int zoom) {
    size_t n = a->n_main;
    SvgSeries *s = xcalloc(2 * n + 1, sizeof *s);
    SvgBand *band = xcalloc(2 * n + 1, sizeof *band);
    char(*labels)[200] = xcalloc(2 * n + 1, sizeof *labels);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const GroupStats *g = &a->group[i];
        if (!g->points) continue;
        snprintf(labels[ns], sizeof labels[ns], "%s val (%d)", g->label, g->n_finished);
        s[ns] = (SvgSeries){.label = labels[ns], .x = g->step, .y = g->val_mean, .n = g->points,
                            .color = (int)i + 1};
        band[ns] = (SvgBand){g->val_lo, g->val_hi};
        ns++;
        if (zoom) continue;
        snprintf(labels[ns], sizeof labels[ns], "%s train", g->label);
        s[ns] = (SvgSeries){.label = labels[ns], .x = g->step, .y = g->train_mean, .n = g->points, .dashed = 1,
                            .color = (int)i + 1};
        ns++;
    }
    SvgChart c = {.xlabel = "step", .ylabel = "loss (nats/char)"};
    SvgLimits lim = {0, 0, 0, 0};
    char title[200];
    if (zoom) {
        report_zoom_range(a, &lim.xmin, &lim.ymin, &lim.ymax);
        lim.xmax = a->steps;
        snprintf(title, sizeof title, "Validation loss, second half (mean of %zu seed%s, min-max band)", a->n_seeds,
                 a->n_seeds == 1 ? "" : "s");
    } else {
        snprintf(title, sizeof title, "Train (dashed) and val (solid) loss, mean of %zu seed%s, min-max band",
                 a->n_seeds, a->n_seeds == 1 ? "" : "s");
    }
    c.title = title;
    svg_band_chart_fprint(out, &c, &lim, s, band, ns);
    free(s);
    free(band);
    free(labels);
}

static int curves(const Ablation *a, const char *path, int zoom) {
    AtomicFile f;
    if (atomic_open(&f, path)) return ERR_RUNTIME;
    report_curves_fprint(a, f.f, zoom);
    return atomic_commit(&f);
}

void report_diff_curves_fprint(const Ablation *a, FILE *out) {
    size_t n = a->n_main;
    SvgSeries *s = xcalloc(n + 1, sizeof *s);
    SvgBand *band = xcalloc(n + 1, sizeof *band);
    char(*labels)[200] = xcalloc(n + 1, sizeof *labels);
    double *zero = NULL;
    size_t ns = 0;
    const GroupStats *base = &a->group[0];
    if (base->points) {
        zero = xcalloc(base->points, sizeof(double));
        for (size_t k = 0; k < base->points; k++) zero[k] = isfinite(base->val_mean[k]) ? 0 : NAN;
        snprintf(labels[ns], sizeof labels[ns], "%s (baseline)", base->label);
        s[ns] = (SvgSeries){.label = labels[ns], .x = base->step, .y = zero, .n = base->points, .dashed = 1,
                            .color = 1};
        ns++;
    }
    for (size_t i = 1; i < n; i++) {
        const GroupStats *g = &a->group[i];
        if (!g->dval_mean) continue;
        snprintf(labels[ns], sizeof labels[ns], "%s (%d)", g->label, g->d_val.n);
        s[ns] = (SvgSeries){.label = labels[ns], .x = g->step, .y = g->dval_mean, .n = g->points, .color = (int)i + 1};
        band[ns] = (SvgBand){g->dval_lo, g->dval_hi};
        ns++;
    }
    char title[300], ylabel[300];
    snprintf(title, sizeof title, "Val loss minus %s's, same seed (mean, min-max band)", base->label);
    snprintf(ylabel, sizeof ylabel, "val loss - %s's (nats/char)", base->label);
    SvgChart c = {.title = title, .xlabel = "step", .ylabel = ylabel};
    svg_band_chart_fprint(out, &c, NULL, s, band, ns);
    free(zero);
    free(s);
    free(band);
    free(labels);
}

int report_has_acc_curves(const Ablation *a) {
    for (size_t i = 0; i < a->n_main; i++)
        if (a->group[i].acc_mean) return 1;
    return 0;
}

void report_acc_curves_fprint(const Ablation *a, FILE *out) {
    size_t n = a->n_main;
    SvgSeries *s = xcalloc(n + 1, sizeof *s);
    SvgBand *band = xcalloc(n + 1, sizeof *band);
    char(*labels)[200] = xcalloc(n + 1, sizeof *labels);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const GroupStats *g = &a->group[i];
        if (!g->acc_mean) continue;
        snprintf(labels[ns], sizeof labels[ns], "%s (%d)", g->label, g->n_finished);
        s[ns] = (SvgSeries){.label = labels[ns], .x = g->step, .y = g->acc_mean, .n = g->points, .color = (int)i + 1};
        band[ns] = (SvgBand){g->acc_lo, g->acc_hi};
        ns++;
    }
    char title[200];
    snprintf(title, sizeof title, "Validation accuracy (mean of %zu seed%s, min-max band)", a->n_seeds,
             a->n_seeds == 1 ? "" : "s");
    SvgChart c = {.title = title, .xlabel = "step", .ylabel = "val accuracy"};
    svg_band_chart_fprint(out, &c, NULL, s, band, ns);
    free(s);
    free(band);
    free(labels);
}

// The run name (config) a group was planned from.
static const char *group_name(const Ablation *a, const GroupStats *g) {
    return g->n_runs ? a->run[g->runs[0]].plan.name : "";
}

// The swept value of a sweep cell as a number; 0 when it is not one (e.g. a kind name).
static int sweep_number(const GroupStats *g, double *v) {
    char *end;
    *v = strtod(g->sweep_value, &end);
    return end != g->sweep_value && !*end;
}

int report_has_acc_sweep(const Ablation *a) {
    double v;
    for (size_t j = a->n_main; j < a->n_group; j++)
        if (a->group[j].n_finished && isfinite(a->group[j].acc.mean) && sweep_number(&a->group[j], &v)) return 1;
    return 0;
}

void report_acc_sweep_fprint(const Ablation *a, FILE *out) {
    size_t n = a->n_main, cells = a->n_group - a->n_main;
    SvgSeries *s = xcalloc(n + 1, sizeof *s);
    SvgBand *band = xcalloc(n + 1, sizeof *band);
    double *buf = xcalloc(4 * n * (cells + 1) + 1, sizeof(double));
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {  // one series per config of the main comparison, over its sweep cells
        double *x = buf + 4 * ns * (cells + 1), *y = x + cells + 1, *lo = y + cells + 1, *hi = lo + cells + 1;
        size_t m = 0;
        for (size_t j = n; j < a->n_group; j++) {
            const GroupStats *g = &a->group[j];
            double v;
            if (strcmp(group_name(a, g), group_name(a, &a->group[i])) || !sweep_number(g, &v) ||
                !isfinite(g->acc.mean))
                continue;
            x[m] = v;
            y[m] = g->acc.mean;
            lo[m] = INFINITY, hi[m] = -INFINITY;
            for (int r = 0; r < g->n_runs; r++) {
                const RunResult *run = &a->run[g->runs[r]];
                if (run->state != RUN_FINISHED) continue;
                lo[m] = fmin(lo[m], run->val_acc);
                hi[m] = fmax(hi[m], run->val_acc);
            }
            m++;
        }
        if (!m) continue;
        s[ns] = (SvgSeries){.label = a->group[i].label, .x = x, .y = y, .n = m, .color = (int)i + 1};
        band[ns] = (SvgBand){lo, hi};
        ns++;
    }
    const char *key = cells ? a->group[n].sweep_key : "";
    char title[300];
    snprintf(title, sizeof title, "Final validation accuracy against %s (mean, min-max band over seeds)", key);
    SvgChart c = {.title = title, .xlabel = key, .ylabel = "val accuracy"};
    svg_band_chart_fprint(out, &c, NULL, s, band, ns);
    free(buf);
    free(s);
    free(band);
}

static int diff_curves(const Ablation *a, const char *path) {
    AtomicFile f;
    if (atomic_open(&f, path)) return ERR_RUNTIME;
    report_diff_curves_fprint(a, f.f);
    return atomic_commit(&f);
}

int report_write(const Ablation *a, const char *dir) {
    char path[4200];
    AtomicFile f;
    int rc = atomic_open_in(&f, dir, "report.md");
    if (rc) return rc;
    report_markdown(a, f.f);
    if ((rc = atomic_commit(&f))) return rc;
    snprintf(path, sizeof path, "%s/curves.svg", dir);
    if ((rc = curves(a, path, 0))) return rc;
    snprintf(path, sizeof path, "%s/curves_zoom.svg", dir);
    if ((rc = curves(a, path, 1))) return rc;
    snprintf(path, sizeof path, "%s/curves_diff.svg", dir);
    if (a->n_main > 1 && (rc = diff_curves(a, path))) return rc;
    if ((rc = report_compute_write(a, dir))) return rc;
    if ((rc = atomic_open_in(&f, dir, "report.html"))) return rc;
    report_html(a, f.f);
    return atomic_commit(&f);
}
