// bench_gelu.c — CPU ns per value of gelu_forward and gelu_backward, from L1
// (16 Ki values), L2 (256 Ki) and memory (3 Mi: one large-model layer's
// mlp.fc output). Not a test (no assertions); run it by hand, one thread (no
// pool_init), e.g. against another commit's library built in a second tree:
//   make && gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_gelu
//       tests/bench_gelu.c build/liblmtrain.a -lm -lpthread
//   /tmp/bench_gelu
// Best of 5 rounds, each ~50 M values.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/nn.h"

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    const size_t sizes[] = {(size_t)1 << 14, (size_t)1 << 18, (size_t)3 << 20};
    for (int s = 0; s < 3; s++) {
        size_t n = sizes[s];
        float *x = malloc(n * sizeof *x), *dout = malloc(n * sizeof *dout), *y = malloc(n * sizeof *y);
        if (!x || !dout || !y) return 1;
        for (size_t i = 0; i < n; i++) x[i] = (float)(i % 1000) * 0.004f - 2.0f, dout[i] = 0.1f, y[i] = 0.0f;
        size_t reps = 50000000 / n + 1;
        double best_b = 1e9, best_f = 1e9;
        for (int r = 0; r < 5; r++) {
            double t = cpu_now();
            for (size_t k = 0; k < reps; k++) gelu_backward(y, x, dout, n);
            t = (cpu_now() - t) / (double)reps;
            if (t < best_b) best_b = t;
            t = cpu_now();
            for (size_t k = 0; k < reps; k++) gelu_forward(y, x, n);
            t = (cpu_now() - t) / (double)reps;
            if (t < best_f) best_f = t;
        }
        printf("n = %8zu: forward %.3f ns/value, backward %.3f ns/value\n", n, best_f / (double)n * 1e9,
               best_b / (double)n * 1e9);
        free(x), free(dout), free(y);
    }
    return 0;
}
