// bench_generate.c — part "generate": time per token of incremental generation
// (model/generate.h), `sample`-style: each step is generator_step followed by
// sampler_next (temperature 1, whole vocabulary) on its logits, on one thread
// as `lmtrain sample` runs. Measured around position 64 and around 16384 for
// each kind, with the weights in fp32, bf16 and int8 (`sample --weights`;
// int8 where the CPU has AVX-512 VNNI, else its rows say why not); printed and
// written to generate.csv.
//
// The model is the baby one with pos = none and block_size = 16384, so
// softmax's KV cache holds 16384 tokens (a window as long as the context) and
// the parameters are the same at both positions.
//
// Around 64: each timed call resets the generator, absorbs 64 tokens untimed,
// then times 16 steps (positions 64 .. 79).
// Around 16384: the generator is brought to position 16384 once, then calls of
// 16 steps are timed, each after one untimed pass of the bandwidth reference
// (below); the cost no longer changes with the
// position there (softmax's cache is full, so each step attends to exactly
// 16384 entries; the fast-weight state has a fixed size anyway).
//   fast-weight kinds: 16384 real steps get there (with --quick the position
//   is simply set: the state has a fixed size, so the cost is the same).
//   softmax: stepping 16384 tokens one by one costs ~N²/2 cache reads (tens of
//   seconds), so the kind fills its cache with copies of its first 64 real
//   entries (generator_extend, AttnKind.state_extend) and the position is set
//   to 16384. A step's cost depends on how many entries it reads, not on
//   their values.
//
// The bandwidth reference at 16384: a plain sum (bench/membw.h) over a buffer
// of as many bytes as a token reads there (weights + state in use), read as
// MEMBW_STREAMS streams (one core reads DRAM faster that way than as one
// stream, which the step itself beat), one pass before every timed burst, in
// the same child: the bursts and the passes see
// the same load on the machine (on a shared machine the other core's memory
// traffic moves both), the same page size (4 KiB: neither is madvised), and
// the same share of the last-level cache (a 64 MiB cache re-read every token
// may find part of itself in a 32 MiB L3; so may the reference). Both are
// medians per CPU-second; "% bw" is the ratio of the two medians.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/matvec.h"
#include "kernels/matvec_i8.h"
#include "model/generate.h"
#include "model/sampler.h"
#include "bench/bench.h"
#include "bench/membw.h"
#include "util/atomic_file.h"
#include "util/err.h"
#include "util/format_bytes.h"

enum { LAYERS = 4, HEADS = 4, D_MODEL = 128, FAR = 16384, NEAR = 64, BURST = 16 };

// a position's slots, the same for @64 (from OUT_NEAR on) and @16384 (from OUT_FAR on)
enum { AT_S, AT_REPS, AT_CPU, AT_CPU_S, AT_STATE, AT_N };
enum { OUT_NEAR = 0, OUT_FAR = AT_N, OUT_FILL_S = 2 * AT_N, OUT_HOW, OUT_WEIGHT_BYTES, OUT_REF_GBS };

// how position 16384 was reached
enum { HOW_STEPS, HOW_COPY, HOW_JUMP };
static const char *const HOW[] = {"real steps", "cache filled by copy", "position set (--quick)"};

typedef struct {
    const BenchOpts *o;
    const char *kind;
    GenWeights weights;
} GenJob;

typedef struct {
    Generator g;
    Sampler s;
    int tok;
    MemBw ref;        // at 16384: the bandwidth reference, one pass before each burst
    double *ref_gbs;  // (ref_cap) its passes' GB/s per CPU-second
    int n_ref, ref_cap;
} GenCtx;

// one position's burst: time per token and the attention cache/state in use
static void store_position(double *at, const BenchTime *t, const Generator *g) {
    at[AT_S] = t->median / BURST;
    at[AT_REPS] = t->reps;
    at[AT_CPU] = t->cpu_share;
    at[AT_CPU_S] = t->cpu_median / BURST;
    at[AT_STATE] = (double)generator_state_bytes_used(g);
}

static void steps(GenCtx *x, size_t n) {
    for (size_t i = 0; i < n; i++) x->tok = sampler_next(&x->s, generator_step(&x->g, x->tok, x->g.pos));
}

// The set-up's steps read the CPU clock as the timed ones do (and throw the
// value away). Seen on the development machine (a VM): the first step after a
// stretch of a millisecond or more without such a clock read costs about
// 100 us more than the rest (timed one token at a time: 119-149 us, then
// 25 us), which in a burst of 16 added ~6 us to every token at 64 and made
// position 64 look slower than 16384, whose bursts run back to back.
static void restart_to_near(void *ctx) {
    GenCtx *x = ctx;
    generator_reset(&x->g);
    x->tok = 0;
    volatile double sink = 0;
    for (size_t i = 0; i < NEAR; i++) {
        steps(x, 1);
        sink += bench_cpu_now();
    }
    (void)sink;
}

static void burst(void *ctx) { steps(ctx, BURST); }

static void ref_pass(void *ctx) {
    GenCtx *x = ctx;
    double gbs = membw_pass(&x->ref);
    if (x->n_ref < x->ref_cap) x->ref_gbs[x->n_ref++] = gbs;
}

static int gen_child(void *ctx, double *out) {
    const GenJob *j = ctx;
    Config c;
    bench_config(&c, j->kind, LAYERS, HEADS, D_MODEL, FAR, 1, POS_NONE);
    Model m;
    model_build(&m, &c, BENCH_VOCAB);
    GenCtx x;
    generator_init_weights(&x.g, &m, j->weights);
    sampler_init(&x.s, m.V, 1.0f, 0, 1);
    x.tok = 0;

    // each timed burst around 64 costs 4x its time in untimed set-up (64 steps):
    // a quarter of the usual timing budget keeps the part short
    BenchOpts o = *j->o;
    o.min_seconds /= 4;
    BenchTime near = bench_time(&o, restart_to_near, burst, &x);
    store_position(out + OUT_NEAR, &near, &x.g);

    double t0 = bench_now();
    restart_to_near(&x);
    if (generator_extend(&x.g, FAR)) {  // a cache, filled by copy
        out[OUT_HOW] = HOW_COPY;
    } else if (j->o->quick) {  // a state whose step costs the same at any position
        x.g.pos = FAR;
        out[OUT_HOW] = HOW_JUMP;
    } else {
        steps(&x, FAR - NEAR);
        out[OUT_HOW] = HOW_STEPS;
    }
    out[OUT_FILL_S] = bench_now() - t0;
    // every matrix is read once per token, 4, 2 or 1 bytes a weight (int8's
    // 8 bytes of scale and correction per output row left out: under 7 %)
    static const double BYTES_PER_WEIGHT[] = {4.0, 2.0, 1.0};
    out[OUT_WEIGHT_BYTES] = BYTES_PER_WEIGHT[j->weights] * (double)m.n_weights;
    double bytes = out[OUT_WEIGHT_BYTES] + (double)generator_state_bytes_used(&x.g);
    if (membw_open(&x.ref, (size_t)bytes, MEMBW_STREAMS)) {
        sampler_free(&x.s);
        generator_free(&x.g);
        model_free(&m);
        return err_set(ERR_RUNTIME, "generate: cannot allocate the bandwidth reference (%.0f bytes)", bytes);
    }
    x.ref_cap = o.max_reps + 1;  // the warm-up's pass too
    x.ref_gbs = xcalloc((size_t)x.ref_cap, sizeof(double));
    x.n_ref = 0;
    BenchTime far = bench_time(&o, ref_pass, burst, &x);
    store_position(out + OUT_FAR, &far, &x.g);
    // the warm-up's pass (the first) is left out, as the warm-up burst is
    out[OUT_REF_GBS] = x.n_ref > 1 ? bench_median(x.ref_gbs + 1, x.n_ref - 1) : 0;
    membw_close(&x.ref);
    free(x.ref_gbs);

    sampler_free(&x.s);
    generator_free(&x.g);
    model_free(&m);
    return 0;
}

// one position's generate.csv row; `bytes`: read per token, `gbs`: those per
// CPU-second; `ref`: the bandwidth reference's GB/s (0: not measured there)
static void csv_position(FILE *f, const char *kind, const char *weights, int position, const double *at,
                         double bytes, double gbs, double ref, const char *how) {
    fprintf(f, "%s,%s,%d,%d,%.4f,%.1f,%.3f,%.4f,%.0f,%.0f,%.3f,", kind, weights, position, (int)at[AT_REPS], at[AT_S] * 1e6,
            1.0 / at[AT_S], at[AT_CPU], at[AT_CPU_S] * 1e6, at[AT_STATE], bytes, gbs);
    if (ref > 0) fprintf(f, "%.3f,%.1f,", ref, 100.0 * gbs / ref);
    else fprintf(f, ",,");
    fprintf(f, "%s\n", how);
}

int bench_part_generate(const BenchOpts *o) {
    AtomicFile a;
    int rc = atomic_open_in(&a, o->out, "generate.csv");
    if (rc) return rc;
    fprintf(a.f, "kind,weights,position,reps,us_per_token,tokens_per_s,cpu_share,cpu_us_per_token,state_bytes,"
                 "bytes_per_token,gbs_cpu,ref_gbs,pct_of_ref,how\n");
    Config shown;  // the sizes as --set left them
    const char *i8_missing = matvec_i8_cpu_missing();
    bench_config(&shown, o->kinds[0], LAYERS, HEADS, D_MODEL, FAR, 1, POS_NONE);

    printf("== Generation: generator_step + sampler_next per token, 1 thread (as `sample`) ==\n"
           "  model: layers %d, heads %d, d_model %d, ffn %d, vocab %d, pos none, block_size (KV window) %d\n"
           "  time: median of timed bursts of %d tokens, wall clock (tokens/s) and CPU time; state:\n"
           "  attention cache/state in use; GB/s: the bytes a token must read (weights + state in use)\n"
           "  per CPU-second. ref: at 16384, a plain 1-thread sum of as many bytes as %d streams, one pass\n"
           "  before each timed burst in the same process (median; part peak's 256 MiB one-stream best-of:\n"
           "  %.1f GB/s);\n"
           "  %% ref: the median burst's GB/s over the median pass's (both per CPU-second, 4 KiB pages);\n"
           "  weights: fp32, or bf16 (`sample --weights bf16`, kernel %s), or int8 (`sample --weights int8`,\n"
           "  kernel %s)\n\n",
           shown.layers, shown.heads, shown.d_model, shown.ffn_mult, BENCH_VOCAB, shown.block_size, BURST, MEMBW_STREAMS, o->mem_gbs,
           matvec_bf16_kernel(), i8_missing ? "none: int8 rows skipped" : matvec_i8_kernel());
    printf("  %-13s %-4s %22s %8s %10s %6s %22s %8s %10s %6s %6s %5s  %s\n", "kind", "wts", "@64: us/tok (tok/s)", "cpu us",
           "state", "GB/s", "@16384: us/tok (tok/s)", "cpu us", "state", "GB/s", "ref", "% ref", "how 16384 was reached");
    enum { N_WEIGHTS = 3 };  // fp32, bf16, int8
    for (int k = 0; k < N_WEIGHTS * o->n_kinds; k++) {
        GenJob j = {.o = o, .kind = o->kinds[k / N_WEIGHTS], .weights = (GenWeights)(k % N_WEIGHTS)};
        const char *wn = GEN_WEIGHTS_NAME[j.weights];
        if (j.weights == GEN_WEIGHTS_INT8 && i8_missing) {
            printf("  %-13s %-4s skipped: %s\n", j.kind, wn, i8_missing);
            fprintf(a.f, "%s,%s,%d,,,,,,,,,,,skipped\n%s,%s,%d,,,,,,,,,,,skipped\n", j.kind, wn, NEAR, j.kind, wn, FAR);
            continue;
        }
        BenchResult r;
        if (bench_in_child(gen_child, &j, &r)) {
            printf("  %-13s %-4s failed: %s\n", j.kind, wn, err_msg());
            fprintf(a.f, "%s,%s,%d,,,,,,,,,,,failed\n%s,%s,%d,,,,,,,,,,,failed\n", j.kind, wn, NEAR, j.kind, wn, FAR);
            continue;
        }
        const double *v = r.out, *vn = v + OUT_NEAR, *vf = v + OUT_FAR;
        char s1[32], s2[32], c1[32], c2[32], how[96];
        format_bytes(s1, sizeof s1, vn[AT_STATE]);
        format_bytes(s2, sizeof s2, vf[AT_STATE]);
        snprintf(c1, sizeof c1, "%.1f (%.0f)", vn[AT_S] * 1e6, 1.0 / vn[AT_S]);
        snprintf(c2, sizeof c2, "%.1f (%.0f)", vf[AT_S] * 1e6, 1.0 / vf[AT_S]);
        const char *hw = HOW[(int)v[OUT_HOW]];
        snprintf(how, sizeof how, "%s (%.1f s)", hw, v[OUT_FILL_S]);
        double b1 = v[OUT_WEIGHT_BYTES] + vn[AT_STATE], b2 = v[OUT_WEIGHT_BYTES] + vf[AT_STATE];
        double g1 = b1 / vn[AT_CPU_S] * 1e-9, g2 = b2 / vf[AT_CPU_S] * 1e-9;
        double ref = v[OUT_REF_GBS];
        printf("  %-13s %-4s %22s %8.1f %10s %6.1f %22s %8.1f %10s %6.1f %6.1f %4.0f%%  %s\n", j.kind, wn, c1,
               vn[AT_CPU_S] * 1e6, s1, g1, c2, vf[AT_CPU_S] * 1e6, s2, g2, ref, ref > 0 ? 100.0 * g2 / ref : NAN, how);
        fflush(stdout);
        csv_position(a.f, j.kind, wn, NEAR, vn, b1, g1, 0, "real steps");
        csv_position(a.f, j.kind, wn, FAR, vf, b2, g2, ref, hw);
    }
    printf("\n");
    return atomic_commit(&a);
}
