// bench_syscall.c — the CPU time of one system call (getppid, which does
// nothing but enter and leave the kernel). Not a test (no assertions); run it
// by hand:
//   gcc -O2 -o /tmp/bench_syscall tests/bench_syscall.c
//   /tmp/bench_syscall
// Prints µs of process CPU time per call, three runs of 200 000 calls. Every
// pool dispatch that sleeps or wakes a thread makes futex calls; on a guest
// whose calls trap to the hypervisor they cost far more than on bare metal
// (docs/speed.md, "the sharded passes").
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 200000, RUNS = 3 };

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
    for (int r = 0; r < RUNS; r++) {
        double t0 = cpu_seconds();
        for (int i = 0; i < CALLS; i++) syscall(SYS_getppid);  // syscall(): no libc caching
        double t1 = cpu_seconds();
        printf("getppid: %.3f us CPU per call\n", (t1 - t0) / CALLS * 1e6);
    }
    return 0;
}
