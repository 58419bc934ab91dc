// bench_io.h — what the hand-run attention timings (tests/bench_*_io.c)
// share: process CPU time, random inputs, a hash of the outputs, arguments.
#pragma once
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "util/rng.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *normals(Rng *r, size_t n, float scale) {
    float *x = malloc(n * sizeof(float));
    if (!x) exit(1);
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
    return x;
}

static uint64_t hash(uint64_t h, const float *x, size_t n) {  // FNV-1a over the bytes
    const unsigned char *b = (const unsigned char *)x;
    for (size_t i = 0; i < n * sizeof(float); i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static size_t arg(int argc, char **argv, int i, size_t dflt) {
    return argc > i ? (size_t)strtoul(argv[i], NULL, 10) : dflt;
}
