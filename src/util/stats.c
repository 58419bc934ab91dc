// stats.c — see stats.h.
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

Summary stats_summary(const double *x, int n) {
    Summary s = {n, NAN, NAN};
    if (n <= 0) return s;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    s.mean = sum / n;
    if (n < 2) return s;
    double ss = 0;  // two passes: no cancellation when the spread is tiny next to the mean
    for (int i = 0; i < n; i++) ss += (x[i] - s.mean) * (x[i] - s.mean);
    s.sd = sqrt(ss / (n - 1));
    return s;
}

// A(t | df) = P(|T| < t) for t >= 0, in closed form for integer df
// (Abramowitz & Stegun 26.7.3 and 26.7.4). With θ = atan(t / √df), c = cos²θ:
//   df odd:  A = (2/π) (θ + sinθ cosθ (1 + (2/3) c + (2·4)/(3·5) c² + …)),
//            the series having (df - 1)/2 terms;
//   df even: A = sinθ (1 + (1/2) c + (1·3)/(2·4) c² + …), with df/2 terms.
static double t_two_sided(double t, int df) {
    double theta = atan(t / sqrt((double)df)), s = sin(theta), co = cos(theta), c = co * co;
    double term = 1, sum = 1;
    if (df % 2 == 1) {
        for (int k = 1; k <= (df - 3) / 2; k++) {
            term *= c * (2.0 * k) / (2.0 * k + 1);
            sum += term;
        }
        if (df == 1) sum = 0;  // the Cauchy case: A = 2θ/π
        return 2 / PI * (theta + s * co * sum);
    }
    for (int k = 1; k <= (df - 2) / 2; k++) {
        term *= c * (2.0 * k - 1) / (2.0 * k);
        sum += term;
    }
    return s * sum;
}

double stats_t_cdf(double t, int df) {
    if (df < 1 || isnan(t)) return NAN;
    if (isinf(t)) return t > 0 ? 1 : 0;
    double a = t_two_sided(fabs(t), df);
    return t >= 0 ? 0.5 + 0.5 * a : 0.5 - 0.5 * a;
}

double stats_t_quantile(double p, int df) {
    if (df < 1 || !(p > 0 && p < 1)) return NAN;
    if (p < 0.5) return -stats_t_quantile(1 - p, df);
    if (p == 0.5) return 0;
    // bisection on the monotone cdf: bracket, then halve to double precision
    double lo = 0, hi = 1;
    while (stats_t_cdf(hi, df) < p && hi < 1e300) {
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (stats_t_cdf(mid, df) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

PairedDiff stats_paired_diff(const double *a, const double *b, int n, double level) {
    PairedDiff d = {n, NAN, NAN, NAN, NAN};
    if (n <= 0) return d;
    double *diff = malloc((size_t)n * sizeof *diff);
    if (!diff) return d;
    for (int i = 0; i < n; i++) diff[i] = b[i] - a[i];
    Summary s = stats_summary(diff, n);
    free(diff);
    d.mean = s.mean;
    d.sd = s.sd;
    if (n < 2) return d;
    double half = stats_t_quantile(0.5 + 0.5 * level, n - 1) * s.sd / sqrt((double)n);
    d.lo = s.mean - half;
    d.hi = s.mean + half;
    return d;
}

int stats_resolved(const PairedDiff *d) { return d->n >= 2 && (d->lo > 0 || d->hi < 0); }
