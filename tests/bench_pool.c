// bench_pool.c — what one parallel_for costs in CPU time: an empty task, and a
// task that scales a 384 KB buffer (the baby model's activation, 768 x 128
// floats), at 1 and 2 threads. Not a test (no assertions); run it by hand:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_pool
//       tests/bench_pool.c src/util/pool.c src/util/err.c -lm -lpthread
//   /tmp/bench_pool [calls per row, default 20000]
// Prints per row the process's CPU µs and the wall µs per call. The calls run
// back to back, so a worker is woken while it is still on its way to sleep:
// a floor for what a dispatch costs inside a training step, not the whole of it.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util/pool.h"

enum { N = 768 * 128 };
static float buf[N];

static double secs(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void nothing(void *ctx, size_t lo, size_t hi) { (void)ctx, (void)lo, (void)hi; }

static void scale(void *ctx, size_t lo, size_t hi) {
    (void)ctx;
    for (size_t i = lo; i < hi; i++) buf[i] = buf[i] * 0.999f + 0.001f;
}

int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 20000;
    if (calls < 1) calls = 1;
    for (int threads = 1; threads <= 2; threads++) {
        pool_init(threads);
        for (int k = 0; k < 2; k++) {
            pool_fn fn = k ? scale : nothing;
            for (int i = 0; i < 100; i++) parallel_for(N, 1024, fn, NULL);  // warm-up
            double c0 = secs(CLOCK_PROCESS_CPUTIME_ID), w0 = secs(CLOCK_MONOTONIC);
            for (int i = 0; i < calls; i++) parallel_for(N, 1024, fn, NULL);
            double c1 = secs(CLOCK_PROCESS_CPUTIME_ID), w1 = secs(CLOCK_MONOTONIC);
            printf("threads %d, %-12s CPU %6.2f µs, wall %6.2f µs per call\n", threads,
                   k ? "scale 384 KB" : "empty task", (c1 - c0) / calls * 1e6, (w1 - w0) / calls * 1e6);
        }
    }
    pool_shutdown();
    return 0;
}
