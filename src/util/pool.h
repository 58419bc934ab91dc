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

// Until called again (or pool_init), parallel_for uses at most `threads`
// threads, the caller included (0: all of the pool's). The workers stay up, so
// a measurement can alternate thread counts step by step in one process (bench
// part train's thread efficiency) at no cost: resizing the pool instead would
// start new threads, whose first products allocate their packing buffers
// inside the timed step. With a cap of 1 nothing is dispatched and the workers
// sleep; with a cap between 1 and pool_threads() every worker still wakes for
// each job (the ones past the cap to find no slice), as when a job has fewer
// tasks than threads.
void pool_limit(int threads);
// The threads a parallel_for can use now: pool_threads(), or pool_limit's cap if lower.
int pool_threads_used(void);

// Splits [0, n) into contiguous ranges (at most one per thread, each at least
// `grain` items, so n < 2 grain runs on the caller alone) and runs them;
// returns when all are done. The calling thread takes a share. Nested calls
// from inside a task run serially.
void parallel_for(size_t n, size_t grain, pool_fn fn, void *ctx);

// The least memory traffic worth a task of its own, for the element-wise and
// row-wise ops (LayerNorm, GELU, the residual add, embedding, cross-entropy,
// attention's slab copies). A dispatch costs CPU the work does not: the
// futex calls, the woken worker's cold caches, the caller's half read back
// from the other core. At 10-20 GB/s per core, 1 MiB is 50-100 µs of work;
// measured (git history of docs/speed-log.md: "One AdamW dispatch, no task under 1 MiB"). The
// baby model's LayerNorm (0.8 MB) then runs on the caller; the large one's
// (6 MB) still splits.
#define POOL_MIN_TASK_BYTES ((size_t)1 << 20)

// Items per task (a parallel_for grain) for work moving `item_bytes` bytes
// per item (each input read and each output written counted once).
static inline size_t pool_grain_bytes(size_t item_bytes) {
    if (item_bytes == 0) item_bytes = 1;
    return (POOL_MIN_TASK_BYTES + item_bytes - 1) / item_bytes;
}

// Profiling (bench --part profile): while on, parallel_for adds to a running
// total the wall time its caller spends waiting for the workers after its own
// share (imbalance plus wake-up latency). Off by default: one untaken branch.
// pool_dispatches counts, while on, the calls that woke the workers (not those
// run on the caller alone).
void pool_profile(int on);
double pool_wait_seconds(void);
unsigned long pool_dispatches(void);
