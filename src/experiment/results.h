// results.h — an ablation's results as data: what each run ended with, and
// per group (one config, or one sweep cell) the statistics over its seeds.
//
// This is the report's model; report_md.c and report_svg.c only render it
// (so another renderer, e.g. HTML, is one more file reading the same structs).
//
//     Ablation a;
//     int rc = ablation_load(&a, "runs/ablation");   // DIR/ablation.tsv and every run folder
//     ... a.group[g].eval.mean, a.group[g].d_eval.lo ...
//     ablation_free(&a);
#pragma once
#include <stddef.h>

#include "config/config.h"
#include "experiment/plan.h"
#include "util/stats.h"

enum { REPORT_N_LENGTHS = 4 };  // inference memory is stated at REPORT_LENGTHS (train/summary.h)

typedef struct {
    PlanRun plan;          // which run, where
    RunState state;        // RUN_FINISHED runs are the ones counted
    Config cfg;            // from the run's checkpoint (valid from RUN_INTERRUPTED on)
    double val_loss;       // last evaluation on the eval_batches fixed batches (metrics.csv)
    double eval_loss;      // whole validation split (eval/summary.txt)
    double train_loss;     // mean training loss of the last logged interval
    double best_val;       // lowest val_loss logged
    double val_acc;        // recall: last val accuracy; NaN for text
    double tokens_per_s;   // tokens / training time over the whole run
    size_t params;
    unsigned long long batch_hash;
    size_t points;             // logged rows
    double *step, *train, *val;  // (points) the curves; val is NaN between evaluations
    double *acc;                 // (points) val accuracy (recall; NULL for text), NaN between evaluations
} RunResult;

typedef struct {
    char group[400];       // as in the plan
    char label[160];       // what the report calls it: the kind, or the run name when kinds repeat
    char kind[32];
    char sweep_key[128], sweep_value[64];  // "" for the main comparison
    size_t *runs;          // (n_runs) indices into Ablation.run, in plan order
    int n_runs, n_finished;
    Summary val, eval, train, best_val, acc, tokens_per_s;  // over the finished runs
    // Against the baseline group (the first of the main comparison, or the
    // first config in the same sweep cell): b − baseline over the seeds both
    // finished. n = 0 for the baseline itself.
    PairedDiff d_val, d_eval, d_acc;
    size_t params;
    size_t mem[REPORT_N_LENGTHS];  // inference bytes per sequence at REPORT_LENGTHS
    // curves over the finished runs, on the steps of the first of them
    size_t points;
    double *step, *val_mean, *val_lo, *val_hi, *train_mean;  // (points)
    double *acc_mean, *acc_lo, *acc_hi;  // (points) val accuracy, recall only (else NULL)
    // val loss minus the baseline's with the same seed, at each step: mean and
    // min-max over the paired seeds (NULL for the baseline and sweep cells)
    double *dval_mean, *dval_lo, *dval_hi;  // (points)
} GroupStats;

typedef struct {
    char dir[4096];
    RunResult *run;        // (n_run) in plan order
    size_t n_run;
    GroupStats *group;     // (n_group) in order of first appearance in the plan
    size_t n_group;
    size_t n_main;         // group[0 .. n_main) is the main comparison, the rest are sweep cells
    size_t n_finished;
    int recall;            // the runs are of the recall task (accuracy is reported)
    int steps, batch_size, block_size;  // of the first finished run
    double cpu_seconds;    // its [train] cpu_seconds: a CPU budget, steps the cap (0: none)
    unsigned long long *seeds;  // (n_seeds) distinct seeds of the main comparison, in plan order
    size_t n_seeds;
    int batches_paired;    // every finished main run with the same seed saw the same batches
    double level;          // of the intervals: 0.95
    int discovered;        // no ablation.tsv: the runs are the folders found under dir, in path order
    // Every pair of the main comparison, pair[i * n_main + j] for i < j: group j
    // minus group i over the seeds both finished, paired by seed (for j > 0 and
    // i = 0 the same numbers as group[j].d_*).
    PairedDiff *pair_val, *pair_eval, *pair_acc;  // (n_main * n_main), only i < j filled
    // The [data], [model] and [train] keys (and the attention keys that are
    // not the kind's own: none) in which the finished runs of the main
    // comparison differ from its first finished run, "" when they all agree:
    // "train.lr, train.steps". What the report must not call "the same".
    char differ[1024];
} Ablation;

// Loads DIR/ablation.tsv and every run folder it names (without one, the run
// folders found under DIR: plan_discover). Runs that are not finished are kept
// with their state (the report names them). 0, or ERR_RUNTIME when DIR is not
// a folder or a finished run cannot be read.
int ablation_load(Ablation *a, const char *dir);
// The same with the differences taken against the group whose run name is
// `baseline` (instead of the first): ERR_USAGE naming the choices if there is
// no such group in the main comparison.
int ablation_load_baseline(Ablation *a, const char *dir, const char *baseline);
void ablation_free(Ablation *a);
