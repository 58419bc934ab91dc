// bench_peak.c — part "peak": the FP32 FMA peak (tools/peak.h) on one thread
// and on all of them, printed and written to peak.csv.
#include <stdio.h>

#include "tools/bench.h"
#include "tools/peak.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/pool.h"

typedef struct {
    int threads;
    double seconds;
    int trials;
} PeakJob;

static int peak_child(void *ctx, double *out) {
    const PeakJob *j = ctx;
    pool_init(j->threads);
    out[0] = peak_gflops(j->threads, j->seconds, j->trials);
    out[1] = pool_threads();
    pool_shutdown();
    return 0;
}

int bench_part_peak(BenchOpts *o) {
    // Many short trials, best kept: on a shared machine the best trial is the
    // one that had the cores to itself, which is what a peak is.
    PeakJob one = {.threads = 1, .seconds = o->quick ? 0.05 : 0.1, .trials = o->quick ? 3 : 15};
    PeakJob all = one;
    all.threads = o->threads;
    BenchResult r1, ra;
    int rc = bench_in_child(peak_child, &one, &r1);
    if (!rc) rc = bench_in_child(peak_child, &all, &ra);
    if (rc) return err_wrap(rc, "bench peak: ");
    o->peak_1 = r1.out[0];
    o->peak_all = ra.out[0];
    int started = (int)ra.out[1];

    printf("== Peak: FP32 FMA, %s, independent chains in registers (best of %d x %.2f s) ==\n",
           peak_isa(), one.trials, one.seconds);
    printf("  1 thread          %8.1f GFLOP/s\n", o->peak_1);
    printf("  %d threads%*s%8.1f GFLOP/s%s\n\n", o->threads, o->threads < 10 ? 9 : 8, "", o->peak_all,
           started < o->threads ? "  (the pool could not start every thread)" : "");

    char path[4200];
    snprintf(path, sizeof path, "%s/peak.csv", o->out);
    AtomicFile a;
    if ((rc = atomic_open(&a, path))) return rc;
    fprintf(a.f, "isa,threads,gflops\n");
    fprintf(a.f, "%s,1,%.2f\n", peak_isa(), o->peak_1);
    fprintf(a.f, "%s,%d,%.2f\n", peak_isa(), o->threads, o->peak_all);
    return atomic_commit(&a);
}
