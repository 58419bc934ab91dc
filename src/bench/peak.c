// peak.c — FP32 FMA peak: independent register-resident chains per thread.
//
// acc_i = acc_i * x + y for i < CHAINS, repeated. With x = 1 - 6e-8 and y = 6e-8
// every chain is pulled towards the fixed point y / (1 - x) ~ 1, so the values
// stay normal however long it runs (no overflow, no denormal slow path), and
// no chain depends on another, so the only limit is how many
// FMAs the pipes retire per cycle. The accumulators are summed into a volatile
// at the end so the compiler cannot drop the loop.
#include "peak.h"

// The chains themselves are a kernel (kernels/fma_chains.c, one variant per
// path), so the peak is the chosen path's: forced to AVX2 on an AVX-512
// machine, bench measures and reports the AVX2 peak.

#include <time.h>

#include "kernels/fma_chains.h"
#include "util/pool.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *peak_isa(void) {
    int chains, lanes;
    const char *isa;
    fma_chains_shape(&chains, &lanes, &isa);
    return isa;
}

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define PEAK_MAX_TASKS 256  // the pool's own limit

typedef struct {
    long iters;
    double cpu[PEAK_MAX_TASKS];           // each task's CPU seconds
    volatile float sink[PEAK_MAX_TASKS];  // each task's result, so the loop is not dropped
} PeakJob;

static void peak_task(void *ctx, size_t lo, size_t hi) {
    PeakJob *j = ctx;
    for (size_t t = lo; t < hi; t++) {
        double c0 = thread_cpu_s();
        j->sink[t] = fma_chains_run(j->iters);
        j->cpu[t] = thread_cpu_s() - c0;
    }
}

// One trial: `threads` tasks of `iters` iterations each, side by side.
static PeakRate trial(PeakJob *j, int threads) {
    double t0 = now_s();
    if (threads <= 1) peak_task(j, 0, 1);
    else parallel_for((size_t)threads, 1, peak_task, j);
    double wall = now_s() - t0;
    int chains, lanes;
    const char *isa;
    fma_chains_shape(&chains, &lanes, &isa);
    double per_task = 2.0 * chains * lanes * (double)j->iters;
    PeakRate r = {.wall = per_task * threads / wall * 1e-9, .cpu = 0};
    for (int t = 0; t < threads; t++) r.cpu += per_task / j->cpu[t] * 1e-9;
    return r;
}

PeakRate peak_gflops(int threads, double seconds, int trials) {
    if (threads < 1) threads = 1;
    if (threads > PEAK_MAX_TASKS) threads = PEAK_MAX_TASKS;
    if (trials < 1) trials = 1;
    PeakJob j = {.iters = 100000};
    // calibrate on one thread's CPU time: grow the iteration count until a run
    // takes >= 20 ms, then scale it to the requested duration
    trial(&j, 1);
    while (j.cpu[0] < 0.02 && j.iters < (1L << 40)) {
        j.iters *= 4;
        trial(&j, 1);
    }
    double want = seconds > 0 ? seconds : 0.1;
    j.iters = (long)((double)j.iters * want / j.cpu[0]) + 1;
    PeakRate best = {0, 0};
    for (int t = 0; t < trials; t++) {
        PeakRate r = trial(&j, threads);
        if (r.wall > best.wall) best.wall = r.wall;
        if (r.cpu > best.cpu) best.cpu = r.cpu;
    }
    return best;
}
