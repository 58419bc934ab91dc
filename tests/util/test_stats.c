// test_stats.c — Student's t against printed table values, the summary and
// the paired interval against hand-computed examples.
#include "test.h"
#include "util/stats.h"

// Two-sided critical values from the standard t table (4 decimals printed).
static void test_t_quantile_table(void) {
    static const struct { double p; int df; double t; } TABLE[] = {
        {0.975, 1, 12.7062}, {0.975, 2, 4.3027}, {0.975, 3, 3.1824}, {0.975, 4, 2.7764},
        {0.975, 5, 2.5706},  {0.975, 9, 2.2622}, {0.975, 10, 2.2281}, {0.975, 30, 2.0423},
        {0.975, 100, 1.9840}, {0.95, 1, 6.3138}, {0.95, 4, 2.1318},  {0.95, 10, 1.8125},
        {0.995, 2, 9.9248},  {0.995, 4, 4.6041}, {0.995, 29, 2.7564}, {0.9, 7, 1.4149},
    };
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        double t = stats_t_quantile(TABLE[i].p, TABLE[i].df);
        CHECK_NEAR(t, TABLE[i].t, 6e-5);
        CHECK_NEAR(stats_t_quantile(1 - TABLE[i].p, TABLE[i].df), -t, 1e-12);
        CHECK_NEAR(stats_t_cdf(t, TABLE[i].df), TABLE[i].p, 1e-12);
    }
    // large df approaches the normal quantile 1.959964
    CHECK_NEAR(stats_t_quantile(0.975, 100000), 1.959964, 1e-4);
}

static void test_t_cdf_exact_values(void) {
    CHECK_NEAR(stats_t_cdf(0, 3), 0.5, 0);
    CHECK_NEAR(stats_t_cdf(1, 1), 0.75, 1e-15);  // Cauchy: 1/2 + atan(1)/π
    CHECK_NEAR(stats_t_cdf(-1, 1), 0.25, 1e-15);
    CHECK_NEAR(stats_t_cdf(sqrt(2.0), 2), 0.5 + 0.5 / sqrt(2.0), 1e-15);  // df 2: 1/2 + t / (2√(2+t²))
    CHECK(stats_t_cdf(INFINITY, 4) == 1 && stats_t_cdf(-INFINITY, 4) == 0);
    CHECK(isnan(stats_t_quantile(0, 4)) && isnan(stats_t_quantile(1, 4)) && isnan(stats_t_quantile(0.5, 0)));
    // monotone in t
    double prev = 0;
    for (double t = -30; t <= 30; t += 0.25) {
        double c = stats_t_cdf(t, 5);
        CHECK(c >= prev);
        prev = c;
    }
}

static void test_mean_sd(void) {
    const double x[] = {1.921, 1.897, 1.904, 1.890, 1.921};
    Summary s = stats_summary(x, 5);
    CHECK(s.n == 5);
    CHECK_NEAR(s.mean, 1.9066, 1e-12);
    CHECK_NEAR(s.sd, sqrt(0.0007892 / 4), 1e-12);  // squared deviations sum to 0.0007892
    Summary one = stats_summary(x, 1);
    CHECK(one.mean == 1.921 && isnan(one.sd));
    CHECK(isnan(stats_summary(x, 0).mean));
}

static void test_paired_interval(void) {
    // d = {0.1, 0.3, 0.2}: mean 0.2, sd 0.1, half-width t(0.975, 2) · 0.1/√3 = 0.248414
    const double a[] = {1, 2, 3}, b[] = {1.1, 2.3, 3.2};
    PairedDiff d = stats_paired_diff(a, b, 3, 0.95);
    CHECK(d.n == 3);
    CHECK_NEAR(d.mean, 0.2, 1e-12);
    CHECK_NEAR(d.sd, 0.1, 1e-12);
    CHECK_NEAR(d.lo, 0.2 - 0.2484138, 1e-6);
    CHECK_NEAR(d.hi, 0.2 + 0.2484138, 1e-6);
    CHECK(!stats_resolved(&d));
    // a consistent shift with small spread is resolved, in either direction
    const double c[] = {2.0, 1.5, 1.9, 1.7}, e[] = {2.05, 1.56, 1.94, 1.76};
    PairedDiff up = stats_paired_diff(c, e, 4, 0.95), down = stats_paired_diff(e, c, 4, 0.95);
    CHECK(up.lo > 0 && stats_resolved(&up));
    CHECK(down.hi < 0 && stats_resolved(&down));
    CHECK_NEAR(up.mean, -down.mean, 1e-15);
    // one pair: a difference but no interval, never "resolved"
    PairedDiff one = stats_paired_diff(a, b, 1, 0.95);
    CHECK_NEAR(one.mean, 0.1, 1e-12);
    CHECK(isnan(one.lo) && isnan(one.hi) && !stats_resolved(&one));
}

int main(void) {
    TEST(test_t_quantile_table);
    TEST(test_t_cdf_exact_values);
    TEST(test_mean_sd);
    TEST(test_paired_interval);
    return test_summary();
}
