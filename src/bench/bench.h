// bench.h — what the parts of `lmtrain bench` share (SPEC §8).
//
//   bench.c            the command: options, which parts run, in what order
//   bench_util.c       timing (medians after a warm-up), one child process per
//                      measurement, the benchmark models
//   bench_flops.c      the FLOP count of a training step, derived from the kernels
//   bench_peak.c       part "peak":     FP32 FMA peak, 1 thread and all threads
//   bench_train.c      part "train":    training throughput, % of the peak
//   bench_length.c     part "length":   cost and memory vs sequence length
//   bench_generate.c   part "generate": generator_step time per token
//   bench_profile.c    part "profile":  where a training step's time goes, per op
//   bench_tune.c       part "tune":     the products' blocking for this CPU (kernels/blocking.h)
//   bench_products.c   part "products": the linear layers' products alone, GFLOP/s and % of peak
//   bench_layers.c     the products' shapes, operands and calls (tune, products)
//
// Every measurement runs in its own forked child: it starts its own thread
// pool, allocates only what that point needs, and its peak resident set size
// (wait4's ru_maxrss) is that point's memory and nothing else's. The parent
// never starts the pool (a forked child would inherit a pool whose threads do
// not exist in it).
#pragma once
#include <stddef.h>

#include "config/config.h"
#include "model/model.h"
#include "train/optimizer.h"

#define BENCH_MAX_KINDS 8
#define BENCH_MAX_SEQ 16
#define BENCH_MAX_ROUNDS 100  // --rounds
#define BENCH_VOCAB 65  // tiny Shakespeare's character count; tokens are random

typedef struct {
    const char *out;                       // output folder
    const char *kinds[BENCH_MAX_KINDS];    // attention kinds, validated
    int n_kinds;
    int sizes;                             // train, profile: bit i = BENCH_SIZES[i]
    size_t seq[BENCH_MAX_SEQ];             // length part: sequence lengths
    int n_seq;
    int quick;                             // fewer and shorter repetitions
    int threads;                           // threads per measurement (resolved, >= 1)
    int min_reps;                          // timed repetitions per point, at least ...
    int train_min_reps;                    // ... (part train: its own floor, see bench.c) ...
    double min_seconds;                    // ... and at least this much timed wall time
    int max_reps;
    double max_point_s;                    // length: skip a point predicted to take longer
    double peak_1, peak_all;               // GFLOP/s measured by the peak part (0 = not yet)
    double mem_gbs;                        // GB/s, 1-thread DRAM read, also by the peak part
    int precisions;                        // train, profile: bit p set = measure at Precision p (default fp32)
    int rounds;                            // --rounds, 0 if not given: train: the whole table this many times,
                                           // then each row's spread (default 1); products: its rounds (default 7)
} BenchOpts;

// ---- timing -----------------------------------------------------------------

double bench_now(void);      // wall clock, seconds
double bench_cpu_now(void);  // CPU time of the whole process (all threads), seconds

typedef void (*BenchFn)(void *ctx);

typedef struct {
    double median, min, max;  // wall seconds per call of `body`
    int reps;                 // timed calls
    double cpu_median;        // median CPU seconds per call, all threads together
    double cpu_share;         // process CPU time / (wall time x pool threads) over the
                              // timed calls: well below 1 means other processes took
                              // the cores (or the work did not keep every thread busy)
} BenchTime;

// the median of t[0 .. n), n >= 1 (sorts t)
double bench_median(double *t, int n);

// The median, least and greatest of the finite values of v[0 .. n) (n = how
// many there were; NaN in all three when none): a figure's spread over rounds.
typedef struct {
    double median, min, max;
    int n;
} BenchSpread;
BenchSpread bench_spread(const double *v, int n);

// One untimed warm-up call of body, then timed calls until both o->min_reps
// and o->min_seconds are reached (at most o->max_reps). `setup`, if not NULL,
// runs untimed before every call (warm-up included).
BenchTime bench_time(const BenchOpts *o, BenchFn setup, BenchFn body, void *ctx);

// Two set-ups of one body timed in alternation, for a ratio of the two: both
// see the same machine, whatever the load does meanwhile (on a shared
// machine, minutes apart is a different machine). Each timed call follows an
// untimed call of the same variant (A A B B A A ...): the first call after a
// switch runs on what the other variant left in the caches, which no run
// of one variant alone sees (a training step after a 1-thread one read 2-4 %
// more CPU at the large bench model; git history of docs/speed-log.md). setup[i] runs
// untimed before every call of variant i; out[i] is as bench_time's, each
// variant reaching o->min_reps and o->min_seconds.
void bench_time_pair(const BenchOpts *o, BenchFn const setup[2], BenchFn body, void *ctx, BenchTime out[2]);

// A BenchTime in the first slots of a child's out[] (the parent reads them
// back by these names); a part's own values follow from BENCH_OUT_TIME_N on.
enum { BENCH_OUT_MEDIAN, BENCH_OUT_MIN, BENCH_OUT_MAX, BENCH_OUT_REPS, BENCH_OUT_CPU, BENCH_OUT_CPU_MEDIAN,
       BENCH_OUT_TIME_N };
void bench_time_store(const BenchTime *t, double *out);

// ---- child processes --------------------------------------------------------

#define BENCH_CHILD_OUT 256

// What a measurement computes in the child: fills out[0 .. BENCH_CHILD_OUT)
// and returns 0, or an error status after err_set.
typedef int (*BenchChildFn)(void *ctx, double *out);

typedef struct {
    double out[BENCH_CHILD_OUT];
    double peak_rss;  // bytes: the child's maximum resident set size
} BenchResult;

// Runs fn in a forked child and collects its results. Returns 0, or
// ERR_RUNTIME with the child's own message, or one saying it was killed
// (a SIGKILL from the kernel usually means out of memory).
int bench_in_child(BenchChildFn fn, void *ctx, BenchResult *r);
// How many bench_in_child calls so far, and how many of them failed.
int bench_child_count(void);
int bench_failed_count(void);

// ---- the benchmark models ----------------------------------------------------

// The two training sizes of parts "train" and "profile" (bench_train.c).
typedef struct {
    const char *name;
    int layers, heads, d_model, block_size, batch_size;
} BenchSize;
#define BENCH_N_SIZES 2
extern const BenchSize BENCH_SIZES[BENCH_N_SIZES];
// "baby L4 H4 C128 T64 B12"
void bench_size_label(char *buf, size_t cap, const BenchSize *s);

// One measurement of the train and profile parts: a kind at a model size, the
// size as --set leaves it (bench_config), so labels and CSV rows say what ran.
typedef struct {
    const BenchOpts *o;
    const char *kind;
    BenchSize size;
    Precision precision;  // the matmuls' precision ([train] precision); fp32 unless --precision (train, profile)
} BenchSizeJob;

// The next (size, kind) the options select, sizes outer and kinds inner: fills
// *j and `label` (bench_size_label) and returns 1; 0 when none are left.
// Start with *at = 0.
int bench_next_size_job(const BenchOpts *o, size_t *at, BenchSizeJob *j, char *label, size_t cap);

// A model of one size and kind, its AdamW and its graph, fed a fixed batch of
// random tokens (a step's cost does not depend on the token values).
typedef struct {
    Config c;
    Model m;
    AdamW opt;
    Graph g;
    long t;  // AdamW's 1-based step
} BenchTrainer;
void bench_trainer_init(BenchTrainer *x, const BenchSize *s, const char *kind, Precision p);
void bench_trainer_free(BenchTrainer *x);

// --chunk for every benchmark model (bench_config; 0: the default stays)
void bench_set_chunk(int chunk);
// --set section.key=value for every benchmark model (checked here: 0 or ERR_USAGE)
int bench_add_set(const char *assignment);
// The --set assignments in order, ", " between them ("" when none): the
// rows are labelled by kind only, so the run's header says what else changed.
void bench_sets_text(char *buf, size_t size);
// The defaults (config_defaults) with `kind` set as a config file sets it (the
// keys that follow the kind take its defaults: delta's L2 keys), these model
// sizes, then --chunk and every --set; task text with no corpus (the
// benchmarks feed random tokens).
void bench_config(Config *c, const char *kind, int layers, int heads, int d_model, int block_size,
                  int batch_size, PosKind pos);

// Fills n tokens uniformly from [0, V).
void bench_random_tokens(int *tok, size_t n, size_t V, unsigned long long seed);

// Bytes the model (weights + gradients) and its graph for (B, T) allocate:
// the blocks of model_build and tape_finalize, plus the token arrays.
double bench_model_graph_bytes(const Model *m, const Graph *g);

// Bytes of memory the OS reports available (MemAvailable), or physical
// memory if that cannot be read.
double bench_available_bytes(void);

// ---- FLOPs --------------------------------------------------------------------

typedef struct {
    double dense;      // the matrix multiplies outside attention, incl. the tied head
    double attention;  // the attention kernels; NAN for a kind not modelled
    double attention_fwd;  // the forward's part of `attention`
} BenchFlops;

// FLOPs per token of one forward + backward over a (B, T) batch of model m,
// counted from what the kernels execute (see bench_flops.c).
BenchFlops bench_flops_per_token(const Model *m, size_t T);

// ---- the parts (each prints its table and writes its files into o->out) ------

int bench_part_peak(BenchOpts *o);  // sets o->peak_1, o->peak_all
int bench_part_train(const BenchOpts *o);
int bench_part_length(const BenchOpts *o);
int bench_part_generate(const BenchOpts *o);
int bench_part_profile(const BenchOpts *o);
// part "tune" (bench_tune.c): the products' blocking on this CPU, kept in the tuning file
int bench_part_tune(const BenchOpts *o);
int bench_part_products(const BenchOpts *o);
