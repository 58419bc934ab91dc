// bench_fused.c — the fused kernel (kernels/fused.h) against the kernel
// sequence it replaces, on the bench models' shapes (attn.proj, mlp.proj), one
// thread, CPU time of this thread, the two alternated rep by rep (so a
// neighbour's load falls on both alike); prints the median ms of each and their
// ratio. (At commit 43c0056 it also timed the GELU fusions that were measured
// and dropped: docs/speed.md, "Tried and not kept".) Not a test (no assertions); run it by hand:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_fused tests/bench_fused.c
//       src/kernels/fused.c src/kernels/gemm*.c src/kernels/matmul.c src/kernels/residual.c
//       src/kernels/bf16.c src/util/err.c src/util/pool.c -lm -lpthread
//   /tmp/bench_fused [reps, default 15]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/fused.h"
#include "kernels/nn.h"
#include "util/pool.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *buf(size_t n, float scale) {
    float *x = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) x[i] = scale * (float)((double)((i * 2654435761u) % 2001) / 1000.0 - 1.0);
    return x;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

// out (N, M) = res + inp (N, K) @ w (M, K)^T: fused, or the product then the add
static void run(int fused, size_t N, size_t K, size_t M, float **b) {
    if (fused)
        matmul_residual_forward(b[2], b[3], b[0], b[1], N, K, M, PRECISION_FP32);
    else {
        matmul_forward(b[4], b[0], b[1], N, K, M);
        add_forward(b[2], b[3], b[4], N * M);
    }
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 15;
    pool_init(1);
    // (tokens, K, M): attn.proj and mlp.proj of the baby and large models
    static const size_t shp[][3] = {{768, 128, 128}, {768, 512, 128}, {2048, 384, 384}, {2048, 1536, 384}};
    static const char *const name[] = {"baby attn.proj", "baby mlp.proj", "large attn.proj", "large mlp.proj"};
    printf("%-16s %10s %10s %7s\n", "product + add", "plain ms", "fused ms", "ratio");
    for (int s = 0; s < 4; s++) {
        size_t N = shp[s][0], K = shp[s][1], M = shp[s][2];
        float *b[5];
        b[0] = buf(N * K, 1.0f), b[1] = buf(M * K, 0.05f), b[2] = buf(N * M, 1.0f), b[3] = buf(N * M, 1.0f);
        b[4] = buf(N * M, 1.0f);
        double *t[2] = {malloc(reps * sizeof(double)), malloc(reps * sizeof(double))};
        for (int f = 0; f < 2; f++) run(f, N, K, M, b);  // warm-up
        for (int r = 0; r < reps; r++)
            for (int f = 0; f < 2; f++) {
                double t0 = cpu_now();
                run(f, N, K, M, b);
                t[f][r] = cpu_now() - t0;
            }
        qsort(t[0], reps, sizeof(double), cmp);
        qsort(t[1], reps, sizeof(double), cmp);
        printf("%-16s %10.3f %10.3f %7.3f\n", name[s], 1e3 * t[0][reps / 2], 1e3 * t[1][reps / 2],
               t[1][reps / 2] / t[0][reps / 2]);
        for (int i = 0; i < 5; i++) free(b[i]);
        free(t[0]), free(t[1]);
    }
    pool_shutdown();
    return 0;
}
