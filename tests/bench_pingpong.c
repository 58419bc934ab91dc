// bench_pingpong.c — how long one cache line takes to go from one core to the
// other and back: two threads pinned to CPUs 0 and 1 hand a flag back and
// forth. Not a test (no assertions, and it needs two CPUs); run it by hand:
//   gcc -O2 -o /tmp/bench_pingpong tests/bench_pingpong.c -lpthread
//   /tmp/bench_pingpong
// Prints the round trip in ns, the mean over 200 000. What a parallel_for pays
// to hand an operand written by one core to the other (docs/speed.md).
// Pinning is a GNU extension: this file is a measuring tool, not part of lmtrain.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

enum { ROUNDS = 200000 };
static _Atomic int flag __attribute__((aligned(64)));

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *answer(void *unused) {
    (void)unused;
    pin(1);
    for (int i = 0; i < ROUNDS; i++) {
        while (atomic_load_explicit(&flag, memory_order_acquire) != 1) {
        }
        atomic_store_explicit(&flag, 0, memory_order_release);
    }
    return NULL;
}

int main(void) {
    pin(0);
    pthread_t t;
    pthread_create(&t, NULL, answer, NULL);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < ROUNDS; i++) {
        atomic_store_explicit(&flag, 1, memory_order_release);
        while (atomic_load_explicit(&flag, memory_order_acquire) != 0) {
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    pthread_join(t, NULL);
    printf("round trip %.0f ns\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / ROUNDS);
    return 0;
}
