// peak.h — the machine's FP32 FMA peak, measured rather than looked up.
//
// Each thread runs CHAINS independent multiply-add chains held in registers
// (no loads or stores in the loop), enough of them to cover the FMA latency on
// every FMA pipe. That is the most arithmetic the core can retire per cycle,
// so it is the ceiling "achieved GFLOP/s" is compared with. One FMA on a
// W-lane vector counts 2*W FLOPs.
#pragma once

// The instruction set the kernel was compiled for: "AVX-512", "AVX2+FMA" or
// "scalar" (the plain-C fallback: separate multiply and add, 2 FLOPs).
const char *peak_isa(void);

// GFLOP/s of `threads` threads (run through the pool, which must have been
// started with at least that many; 1 = the calling thread alone), each running
// the chains for about `seconds`. Best of `trials` (the peak is a maximum: a
// trial that lost the core to another process only measured the noise).
double peak_gflops(int threads, double seconds, int trials);
