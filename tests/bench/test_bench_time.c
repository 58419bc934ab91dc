// test_bench_time.c — bench_time_pair's bookkeeping: two set-ups of one body
// timed A B A B (part train's thread efficiency: the all-threads steps and
// the 1-thread ones, pool_limit, in one process). What must hold whatever the
// clock says: each variant's set-up runs before each of its calls (the body
// sees that variant's thread cap, never the other's), the calls go in pairs
// of one variant (an untimed one, then the timed one: A A B B ...), and both
// variants end with the same count, at least min_reps and at most max_reps,
// and each variant's cpu_share is per the threads it ran with. (No assertion
// on a speed.)
#include "../test.h"
#include "bench/bench.h"
#include "util/pool.h"

enum { MAX_CALLS = 64 };

typedef struct {
    int variant;           // the set-up that ran last
    int calls;
    int seen[MAX_CALLS];   // per call: 10 * variant + pool_threads_used()
} Log;

static void all_threads(void *ctx) {
    ((Log *)ctx)->variant = 0;
    pool_limit(0);
}

static void one_thread(void *ctx) {
    ((Log *)ctx)->variant = 1;
    pool_limit(1);
}

static void body(void *ctx) {
    Log *l = ctx;
    if (l->calls < MAX_CALLS) l->seen[l->calls] = 10 * l->variant + pool_threads_used();
    l->calls++;
    l->variant = -1;  // a call without its set-up first shows as a negative entry
}

// one pair with these repetition bounds: `want` timed calls per variant
static void check_pair(int min_reps, int max_reps, double min_seconds, int want) {
    BenchOpts o = {.min_reps = min_reps, .max_reps = max_reps, .min_seconds = min_seconds};
    BenchFn const setup[2] = {all_threads, one_thread};
    Log l = {.variant = -1};
    BenchTime t[2];
    bench_time_pair(&o, setup, body, &l, t);
    CHECK(t[0].reps == want && t[1].reps == want);
    CHECK(l.calls == 4 * want);  // per timed call, an untimed one of its variant before it
    int alternate = 1;
    for (int i = 0; i < l.calls && i < MAX_CALLS; i++) alternate &= l.seen[i] == (i / 2 % 2 ? 11 : 2);
    CHECK(alternate);
    if (!alternate)
        for (int i = 0; i < l.calls && i < MAX_CALLS; i++) fprintf(stderr, "  call %d: %d\n", i, l.seen[i]);
    for (int v = 0; v < 2; v++) CHECK(t[v].min <= t[v].median && t[v].median <= t[v].max);
    pool_limit(0);
}

static void test_pair_alternates(void) {
    pool_init(2);
    check_pair(3, 10, 0, 3);   // min_reps decides
    check_pair(50, 4, 0, 4);   // max_reps caps both (16 calls: all logged)
    check_pair(1, 1, 0, 1);
    pool_init(1);
}

// min_seconds: whichever variant has not reached it keeps both going, in
// lockstep, up to max_reps (these bodies take microseconds: the cap decides)
static void test_pair_min_seconds_in_lockstep(void) {
    pool_init(2);
    check_pair(1, 6, 3600, 6);
    pool_init(1);
}

// cpu_share divides by the threads each variant ran with (2, then 1): with a
// body that runs on the caller alone, process CPU time cannot exceed wall time
// (the workers sleep; the CPU clock's interval encloses the wall clock's), so
// the all-threads variant's share is at most 1/2 and the other's at most 1
// (plus the clock reads' own cost). Divided by the wrong count, the first
// reads about 1 on any but a starved machine: a bound, never a speed.
static void spin(void *ctx) {
    (void)ctx;
    double t0 = bench_now();
    while (bench_now() - t0 < 2e-3) {
    }
}

static void test_pair_cpu_share_per_variant(void) {
    pool_init(2);
    BenchOpts o = {.min_reps = 3, .max_reps = 3};
    Log l = {.variant = -1};
    BenchFn const setup[2] = {all_threads, one_thread};
    BenchTime t[2];
    bench_time_pair(&o, setup, spin, &l, t);
    CHECK(t[0].cpu_share <= 0.5 * 1.05 && t[1].cpu_share <= 1.05);
    if (!(t[0].cpu_share <= 0.5 * 1.05 && t[1].cpu_share <= 1.05))
        fprintf(stderr, "  cpu_share %.3f (2 threads), %.3f (1 thread)\n", t[0].cpu_share, t[1].cpu_share);
    pool_limit(0);
    pool_init(1);
}

int main(void) {
    TEST(test_pair_alternates);
    TEST(test_pair_min_seconds_in_lockstep);
    TEST(test_pair_cpu_share_per_variant);
    return test_summary();
}
