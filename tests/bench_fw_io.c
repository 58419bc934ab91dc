// bench_fw_io.c — CPU time of the linear kinds' training form (forward_io,
// backward_io) on a whole batch read in place from a projection's rows, as
// the model calls it: by default the large bench model's attention (B 8, H 6,
// T 256, head size 64, chunk 64, elu+1 features, normalised, one learned λ
// per head for linear_decay, W = 3C floats per projection row). Not a test
// (no assertions); run it by hand, one thread (no pool_init), e.g. against
// another commit's sources in a second tree:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_fw_io
//       tests/bench_fw_io.c $(find src -name '*.c' ! -name main.c) -lm -lpthread
//   /tmp/bench_fw_io [linear|linear_decay] [reps 50] [rounds 5] [B 8] [H 6] [T 256] [dh 64] [chunk 64] [cold]
// (the baby model: B 12, H 4, T 64, dh 32). cold: 64 MiB written between the
// calls (untimed), so the rows come from memory as in a training step.
// Prints per round the forward's and the backward's CPU µs per batch (mean
// over reps), the best round, and a hash of y and every gradient: the same
// inputs every time, so two builds of the same numerics print the same hash.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "bench_io.h"

extern const AttnKind attn_linear, attn_linear_decay;

int main(int argc, char **argv) {
    const AttnKind *kind = argc > 1 && strcmp(argv[1], "linear") == 0 ? &attn_linear : &attn_linear_decay;
    size_t reps = arg(argc, argv, 2, 50), rounds = arg(argc, argv, 3, 5), B = arg(argc, argv, 4, 8);
    size_t H = arg(argc, argv, 5, 6), T = arg(argc, argv, 6, 256), dh = arg(argc, argv, 7, 64);
    size_t chunk = arg(argc, argv, 8, 64);
    int cold = argc > 9 && strcmp(argv[9], "cold") == 0;
    if (!reps || !rounds || !B || !H || !T || !dh || !chunk) {
        fprintf(stderr, "usage: bench_fw_io [kind] [reps] [rounds] [B] [H] [T] [dh] [chunk] [cold], each >= 1\n");
        return 2;
    }
    AttnConfig c = {.heads = (int)H, .dh = (int)dh, .feature_map = FMAP_ELU1, .eps = 1e-6f, .normalize = 1,
                    .chunk = (int)chunk, .key_norm = KEYNORM_SUM, .decay_learned = 1};
    size_t C = H * dh, W = 3 * C, rows = B * T;
    AttnIO io = {B, T, W, dh, T * W, C, dh, T * C, 0, B};
    Rng r;
    rng_seed(&r, 1);
    float *qkv = normals(&r, rows * W, 1.0f), *dy = normals(&r, rows * C, 1.0f);
    float *theta = normals(&r, H, 1.0f);
    for (size_t h = 0; h < H; h++) theta[h] += 3.0f;  // λ near 0.95
    float *y = calloc(rows * C, sizeof(float)), *dqkv = calloc(rows * W, sizeof(float));
    float *dtheta = calloc(H, sizeof(float));
    float *work = calloc(kind->work_floats(&c, B, T), sizeof(float));
    size_t n_evict = cold ? (size_t)16 << 20 : 0;
    float *evict = calloc(n_evict + 1, sizeof(float));
    if (!y || !dqkv || !dtheta || !work || !evict) return 1;
    double best_f = INFINITY, best_b = INFINITY;
    for (size_t round = 0; round < rounds; round++) {
        double tf = 0, tb = 0;
        for (size_t i = 0; i < reps; i++) {
            for (size_t j = 0; j < n_evict; j += 16) evict[j] += 1.0f;
            double t0 = cpu_now();
            kind->forward_io(&c, &io, y, work, qkv, qkv + C, qkv + 2 * C, NULL, theta);
            tf += cpu_now() - t0;
            for (size_t j = 0; j < n_evict; j += 16) evict[j] += 1.0f;
            // as the model's backward: the projection's gradient zeroed just before
            memset(dqkv, 0, rows * W * sizeof(float)), memset(dtheta, 0, H * sizeof(float));
            t0 = cpu_now();
            kind->backward_io(&c, &io, dqkv, dqkv + C, dqkv + 2 * C, NULL, dtheta, dy, work, qkv, qkv + C,
                              qkv + 2 * C, NULL, theta, y);
            tb += cpu_now() - t0;
        }
        tf *= 1e6 / (double)reps, tb *= 1e6 / (double)reps;
        printf("round %zu: forward %.1f us, backward %.1f us per batch\n", round + 1, tf, tb);
        if (tf + tb < best_f + best_b) best_f = tf, best_b = tb;
    }
    uint64_t h = 14695981039346656037ull;
    h = hash(h, y, rows * C), h = hash(h, dqkv, rows * W), h = hash(h, dtheta, H);
    printf("best: forward %.1f us, backward %.1f us, total %.1f us per batch; outputs hash %016llx\n", best_f,
           best_b, best_f + best_b, (unsigned long long)h);
    return 0;
}
