// frontier.c — loss and CPU-seconds per kind and context length, the
// crossover, and their report (frontier.h).
#include "experiment/frontier.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/md_html.h"
#include "format/svg_scatter.h"
#include "util/atomic_file.h"
#include "util/err.h"

static int by_length(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

// The lengths N with a DIR/ctx<N>/ablation.tsv, sorted.
static size_t find_lengths(const char *dir, int *len, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        char *end;
        if (strncmp(e->d_name, "ctx", 3)) continue;
        long v = strtol(e->d_name + 3, &end, 10);
        if (end == e->d_name + 3 || *end || v <= 0 || v > 1 << 20) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s/ablation.tsv", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        fclose(f);
        len[n++] = (int)v;
    }
    closedir(d);
    qsort(len, n, sizeof *len, by_length);
    return n;
}

// The group's finished runs with a curve: final loss and CPU-seconds by seed.
static int runs_of(const Ablation *a, const ComputeView *v, size_t g, double *loss, double *cpu,
                   unsigned long long *seed) {
    int n = 0;
    for (int i = 0; i < a->group[g].n_runs; i++) {
        size_t r = a->group[g].runs[i];
        const ComputeCurve *c = &v->curve[r];
        if (!c->n) continue;
        loss[n] = c->val[c->n - 1];
        cpu[n] = c->cpu_end;
        seed[n] = a->run[r].plan.seed;
        n++;
    }
    return n;
}

static void range(const double *x, int n, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (int i = 0; i < n; i++) *lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
    if (!n) *lo = *hi = NAN;
}

// One length's cells: each kind's loss and CPU, and its time to the baseline's final loss.
static void fill_length(Frontier *f, size_t l, const Ablation *a) {
    ComputeView v;
    compute_view_load(a, &v);
    size_t cap = a->n_run + 1;
    double *bl = xcalloc(cap, sizeof(double)), *bc = xcalloc(cap, sizeof(double));
    double *loss = xcalloc(cap, sizeof(double)), *cpu = xcalloc(cap, sizeof(double));
    double *pa = xcalloc(cap, sizeof(double)), *pb = xcalloc(cap, sizeof(double));
    unsigned long long *bs = xcalloc(cap, sizeof *bs), *s = xcalloc(cap, sizeof *s);
    int nb = runs_of(a, &v, 0, bl, bc, bs);
    for (size_t k = 0; k < f->n_kinds; k++) {
        FrontierCell *c = &f->cell[l][k];
        int n = runs_of(a, &v, k, loss, cpu, s);
        c->runs = n;
        c->loss = stats_summary(loss, n);
        c->cpu = stats_summary(cpu, n);
        range(loss, n, &c->loss_lo, &c->loss_hi);
        range(cpu, n, &c->cpu_lo, &c->cpu_hi);
        c->eval = a->group[k].eval;
        int m = 0, reached = 0;
        for (int i = 0; i < a->group[k].n_runs; i++) {
            size_t r = a->group[k].runs[i];
            if (!v.curve[r].n) continue;
            for (int j = 0; j < nb; j++) {
                if (bs[j] != a->run[r].plan.seed) continue;
                double t = compute_time_to_loss(&v.curve[r], bl[j]);
                pa[m] = bc[j];
                pb[m] = t;
                reached += isfinite(t);
                m++;
            }
        }
        c->reached = reached;
        c->to_base = compute_paired_ratio(pa, pb, m, a->level);
        c->to_base.n = m;  // pairs compared; `reached` of them got there
    }
    free(bl), free(bc), free(loss), free(cpu), free(pa), free(pb), free(bs), free(s);
    compute_view_free(&v);
}

// Faster than the baseline at this cell: every paired seed reached its loss,
// and the interval of the ratio lies below 1 (or, with one seed, the ratio).
static int faster(const FrontierCell *c, int judged) {
    if (c->to_base.n == 0 || c->reached < c->to_base.n) return 0;
    return judged ? c->to_base.n > 1 && c->to_base.hi < 1 : c->to_base.ratio < 1;
}

// The shortest length from which on some kind is faster at every longer
// length too; of those kinds, the one with the lowest ratio there. With one
// seed the point estimates decide (the report then claims nothing).
void frontier_find_crossover(Frontier *f) {
    int judged = f->n_seeds > 1;
    f->crossover_len = 0;
    for (size_t l = 0; l < f->n_len && !f->crossover_len; l++)
        for (size_t k = 1; k < f->n_kinds; k++) {
            int all = 1;
            for (size_t m = l; m < f->n_len; m++) all &= faster(&f->cell[m][k], judged);
            if (all && (!f->crossover_len || f->cell[l][k].to_base.ratio < f->cell[l][f->crossover_kind].to_base.ratio))
                f->crossover_len = f->length[l], f->crossover_kind = k;
        }
}

int frontier_load(Frontier *f, const char *dir) {
    memset(f, 0, sizeof *f);
    int len[FRONTIER_MAX_LENGTHS];
    size_t n = find_lengths(dir, len, FRONTIER_MAX_LENGTHS);
    if (!n)
        return err_set(ERR_USAGE, "frontier: %s holds no ctx<N>/ ablation (a folder ctx64/, ctx256/, ... with an "
                                  "ablation.tsv, as `make frontier` writes)", dir);
    for (size_t l = 0; l < n; l++) {
        Ablation a;
        snprintf(f->dir[l], sizeof f->dir[l], "%s/ctx%d", dir, len[l]);
        int rc = ablation_load(&a, f->dir[l]);
        if (rc) return rc;
        if (l == 0) {
            f->n_kinds = a.n_main < FRONTIER_MAX_KINDS ? a.n_main : FRONTIER_MAX_KINDS;
            for (size_t k = 0; k < f->n_kinds; k++) snprintf(f->kind[k], sizeof f->kind[k], "%s", a.group[k].label);
            f->n_seeds = a.n_seeds;
        }
        int same = a.n_main == f->n_kinds;
        for (size_t k = 0; same && k < f->n_kinds; k++) same = !strcmp(a.group[k].label, f->kind[k]);
        if (!same) {
            ablation_free(&a);
            return err_set(ERR_USAGE, "frontier: %s does not compare the same kinds, in the same order, as %s",
                           f->dir[l], f->dir[0]);
        }
        f->length[l] = len[l];
        fill_length(f, l, &a);
        f->n_len = l + 1;
        ablation_free(&a);
    }
    frontier_find_crossover(f);
    return 0;
}

static void put_ratio_cell(FILE *out, const FrontierCell *c) {
    if (c->to_base.n == 0) fputs(" — |", out);
    else if (c->reached < c->to_base.n) fprintf(out, " not reached in %d of %d seeds |", c->to_base.n - c->reached, c->to_base.n);
    else if (c->to_base.n < 2) fprintf(out, " %.2f (one seed) |", c->to_base.ratio);
    else fprintf(out, " %.2f [%.2f, %.2f] |", c->to_base.ratio, c->to_base.lo, c->to_base.hi);
}

// The sentence the README quotes.
static void crossover_sentence(const Frontier *f, FILE *out) {
    const char *base = f->kind[0];
    if (f->crossover_len) {
        const FrontierCell *c = NULL;
        for (size_t l = 0; l < f->n_len; l++)
            if (f->length[l] == f->crossover_len) c = &f->cell[l][f->crossover_kind];
        if (c && c->to_base.n > 1)
            fprintf(out, "**Crossover: from context %d on, %s reaches %s's final loss in fewer CPU-seconds** (at %d: "
                         "%.2f× %s's CPU-seconds, %.0f %% interval [%.2f, %.2f] over %d paired seeds).\n",
                    f->crossover_len, f->kind[f->crossover_kind], base, f->crossover_len, c->to_base.ratio, base,
                    95.0, c->to_base.lo, c->to_base.hi, c->to_base.n);
        else if (c)
            fprintf(out, "**No crossover can be claimed from one seed** (no interval). Its point estimates have %s "
                         "reaching %s's final loss in fewer CPU-seconds from context %d on (%.2f× at %d); run 3 "
                         "seeds (`make frontier`) to measure it.\n",
                    f->kind[f->crossover_kind], base, f->crossover_len, c->to_base.ratio, f->crossover_len);
        return;
    }
    int lo = f->length[0], hi = f->length[f->n_len - 1];
    fprintf(out, "**No crossover found between context %d and %d**: at no length from which on every longer one "
                 "agrees does a fast-weight kind reach %s's final loss in fewer CPU-seconds%s.",
            lo, hi, base, f->n_seeds > 1 ? " with an interval below 1" : "");
    // the closest: the best kind at the longest length
    size_t L = f->n_len - 1, best = 0;
    for (size_t k = 1; k < f->n_kinds; k++) {
        const FrontierCell *c = &f->cell[L][k];
        if (c->to_base.n && c->reached == c->to_base.n &&
            (!best || c->to_base.ratio < f->cell[L][best].to_base.ratio))
            best = k;
    }
    if (best) {
        const FrontierCell *c = &f->cell[L][best];
        fprintf(out, " Closest at %d: %s at %.2f× %s's CPU-seconds", hi, f->kind[best], c->to_base.ratio, base);
        if (c->to_base.n > 1) fprintf(out, " [%.2f, %.2f]", c->to_base.lo, c->to_base.hi);
        else fputs(" (one seed, no interval)", out);
        fputs(".", out);
    } else if (f->n_kinds > 1) {
        fprintf(out, " At %d no fast-weight kind reaches %s's final loss in every seed.", hi, base);
    }
    fputc('\n', out);
}

void frontier_markdown(const Frontier *f, FILE *out) {
    fprintf(out, "# Frontier: loss against compute across context lengths\n\n");
    fprintf(out, "%zu seed%s per kind and length; one ablation per context length (`ctx<N>/report.md` has each "
                 "in full). The same number of training tokens every step at every length; loss is the last "
                 "validation loss on the eval batches (whole split beside it), CPU-seconds the process CPU time "
                 "of the training steps. The ratio is the CPU-seconds a kind needs to reach %s's final loss "
                 "(seed by seed) over what %s spent: below 1, it gets there cheaper.\n\n",
            f->n_seeds, f->n_seeds == 1 ? "" : "s", f->kind[0], f->kind[0]);
    crossover_sentence(f, out);
    for (size_t l = 0; l < f->n_len; l++) {
        fprintf(out, "\n## Context %d (`ctx%d/`)\n\n| kind | runs | final val loss | whole split | CPU-s | "
                     "CPU-s to %s's loss, ratio |\n|---|---:|---:|---:|---:|---:|\n", f->length[l], f->length[l],
                f->kind[0]);
        for (size_t k = 0; k < f->n_kinds; k++) {
            const FrontierCell *c = &f->cell[l][k];
            fprintf(out, "| %s | %d |", f->kind[k], c->runs);
            if (c->runs) fprintf(out, " %.4f", c->loss.mean);
            if (c->runs > 1) fprintf(out, " ± %.4f", c->loss.sd);
            fputs(" |", out);
            if (c->eval.n) fprintf(out, " %.4f |", c->eval.mean);
            else fputs(" — |", out);
            char m[32], sd[32];
            compute_format_s(m, sizeof m, c->cpu.mean);
            compute_format_s(sd, sizeof sd, c->cpu.sd);
            if (c->runs) fprintf(out, " %s", m);
            if (c->runs > 1) fprintf(out, " ± %s", sd);
            fputs(" |", out);
            if (k == 0) fputs(" 1 |\n", out);
            else {
                put_ratio_cell(out, c);
                fputc('\n', out);
            }
        }
    }
    fprintf(out, "\nChart: `frontier.svg`, final loss against CPU-seconds, one point per kind and length (its tag), "
                 "bars from the lowest to the highest seed; lower left is cheaper and better.\n");
}

void frontier_svg(const Frontier *f, FILE *out) {
    SvgPoint p[FRONTIER_MAX_LENGTHS * FRONTIER_MAX_KINDS];
    char tags[FRONTIER_MAX_LENGTHS * FRONTIER_MAX_KINDS][16];
    SvgLegendEntry leg[FRONTIER_MAX_KINDS];
    size_t n = 0;
    for (size_t k = 0; k < f->n_kinds; k++) {
        leg[k] = (SvgLegendEntry){f->kind[k], (int)k + 1};
        for (size_t l = 0; l < f->n_len; l++) {
            const FrontierCell *c = &f->cell[l][k];
            snprintf(tags[n], sizeof tags[n], "ctx %d", f->length[l]);
            p[n] = (SvgPoint){c->runs ? c->cpu.mean : NAN, c->runs ? c->loss.mean : NAN, c->cpu_lo, c->cpu_hi,
                              c->loss_lo, c->loss_hi, (int)k + 1, tags[n]};
            n++;
        }
    }
    SvgChart c = {"Final validation loss against training CPU-seconds, per kind and context length",
                  "training CPU-seconds (process CPU time)", "final val loss (nats/char)", 0, 0};
    svg_scatter_fprint(out, &c, p, n, leg, f->n_kinds, "cheaper and better");
}

int frontier_write(const Frontier *f, const char *dir) {
    AtomicFile a;
    int rc = atomic_open_in(&a, dir, "frontier.md");
    if (rc) return rc;
    frontier_markdown(f, a.f);
    if ((rc = atomic_commit(&a))) return rc;
    if ((rc = atomic_open_in(&a, dir, "frontier.svg"))) return rc;
    frontier_svg(f, a.f);
    if ((rc = atomic_commit(&a))) return rc;
    // the page: the Markdown as HTML, the chart inline (no network needed)
    char *md = NULL, *svg = NULL;
    size_t mdn = 0, svgn = 0;
    FILE *m = open_memstream(&md, &mdn), *s = open_memstream(&svg, &svgn);
    if (!m || !s) return err_set(ERR_RUNTIME, "frontier: out of memory");
    frontier_markdown(f, m);
    frontier_svg(f, s);
    fclose(m);
    fclose(s);
    if (!(rc = atomic_open_in(&a, dir, "frontier.html"))) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Frontier</title>\n"
              "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
              "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 8px}</style>\n</head>\n<body>\n",
              a.f);
        md_to_html(md, a.f);
        const char *body = strstr(svg, "<svg");
        fprintf(a.f, "<figure>%s</figure>\n</body>\n</html>\n", body ? body : "");
        rc = atomic_commit(&a);
    }
    free(md);
    free(svg);
    return rc;
}
