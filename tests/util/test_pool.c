// test_pool.c — parallel_for covers every item exactly once, call after call
// (a lost wake-up hangs here, which tests/run.sh's time limit reports as a
// failure), at several pool sizes and after resizes.
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

int main(void) {
    TEST(test_every_item_once);
    return test_summary();
}
