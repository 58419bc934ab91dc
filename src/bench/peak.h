// peak.h — the machine's FP32 FMA peak, measured rather than looked up.
//
// Each thread runs CHAINS independent multiply-add chains held in registers
// (no loads or stores in the loop), enough of them to cover the FMA latency on
// every FMA pipe. That is the most arithmetic the core can retire per cycle,
// so it is the ceiling "achieved GFLOP/s" is compared with. One FMA on a
// W-lane vector counts 2*W FLOPs.
#pragma once

// The instruction set the kernel was compiled for: "AVX-512", "AVX2+FMA",
// "NEON" (aarch64) or "scalar" (the plain-C fallback: separate multiply and
// add, 2 FLOPs).
const char *peak_isa(void);

typedef struct {
    double wall;  // GFLOP/s: all threads' FLOPs / wall time of the trial
    double cpu;   // GFLOP/s: sum over threads of (its FLOPs / its own CPU time)
} PeakRate;

// `threads` threads (run through the pool, which must have been started with
// at least that many; 1 = the calling thread alone), each running the chains
// for about `seconds`; best of `trials` for each figure (the peak is a
// maximum: a trial that lost a core to another process only measured noise).
// On a shared, busy machine the wall figure falls with the load while the CPU
// figure stays the hardware's rate (time slices given to other processes are
// not counted); on an idle machine the two agree.
PeakRate peak_gflops(int threads, double seconds, int trials);
