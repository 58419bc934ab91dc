// bench_delta_wy.c — CPU time of the delta kind's WY form (delta_wy.c) on one
// (b, h) slab at the large bench model's shape: T 256, head size 64, chunk 64,
// L2-normalised identity features, one λ. Not a test (no assertions); run it by
// hand, e.g. against another commit's sources in a second tree:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_delta_wy
//       tests/bench_delta_wy.c $(find src -name '*.c' ! -name main.c) -lm -lpthread
//   /tmp/bench_delta_wy [reps, default 300] [rounds, default 5]
// Prints per round the forward's and the backward's CPU µs per slab (mean over
// reps), the best round, and a hash of the outputs and gradients: the same
// inputs every time, so two builds of the same numerics print the same hash.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attention/delta_wy.h"
#include "util/rng.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *normals(Rng *r, size_t n) {
    float *x = malloc(n * sizeof(float));
    if (!x) exit(1);
    for (size_t i = 0; i < n; i++) x[i] = rng_normal(r);
    return x;
}

static uint64_t hash(uint64_t h, const float *x, size_t n) {  // FNV-1a over the bytes
    const unsigned char *b = (const unsigned char *)x;
    for (size_t i = 0; i < n * sizeof(float); i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 300, rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_delta_wy [reps >= 1] [rounds >= 1]\n");
        return 2;
    }
    size_t T = 256, d = 64, n = T * d;
    DeltaSlab p = {.T = T, .dh = d, .chunk = 64, .fmap = FMAP_IDENTITY, .eps = 1e-6f, .normalize = 1,
                   .key_norm = KEYNORM_L2, .lam = 0.99f, .loglam = log(0.99)};
    Rng r;
    rng_seed(&r, 1);
    float *q = normals(&r, n), *k = normals(&r, n), *v = normals(&r, n), *a = normals(&r, T);
    float *dy = normals(&r, n), *y = calloc(n, sizeof(float));
    float *dq = calloc(n, sizeof(float)), *dk = calloc(n, sizeof(float)), *dv = calloc(n, sizeof(float));
    float *da = calloc(T, sizeof(float)), *saved = calloc(delta_saved_floats(&p), sizeof(float));
    float *scratch = calloc(delta_wy_scratch_floats(&p), sizeof(float));
    if (!y || !dq || !dk || !dv || !da || !saved || !scratch) return 1;
    double best_f = INFINITY, best_b = INFINITY;
    for (int round = 0; round < rounds; round++) {
        double tf = 0, tb = 0;
        for (int i = 0; i < reps; i++) {
            memset(dq, 0, n * sizeof(float)), memset(dk, 0, n * sizeof(float));
            memset(dv, 0, n * sizeof(float)), memset(da, 0, T * sizeof(float));
            double t0 = cpu_now();
            delta_wy_forward(&p, y, saved, scratch, q, k, v, a);
            double t1 = cpu_now();
            delta_wy_backward(&p, dq, dk, dv, da, NULL, dy, saved, scratch, q, k, v, a);
            tf += t1 - t0, tb += cpu_now() - t1;
        }
        tf *= 1e6 / reps, tb *= 1e6 / reps;
        printf("round %d: forward %.1f us, backward %.1f us per slab\n", round + 1, tf, tb);
        if (tf + tb < best_f + best_b) best_f = tf, best_b = tb;
    }
    uint64_t h = 14695981039346656037ull;
    h = hash(h, y, n), h = hash(h, dq, n), h = hash(h, dk, n), h = hash(h, dv, n), h = hash(h, da, T);
    printf("best: forward %.1f us, backward %.1f us, total %.1f us per slab; outputs hash %016llx\n", best_f,
           best_b, best_f + best_b, (unsigned long long)h);
    return 0;
}
