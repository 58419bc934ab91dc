// bench_peak.c — part "peak": the FP32 FMA peak (tools/peak.h) on one thread
// and on all of them, printed and written to peak.csv.
//
// The peak the other parts compare with is the CPU-time figure: what the cores
// retire while they run this process. On a machine shared with other work the
// wall-clock figure measures the neighbours as much as the hardware (it can
// even fall below one thread's), which would make "% of peak" meaningless.
#include <stdio.h>

#include "bench/bench.h"
#include "bench/membw.h"
#include "bench/peak.h"
#include "kernels/blocking.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/pool.h"

typedef struct {
    int threads;
    double seconds;
    int trials;
} PeakJob;

// 256 MiB: far past any last-level cache of this decade
#define BW_BYTES ((size_t)256 << 20)

// 8 MiB: past a core's L2 of this decade, inside a shared L3 (what generation
// reads its few MB of weights from)
#define BW_CACHE_BYTES ((size_t)8 << 20)

static int bw_child(void *ctx, double *out) {
    int trials = *(const int *)ctx;
    out[0] = membw_read_gbs(BW_BYTES, trials);
    out[1] = membw_read_gbs(BW_CACHE_BYTES, 8 * trials);
    if (out[0] <= 0 || out[1] <= 0) return err_set(ERR_RUNTIME, "memory bandwidth: cannot allocate 256 MiB");
    return 0;
}

static int peak_child(void *ctx, double *out) {
    const PeakJob *j = ctx;
    pool_init(j->threads);
    PeakRate r = peak_gflops(j->threads, j->seconds, j->trials);
    out[0] = r.cpu;
    out[1] = r.wall;
    out[2] = pool_threads();
    pool_shutdown();
    return 0;
}

int bench_part_peak(BenchOpts *o) {
    // Many short trials, best kept: on a shared machine the best trial is the
    // one that had the cores to itself, which is what a peak is.
    PeakJob one = {.threads = 1, .seconds = o->quick ? 0.05 : 0.1, .trials = o->quick ? 3 : 15};
    PeakJob all = one;
    all.threads = o->threads;
    int bw_trials = o->quick ? 2 : 8;
    BenchResult r1, ra, rb;
    int rc = bench_in_child(peak_child, &one, &r1);
    if (!rc) rc = bench_in_child(peak_child, &all, &ra);
    if (!rc) rc = bench_in_child(bw_child, &bw_trials, &rb);
    if (rc) return err_wrap(rc, "peak: ");
    o->mem_gbs = rb.out[0];
    o->peak_1 = r1.out[0];
    o->peak_all = ra.out[0];
    int started = (int)ra.out[2];

    printf("== Peak: FP32 FMA, %s, independent chains in registers (best of %d trials of %.2f s) ==\n"
           "  by CPU time: each thread's FLOPs / its own CPU time, summed (the hardware's rate);\n"
           "  by wall clock: what this process got on the machine as it is now\n\n",
           peak_isa(), one.trials, one.seconds);
    printf("  %-12s %18s %18s\n", "threads", "GFLOP/s (CPU time)", "GFLOP/s (wall)");
    printf("  %-12d %18.1f %18.1f\n", 1, r1.out[0], r1.out[1]);
    printf("  %-12d %18.1f %18.1f%s\n", o->threads, ra.out[0], ra.out[1],
           started < o->threads ? "  (the pool could not start every thread)" : "");
    char blocking[800];
    gemm_blocking_describe(blocking, sizeof blocking);
    printf("  products' %s\n", blocking);

    AtomicFile a;
    if ((rc = atomic_open_in(&a, o->out, "peak.csv"))) return rc;
    fprintf(a.f, "isa,threads,gflops_cpu_time,gflops_wall\n");
    fprintf(a.f, "%s,1,%.2f,%.2f\n", peak_isa(), r1.out[0], r1.out[1]);
    fprintf(a.f, "%s,%d,%.2f,%.2f\n", peak_isa(), o->threads, ra.out[0], ra.out[1]);
    if ((rc = atomic_commit(&a))) return rc;

    printf("  memory read bandwidth, 1 thread (sum of a 256 MiB buffer, best of %d): %.1f GB/s per CPU-second\n"
           "  the same from cache (an 8 MiB buffer: past L2, in L3 on most machines): %.1f GB/s\n\n",
           bw_trials, o->mem_gbs, rb.out[1]);
    if ((rc = atomic_open_in(&a, o->out, "membw.csv"))) return rc;
    fprintf(a.f, "threads,bytes,read_gbs\n1,%zu,%.2f\n1,%zu,%.2f\n", BW_BYTES, o->mem_gbs, BW_CACHE_BYTES,
            rb.out[1]);
    return atomic_commit(&a);
}
