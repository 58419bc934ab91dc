// bench_products.c — part "products": the linear layers' products alone, one
// thread, GFLOP/s per CPU-second and % of the path's FMA peak.
//
// The figure to set beside a BLAS: tests/reference/blas_anchor.py times the
// same shapes with numpy's (OpenBLAS's) sgemm, and `make bench-compare`
// prints both for each instruction-set path. The products run on one thread
// (gemm_serial, the blocking in force) in this process, timed by the
// thread's CPU time; the 18 products alternate within each round, so a change
// of load moves them all alike, and a product's time is its median over the
// rounds.
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_layers.h"
#include "kernels/cpu.h"
#include "util/atomic_file.h"
#include "util/err.h"

// one product repeated until `seconds` of CPU time: seconds per call
static double timed(BenchLayerBufs *b, const BenchLayer *l, int product, double seconds) {
    int reps = 0;
    double t0 = bench_thread_cpu(), t;
    do {
        bench_layer_product(b, l, product);
        reps++;
    } while ((t = bench_thread_cpu() - t0) < seconds);
    return t / reps;
}

int bench_part_products(const BenchOpts *o) {
    int rounds = o->rounds ? o->rounds : o->quick ? 1 : 7;
    double seconds = o->quick ? 0.02 : 0.1;
    printf("== Products: the linear layers' forward, dX and dW alone, 1 thread, path %s ==\n"
           "  GFLOP/s per CPU-second, median of %d rounds (the products alternating within each);\n"
           "  %% busy: over one thread's FMA peak on this path (%.1f GFLOP/s)\n\n",
           kernel_isa_name(kernel_isa()), rounds, o->peak_1);
    BenchLayerBufs b[BENCH_N_LAYERS];
    memset(b, 0, sizeof b);
    int rc = 0;
    for (size_t l = 0; !rc && l < BENCH_N_LAYERS; l++) rc = bench_layer_alloc(&b[l], &BENCH_LAYERS[l]);
    static double t[BENCH_N_LAYERS][BENCH_N_PRODUCTS][BENCH_MAX_ROUNDS];
    for (int r = 0; !rc && r < rounds; r++)
        for (size_t l = 0; l < BENCH_N_LAYERS; l++)
            for (int p = 0; p < BENCH_N_PRODUCTS; p++) {
                bench_layer_product(&b[l], &BENCH_LAYERS[l], p);  // warm: its operands and packing buffers
                t[l][p][r] = timed(&b[l], &BENCH_LAYERS[l], p, seconds);
            }
    for (size_t l = 0; l < BENCH_N_LAYERS; l++) bench_layer_free(&b[l]);
    if (rc) return rc;
    AtomicFile a;
    if ((rc = atomic_open_in(&a, o->out, "products.csv"))) return rc;
    fprintf(a.f, "path,model,layer,tokens,in,out,product,gflops,pct_busy\n");
    printf("  %-6s %-9s %-19s %-8s %9s %7s\n", "model", "layer", "T x C -> OC", "product", "GFLOP/s", "% busy");
    for (size_t l = 0; l < BENCH_N_LAYERS; l++) {
        const BenchLayer *L = &BENCH_LAYERS[l];
        char shape[40];
        snprintf(shape, sizeof shape, "%zu x %zu -> %zu", L->tokens, L->in, L->out);
        for (int p = 0; p < BENCH_N_PRODUCTS; p++) {
            double gf = bench_layer_flops(L) / bench_median(t[l][p], rounds) * 1e-9;
            double busy = o->peak_1 > 0 ? 100.0 * gf / o->peak_1 : 0.0;
            printf("  %-6s %-9s %-19s %-8s %9.1f %6.0f%%\n", L->model, L->layer, shape, bench_product_names[p], gf,
                   busy);
            fprintf(a.f, "%s,%s,%s,%zu,%zu,%zu,%s,%.3f,%.2f\n", kernel_isa_name(kernel_isa()), L->model, L->layer,
                    L->tokens, L->in, L->out, bench_product_names[p], gf, busy);
        }
    }
    printf("\n");
    fflush(stdout);
    return atomic_commit(&a);
}
