// report_md.c — report.md from an Ablation.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiment/report.h"
#include "experiment/report_compute.h"
#include "experiment/report_pairs.h"
#include "train/summary.h"
#include "util/format_bytes.h"

// "1.9066 ± 0.0140", "1.9066" for one seed, "—" for none
static void put_summary(FILE *f, Summary s, const char *fmt) {
    if (s.n == 0 || isnan(s.mean)) {
        fputs(" — |", f);
        return;
    }
    fputc(' ', f);
    fprintf(f, fmt, s.mean);
    if (s.n > 1) {
        fputs(" ± ", f);
        fprintf(f, fmt, s.sd);
    }
    fputs(" |", f);
}

static void seeds_line(FILE *f, const Ablation *a) {
    fprintf(f, "%zu seed%s per kind (", a->n_seeds, a->n_seeds == 1 ? "" : "s");
    for (size_t i = 0; i < a->n_seeds && i < 12; i++) fprintf(f, "%s%llu", i ? ", " : "", a->seeds[i]);
    if (a->n_seeds > 12) fputs(", …", f);
    fputs(")", f);
}

static void main_table(FILE *f, const Ablation *a) {
    int rec = a->recall;
    fprintf(f, "## Final validation %s, mean ± sd over seeds\n\n", rec ? "accuracy and loss" : "loss");
    fprintf(f, "| kind | seeds |%s val loss, %s | val loss, whole split | final train loss | best val loss | "
               "parameters | tokens/s |\n|---|---:|%s---:|---:|---:|---:|---:|---:|\n",
            rec ? " val acc |" : "", rec ? "val set" : "eval batches", rec ? "---:|" : "");
    for (size_t i = 0; i < a->n_main; i++) {
        const GroupStats *g = &a->group[i];
        fprintf(f, "| %s | %d |", g->label, g->n_finished);
        if (rec) put_summary(f, g->acc, "%.3f");
        put_summary(f, g->val, "%.4f");
        put_summary(f, g->eval, "%.4f");
        put_summary(f, g->train, "%.4f");
        put_summary(f, g->best_val, "%.4f");
        fprintf(f, " %zu |", g->params);
        Summary t = g->tokens_per_s;
        t.sd = NAN;
        t.n = t.n ? 1 : 0;  // throughput: the mean only (it measures the machine's load, not the kind)
        put_summary(f, t, "%.0f");
        fputc('\n', f);
    }
}

// One sentence on b − base: "- **b vs base**: ... **resolved** — ..." (md), or
static void memory_table(FILE *f, const Ablation *a) {
    const size_t lens[] = REPORT_LENGTHS;
    fprintf(f, "\n## Inference memory per sequence, all layers\n\nThe KV cache for softmax (grows with the "
               "sequence), the fixed fast-weight state otherwise.\n\n| kind |");
    for (int k = 0; k < REPORT_N_LENGTHS; k++) fprintf(f, " memory @ %zu |", lens[k]);
    fputs("\n|---|", f);
    for (int k = 0; k < REPORT_N_LENGTHS; k++) fputs("---:|", f);
    fputc('\n', f);
    for (size_t i = 0; i < a->n_main; i++) {
        const GroupStats *g = &a->group[i];
        fprintf(f, "| %s |", g->label);
        for (int k = 0; k < REPORT_N_LENGTHS; k++) {
            char b[32];
            format_bytes(b, sizeof b, (double)g->mem[k]);
            fprintf(f, " %s |", g->n_finished ? b : "—");
        }
        fputc('\n', f);
    }
}

static void sweep_table(FILE *f, const Ablation *a) {
    if (a->n_main == a->n_group) return;
    const char *key = a->group[a->n_main].sweep_key;
    int rec = a->recall;
    // columns: the sweep values in plan order; rows: the main groups' names
    const char *vals[64];
    int nv = 0;
    for (size_t i = a->n_main; i < a->n_group && nv < 64; i++) {
        int seen = 0;
        for (int j = 0; j < nv; j++) seen |= !strcmp(vals[j], a->group[i].sweep_value);
        if (!seen) vals[nv++] = a->group[i].sweep_value;
    }
    fprintf(f, "\n## Sweep over `%s`: final %s (mean ± sd over seeds)\n\n| kind |", key,
            rec ? "val accuracy" : "whole-split val loss");
    for (int j = 0; j < nv; j++) fprintf(f, " %s |", vals[j]);
    fputs("\n|---|", f);
    for (int j = 0; j < nv; j++) fputs("---:|", f);
    fputc('\n', f);
    for (size_t m = 0; m < a->n_main; m++) {
        const char *name = a->run[a->group[m].runs[0]].plan.name;
        fprintf(f, "| %s |", a->group[m].label);
        for (int j = 0; j < nv; j++) {
            const GroupStats *cell = NULL;
            for (size_t i = a->n_main; i < a->n_group && !cell; i++)
                if (!strcmp(a->group[i].sweep_value, vals[j]) && !strcmp(a->run[a->group[i].runs[0]].plan.name, name))
                    cell = &a->group[i];
            if (!cell) fputs(" — |", f);
            else put_summary(f, rec ? cell->acc : cell->eval, rec ? "%.3f" : "%.4f");
        }
        fputc('\n', f);
    }
}

static void runs_table(FILE *f, const Ablation *a) {
    fprintf(f, "\n## Every run\n\n| run folder | seed | state | val loss, %s | val loss, whole split |%s "
               "batch fingerprint |\n|---|---:|---|---:|---:|%s---|\n",
            a->recall ? "val set" : "eval batches", a->recall ? " val acc |" : "", a->recall ? "---:|" : "");
    for (size_t i = 0; i < a->n_run; i++) {
        const RunResult *r = &a->run[i];
        fprintf(f, "| `%s/` | %llu | %s |", r->plan.rel, r->plan.seed, run_state_name(r->state));
        if (r->state == RUN_FINISHED) {
            fprintf(f, " %.4f | %.4f |", r->val_loss, r->eval_loss);
            if (a->recall) fprintf(f, " %.3f |", r->val_acc);
            fprintf(f, " %016llx |\n", r->batch_hash);
        } else {
            fprintf(f, " | |%s |\n", a->recall ? " |" : "");
        }
    }
}

void report_markdown(const Ablation *a, FILE *f) {
    fprintf(f, "# Ablation: only the attention module changes\n\n");
    seeds_line(f, a);
    fprintf(f, "; runs with the same seed start from the same initial weights in every tensor they share and "
               "train on the same batches in the same order, so the kinds are compared seed by seed. ");
    // a CPU budget ends a run at the step its CPU time reaches it: `steps` is then only the cap
    char budget[96];
    if (a->cpu_seconds > 0)
        snprintf(budget, sizeof budget, "%g CPU-seconds of training (at most %d steps)", a->cpu_seconds, a->steps);
    else
        snprintf(budget, sizeof budget, "%d steps", a->steps);
    if (!*a->differ)
        fprintf(f, "%s of %d x %d tokens; the optimiser and schedule are the same for every run. ", budget,
                a->batch_size, a->block_size);
    else
        fprintf(f, "**Warning: the runs differ in more than the attention module: %s differ between them**, so "
                   "a difference below is not the attention module's alone (the first run: %s of %d x %d "
                   "tokens). ", a->differ, budget, a->batch_size, a->block_size);
    fprintf(f, "\"Eval batches\" is the validation loss training logs (the same few random validation batches "
               "at every evaluation); \"whole split\" is `lmtrain eval`: every validation window once.\n");
    if (a->discovered && a->n_main)
        fprintf(f, "\nThis folder has no `ablation.tsv` (written by `lmtrain ablate`): the runs are the folders found "
                   "in it, in path order, and the baseline is the first, %s.\n", a->group[0].label);
    size_t missing = a->n_run - a->n_finished;
    if (missing)
        fprintf(f, "\n**Incomplete: %zu of %zu runs are not finished** (see the last table); the statistics use "
                   "the finished ones.\n", missing, a->n_run);
    fputc('\n', f);
    main_table(f, a);
    report_compute_markdown(a, f);  // timing figures stay with the first table's, before the paired sections
    report_pairs_md(a, f);
    memory_table(f, a);
    sweep_table(f, a);
    if (a->batches_paired)
        fprintf(f, "\nRuns with the same seed trained on the same batches in the same order (their batch "
                   "fingerprints agree, seed by seed).\n");
    else
        fprintf(f, "\n**Warning: runs with the same seed did not see the same training batches** (their batch "
                   "fingerprints differ: the configs differ in %s), so the comparison is not paired.\n",
                *a->differ ? a->differ : "their data");
    fprintf(f, "\nCurves: `curves.svg` (mean over seeds with a min–max band), `curves_zoom.svg` (the "
               "validation loss over the second half of training) and `curves_diff.svg` (each kind's validation "
               "loss minus %s's with the same seed, where the spread the seeds share cancels).\n",
            a->n_main ? a->group[0].label : "the baseline");
    runs_table(f, a);
}
