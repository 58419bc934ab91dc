// membw.h — the machine's memory read bandwidth, measured rather than looked up.
//
// One thread sums a buffer far larger than any cache (so every byte comes from
// DRAM). That is the ceiling for work that streams data once: generation's
// KV-cache reads at long contexts, and the element-wise ops of the profile
// (whose data often sits in cache, so they may exceed it).
//
// Two ways to use it: membw_read_gbs, the best of several passes of one
// stream (part peak); or a MemBw buffer kept open and timed one pass at a time
// between other measurements (part generate interleaves its passes with the
// bursts it compares them with, so both see the same load on the machine).
//
// Streams: one core reads DRAM faster from several places at once than from
// one (more lines in flight: each stream has its own hardware prefetch). On
// the development machine (AMD EPYC, KVM, 4 KiB pages) a 67 MiB buffer read
// as 1, 2, 4, 8, 16 interleaved streams gave about 20, 21, 25, 29, 27 GB/s.
// A step that reads its KV cache as two streams (keys, values) reached 110-130 %
// of the one-stream figure, so that figure is no ceiling; part generate
// compares with MEMBW_STREAMS streams.
#pragma once
#include <stddef.h>

#define MEMBW_STREAMS 8  // the most one core read with, of 1-16 (above)

typedef struct {
    float *x;     // (n) written once, so every page is mapped and holds data
    size_t n;
    int streams;  // the buffer read as this many equal parts, in turn, 512 bytes at a time
} MemBw;

// allocates and writes a buffer of about `bytes` (4 KiB pages, as the rest
// of the program's memory: no madvise), to be read as `streams` >= 1
// streams. Returns 0, or -1 if it cannot.
int membw_open(MemBw *b, size_t bytes, int streams);
// one pass over the buffer: GB/s (1e9 bytes) per CPU-second of this thread
double membw_pass(const MemBw *b);
void membw_close(MemBw *b);

// GB/s per CPU-second of one thread reading `bytes` bytes as one stream, best
// of `trials` passes. Returns 0 if the buffer cannot be allocated.
double membw_read_gbs(size_t bytes, int trials);
