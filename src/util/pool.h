// pool.h — a persistent pthread pool with one primitive: parallel_for.
//
// Determinism rule for every caller: partition work by OUTPUT element, and let
// each output be computed entirely by one task with a fixed summation order.
// Then results are bit-identical whatever the thread count, because no value
// ever depends on where the range boundaries fall.
#pragma once
#include <stddef.h>

// fn(ctx, lo, hi): process items [lo, hi). Called from several threads at once.
typedef void (*pool_fn)(void *ctx, size_t lo, size_t hi);

// Starts the global pool with `threads` workers (0 = all online cores).
// Safe to call again: it resizes. Without a call, work runs on the caller.
void pool_init(int threads);
void pool_shutdown(void);
int pool_threads(void);

// Splits [0, n) into contiguous ranges (at most one per thread, each at least
// `grain` items) and runs them; returns when all are done. The calling thread
// takes a share. Nested calls from inside a task run serially.
void parallel_for(size_t n, size_t grain, pool_fn fn, void *ctx);

// Profiling (bench --part profile): while on, parallel_for adds to a running
// total the wall time its caller spends waiting for the workers after its own
// share (imbalance plus wake-up latency). Off by default: one untaken branch.
// pool_dispatches counts, while on, the calls that woke the workers (not those
// run on the caller alone).
void pool_profile(int on);
double pool_wait_seconds(void);
unsigned long pool_dispatches(void);
