// membw.h — the machine's memory read bandwidth, measured rather than looked up.
//
// One thread sums a buffer far larger than any cache (so every byte comes from
// DRAM), best of several passes. That is the ceiling for work that streams
// data once: generation's KV-cache reads at long contexts, and the element-wise
// ops of the profile (whose data often sits in cache, so they may exceed it).
#pragma once
#include <stddef.h>

// GB/s (1e9 bytes) per CPU-second of one thread reading `bytes` bytes, best
// of `trials` passes. Returns 0 if the buffer cannot be allocated.
double membw_read_gbs(size_t bytes, int trials);
