// bench_delta_io.c — CPU time of the delta kind's training form (forward_io,
// backward_io) on a whole batch read in place from a projection's rows, as
// the model calls it: by default the baby bench model's attention (B 12, H 4,
// T 64, head size 32, chunk 64, L2-normalised identity features, one learned
// λ per head, W = 3C + H floats per projection row). Not a test (no
// assertions); run it by hand, one thread (no pool_init), e.g. against another
// commit's sources in a second tree:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_delta_io
//       tests/bench_delta_io.c $(find src -name '*.c' ! -name main.c) -lm -lpthread
//   /tmp/bench_delta_io [reps 200] [rounds 5] [B 12] [H 4] [T 64] [dh 32] [chunk 64] [sum|l2] [cold]
// sum: sum-normalised elu+1 features (what `bench` runs without --set); l2
// (default): L2-normalised identity features (a config file's delta). cold:
// 64 MiB written between the calls (untimed), so the rows come from memory as
// in a training step, where the other layers' work evicts them.
// Prints per round the forward's and the backward's CPU µs per batch (mean
// over reps), the best round, and a hash of y and every gradient: the same
// inputs every time, so two builds of the same numerics print the same hash.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "bench_io.h"

extern const AttnKind attn_delta;

int main(int argc, char **argv) {
    size_t reps = arg(argc, argv, 1, 200), rounds = arg(argc, argv, 2, 5), B = arg(argc, argv, 3, 12);
    size_t H = arg(argc, argv, 4, 4), T = arg(argc, argv, 5, 64), dh = arg(argc, argv, 6, 32);
    size_t chunk = arg(argc, argv, 7, 64);
    int sum = argc > 8 && strcmp(argv[8], "sum") == 0, cold = argc > 9 && strcmp(argv[9], "cold") == 0;
    if (!reps || !rounds || !B || !H || !T || !dh || !chunk) {
        fprintf(stderr, "usage: bench_delta_io [reps] [rounds] [B] [H] [T] [dh] [chunk], each >= 1\n");
        return 2;
    }
    AttnConfig c = {.heads = (int)H, .dh = (int)dh, .feature_map = sum ? FMAP_ELU1 : FMAP_IDENTITY,
                    .eps = 1e-6f, .normalize = 1, .chunk = (int)chunk, .key_norm = sum ? KEYNORM_SUM : KEYNORM_L2,
                    .decay_learned = 1};
    size_t C = H * dh, W = 3 * C + H, rows = B * T;  // one aux channel (β) per head
    AttnIO io = {B, T, W, dh, T * W, C, dh, T * C, 0, B};
    Rng r;
    rng_seed(&r, 1);
    float *qkv = normals(&r, rows * W, 1.0f), *dy = normals(&r, rows * C, 1.0f);
    float *aux = normals(&r, B * H * T, 1.0f), *theta = normals(&r, H, 1.0f);
    for (size_t h = 0; h < H; h++) theta[h] += 3.0f;  // λ near 0.95
    float *y = calloc(rows * C, sizeof(float)), *dqkv = calloc(rows * W, sizeof(float));
    float *daux = calloc(B * H * T, sizeof(float)), *dtheta = calloc(H, sizeof(float));
    float *work = calloc(attn_delta.work_floats(&c, B, T), sizeof(float));
    size_t n_evict = cold ? (size_t)16 << 20 : 0;
    float *evict = calloc(n_evict + 1, sizeof(float));
    if (!y || !dqkv || !daux || !dtheta || !work || !evict) return 1;
    double best_f = INFINITY, best_b = INFINITY;
    for (size_t round = 0; round < rounds; round++) {
        double tf = 0, tb = 0;
        for (size_t i = 0; i < reps; i++) {
            for (size_t j = 0; j < n_evict; j += 16) evict[j] += 1.0f;
            double t0 = cpu_now();
            attn_delta.forward_io(&c, &io, y, work, qkv, qkv + C, qkv + 2 * C, aux, theta);
            tf += cpu_now() - t0;
            for (size_t j = 0; j < n_evict; j += 16) evict[j] += 1.0f;
            // as the model's backward: the projection's gradient zeroed just before
            memset(dqkv, 0, rows * W * sizeof(float)), memset(daux, 0, B * H * T * sizeof(float));
            memset(dtheta, 0, H * sizeof(float));
            t0 = cpu_now();
            attn_delta.backward_io(&c, &io, dqkv, dqkv + C, dqkv + 2 * C, daux, dtheta, dy, work, qkv, qkv + C,
                                   qkv + 2 * C, aux, theta, y);
            tb += cpu_now() - t0;
        }
        tf *= 1e6 / (double)reps, tb *= 1e6 / (double)reps;
        printf("round %zu: forward %.1f us, backward %.1f us per batch\n", round + 1, tf, tb);
        if (tf + tb < best_f + best_b) best_f = tf, best_b = tb;
    }
    uint64_t h = 14695981039346656037ull;
    h = hash(h, y, rows * C), h = hash(h, dqkv, rows * W), h = hash(h, daux, B * H * T), h = hash(h, dtheta, H);
    printf("best: forward %.1f us, backward %.1f us, total %.1f us per batch; outputs hash %016llx\n", best_f,
           best_b, best_f + best_b, (unsigned long long)h);
    return 0;
}
