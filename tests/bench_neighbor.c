// bench_neighbor.c — a neighbour for the other core: what a second busy core
// costs a 1-thread training step, without lmtrain's own second thread. Runs
// until killed. Not a test (no assertions); run it by hand beside a step
// pinned to the other CPU:
//   gcc -O2 -march=native -o /tmp/bench_neighbor tests/bench_neighbor.c
//   taskset -c 1 /tmp/bench_neighbor mem &     (or: compute)
//   taskset -c 0 ./lmtrain bench --part profile --sizes large --kinds linear --threads 1
//   kill %1
// mem: sums a 256 MiB buffer over and over (DRAM reads, the shared caches
// flushed through); compute: independent multiply-add chains in registers
// (no memory traffic at all). docs/speed-log.md, the fourteenth session.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LANES = 16, CHAINS = 8 };

// The sums land here so the compiler cannot drop the loops.
static volatile float sink;

static void memory_reads(void) {
    size_t n = (size_t)64 << 20;  // floats: 256 MiB
    float *b = malloc(n * sizeof *b);
    if (!b) {
        fprintf(stderr, "bench_neighbor: out of memory\n");
        exit(1);
    }
    memset(b, 0, n * sizeof *b);
    for (;;) {
        float acc[LANES] = {0};  // 16 independent sums: gcc makes them one vector
        for (size_t i = 0; i + LANES <= n; i += LANES)
            for (size_t j = 0; j < LANES; j++) acc[j] += b[i + j];
        sink = acc[0];
    }
}

static void compute_only(void) {
    float x[CHAINS][LANES];
    for (size_t c = 0; c < CHAINS; c++)
        for (size_t j = 0; j < LANES; j++) x[c][j] = 1.0f + (float)(c * LANES + j) * 1e-7f;
    for (;;) {
        for (int k = 0; k < 1000000; k++)
            for (size_t c = 0; c < CHAINS; c++)
                for (size_t j = 0; j < LANES; j++) x[c][j] = x[c][j] * 0.9999999f + 1e-7f;
        sink = x[0][0];
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "mem") == 0) memory_reads();
    if (strcmp(mode, "compute") == 0) compute_only();
    fprintf(stderr, "usage: bench_neighbor mem|compute (runs until killed)\n");
    return 2;
}
