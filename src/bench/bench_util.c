// bench_util.c — timing, child processes and the benchmark models of `bench`.
#define _DEFAULT_SOURCE  // wait4
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "util/err.h"
#include "util/pool.h"
#include "util/rng.h"

// ============================================================================
// Timing
// ============================================================================

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double bench_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *t, int n) {
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

BenchSpread bench_spread(const double *v, int n) {
    BenchSpread r = {NAN, NAN, NAN, 0};
    double *t = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) t[r.n++] = v[i];
    if (r.n) {
        r.median = bench_median(t, r.n);  // sorted now
        r.min = t[0];
        r.max = t[r.n - 1];
    }
    free(t);
    return r;
}

// Timed calls of one variant, and what bench_time makes of them.
typedef struct {
    double *t, *c;  // wall and CPU seconds per call
    int n;
    double total, cpu;  // their sums
} Timings;

static void timings_init(Timings *x, int cap) {
    x->t = xcalloc((size_t)cap, sizeof(double));
    x->c = xcalloc((size_t)cap, sizeof(double));
    x->n = 0;
    x->total = x->cpu = 0;
}

static int timings_want_more(const BenchOpts *o, const Timings *x, int cap) {
    return x->n < cap && (x->n < o->min_reps || x->total < o->min_seconds);
}

static void timed_call(Timings *x, BenchFn setup, BenchFn body, void *ctx) {
    if (setup) setup(ctx);
    double c0 = bench_cpu_now(), t0 = bench_now();
    body(ctx);
    x->t[x->n] = bench_now() - t0;
    x->c[x->n] = bench_cpu_now() - c0;
    x->cpu += x->c[x->n];
    x->total += x->t[x->n++];
}

// frees x; `threads`: pool_threads_used() at the time of the calls
static BenchTime timings_result(Timings *x, int threads) {
    // (initialisers are not sequenced: sort first, then read the extremes)
    double med = bench_median(x->t, x->n), cpu_med = bench_median(x->c, x->n);
    BenchTime r = {.median = med, .min = x->t[0], .max = x->t[x->n - 1], .reps = x->n, .cpu_median = cpu_med,
                   .cpu_share = x->cpu / (x->total * (double)threads)};
    free(x->t);
    free(x->c);
    return r;
}

BenchTime bench_time(const BenchOpts *o, BenchFn setup, BenchFn body, void *ctx) {
    int cap = o->max_reps > 0 ? o->max_reps : 1;
    Timings x;
    timings_init(&x, cap);
    // warm-up: first touch of every buffer, caches, the pool's threads waking
    if (setup) setup(ctx);
    body(ctx);
    while (timings_want_more(o, &x, cap)) timed_call(&x, setup, body, ctx);
    return timings_result(&x, pool_threads_used());
}

void bench_time_pair(const BenchOpts *o, BenchFn const setup[2], BenchFn body, void *ctx, BenchTime out[2]) {
    int cap = o->max_reps > 0 ? o->max_reps : 1;
    Timings x[2];
    int threads[2] = {0, 0};
    for (int v = 0; v < 2; v++) timings_init(&x[v], cap);
    // in lockstep (equal counts), so neither is past cap while the other wants
    // more; each timed call after an untimed one of its own variant (bench.h)
    while (timings_want_more(o, &x[0], cap) || timings_want_more(o, &x[1], cap))
        for (int v = 0; v < 2; v++) {
            if (setup[v]) setup[v](ctx);
            body(ctx);
            timed_call(&x[v], setup[v], body, ctx);
            threads[v] = pool_threads_used();
        }
    for (int v = 0; v < 2; v++) out[v] = timings_result(&x[v], threads[v]);
}

void bench_time_store(const BenchTime *t, double *out) {
    out[BENCH_OUT_MEDIAN] = t->median;
    out[BENCH_OUT_MIN] = t->min;
    out[BENCH_OUT_MAX] = t->max;
    out[BENCH_OUT_REPS] = t->reps;
    out[BENCH_OUT_CPU] = t->cpu_share;
    out[BENCH_OUT_CPU_MEDIAN] = t->cpu_median;
}

// ============================================================================
// Child processes
// ============================================================================

typedef struct {
    int rc;
    char msg[1024];
    double out[BENCH_CHILD_OUT];
} ChildMsg;

static int write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static size_t read_all(int fd, void *p, size_t n) {
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, c + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

static int in_child(BenchChildFn fn, void *ctx, BenchResult *res);

// How many measurements ran and failed, for bench's exit status.
static int g_children, g_failed;
int bench_child_count(void) { return g_children; }
int bench_failed_count(void) { return g_failed; }

int bench_in_child(BenchChildFn fn, void *ctx, BenchResult *res) {
    int rc = in_child(fn, ctx, res);
    g_children++;
    g_failed += rc != 0;
    return rc;
}

static int in_child(BenchChildFn fn, void *ctx, BenchResult *res) {
    memset(res, 0, sizeof *res);
    int fd[2];
    if (pipe(fd) != 0) return err_set(ERR_RUNTIME, "bench: pipe: %s", strerror(errno));
    fflush(stdout);  // the child must not flush the parent's buffered output again
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return err_set(ERR_RUNTIME, "bench: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(fd[0]);
        ChildMsg m;
        memset(&m, 0, sizeof m);
        for (int i = 0; i < BENCH_CHILD_OUT; i++) m.out[i] = NAN;
        err_clear();
        m.rc = fn(ctx, m.out);
        if (m.rc) snprintf(m.msg, sizeof m.msg, "%s", err_msg());
        int bad = write_all(fd[1], &m, sizeof m);
        _exit(bad ? 1 : 0);  // no atexit handlers, no stdio flush: the parent owns those
    }
    close(fd[1]);
    ChildMsg m;
    size_t got = read_all(fd[0], &m, sizeof m);
    close(fd[0]);
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR) return err_set(ERR_RUNTIME, "bench: wait4: %s", strerror(errno));
    }
    res->peak_rss = (double)ru.ru_maxrss * 1024.0;  // Linux reports KiB
    if (WIFSIGNALED(st))
        return err_set(ERR_RUNTIME, "killed by signal %d%s", WTERMSIG(st),
                       WTERMSIG(st) == SIGKILL ? " (out of memory?)" : "");
    if (got != sizeof m) {
        // xmalloc and friends exit(1) after printing their own message
        return err_set(ERR_RUNTIME, "the measuring process exited with status %d without a result",
                       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (m.rc) return err_set(m.rc, "%s", m.msg);
    memcpy(res->out, m.out, sizeof m.out);
    return 0;
}

// ============================================================================
// Models, tokens, memory
// ============================================================================

// --chunk: the fast-weight chunk length every benchmark model uses (0 = the
// config default), so `bench` can find the fastest one
static int g_chunk;
void bench_set_chunk(int chunk) { g_chunk = chunk; }

// --set: config overrides applied to every benchmark model after its sizes
// (e.g. model.heads=1 for a head size of 128, attention.key_norm=l2); a key
// that a kind does not read changes nothing for that kind
#define MAX_SETS 16
static const char *g_sets[MAX_SETS];
static int g_nsets;

int bench_add_set(const char *assignment) {
    if (g_nsets == MAX_SETS) return err_set(ERR_USAGE, "bench: --set: at most %d", MAX_SETS);
    Config c;
    config_defaults(&c);
    int rc = config_set(&c, assignment);
    if (rc) return rc;
    // the train part's rows are labelled by --precision; a --set would run bf16 under an fp32 label
    if (c.precision != PRECISION_FP32)
        return err_set(ERR_USAGE, "bench: --set %s: give the precision with --precision (fp32, bf16, or both)",
                       assignment);
    g_sets[g_nsets++] = assignment;
    return 0;
}

void bench_sets_text(char *buf, size_t size) {
    if (size) buf[0] = 0;
    for (int i = 0; i < g_nsets; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", i ? ", " : "", g_sets[i]);
    }
}

void bench_config(Config *c, const char *kind, int layers, int heads, int d_model, int block_size,
                  int batch_size, PosKind pos) {
    config_defaults(c);
    snprintf(c->name, sizeof c->name, "bench_%s", kind);
    // through config_set, as a config file names it: the keys whose default
    // follows the kind (delta: L2-normalised keys, identity features) take it.
    // Written into c->kind directly they kept softmax's (sum, elu+1), so bench
    // timed another delta than `lmtrain train` runs, until a --set re-resolved it.
    char kind_key[64];
    snprintf(kind_key, sizeof kind_key, "attention.kind=%s", kind);
    if (config_set(c, kind_key)) snprintf(c->kind, sizeof c->kind, "%s", kind);  // validated by the caller
    c->layers = layers;
    c->heads = heads;
    c->d_model = d_model;
    c->block_size = block_size;
    c->batch_size = batch_size;
    c->pos = pos;
    if (g_chunk > 0) c->chunk = g_chunk;
    for (int i = 0; i < g_nsets; i++) config_set(c, g_sets[i]);  // checked by bench_add_set
    // a key the kind does not read changes nothing for it (the --set help): key_norm = l2
    // and decay = data are the kind's own again where it has neither, not a model that
    // config validation refuses (and decay = data one that builds gate rows softmax never reads)
    const AttnKind *k = attn_kind_find(c->kind);
    if (k && !k->uses_key_norm) c->key_norm = attn_default_key_norm(k, c->normalize);
    if (k && !k->data_decay && c->decay == DECAY_DATA) c->decay = DECAY_LEARNED, c->decay_learnable = 1;
}

void bench_random_tokens(int *tok, size_t n, size_t V, unsigned long long seed) {
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) tok[i] = (int)rng_below(&r, V);
}

double bench_model_graph_bytes(const Model *m, const Graph *g) {
    double model = 2.0 * (double)m->n_floats;  // weights + gradients
    double tape = 2.0 * (double)g->tape.act_floats + (double)g->tape.saved_floats;  // act, grad, saved
    return 4.0 * (model + tape) + 2.0 * (double)(g->B * g->T) * sizeof(int);
}

double bench_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                fclose(f);
                return (double)kb * 1024.0;
            }
        fclose(f);
    }
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    return pages > 0 && psize > 0 ? (double)pages * (double)psize : INFINITY;
}
