// test_pool.c — parallel_for covers every item exactly once, call after call
// (a lost wake-up hangs here, which tests/run.sh's time limit reports as a
// failure), at several pool sizes and after resizes.
#include <pthread.h>
#include <stdlib.h>

#include "../test.h"
#include "util/pool.h"

typedef struct {
    int *count;
    size_t calls;
} Job;

static void mark(void *ctx, size_t lo, size_t hi) {
    Job *j = ctx;
    for (size_t i = lo; i < hi; i++) __atomic_add_fetch(&j->count[i], 1, __ATOMIC_RELAXED);
}

static void test_every_item_once(void) {
    enum { MAX_N = 97, CALLS = 5000 };
    int *count = calloc(MAX_N, sizeof(int));
    Job j = {count, 0};
    for (int threads = 1; threads <= 4; threads++) {
        pool_init(threads);
        CHECK(pool_threads() == threads);
        int ok = 1;
        for (size_t c = 0; c < CALLS; c++) {
            size_t n = 1 + c % MAX_N, grain = 1 + c % 5;
            parallel_for(n, grain, mark, &j);
            for (size_t i = 0; i < n; i++) {
                ok &= count[i] == 1;
                count[i] = 0;
            }
        }
        CHECK(ok);
    }
    pool_shutdown();
    CHECK(pool_threads() == 1);
    free(count);
}

typedef struct {
    pthread_t caller;
    int n_ranges, off_caller;  // ranges run; of them, on another thread
    size_t shortest;
} Ranges;

static void note_range(void *ctx, size_t lo, size_t hi) {
    Ranges *r = ctx;
    __atomic_add_fetch(&r->n_ranges, 1, __ATOMIC_RELAXED);
    if (!pthread_equal(pthread_self(), r->caller)) __atomic_add_fetch(&r->off_caller, 1, __ATOMIC_RELAXED);
    size_t len = hi - lo, cur = __atomic_load_n(&r->shortest, __ATOMIC_RELAXED);
    while (len < cur && !__atomic_compare_exchange_n(&r->shortest, &cur, len, 0, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
    }
}

// Each task gets at least `grain` items: n / grain tasks (at most one per
// thread), and n < 2 grain runs as one range on the caller, woken worker none.
static void test_tasks_at_least_grain(void) {
    int ok = 1;
    for (int threads = 1; threads <= 4; threads++) {
        pool_init(threads);
        for (size_t n = 1; n <= 200; n++)
            for (size_t grain = 1; grain <= 23; grain++) {
                Ranges r = {pthread_self(), 0, 0, (size_t)-1};
                parallel_for(n, grain, note_range, &r);
                size_t want = n / grain < (size_t)threads ? n / grain : (size_t)threads;
                if (want == 0) want = 1;
                ok &= r.n_ranges == (int)want;
                ok &= want == 1 ? r.off_caller == 0 && r.shortest == n : r.shortest >= grain;
            }
    }
    CHECK(ok);
    pool_init(1);
}

static void test_grain_bytes(void) {
    CHECK(pool_grain_bytes(POOL_MIN_TASK_BYTES) == 1);
    CHECK(pool_grain_bytes(2 * POOL_MIN_TASK_BYTES) == 1);
    CHECK(pool_grain_bytes(1) == POOL_MIN_TASK_BYTES);
    CHECK(pool_grain_bytes(0) == POOL_MIN_TASK_BYTES);
    CHECK(pool_grain_bytes(3) * 3 >= POOL_MIN_TASK_BYTES && (pool_grain_bytes(3) - 1) * 3 < POOL_MIN_TASK_BYTES);
}

// pool_dispatches (what bench's profile prints per step and what the kernels'
// thread-count tests use to know their problem split) counts exactly the calls
// that reached the workers while profiling is on: not a call run on the caller
// alone (one thread, n < 2 grain, nested in a task), none while it is off.
static void nested(void *ctx, size_t lo, size_t hi) {
    (void)lo, (void)hi;
    parallel_for(100, 1, note_range, ctx);  // inside a task: runs serially
}

static void test_dispatch_count(void) {
    Ranges r = {pthread_self(), 0, 0, (size_t)-1};
    pool_init(3);
    parallel_for(100, 1, note_range, &r);  // before profiling: not counted
    pool_profile(1);
    CHECK(pool_dispatches() == 0);
    parallel_for(100, 1, note_range, &r);   // 3 tasks: 1
    parallel_for(100, 51, note_range, &r);  // under 2 grains: on the caller
    parallel_for(100, 50, note_range, &r);  // 2 tasks: 2
    parallel_for(3, 1, nested, &r);         // 3, and its nested calls none
    CHECK(pool_dispatches() == 3);
    pool_init(1);
    parallel_for(100, 1, note_range, &r);  // one thread: on the caller
    CHECK(pool_dispatches() == 3);
    pool_init(3);
    pool_profile(0);  // off: back to zero, and nothing counted
    parallel_for(100, 1, note_range, &r);
    CHECK(pool_dispatches() == 0);
    pool_init(1);
}

// pool_limit caps the threads a parallel_for uses (the caller included)
// without stopping the workers; 0 lifts it, and pool_init clears it. The
// ranges stay the even split over the threads in use.
static void test_limit(void) {
    pool_init(3);
    const int limits[] = {1, 2, 3, 4, 0};
    const int used[] = {1, 2, 3, 3, 3};
    for (int i = 0; i < 5; i++) {
        pool_limit(limits[i]);
        CHECK(pool_threads() == 3 && pool_threads_used() == used[i]);
        Ranges r = {pthread_self(), 0, 0, (size_t)-1};
        parallel_for(99, 1, note_range, &r);
        CHECK(r.n_ranges == used[i] && r.shortest == 99 / (size_t)used[i]);
        CHECK(used[i] == 1 ? r.off_caller == 0 : r.off_caller == used[i] - 1);
    }
    pool_limit(1);
    pool_init(2);  // a new size: no cap left over
    CHECK(pool_threads_used() == 2);
    pool_limit(1);
    pool_init(2);  // the same size: cleared too
    CHECK(pool_threads_used() == 2);
    pool_init(1);
    CHECK(pool_threads_used() == 1);
}

int main(void) {
    TEST(test_every_item_once);
    TEST(test_tasks_at_least_grain);
    TEST(test_grain_bytes);
    TEST(test_dispatch_count);
    TEST(test_limit);
    return test_summary();
}
