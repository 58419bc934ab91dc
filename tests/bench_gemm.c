// bench_gemm.c — GFLOP/s of gemm on the product's shapes, next to the
// machine's FMA peak. Not a test (no assertions); run it by hand:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_gemm
//       tests/bench_gemm.c src/kernels/gemm*.c src/kernels/bf16.c src/util/err.c src/util/pool.c -lm -lpthread
//   /tmp/bench_gemm [max_threads, default 2]
//   /tmp/bench_gemm roles [seconds per point, default 0.3]
//   /tmp/bench_gemm cold [seconds per point, default 0.3]
// "roles": the linear layers' three products at the bench models' shapes
// (forward out = x W^T, dX = dY W, dW = dY^T X; M = B*T tokens), one thread,
// GFLOP/s per CPU-second (best of 5), against the FMA peak measured the same way.
// "cold": the same, each product's operands warm (one set, reused: in cache
// after the first call) beside cold (COLD_SETS sets, 64-290 MiB in all, used in
// turn, so each call finds its operands evicted, as a training step does: an
// activation is written one op and read back many ops later).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/gemm.h"
#include "bench/peak.h"
#include "util/pool.h"


static clockid_t g_clock = CLOCK_MONOTONIC;  // "roles": this thread's CPU time

static double now(void) {
    struct timespec ts;
    clock_gettime(g_clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Single-core FMA peak of the path this process runs (bench/peak.c's chains,
// the kernel variant kernels/dispatch.c chose), per CPU-second.
static double core_peak(void) { return peak_gflops(1, 0.2, 1).cpu; }

static float *rnd(size_t n) {
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = (float)rand() / RAND_MAX - 0.5f;
    return p;
}

// Best-of-several GFLOP/s of one configuration.
static double bench(int serial, int ta, int tb, size_t M, size_t N, size_t K) {
    float *A = rnd(M * K), *B = rnd(K * N), *C = rnd(M * N);
    size_t lda = ta ? M : K, ldb = tb ? K : N;
    double flops = 2.0 * (double)M * (double)N * (double)K, best = 1e30;
    int reps = (int)(2e9 / flops) + 1;
    if (reps > 2000) reps = 2000;
    for (int trial = 0; trial < 5; trial++) {
        double t0 = now();
        for (int r = 0; r < reps; r++) {
            if (serial)
                gemm_serial(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
            else
                gemm(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, N);
        }
        double dt = (now() - t0) / reps;
        if (dt < best) best = dt;
    }
    free(A), free(B), free(C);
    return flops / best * 1e-9;
}

// Best-of-5 GFLOP/s of one role of a linear layer with T tokens, C inputs and
// OC outputs, beta as in training (forward overwrites, the gradients add).
// sets: operand sets used in turn (1: warm; COLD_SETS: evicted between uses).
enum { ROLE_FWD, ROLE_DX, ROLE_DW };
#define COLD_SETS 16
static double bench_role(int role, size_t T, size_t C, size_t OC, double seconds, int sets) {
    static const int ta[] = {0, 0, 1}, tb[] = {1, 0, 0};
    size_t M = role == ROLE_DW ? OC : T, N = role == ROLE_FWD ? OC : C;
    size_t K = role == ROLE_FWD ? C : role == ROLE_DX ? OC : T;
    float beta = role == ROLE_FWD ? 0.0f : 1.0f;
    float *A[COLD_SETS], *B[COLD_SETS], *Cm[COLD_SETS];
    for (int s = 0; s < sets; s++) A[s] = rnd(M * K), B[s] = rnd(K * N), Cm[s] = rnd(M * N);
    size_t lda = ta[role] ? M : K, ldb = tb[role] ? K : N;
    double flops = 2.0 * (double)M * (double)N * (double)K, best = 0;
    for (int trial = 0; trial < 5; trial++) {
        long reps = 0;
        double t0 = now(), dt;
        do {
            int s = (int)(reps % sets);
            gemm(ta[role], tb[role], M, N, K, 1.0f, A[s], lda, B[s], ldb, beta, Cm[s], N);
            reps++;
            dt = now() - t0;
        } while (dt < seconds);
        if (flops * reps / dt > best) best = flops * reps / dt;
    }
    for (int s = 0; s < sets; s++) free(A[s]), free(B[s]), free(Cm[s]);
    return best * 1e-9;
}

static int roles(double seconds, int cold) {
    g_clock = CLOCK_THREAD_CPUTIME_ID;
    // best of 3: the first reading in a process has come out 12-18 % low
    // (185.8-197.9 against 226 GFLOP/s in 3 of 6 runs on the Zen 5, 3 December)
    double peak = 0;
    for (int i = 0; i < 3; i++) {
        double p = core_peak();
        if (p > peak) peak = p;
    }
    printf("kernel %s; FMA peak, one core, per CPU-second: %.1f GFLOP/s\n", gemm_isa(), peak);
    printf("GFLOP/s per CPU-second (%% of peak), 1 thread%s\n",
           cold ? "; warm, then cold (operands evicted between calls)" : "");
    static const struct {
        const char *name;
        size_t T, C, OC;
    } layer[] = {{"baby attn.qkv", 768, 128, 384},  {"baby attn.proj", 768, 128, 128},
                 {"baby mlp.fc", 768, 128, 512},    {"baby mlp.proj", 768, 512, 128},
                 {"large attn.qkv", 2048, 384, 1152}, {"large attn.proj", 2048, 384, 384},
                 {"large mlp.fc", 2048, 384, 1536},  {"large mlp.proj", 2048, 1536, 384}};
    static const char *role_name[] = {"fwd", "dX", "dW"};
    for (size_t l = 0; l < sizeof layer / sizeof layer[0]; l++) {
        printf("  %-16s", layer[l].name);
        for (int r = ROLE_FWD; r <= ROLE_DW; r++) {
            double g = bench_role(r, layer[l].T, layer[l].C, layer[l].OC, seconds, 1);
            printf("  %s %6.1f (%4.1f %%)", role_name[r], g, 100 * g / peak);
            if (cold) {
                double gc = bench_role(r, layer[l].T, layer[l].C, layer[l].OC, seconds, COLD_SETS);
                printf(" %6.1f (%4.1f %%)", gc, 100 * gc / peak);
            }
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "roles") == 0) return roles(argc > 2 ? atof(argv[2]) : 0.3, 0);
    if (argc > 1 && strcmp(argv[1], "cold") == 0) return roles(argc > 2 ? atof(argv[2]) : 0.3, 1);
    int max_threads = argc > 1 ? atoi(argv[1]) : 2;
    printf("kernel %s\n", gemm_isa());
    printf("FMA peak, one core: %.1f GFLOP/s\n", core_peak());
    static const size_t shapes[][3] = {
        {768, 384, 128}, {768, 128, 384}, {768, 384, 384}, {2048, 1152, 384},
        {2048, 384, 1152}, {1536, 384, 2048}, {384, 128, 2048}};
    for (int threads = 1; threads <= max_threads; threads++) {
        pool_init(threads);
        printf("\n%d thread(s)      M     N     K      NN      NT      TN      TT  GFLOP/s\n",
               threads);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            printf("               %5zu %5zu %5zu", shapes[s][0], shapes[s][1], shapes[s][2]);
            for (int t = 0; t < 4; t++)
                printf(" %7.1f", bench(0, t >> 1, t & 1, shapes[s][0], shapes[s][1], shapes[s][2]));
            printf("\n");
            fflush(stdout);
        }
    }
    pool_init(1);
    printf("\ngemm_serial, small per-head products\n");
    static const size_t small[][3] = {{64, 64, 32}, {64, 32, 64}, {32, 32, 64}, {128, 128, 64},
                                      {64, 64, 64}};
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++) {
        printf("               %5zu %5zu %5zu", small[s][0], small[s][1], small[s][2]);
        for (int t = 0; t < 4; t++)
            printf(" %7.1f", bench(1, t >> 1, t & 1, small[s][0], small[s][1], small[s][2]));
        printf("\n");
    }
    printf("\ngemm_serial, one-row products (generation: 1 x OC x C)\n");
    static const size_t rows1[][3] = {{1, 1152, 384}, {1, 384, 1536}, {1, 384, 384}};
    for (size_t s = 0; s < sizeof rows1 / sizeof rows1[0]; s++) {
        printf("               %5zu %5zu %5zu", rows1[s][0], rows1[s][1], rows1[s][2]);
        for (int t = 0; t < 4; t++)
            printf(" %7.1f", bench(1, t >> 1, t & 1, rows1[s][0], rows1[s][1], rows1[s][2]));
        printf("\n");
    }
    pool_shutdown();
    return 0;
}
