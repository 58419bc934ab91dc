// fma_chains.h — the kernel of bench/peak.c: independent multiply-add chains
// held in registers, as many as cover the FMA latency on every pipe of the
// chosen path (AVX-512: 24 zmm; AVX2+FMA: 12 ymm; aarch64: 24 NEON q registers;
// portable: 12 4-lane vectors, a multiply and an add per step). A kernel file: one variant per path.
#pragma once
#include "kernels/kernel_names.h"

// Runs the chains `iters` steps; returns their sum (so the loop is not dropped).
extern float fma_chains_run(long iters);
// The chains' shape: *chains accumulators of *lanes floats, each step one FMA
// (2 FLOPs a lane); *isa "AVX-512", "AVX2+FMA", "NEON" or "4-lane vectors".
extern void fma_chains_shape(int *chains, int *lanes, const char **isa);
