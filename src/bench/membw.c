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

int membw_open(MemBw *b, size_t bytes) {
    b->x = NULL;
    b->n = bytes / sizeof(float) / LANES * LANES;
    void *p = NULL;
    if (b->n == 0 || posix_memalign(&p, 64, b->n * sizeof(float))) return -1;
    b->x = p;
    for (size_t i = 0; i < b->n; i++) b->x[i] = (float)(i & 7);
    return 0;
}

double membw_pass(const MemBw *b) {
    static volatile float sink;
    double t0 = now_s();
    sink += sum_all(b->x, b->n);
    double dt = now_s() - t0;
    return (double)b->n * sizeof(float) / dt * 1e-9;
}

void membw_close(MemBw *b) {
    free(b->x);
    b->x = NULL;
}

double membw_read_gbs(size_t bytes, int trials) {
    MemBw b;
    if (membw_open(&b, bytes)) return 0;
    double best = 0;
    for (int t = 0; t < trials; t++) {
        double gbs = membw_pass(&b);
        if (gbs > best) best = gbs;
    }
    membw_close(&b);
    return best;
}
