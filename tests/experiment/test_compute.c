// test_compute.c — time to a loss level, loss at a CPU time, the paired ratio
// of times (experiment/compute.h), and the duration estimate's arithmetic
// (experiment/estimate.h), on values worked out by hand.
#include "../test.h"
#include "config/config.h"
#include "experiment/compute.h"
#include "experiment/estimate.h"

static double cpu4[] = {0, 1, 3, 6}, val4[] = {4, 3, 2.5, 2.0};
static const ComputeCurve curve4 = {4, cpu4, val4, 6, 10, 40};

static void test_time_to_loss(void) {
    CHECK_NEAR(compute_time_to_loss(&curve4, 2.75), 2.0, 1e-12);  // 1 + (3 - 2.75) / 0.5 * 2
    CHECK_NEAR(compute_time_to_loss(&curve4, 2.5), 3.0, 1e-12);   // reached exactly at an evaluation
    CHECK_NEAR(compute_time_to_loss(&curve4, 4.5), 0.0, 1e-12);   // already there at the start
    CHECK_NEAR(compute_time_to_loss(&curve4, 3.5), 0.5, 1e-12);
    CHECK(isnan(compute_time_to_loss(&curve4, 1.9)));             // never reached
    // a loss that rises again does not move the first crossing
    double c[] = {0, 1, 2, 3}, v[] = {3, 2, 2.8, 1.5};
    ComputeCurve up = {4, c, v, 3, 3, 3};
    CHECK_NEAR(compute_time_to_loss(&up, 2.5), 0.5, 1e-12);
}

static void test_loss_at(void) {
    CHECK_NEAR(compute_loss_at(&curve4, 2), 2.75, 1e-12);
    CHECK_NEAR(compute_loss_at(&curve4, 0), 4, 1e-12);
    CHECK_NEAR(compute_loss_at(&curve4, 6), 2, 1e-12);
    CHECK(isnan(compute_loss_at(&curve4, 6.5)));
}

static void test_paired_ratio(void) {
    double base[] = {2, 4, 8}, b[] = {1, 2, 6};
    PairedRatio r = compute_paired_ratio(base, b, 3, 0.95);
    CHECK(r.n == 3);
    CHECK_NEAR(r.ratio, cbrt(0.5 * 0.5 * 0.75), 1e-12);  // the geometric mean of the ratios
    // log ratios: ln .5, ln .5, ln .75; t(0.975, 2) = 4.302653
    double l[3] = {log(0.5), log(0.5), log(0.75)}, m = (l[0] + l[1] + l[2]) / 3, ss = 0;
    for (int i = 0; i < 3; i++) ss += (l[i] - m) * (l[i] - m);
    double half = 4.302653 * sqrt(ss / 2) / sqrt(3);
    CHECK_NEAR(r.lo, exp(m - half), 1e-5);
    CHECK_NEAR(r.hi, exp(m + half), 1e-5);
    double b2[] = {1, NAN, 4};
    PairedRatio r2 = compute_paired_ratio(base, b2, 3, 0.95);
    CHECK(r2.n == 2);
    CHECK_NEAR(r2.ratio, 0.5, 1e-12);
    PairedRatio r1 = compute_paired_ratio(base, b, 1, 0.95);
    CHECK(r1.n == 1 && isnan(r1.lo) && isnan(r1.hi));
}

static void test_estimate_arithmetic(void) {
    Config c;
    config_defaults(&c);
    c.steps = 100;
    CHECK(estimate_steps_left(&c, 0.5, 30) == 70);
    c.cpu_seconds = 10;  // 0.5 CPU-s a step: the budget buys 20 steps
    CHECK(estimate_steps_left(&c, 0.5, 5) == 15);
    CHECK(estimate_steps_left(&c, 0.5, 25) == 0);
    c.cpu_seconds = 0;
    c.steps = 10;
    c.eval_every = 5;
    c.eval_batches = 3;
    c.batch_size = 2;
    // 10 steps of 1 s, 3 evaluations of 3 forward passes (1/3 s), 6 windows at 2 a batch
    CHECK_NEAR(estimate_run_seconds(&c, 1, 1, 0, 6), 10 + 3 + 1, 1e-12);
    char buf[32];
    estimate_format(buf, sizeof buf, 3900);
    CHECK(!strcmp(buf, "65 min"));
    estimate_format(buf, sizeof buf, 7260);
    CHECK(!strcmp(buf, "2 h 01 min"));
}

int main(void) {
    TEST(test_time_to_loss);
    TEST(test_loss_at);
    TEST(test_paired_ratio);
    TEST(test_estimate_arithmetic);
    return test_summary();
}
