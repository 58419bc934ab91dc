// test_bench_spread.c — bench_spread, the median and range `bench --rounds`
// prints for each row: the median of an odd and of an even count, the least
// and greatest, the input left as it was (the rounds' figures are read again),
// failed readings (NaN) left out and counted out, and none at all read as NaN.
#include <math.h>

#include "../test.h"
#include "bench/bench.h"

static void test_odd_count(void) {
    const double v[] = {61.2, 57.7, 60.6, 58.3, 59.8};
    BenchSpread s = bench_spread(v, 5);
    CHECK(s.n == 5);
    CHECK(s.median == 59.8 && s.min == 57.7 && s.max == 61.2);
    CHECK(v[0] == 61.2 && v[1] == 57.7 && v[4] == 59.8);  // not sorted in place
}

static void test_even_count(void) {
    const double v[] = {4.0, 1.0, 3.0, 2.0};
    BenchSpread s = bench_spread(v, 4);
    CHECK(s.n == 4 && s.median == 2.5 && s.min == 1.0 && s.max == 4.0);
}

static void test_failed_readings_left_out(void) {
    const double v[] = {NAN, 70.0, INFINITY, 75.0, NAN, 80.0};
    BenchSpread s = bench_spread(v, 6);
    CHECK(s.n == 3 && s.median == 75.0 && s.min == 70.0 && s.max == 80.0);
}

static void test_none(void) {
    const double v[] = {NAN, NAN};
    BenchSpread s = bench_spread(v, 2);
    CHECK(s.n == 0 && isnan(s.median) && isnan(s.min) && isnan(s.max));
    s = bench_spread(v, 0);
    CHECK(s.n == 0 && isnan(s.median));
}

int main(void) {
    TEST(test_odd_count);
    TEST(test_even_count);
    TEST(test_failed_readings_left_out);
    TEST(test_none);
    return test_summary();
}
