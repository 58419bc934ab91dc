// bench_tune.c — part "tune": measures the products' blocking candidates on
// this CPU and keeps the fastest in the tuning file (kernels/blocking.h).
//
// The candidates (MC, NC in register tiles) run the linear layers' three
// products (forward, dX, dW) of the baby and large models, one thread, timed
// by this thread's CPU time (other processes' time slices do not count). The
// candidates alternate within each round, so a change of load moves them all
// alike; a candidate's time is its median over the rounds. The choice in
// force stays unless a candidate beats it by more than TUNE_MARGIN: the noise
// of a shared machine must not flip the choice between runs. On the AVX-512
// and AVX2 paths a second round then times the weights' gradients (the dW
// products) with dYᵀ packed (where its rows are 4 KiB apart: the large
// model's) and read in place, under the blocking chosen, and keeps the faster
// by the same rule.
// Nothing here can change a result: the blocking never touches the K order.
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_layers.h"
#include "kernels/blocking.h"
#include "util/err.h"

#define TUNE_MARGIN 0.03

// MC and NC in tiles (pack_at: the one in force)
static const int CANDIDATES[][2] = {{24, 16}, {12, 16}, {48, 16}, {24, 8}, {24, 32}, {48, 32}, {24, 64}, {48, 64}};
#define N_CAND (sizeof CANDIDATES / sizeof CANDIDATES[0])

// one forward, dX and dW of every layer (only_dw: the dW alone): CPU seconds
static double one_pass(BenchLayerBufs *b, int only_dw) {
    double t0 = bench_thread_cpu();
    for (size_t l = 0; l < BENCH_N_LAYERS; l++)
        for (int p = only_dw ? PRODUCT_DW : 0; p < BENCH_N_PRODUCTS; p++)
            bench_layer_product(&b[l], &BENCH_LAYERS[l], p);
    return bench_thread_cpu() - t0;
}

// dW's pack_at 0 and 1 under blocking b, alternating over rounds: the choice,
// which stays b's unless the other is faster by TUNE_MARGIN
static int tune_pack_at(BenchLayerBufs *bufs, KernelIsa isa, GemmBlocking b, int rounds) {
    double t[2][BENCH_MAX_ROUNDS], med[2];
    for (int r = 0; r < rounds; r++)
        for (int at = 0; at < 2; at++) {
            gemm_blocking_set(isa, (GemmBlocking){b.mc_tiles, b.nc_tiles, at}, "bench --part tune: a candidate");
            one_pass(bufs, 1);
            t[at][r] = one_pass(bufs, 1);
        }
    for (int at = 0; at < 2; at++) med[at] = bench_median(t[at], rounds);
    int keep = b.pack_at != 0, other = !keep;
    printf("\n  the weights' gradients (dW = dYᵀX), under mc %d, nc %d tiles:\n  %-22s %12s %10s\n", b.mc_tiles,
           b.nc_tiles, "dYᵀ", "ms (median)", "vs in force");
    for (int at = 0; at < 2; at++)
        printf("  %-22s %12.2f %9.1f%%%s\n", at ? "packed at 4 KiB rows" : "read in place", 1e3 * med[at],
               100.0 * (med[at] / med[keep] - 1.0), at == keep ? "  (in force)" : "");
    return med[other] < med[keep] * (1.0 - TUNE_MARGIN) ? other : keep;
}

int bench_part_tune(const BenchOpts *o) {
    const CpuInfo *cpu = cpu_info();
    KernelIsa isa = kernel_isa();
    GemmBlocking before = gemm_blocking(isa);
    char before_src[600];
    snprintf(before_src, sizeof before_src, "%s", gemm_blocking_source());
    int rounds = o->quick ? 2 : 9;
    printf("== Tune: the products' blocking on this CPU (%s family %d model %d), path %s ==\n"
           "  linear layers' forward, dX and dW products of the baby and large models, 1 thread, CPU time;\n"
           "  %d rounds, the candidates alternating within each; a candidate's time is its median\n"
           "  in force: mc %d, nc %d tiles, %s\n\n",
           cpu->vendor[0] ? cpu->vendor : "unknown", cpu->family, cpu->model, kernel_isa_name(isa), rounds,
           before.mc_tiles, before.nc_tiles, before_src);
    BenchLayerBufs b[BENCH_N_LAYERS];
    memset(b, 0, sizeof b);
    int rc = 0;
    for (size_t l = 0; !rc && l < BENCH_N_LAYERS; l++) rc = bench_layer_alloc(&b[l], &BENCH_LAYERS[l]);
    double t[N_CAND][BENCH_MAX_ROUNDS], med[N_CAND];
    size_t in_force = N_CAND;
    for (size_t c = 0; c < N_CAND; c++)
        if (CANDIDATES[c][0] == before.mc_tiles && CANDIDATES[c][1] == before.nc_tiles) in_force = c;
    for (int r = 0; !rc && r < rounds; r++)
        for (size_t c = 0; c < N_CAND; c++) {
            gemm_blocking_set(isa, (GemmBlocking){CANDIDATES[c][0], CANDIDATES[c][1], before.pack_at},
                              "bench --part tune: a candidate");
            one_pass(b, 0);  // warm: the packing buffers, the operands in cache
            t[c][r] = one_pass(b, 0);
        }
    size_t best = in_force;
    if (!rc) {
        printf("  %-10s %-10s %12s %10s\n", "mc tiles", "nc tiles", "ms (median)", "vs in force");
        for (size_t c = 0; c < N_CAND; c++) med[c] = bench_median(t[c], rounds);
        double ref = in_force < N_CAND ? med[in_force] : med[0];
        for (size_t c = 0; c < N_CAND; c++) {
            printf("  %-10d %-10d %12.2f %9.1f%%%s\n", CANDIDATES[c][0], CANDIDATES[c][1], 1e3 * med[c],
                   100.0 * (med[c] / ref - 1.0), c == in_force ? "  (in force)" : "");
            if (med[c] < ref * (1.0 - TUNE_MARGIN) && (best == N_CAND || best == in_force || med[c] < med[best]))
                best = c;
        }
    }
    GemmBlocking choice = before;
    if (best < N_CAND) choice.mc_tiles = CANDIDATES[best][0], choice.nc_tiles = CANDIDATES[best][1];
    // the portable kernels always pack dYᵀ (kernels/blocking.h)
    if (!rc && isa != KERNEL_PORTABLE) choice.pack_at = tune_pack_at(b, isa, choice, rounds);
    for (size_t l = 0; l < BENCH_N_LAYERS; l++) bench_layer_free(&b[l]);
    gemm_blocking_set(isa, before, before_src);
    if (rc) return rc;
    // the file keeps the other paths' lines (a valid file of this CPU)
    GemmBlocking all[KERNEL_N_ISAS];
    int have[KERNEL_N_ISAS] = {0};
    char path[512], why[400];
    if (blocking_file_path(cpu, NULL, path, sizeof path))
        return err_set(ERR_RUNTIME, "tune: no cache folder ($XDG_CACHE_HOME and $HOME are unset)");
    for (int i = 0; i < KERNEL_N_ISAS; i++)
        all[i] = (GemmBlocking){0, 0, gemm_blocking_builtin(cpu, (KernelIsa)i, NULL).pack_at};
    if (blocking_file_read(path, cpu, all, why, sizeof why) > 0)
        for (int i = 0; i < KERNEL_N_ISAS; i++) have[i] = all[i].mc_tiles > 0;
    all[isa] = choice;
    have[isa] = 1;
    if ((rc = blocking_file_write(path, cpu, all, have))) return err_wrap(rc, "tune: ");
    printf("\n  chosen: mc %d, nc %d tiles (%s)%s; written to %s: later runs on this CPU model read it\n\n",
           choice.mc_tiles, choice.nc_tiles,
           best == in_force || best == N_CAND ? "no candidate beat the blocking in force by 3 %" : "the fastest",
           isa == KERNEL_PORTABLE ? "" : choice.pack_at ? ", dYᵀ packed where its rows are 4 KiB apart" : ", dYᵀ read in place", path);
    gemm_blocking_reload(NULL);
    return 0;
}
