// peak.c — FP32 FMA peak: independent register-resident chains per thread.
//
// acc_i = acc_i * x + y for i < CHAINS, repeated. With x = 1 - 6e-8 and y = 6e-8
// every chain is pulled towards the fixed point y / (1 - x) ~ 1, so the values
// stay normal however long it runs (no overflow, no denormal slow path), and
// no chain depends on another, so the only limit is how many
// FMAs the pipes retire per cycle. The accumulators are summed into a volatile
// at the end so the compiler cannot drop the loop.
#include "peak.h"

#include <time.h>

#include "util/pool.h"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#if defined(__AVX512F__)
// 32 zmm registers: 24 accumulators + x, y. FMA latency 4 cycles x 2 pipes
// needs >= 8 chains in flight; 24 leaves margin for a wider core.
enum { CHAINS = 24, LANES = 16 };
static const char *ISA = "AVX-512";
static float run_chains(long iters) {
    __m512 acc[CHAINS], x = _mm512_set1_ps(0.99999994f), y = _mm512_set1_ps(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_set1_ps(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    __m512 s = acc[0];
    for (int i = 1; i < CHAINS; i++) s = _mm512_add_ps(s, acc[i]);
    return _mm512_reduce_add_ps(s);
}
#elif defined(__AVX2__) && defined(__FMA__)
// 16 ymm registers: 12 accumulators + x, y.
enum { CHAINS = 12, LANES = 8 };
static const char *ISA = "AVX2+FMA";
static float run_chains(long iters) {
    __m256 acc[CHAINS], x = _mm256_set1_ps(0.99999994f), y = _mm256_set1_ps(6e-8f);
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_set1_ps(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    float lanes[8], sum = 0.0f;
    __m256 s = acc[0];
    for (int i = 1; i < CHAINS; i++) s = _mm256_add_ps(s, acc[i]);
    _mm256_storeu_ps(lanes, s);
    for (int i = 0; i < 8; i++) sum += lanes[i];
    return sum;
}
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include "peak_neon.h"
enum { CHAINS = PEAK_NEON_CHAINS, LANES = PEAK_NEON_LANES };
static const char *ISA = "NEON";
static float run_chains(long iters) { return peak_neon_run_chains(iters); }
#else
// Plain C: a multiply and an add per step (C11 does not contract them into an
// FMA), still 2 FLOPs; the compiler may vectorise across the chains.
enum { CHAINS = 16, LANES = 1 };
static const char *ISA = "scalar";
static float run_chains(long iters) {
    float acc[CHAINS], x = 0.99999994f, y = 6e-8f;
    for (int i = 0; i < CHAINS; i++) acc[i] = 1.0f + (float)i;
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < CHAINS; i++) acc[i] = acc[i] * x + y;
    float s = 0.0f;
    for (int i = 0; i < CHAINS; i++) s += acc[i];
    return s;
}
#endif

const char *peak_isa(void) { return ISA; }

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
        j->sink[t] = run_chains(j->iters);
        j->cpu[t] = thread_cpu_s() - c0;
    }
}

// One trial: `threads` tasks of `iters` iterations each, side by side.
static PeakRate trial(PeakJob *j, int threads) {
    double t0 = now_s();
    if (threads <= 1) peak_task(j, 0, 1);
    else parallel_for((size_t)threads, 1, peak_task, j);
    double wall = now_s() - t0;
    double per_task = 2.0 * (double)CHAINS * LANES * (double)j->iters;
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
