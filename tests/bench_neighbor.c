// bench_neighbor.c — a neighbour for the other core: what a second busy core
// costs a 1-thread training step, without lmtrain's own second thread. Runs
// until killed. Not a test (no assertions); run it by hand beside a step
// pinned to the other CPU:
//   gcc -O3 -march=native -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc -o /tmp/bench_neighbor
//       tests/bench_neighbor.c src/bench/membw.c src/bench/peak.c src/util/pool.c src/util/err.c -lm -lpthread
//   taskset -c 1 /tmp/bench_neighbor mem &     (or: compute)
//   taskset -c 0 ./lmtrain bench --part profile --sizes large --kinds linear --threads 1
//   kill %1
// The two loads are part peak's own measurements, run over and over:
//   mem      membw's pass over a 256 MiB buffer (DRAM reads, the shared caches
//            flushed through), as part peak's "memory read bandwidth";
//   compute  peak's multiply-add chains in registers (no memory traffic).
// Each prints its rate now and then (to stderr), so a run shows the neighbour
// working. What it showed: docs/speed.md.
#include <stdio.h>
#include <string.h>

#include "bench/membw.h"
#include "bench/peak.h"

static void memory_reads(void) {
    MemBw b;
    if (membw_open(&b, (size_t)256 << 20, 1)) {
        fprintf(stderr, "bench_neighbor: cannot allocate 256 MiB\n");
        return;
    }
    for (long pass = 0;; pass++) {
        double gbs = membw_pass(&b);
        if (pass % 200 == 0) fprintf(stderr, "bench_neighbor mem: %.1f GB/s\n", gbs);
    }
}

static void compute_only(void) {
    for (;;) fprintf(stderr, "bench_neighbor compute: %.1f GFLOP/s\n", peak_gflops(1, 1.0, 1).cpu);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "mem") == 0) memory_reads();
    else if (strcmp(mode, "compute") == 0) compute_only();
    else fprintf(stderr, "usage: bench_neighbor mem|compute (runs until killed)\n");
    return 2;
}
