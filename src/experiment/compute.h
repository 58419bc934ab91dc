// compute.h — an ablation's runs seen against the compute they used: each
// run's validation loss against its training CPU-seconds (metrics.csv's
// val_loss and cpu_s, read by column name), the CPU-seconds each run needs to
// reach chosen loss levels, and per kind of the main comparison the mean and
// spread over seeds and the paired ratio to the baseline.
//
// Time to a loss level: the first evaluation whose val_loss <= level, its
// CPU-seconds linearly interpolated with the evaluation before it (loss is
// assumed to fall linearly in CPU time between two evaluations); NaN if the
// run never gets there. cpu_s counts the training steps only (train.c):
// evaluation is measurement, the same for every kind, and is left out.
#pragma once
#include <stddef.h>

#include "experiment/results.h"
#include "util/stats.h"

enum { COMPUTE_MAX_LEVELS = 4, COMPUTE_GRID = 64 };

// One run's curve: its evaluations (rows with a val_loss) in step order.
typedef struct {
    size_t n;
    double *cpu, *val;  // (n)
    double cpu_end;     // cpu_s of the last row (training's total)
    double wall_end;    // elapsed_s of the last row
    long last_step;
} ComputeCurve;

// A ratio of paired times, b / baseline, by seed: the geometric mean of the
// per-seed ratios and its interval (Student t on the log ratios); lo/hi NaN
// with fewer than 2 pairs; n = 0 when no seed has both.
typedef struct {
    int n;
    double ratio, lo, hi;
} PairedRatio;

typedef struct {
    int available;                   // 0: no finished run has a cpu_s column
    size_t n_groups;                 // = Ablation.n_main
    size_t n_runs;                   // = Ablation.n_run
    ComputeCurve *curve;             // (n_runs): n = 0 for runs not finished / without cpu_s
    size_t n_levels;
    double level[COMPUTE_MAX_LEVELS];  // loss levels, highest (easiest) first
    Summary *time;                   // (n_groups * n_levels) CPU-seconds to reach each level
    int *reached;                    // (n_groups * n_levels) runs of the group that reached it
    PairedRatio *ratio;              // (n_groups * n_levels) against group 0 (n = 0 for group 0)
    double *grid_x;                  // (n_groups * COMPUTE_GRID) CPU-seconds
    double *grid_mean, *grid_lo, *grid_hi;  // val loss at grid_x over the group's seeds
    size_t *grid_n;                  // (n_groups) points of each group's grid (0: none)
} ComputeView;

// The CPU-seconds at which the curve first reaches `level` (see above), or NaN.
double compute_time_to_loss(const ComputeCurve *c, double level);
// The curve's val loss at CPU-seconds x (linear between evaluations), NaN outside it.
double compute_loss_at(const ComputeCurve *c, double x);
// Reads DIR/<run>/metrics.csv of every finished run. 0 (v->available may be 0).
void compute_view_load(const Ablation *a, ComputeView *v);
void compute_view_free(ComputeView *v);
// CPU-seconds for a table: "0.123", "12.3", "1234".
void compute_format_s(char *buf, size_t cap, double s);
// The paired ratio of times b[i] / base[i] over the n pairs (non-finite pairs skipped).
PairedRatio compute_paired_ratio(const double *base, const double *b, int n, double level);
