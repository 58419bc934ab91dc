// membw.c — one-thread DRAM read bandwidth: sum a large buffer.
//
// 128 interleaved partial sums (eight 16-float vectors once vectorised) keep the
// add latency off the critical path, so the loads are the only limit. The
// buffer is written first (the OS maps pages on first touch, and an untouched
// page would read as the shared zero page, from cache). The sum goes to a
// volatile so the loop cannot be dropped.
#include "membw.h"

#include <stdlib.h>
#include <time.h>

#define LANES 128

// the thread's CPU time, not the wall clock: on a shared machine a pass that
// loses the core for a time slice would otherwise read as a slower memory.
// Every rate compared with this one (generation's bytes per token) is per
// CPU-second too.
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float sum_all(const float *restrict x, size_t n) {
    float acc[LANES] = {0};
    for (size_t i = 0; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += x[i + j];
    float s = 0;
    for (size_t j = 0; j < LANES; j++) s += acc[j];
    return s;
}

double membw_read_gbs(size_t bytes, int trials) {
    size_t n = bytes / sizeof(float) / LANES * LANES;
    void *p = NULL;
    if (n == 0 || posix_memalign(&p, 64, n * sizeof(float))) return 0;
    float *x = p;
    for (size_t i = 0; i < n; i++) x[i] = (float)(i & 7);
    volatile float sink = 0;
    double best = 0;
    for (int t = 0; t < trials; t++) {
        double t0 = now_s();
        sink += sum_all(x, n);
        double dt = now_s() - t0;
        double gbs = (double)n * sizeof(float) / dt * 1e-9;
        if (gbs > best) best = gbs;
    }
    (void)sink;
    free(p);
    return best;
}
