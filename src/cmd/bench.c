// bench.c — `lmtrain bench` (SPEC §8): how fast, against what ceiling, and how
// cost and memory grow with the sequence length.
//
//   lmtrain bench [--part peak,train,length,generate,profile] [--kinds softmax,linear,...]
//                 [--sizes baby,large] [--seq 256,1024,4096,16384] [--out DIR] [--quick] [--threads N]
//                 [--min-reps N] [--min-seconds S] [--max-point-seconds S] [--chunk N] [--rounds R]
//                 [--set section.key=value]...
//
// Parts (all but "profile" by default, in this order; bench/bench.h lists the files):
//   peak      FP32 FMA peak, 1 thread and all threads            -> peak.csv
//             and the 1-thread memory read bandwidth             -> membw.csv
//   train     training tokens/s, GFLOP/s, % of peak               -> throughput.csv
//   length    forward + backward time/token and memory vs N       -> cost_vs_length.csv,
//                                                                    cost_vs_length.svg,
//                                                                    memory_vs_length.svg
//   generate  generator_step time/token at positions 64 and 16384 -> generate.csv
//   profile   a training step's time per op, fwd and bwd          -> profile.csv
//   products  the linear layers' products alone, 1 thread         -> products.csv
//             (beside a BLAS: make bench-compare)
//   tune      the products' blocking for this CPU (not by default) -> the tuning file
//             under $XDG_CACHE_HOME/lmtrain (kernels/blocking.h), read by later runs
// "train", "profile" and "generate" need the peak part's FMA peak or memory
// bandwidth for their % columns, so they run "peak" too.
//
// --sizes: the model sizes of parts "train" and "profile" (bench_train.c).
//
// Repetitions adapt to the cost of a point: one warm-up, then timed runs until
// at least --min-reps runs (3; part train 7) AND --min-seconds of timing (2 s);
// medians are reported. Part train's floor is higher because a large-model
// step takes about a second: 2 s bought a median of 3 steps, which one slow
// step on a shared machine moves by several points of "% busy". --quick: 1 run
// and 0.1 s, for smoke tests. A point of the length part predicted to need
// more than --max-point-seconds (300) is skipped. --rounds R: part train's
// table R times over, then each row's median and range (one reading of a row
// moves by several points between minutes on a shared machine); part
// products' rounds (7; blas_anchor.py runs one at a time, alternating with the BLAS's).
//
// The machine may be shared. Medians resist a few disturbed runs, not cores
// that other processes keep busy all along, so every part also reports CPU
// time (which time slices taken by others do not inflate) and cpu% = CPU time /
// (wall x threads), which shows how much of the machine a figure really had.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attention/attention.h"
#include "bench/bench.h"
#include "cmd/commands.h"
#include "cmd/args.h"
#include "config/config.h"
#include "kernels/bf16.h"
#include "util/dirs.h"
#include "util/err.h"

enum { PART_PEAK = 1, PART_TRAIN = 2, PART_LENGTH = 4, PART_GENERATE = 8, PART_PROFILE = 16, PART_TUNE = 32, PART_PRODUCTS = 64 };

// Calls item(ctx, opt, s, len) for each element of a comma-separated list
// (the list is not modified); an empty element is an error.
typedef int (*ItemFn)(void *ctx, const char *opt, const char *s, size_t len);

static int each_item(const char *opt, const char *list, ItemFn item, void *ctx) {
    const char *p = list;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0) return err_set(ERR_USAGE, "bench: %s %s: empty element", opt, list);
        int rc = item(ctx, opt, p, len);
        if (rc) return rc;
        if (!c) return 0;
        p = c + 1;
    }
}

static int item_part(void *ctx, const char *opt, const char *s, size_t len) {
    static const struct { const char *name; int bit; } parts[] = {
        {"peak", PART_PEAK},         {"train", PART_TRAIN},     {"length", PART_LENGTH},
        {"generate", PART_GENERATE}, {"profile", PART_PROFILE}, {"tune", PART_TUNE}, {"products", PART_PRODUCTS}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strlen(parts[i].name) == len && !strncmp(parts[i].name, s, len)) {
            *(int *)ctx |= parts[i].bit;
            return 0;
        }
    return err_set(ERR_USAGE, "bench: %s: unknown part '%.*s' (peak, train, length, generate, profile, tune, products)", opt, (int)len, s);
}

static int item_kind(void *ctx, const char *opt, const char *s, size_t len) {
    BenchOpts *o = ctx;
    for (int i = 0; attn_kinds[i]; i++) {
        const char *name = attn_kinds[i]->name;
        if (strlen(name) != len || strncmp(name, s, len)) continue;
        for (int k = 0; k < o->n_kinds; k++)
            if (o->kinds[k] == name) return 0;  // listed twice: once is enough
        if (o->n_kinds == BENCH_MAX_KINDS)
            return err_set(ERR_USAGE, "bench: %s: at most %d kinds", opt, BENCH_MAX_KINDS);
        o->kinds[o->n_kinds++] = name;
        return 0;
    }
    char known[256] = "";
    for (int i = 0; attn_kinds[i]; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", attn_kinds[i]->name);
    return err_set(ERR_USAGE, "bench: %s: unknown attention kind '%.*s' (%s)", opt, (int)len, s, known);
}

static int item_size(void *ctx, const char *opt, const char *s, size_t len) {
    BenchOpts *o = ctx;
    for (int i = 0; i < BENCH_N_SIZES; i++)
        if (strlen(BENCH_SIZES[i].name) == len && !strncmp(BENCH_SIZES[i].name, s, len)) {
            o->sizes |= 1 << i;
            return 0;
        }
    return err_set(ERR_USAGE, "bench: %s: unknown model size '%.*s' (baby, large)", opt, (int)len, s);
}

static int item_precision(void *ctx, const char *opt, const char *s, size_t len) {
    BenchOpts *o = ctx;
    for (int p = 0; precision_names[p]; p++)
        if (strlen(precision_names[p]) == len && !strncmp(precision_names[p], s, len)) {
            o->precisions |= 1 << p;
            return 0;
        }
    return err_set(ERR_USAGE, "bench: %s: unknown precision '%.*s' (fp32, bf16)", opt, (int)len, s);
}

static int item_seq(void *ctx, const char *opt, const char *s, size_t len) {
    BenchOpts *o = ctx;
    char buf[32];
    if (len >= sizeof buf) return err_set(ERR_USAGE, "bench: %s: '%.*s' is not a length", opt, (int)len, s);
    memcpy(buf, s, len);
    buf[len] = 0;
    size_t n;
    int rc = args_size("bench", opt, buf, 1, (size_t)1 << 24, &n);
    if (rc) return rc;
    // kept sorted and without repeats: the crossover reads them in order
    int at = 0;
    while (at < o->n_seq && o->seq[at] < n) at++;
    if (at < o->n_seq && o->seq[at] == n) return 0;
    if (o->n_seq == BENCH_MAX_SEQ) return err_set(ERR_USAGE, "bench: %s: at most %d lengths", opt, BENCH_MAX_SEQ);
    memmove(&o->seq[at + 1], &o->seq[at], (size_t)(o->n_seq - at) * sizeof o->seq[0]);
    o->seq[at] = n;
    o->n_seq++;
    return 0;
}

// Every model the chosen parts build, checked as `train` checks a config, so a
// --set that breaks a rule across keys (heads must divide d_model) is refused
// here, not met by a measuring child that aborts into an empty "failed" row.
static int check_models(const BenchOpts *o, int parts, const char *const *sets, int n_sets) {
    for (int k = 0; k < o->n_kinds; k++)
        for (int i = 0; i < BENCH_N_SIZES; i++) {
            // train and profile build the sizes asked for; length and generate
            // the baby size's layers, heads and d_model (bench_length.c, bench_generate.c)
            int used = (parts & (PART_TRAIN | PART_PROFILE) && o->sizes & 1 << i) ||
                       (parts & (PART_LENGTH | PART_GENERATE) && i == 0);
            if (!used) continue;
            const BenchSize *s = &BENCH_SIZES[i];
            Config c;
            bench_config(&c, o->kinds[k], s->layers, s->heads, s->d_model, s->block_size, s->batch_size,
                         POS_LEARNED);
            snprintf(c.path, sizeof c.path, "bench");  // bench feeds random tokens, reads no corpus
            int rc = config_validate_sets(&c, "bench", sets, n_sets);
            if (rc) return err_wrap(rc, "bench: the %s model of size %s: ", o->kinds[k], s->name);
        }
    return 0;
}

static int parse(int argc, char **argv, BenchOpts *o, int *parts) {
    memset(o, 0, sizeof *o);
    o->out = "runs/bench";
    *parts = 0;
    const char *part = NULL, *kinds = NULL, *seq = "256,1024,4096,16384",
               *sizes = "baby,large", *precision = "fp32";
    size_t threads = 0, min_reps = 0, chunk = 0, rounds = 0;  // rounds 0: each part's own default
    double min_s = -1, max_point = -1;
    const char *sets[64];
    ArgList set_list = {sets, 64, 0};
    const ArgOpt opts[] = {
        {"--part", ARG_STRING, &part, "LIST", .help = "parts to run, comma-separated: peak, train, length, generate, profile, tune, products",
         .shown_default = "peak,train,length,generate; train, profile, generate, products add peak"},
        {"--kinds", ARG_STRING, &kinds, "LIST", .help = "attention kinds, comma-separated",
         .shown_default = "every kind"},
        {"--sizes", ARG_STRING, &sizes, "LIST", .help = "model sizes of the train and profile parts, comma-separated"},
        {"--seq", ARG_STRING, &seq, "LIST", .help = "sequence lengths of the length part, comma-separated"},
        {"--precision", ARG_STRING, &precision, "LIST",
         .help = "matmul precisions of the train and profile parts, comma-separated: fp32, bf16 (both: side by side, "
                 "and their ratio)"},
        {"--out", ARG_STRING, &o->out, "DIR", .help = "the results folder"},
        {"--set", ARG_REPEAT, &set_list, "section.key=value",
         .help = "a config key for every model (e.g. model.heads=1, attention.key_norm=l2)"},
        {"--rounds", ARG_SIZE, &rounds, "R",
         .help = "part train: the whole table R times over, then each row's median and range; part products: "
                 "its rounds, each product's median over them",
         .lo = 1, .hi = BENCH_MAX_ROUNDS, .shown_default = "train 1, products 7 (1 with --quick)"},
        {"--quick", ARG_FLAG, &o->quick, NULL, .help = "1 timed run and 0.1 s per point, for smoke tests"},
        {"--threads", ARG_SIZE, &threads, "N", .help = "threads", .lo = 1, .hi = 256, .shown_default = "all cores"},
        {"--min-reps", ARG_SIZE, &min_reps, "N", .help = "timed runs per point at least", .lo = 1, .hi = 1000,
         .shown_default = "3 (part train: 7), 1 with --quick"},
        {"--min-seconds", ARG_DOUBLE, &min_s, "S", .help = "seconds of timing per point at least", .lo = 0, .hi = 3600,
         .shown_default = "2, 0.1 with --quick"},
        {"--max-point-seconds", ARG_DOUBLE, &max_point, "S", .help = "skip a length point predicted to take longer", .lo = 0, .hi = 1e6,
         .shown_default = "300, 60 with --quick"},
        {"--chunk", ARG_SIZE, &chunk, "N", .help = "chunk length of the fast-weight kinds", .lo = 1, .hi = 65536,
         .shown_default = "the config default"},
    };
    const ArgSpec spec = {"bench", "[options]",
                          "Speed: the FP32 FMA peak, training throughput and % of peak, cost and memory against\n"
                          "sequence length, generation time per token, a step's time per op (profile). CSV and SVG in DIR.",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc;
    if (part && (rc = each_item("--part", part, item_part, parts))) return rc;
    if (chunk) bench_set_chunk((int)chunk);
    for (int i = 0; i < set_list.n; i++)
        if ((rc = bench_add_set(sets[i]))) return rc;
    if (!*parts) *parts = PART_PEAK | PART_TRAIN | PART_LENGTH | PART_GENERATE;
    // % of peak and % of bandwidth need the peak part's measurements
    if (*parts & (PART_TRAIN | PART_PROFILE | PART_GENERATE | PART_PRODUCTS)) *parts |= PART_PEAK;
    // every kind by default: the issue's targets hold "for every kind", so a
    // kind left out of the default run would be a target nobody sees missed
    if (kinds) {
        if ((rc = each_item("--kinds", kinds, item_kind, o))) return rc;
    } else {
        for (int i = 0; attn_kinds[i]; i++)
            if ((rc = item_kind(o, "--kinds", attn_kinds[i]->name, strlen(attn_kinds[i]->name)))) return rc;
    }
    if ((rc = each_item("--sizes", sizes, item_size, o))) return rc;
    if ((rc = each_item("--seq", seq, item_seq, o))) return rc;
    if ((rc = each_item("--precision", precision, item_precision, o))) return rc;
    if ((rc = check_models(o, *parts, sets, set_list.n))) return rc;
    const char *missing = o->precisions & 1 << PRECISION_BF16 ? bf16_cpu_missing() : NULL;
    if (missing) return err_set(ERR_USAGE, "bench: --precision bf16 needs a CPU with AVX-512 BF16, and %s", missing);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = threads ? (int)threads : cores > 0 ? (int)cores : 1;
    o->min_reps = min_reps ? (int)min_reps : o->quick ? 1 : 3;
    o->train_min_reps = min_reps ? (int)min_reps : o->quick ? 1 : 7;
    o->min_seconds = min_s >= 0 ? min_s : o->quick ? 0.1 : 2.0;
    o->max_reps = 10000;
    if (o->max_reps < o->train_min_reps) o->max_reps = o->train_min_reps;
    o->max_point_s = max_point >= 0 ? max_point : o->quick ? 60 : 300;
    o->rounds = (int)rounds;
    return 0;
}

int cmd_bench(int argc, char **argv) {
    BenchOpts o;
    int parts, rc = parse(argc, argv, &o, &parts);
    if (rc) return args_status(rc);
    if ((rc = make_dirs(o.out))) return rc;
    double t0 = bench_now();
    printf("lmtrain bench: %d threads, results in %s/ (timings on a shared machine vary from run to run)\n\n",
           o.threads, o.out);
    char sets[1024];
    bench_sets_text(sets, sizeof sets);
    if (*sets) printf("every model with: %s\n\n", sets);
    fflush(stdout);
    // tune first: the parts after it measure with its choice
    if (!rc && (parts & PART_TUNE)) rc = bench_part_tune(&o);
    if (!rc && (parts & PART_PEAK)) rc = bench_part_peak(&o);
    if (!rc && (parts & PART_TRAIN)) rc = bench_part_train(&o);
    if (!rc && (parts & PART_LENGTH)) rc = bench_part_length(&o);
    if (!rc && (parts & PART_GENERATE)) rc = bench_part_generate(&o);
    if (!rc && (parts & PART_PROFILE)) rc = bench_part_profile(&o);
    if (!rc && (parts & PART_PRODUCTS)) rc = bench_part_products(&o);
    if (rc) return err_wrap(rc, "bench: ");
    int failed = bench_failed_count(), measured = bench_child_count();
    char files[256] = "";
    if (parts & PART_PEAK) strcat(files, " peak.csv membw.csv");
    if (parts & PART_TRAIN) strcat(files, " throughput.csv");
    if (parts & PART_LENGTH) strcat(files, " cost_vs_length.csv cost_vs_length.svg memory_vs_length.svg");
    if (parts & PART_GENERATE) strcat(files, " generate.csv");
    if (parts & PART_PROFILE) strcat(files, " profile.csv");
    if (parts & PART_PRODUCTS) strcat(files, " products.csv");
    printf("bench done in %.0f s; written to %s/:%s\n", bench_now() - t0, o.out, files);
    if (failed)  // their rows are empty: a result with holes is no success
        return err_set(ERR_RUNTIME, "bench: %d of %d measurements failed (the lines marked \"failed\" above; "
                                    "their CSV rows are empty)", failed, measured);
    return 0;
}
