// report_compute.c — report.md's compute sections and the loss-against-CPU
// chart (report_compute.h), rendered from a ComputeView (compute.h).
#include "experiment/report_compute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/compute.h"
#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/err.h"

static void put_time(FILE *f, Summary s, int reached, int runs) {
    if (!reached) {
        fprintf(f, " not reached |");
        return;
    }
    char m[32], sd[32];
    compute_format_s(m, sizeof m, s.mean);
    compute_format_s(sd, sizeof sd, s.sd);
    fprintf(f, " %s", m);
    if (s.n > 1) fprintf(f, " ± %s", sd);
    if (reached < runs) fprintf(f, " (%d of %d runs)", reached, runs);
    fputs(" |", f);
}

static void put_ratio(FILE *f, const PairedRatio *r) {
    if (r->n == 0) fputs(" — |", f);
    else if (r->n < 2) fprintf(f, " %.2f (one seed) |", r->ratio);
    else fprintf(f, " %.2f [%.2f, %.2f] |", r->ratio, r->lo, r->hi);
}

static int finished_with_curve(const Ablation *a, const ComputeView *v, size_t g) {
    int n = 0;
    for (int i = 0; i < a->group[g].n_runs; i++) n += v->curve[a->group[g].runs[i]].n > 0;
    return n;
}

static void level_table(FILE *f, const Ablation *a, const ComputeView *v) {
    const char *base = a->group[0].label;
    fprintf(f, "\n### CPU-seconds to reach a validation loss (mean ± sd over seeds)\n\n"
               "The levels run from half-way between the start and the loss every run reaches, down to that "
               "loss (the worst run's best, rounded up). A run's time to a level is where its validation loss "
               "(eval batches) first gets there, interpolated linearly between two evaluations. The ratio is "
               "this kind's time over %s's with the same seed (geometric mean over seeds, %.0f %% interval "
               "from Student t on the log ratios): below 1 is faster.\n\n| kind |", base, 100 * a->level);
    for (size_t k = 0; k < v->n_levels; k++) fprintf(f, " loss %.2f: CPU-s | ratio to %s |", v->level[k], base);
    fputs("\n|---|", f);
    for (size_t k = 0; k < v->n_levels; k++) fputs("---:|---:|", f);
    fputc('\n', f);
    for (size_t g = 0; g < a->n_main; g++) {
        fprintf(f, "| %s |", a->group[g].label);
        int runs = finished_with_curve(a, v, g);
        for (size_t k = 0; k < v->n_levels; k++) {
            size_t at = g * v->n_levels + k;
            put_time(f, v->time[at], v->reached[at], runs);
            if (g == 0) fputs(" 1 |", f);
            else put_ratio(f, &v->ratio[at]);
        }
        fputc('\n', f);
    }
}

// In words: per level, the kind with the lowest mean time, and how sure that is.
static void level_words(FILE *f, const Ablation *a, const ComputeView *v) {
    fputc('\n', f);
    for (size_t k = 0; k < v->n_levels; k++) {
        size_t best = (size_t)-1;
        for (size_t g = 0; g < a->n_main; g++) {
            size_t at = g * v->n_levels + k;
            if (!v->reached[at]) continue;
            if (best == (size_t)-1 || v->time[at].mean < v->time[best * v->n_levels + k].mean) best = g;
        }
        fprintf(f, "- **Loss %.2f**: ", v->level[k]);
        if (best == (size_t)-1) {
            fputs("no kind reached it.\n", f);
            continue;
        }
        char m[32];
        compute_format_s(m, sizeof m, v->time[best * v->n_levels + k].mean);
        fprintf(f, "%s gets there first (%s CPU-s on average)", a->group[best].label, m);
        if (best == 0) {
            fputs(".", f);
        } else {
            const PairedRatio *r = &v->ratio[best * v->n_levels + k];
            if (r->n < 2)
                fprintf(f, "; against %s, %s", a->group[0].label,
                        r->n ? "one seed gives no interval, so this is not judged" : "no seed to pair");
            else
                fprintf(f, ", %.2f× %s's time [%.2f, %.2f]: %s", r->ratio, a->group[0].label, r->lo, r->hi,
                        r->hi < 1 ? "resolved faster" : "within noise (the interval contains 1)");
            fputc('.', f);
        }
        fputc('\n', f);
    }
}

// Each run: its budget, where it stopped, and its CPU and wall time.
static void budget_table(FILE *f, const Ablation *a, const ComputeView *v) {
    fprintf(f, "\n### Budget and compute of every run\n\n"
               "CPU-seconds are the process CPU time of the training steps (all threads; other processes on "
               "the machine do not count), evaluations left out; wall seconds are the same steps' elapsed "
               "time.\n\n| run folder | budget | stopped at step | CPU-s | wall s |\n|---|---|---:|---:|---:|\n");
    for (size_t r = 0; r < a->n_run; r++) {
        const RunResult *x = &a->run[r];
        const ComputeCurve *c = &v->curve[r];
        if (x->state != RUN_FINISHED) continue;
        fprintf(f, "| `%s/` | ", x->plan.rel);
        if (x->cfg.cpu_seconds > 0) fprintf(f, "cpu_seconds %g (cap %d steps)", x->cfg.cpu_seconds, x->cfg.steps);
        else fprintf(f, "steps %d", x->cfg.steps);
        char cs[32], ws[32];
        compute_format_s(cs, sizeof cs, c->cpu_end);
        compute_format_s(ws, sizeof ws, c->wall_end);
        if (c->n) fprintf(f, " | %ld | %s | %s |\n", c->last_step, cs, ws);
        else fputs(" | | — | — |\n", f);
    }
}

void report_compute_markdown(const Ablation *a, FILE *f) {
    ComputeView v;
    compute_view_load(a, &v);
    fputs("\n## Loss against compute\n\n", f);
    if (!v.available) {
        fputs("Not available: no finished run has a `cpu_s` column in its metrics.csv (runs trained before "
              "lmtrain recorded CPU time).\n", f);
    } else {
        fputs("Validation loss against the training CPU-seconds each kind spent (`curves_cpu.svg`): at equal "
              "compute rather than equal steps.\n", f);
        if (v.n_levels && a->n_main) {
            level_table(f, a, &v);
            level_words(f, a, &v);
        }
        budget_table(f, a, &v);
    }
    compute_view_free(&v);
}

int report_has_compute(const Ablation *a) {
    ComputeView v;
    compute_view_load(a, &v);
    int yes = v.available;
    compute_view_free(&v);
    return yes;
}

void report_compute_curves_fprint(const Ablation *a, FILE *out) {
    ComputeView v;
    compute_view_load(a, &v);
    SvgSeries *s = xcalloc(a->n_main + 1, sizeof *s);
    SvgBand *band = xcalloc(a->n_main + 1, sizeof *band);
    char(*labels)[200] = xcalloc(a->n_main + 1, sizeof *labels);
    size_t ns = 0;
    for (size_t g = 0; g < a->n_main; g++) {
        if (!v.grid_n[g]) continue;
        size_t at = g * COMPUTE_GRID;
        snprintf(labels[ns], sizeof labels[ns], "%s (%d)", a->group[g].label, finished_with_curve(a, &v, g));
        s[ns] = (SvgSeries){.label = labels[ns], .x = v.grid_x + at, .y = v.grid_mean + at, .n = v.grid_n[g],
                            .color = (int)g + 1};
        band[ns] = (SvgBand){v.grid_lo + at, v.grid_hi + at};
        ns++;
    }
    char title[200];
    snprintf(title, sizeof title, "Validation loss against training CPU-seconds (mean of %zu seed%s, min-max band)",
             a->n_seeds, a->n_seeds == 1 ? "" : "s");
    SvgChart c = {title, "training CPU-seconds (process CPU time)", "val loss (nats/char)", 0, 0};
    SvgLimits lim = {0, 0, 0, 0};
    svg_band_chart_fprint(out, &c, &lim, s, band, ns);
    free(s), free(band), free(labels);
    compute_view_free(&v);
}

int report_compute_write(const Ablation *a, const char *dir) {
    if (!report_has_compute(a)) return 0;
    AtomicFile f;
    int rc = atomic_open_in(&f, dir, "curves_cpu.svg");
    if (rc) return rc;
    report_compute_curves_fprint(a, f.f);
    return atomic_commit(&f);
}
