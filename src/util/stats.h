// stats.h — the few statistics an ablation verdict needs: mean and sample
// standard deviation, Student's t distribution (integer degrees of freedom),
// and the confidence interval of a paired difference.
//
// Paired: runs with the same seed share initial weights and batches, so the
// seed-to-seed noise they share cancels in their difference. The interval is
// the t interval on the per-seed differences d_i = b_i - a_i:
//     mean(d) ± t_{(1+level)/2, n-1} · sd(d) / √n.
#pragma once

typedef struct {
    int n;
    double mean;
    double sd;  // sample standard deviation (divides by n - 1); NaN when n < 2
} Summary;

// Summary of the n values x[0..n-1] (mean NaN when n == 0).
Summary stats_summary(const double *x, int n);

// P(T <= t) for Student's t with df >= 1 degrees of freedom.
double stats_t_cdf(double t, int df);

// The p-quantile of Student's t with df >= 1 degrees of freedom, 0 < p < 1:
// stats_t_quantile(0.975, 4) = 2.776... (two-sided 95 % with 5 samples).
double stats_t_quantile(double p, int df);

typedef struct {
    int n;          // pairs
    double mean;    // mean of b_i - a_i
    double sd;      // sample sd of the differences (NaN when n < 2)
    double lo, hi;  // the interval; NaN when n < 2 (no spread to judge by)
} PairedDiff;

// The `level` (e.g. 0.95) interval of mean(b - a) over n pairs.
PairedDiff stats_paired_diff(const double *a, const double *b, int n, double level);

// 1 if the interval excludes 0 (the sign of the difference is resolved),
// 0 if it contains 0 or could not be computed.
int stats_resolved(const PairedDiff *d);
