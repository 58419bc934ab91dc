// membw.c — one-thread DRAM read bandwidth: sum a large buffer, as one stream
// or as several read in turn (membw.h says why).
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

// x (n) as `streams` parts of n / streams floats (a multiple of LANES), read
// LANES floats from each part in turn
static float sum_all(const float *restrict x, size_t n, int streams) {
    float acc[LANES] = {0};
    size_t part = n / (size_t)streams;
    for (size_t i = 0; i + LANES <= part; i += LANES)
        for (int s = 0; s < streams; s++) {
            const float *xs = x + (size_t)s * part + i;
            for (size_t j = 0; j < LANES; j++) acc[j] += xs[j];
        }
    float s = 0;
    for (size_t j = 0; j < LANES; j++) s += acc[j];
    return s;
}

int membw_open(MemBw *b, size_t bytes, int streams) {
    b->x = NULL;
    b->streams = streams < 1 ? 1 : streams;
    size_t unit = LANES * (size_t)b->streams;
    b->n = bytes / sizeof(float) / unit * unit;
    void *p = NULL;
    if (b->n == 0 || posix_memalign(&p, 64, b->n * sizeof(float))) return -1;
    b->x = p;
    for (size_t i = 0; i < b->n; i++) b->x[i] = (float)(i & 7);
    return 0;
}

double membw_pass(const MemBw *b) {
    static volatile float sink;
    double t0 = now_s();
    sink += sum_all(b->x, b->n, b->streams);
    double dt = now_s() - t0;
    return (double)b->n * sizeof(float) / dt * 1e-9;
}

void membw_close(MemBw *b) {
    free(b->x);
    b->x = NULL;
}

double membw_read_gbs(size_t bytes, int trials) {
    MemBw b;
    if (membw_open(&b, bytes, 1)) return 0;
    double best = 0;
    for (int t = 0; t < trials; t++) {
        double gbs = membw_pass(&b);
        if (gbs > best) best = gbs;
    }
    membw_close(&b);
    return best;
}
