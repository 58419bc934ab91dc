// pool.c — persistent worker threads woken per parallel_for.
//
// Workers sleep on a condition variable; parallel_for publishes a job with a
// generation counter, each worker takes its fixed slice, and the caller waits
// until the pending count reaches zero. No task queue: the partition is known
// up front, which keeps both the code and the determinism argument short.
#include "pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "err.h"

#define POOL_MAX 256

static struct {
    int n;                 // total threads including the caller
    int limit;             // pool_limit's cap on the threads a job uses (0: none)
    pthread_t tid[POOL_MAX];
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned long gen;     // incremented per job
    int pending;           // workers still running the current job
    int quit;
    // the current job
    pool_fn fn;
    void *ctx;
    size_t n_items, tasks;
} P = {.n = 1, .mu = PTHREAD_MUTEX_INITIALIZER,
       .wake = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static _Thread_local int in_task;

static int profiling;
static double wait_total;  // seconds; written only by the thread calling parallel_for
static unsigned long dispatch_total;  // likewise

void pool_profile(int on) {
    profiling = on;
    wait_total = 0;
    dispatch_total = 0;
}
double pool_wait_seconds(void) { return wait_total; }
unsigned long pool_dispatches(void) { return dispatch_total; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Task t of `tasks` takes items [t n / tasks, (t + 1) n / tasks): lengths
// differ by at most one, so none is shorter than n / tasks >= grain.
static void run_slice(int t) {
    if ((size_t)t >= P.tasks) return;
    size_t lo = (size_t)t * P.n_items / P.tasks, hi = ((size_t)t + 1) * P.n_items / P.tasks;
    in_task = 1;
    P.fn(P.ctx, lo, hi);
    in_task = 0;
}

static void *worker(void *arg) {
    // Asynchronous signals (Ctrl-C, SIGTERM, SIGHUP, ...) go to the main thread
    // only: the thread that runs the training loop and writes the files sees
    // a stop request the moment it is handled (train/interrupt.h), and a test
    // that signals a process stopped at a pause point knows which thread runs
    // the handler. Faults (SIGSEGV, ...) stay unblocked.
    sigset_t async;
    sigemptyset(&async);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&async, sigs[i]);
    pthread_sigmask(SIG_BLOCK, &async, NULL);
    int t = (int)(size_t)arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&P.mu);
    for (;;) {
        while (!P.quit && P.gen == seen) pthread_cond_wait(&P.wake, &P.mu);
        if (P.quit) break;
        seen = P.gen;
        pthread_mutex_unlock(&P.mu);
        run_slice(t);
        pthread_mutex_lock(&P.mu);
        if (--P.pending == 0) {
            // signalled after the unlock, so that the woken caller does not
            // block again at once on the mutex this thread still holds
            pthread_mutex_unlock(&P.mu);
            pthread_cond_signal(&P.done);
            pthread_mutex_lock(&P.mu);
        }
    }
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

void pool_shutdown(void) {
    if (P.n <= 1) return;
    pthread_mutex_lock(&P.mu);
    P.quit = 1;
    pthread_cond_broadcast(&P.wake);
    pthread_mutex_unlock(&P.mu);
    for (int t = 1; t < P.n; t++) pthread_join(P.tid[t], NULL);
    P.quit = 0;
    P.n = 1;
}

void pool_init(int threads) {
    if (threads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        threads = c > 0 ? (int)c : 1;
    }
    if (threads > POOL_MAX) threads = POOL_MAX;
    P.limit = 0;
    if (threads == P.n) return;
    pool_shutdown();
    // New workers start with seen = 0: reset the generation so none of them
    // mistakes the previous job (long finished, its ctx gone) for a new one.
    P.gen = 0;
    P.n = threads;
    for (int t = 1; t < P.n; t++) {
        if (pthread_create(&P.tid[t], NULL, worker, (void *)(size_t)t) != 0) {
            P.n = t;  // run with what we could start
            break;
        }
    }
}

int pool_threads(void) { return P.n; }

void pool_limit(int threads) { P.limit = threads > 0 ? threads : 0; }

int pool_threads_used(void) { return P.limit && P.limit < P.n ? P.limit : P.n; }

void parallel_for(size_t n, size_t grain, pool_fn fn, void *ctx) {
    if (n == 0) return;
    if (grain == 0) grain = 1;
    size_t max_tasks = n / grain;  // each task at least `grain` items
    int usable = pool_threads_used();
    if (usable <= 1 || in_task || max_tasks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    int tasks = max_tasks < (size_t)usable ? (int)max_tasks : usable;
    pthread_mutex_lock(&P.mu);
    P.fn = fn;
    P.ctx = ctx;
    P.n_items = n;
    P.tasks = (size_t)tasks;
    P.pending = P.n - 1;
    P.gen++;
    pthread_mutex_unlock(&P.mu);
    // after the unlock: a woken worker finds the mutex free (a worker not yet
    // waiting sees the new gen under the mutex before it would wait)
    pthread_cond_broadcast(&P.wake);
    run_slice(0);
    double t0 = profiling ? now() : 0;
    pthread_mutex_lock(&P.mu);
    while (P.pending > 0) pthread_cond_wait(&P.done, &P.mu);
    pthread_mutex_unlock(&P.mu);
    if (profiling) {
        wait_total += now() - t0;
        dispatch_total++;
    }
}
