// peak_neon.h — peak.c's FMA chains for AArch64 Advanced SIMD (NEON), in a
// file of their own so that the x86 paths of peak.c stay as they are.
#pragma once

// 32 q registers: 24 accumulators + x, y. Cores with 4 FMA pipes of 4-cycle
// latency (Apple M-class, Neoverse V2) need 16 chains in flight; 24 leave margin.
enum { PEAK_NEON_CHAINS = 24, PEAK_NEON_LANES = 4 };

// peak.c's run_chains: PEAK_NEON_CHAINS independent 4-lane chains acc = acc*x + y
// (vfmaq_f32, one FMA = 8 FLOPs), iters times; returns their sum.
float peak_neon_run_chains(long iters);
