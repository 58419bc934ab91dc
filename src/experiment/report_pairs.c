// report_pairs.c — the paired differences of report.md and the terminal:
// each kind against the baseline, and every other pair of kinds (issue 34:
// in softmax / linear / linear_decay, linear_decay − linear is what the decay
// buys), all paired by seed with a 95 % Student-t interval.
#include "experiment/report_pairs.h"

#include <math.h>
#include <stdio.h>

// "+0.0123 [+0.0051, +0.0195]"
static void put_diff(FILE *f, const PairedDiff *d, const char *fmt) {
    if (d->n == 0 || isnan(d->mean)) {
        fputs(" — |", f);
        return;
    }
    fputc(' ', f);
    fprintf(f, fmt, d->mean);
    if (d->n > 1) {
        fputs(" [", f);
        fprintf(f, fmt, d->lo);
        fputs(", ", f);
        fprintf(f, fmt, d->hi);
        fputs("]", f);
    }
    fputs(" |", f);
}

static const char *verdict(const PairedDiff *d) {
    return d->n < 2 ? "one seed: not judged" : stats_resolved(d) ? "resolved" : "within noise";
}

// One sentence on b − base: "- **b vs base**: ... **resolved** — ..." (md), or
// the same words as a plain line for a terminal.
static void put_verdict(FILE *f, const Ablation *a, const char *b, const char *base, const PairedDiff *d,
                        const PairedDiff *d_val, int md) {
    int rec = a->recall;
    const char *what = rec ? "val accuracy" : "whole-split val loss";
    const char *fmt = rec ? "%.3f" : "%.4f", *em = md ? "**" : "";
    fprintf(f, "%s%s%s vs %s%s: ", md ? "- " : "  ", em, b, base, em);
    if (d->n == 0 || isnan(d->mean)) {
        fprintf(f, "no seed finished for both.\n");
        return;
    }
    fprintf(f, "%s %s by ", what, d->mean > 0 ? "higher" : "lower");
    fprintf(f, fmt, fabs(d->mean));
    if (d->n < 2) {
        fprintf(f, " on one seed; one seed gives no interval, so this cannot be judged (use --seeds 3 or more).\n");
        return;
    }
    fputs(" (95 % interval ", f);
    fprintf(f, fmt, d->lo);
    fputs(" … ", f);
    fprintf(f, fmt, d->hi);
    fprintf(f, " over %d paired seeds): ", d->n);
    if (stats_resolved(d)) {
        int better = rec ? d->mean > 0 : d->mean < 0;
        fprintf(f, "%sresolved%s — %s ends %s than %s.", em, em, b, better ? "better" : "worse", base);
    } else {
        fprintf(f, "%swithin noise%s — the interval contains 0; %d seeds cannot tell them apart.", em, em, d->n);
    }
    if (!rec && d_val->n > 1 && stats_resolved(d_val) != stats_resolved(d))
        fprintf(f, " (The %s-batch figure, a noisier estimate, %s.)", "eval",
                stats_resolved(d_val) ? "does resolve it" : "does not resolve it");
    fputc('\n', f);
}

// One table row: `label`, the pair count of the verdict's figure, the differences, the verdict.
static void diff_row(FILE *f, const Ablation *a, const char *label, const PairedDiff *val, const PairedDiff *eval,
                     const PairedDiff *acc) {
    const PairedDiff *key = a->recall ? acc : eval;
    fprintf(f, "| %s | %d |", label, key->n);
    if (a->recall) put_diff(f, acc, "%+.3f");
    put_diff(f, val, "%+.4f");
    put_diff(f, eval, "%+.4f");
    fprintf(f, " %s |\n", verdict(key));
}

void report_pairs_md(const Ablation *a, FILE *f) {
    size_t n = a->n_main;
    if (n < 2) return;
    const GroupStats *base = &a->group[0];
    int rec = a->recall;
    fprintf(f, "\n## Paired differences against %s%s (%.0f %% interval, Student t over the per-seed differences)\n\n",
            base->label, n > 2 ? ", and between the other kinds" : "", 100 * a->level);
    fprintf(f, "Each difference is this kind's figure minus %s's with the same seed%s, so the noise both runs of a "
               "seed share cancels. A difference is *resolved* when its interval excludes 0.\n\n",
            base->label, n > 2 ? " (in a row \"b − a\", b's minus a's)" : "");
    fprintf(f, "| kind | pairs |%s Δ val loss, %s | Δ val loss, whole split | verdict (%s) |\n"
               "|---|---:|%s---:|---:|---|\n",
            rec ? " Δ val acc |" : "", rec ? "val set" : "eval batches", rec ? "val acc" : "whole split",
            rec ? "---:|" : "");
    for (size_t i = 1; i < n; i++) {
        const GroupStats *g = &a->group[i];
        diff_row(f, a, g->label, &g->d_val, &g->d_eval, &g->d_acc);
    }
    char label[400];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            size_t k = i * n + j;
            snprintf(label, sizeof label, "%s − %s", a->group[j].label, a->group[i].label);
            diff_row(f, a, label, &a->pair_val[k], &a->pair_eval[k], &a->pair_acc[k]);
        }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            size_t k = i * n + j;
            put_verdict(f, a, a->group[j].label, a->group[i].label, rec ? &a->pair_acc[k] : &a->pair_eval[k],
                        &a->pair_val[k], 1);
        }
}

void report_verdicts(const Ablation *a, FILE *f) {
    size_t n = a->n_main;
    if (n < 2) return;
    fprintf(f, "paired differences (%s, %.0f %% interval over the seeds; report.md has the tables):\n",
            a->recall ? "val accuracy" : "whole-split val loss", 100 * a->level);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            size_t k = i * n + j;
            put_verdict(f, a, a->group[j].label, a->group[i].label, a->recall ? &a->pair_acc[k] : &a->pair_eval[k],
                        &a->pair_val[k], 0);
        }
}

