// experiment.h — the memory lab's two experiments on one LabMemory.
//
// Capacity: write N pairs, read every key back, score the read-outs.
// Overwrite: write one key twice with two values, see which comes back.
// Every trial draws its keys and values from a stream keyed by (seed, trial)
// only, so every rule and every spec sees the very same pairs: the rules are
// compared on identical data (paired), and a run is a function of its seed.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "lab/memory.h"

// Where raw keys (before φ) come from.
typedef struct {
    const float *pool;  // (n_pool, dh) raw keys, e.g. a trained head's; NULL: N(0, 1) per component
    size_t n_pool;
} LabKeys;

typedef struct {
    double cos;  // mean cosine similarity of read-out and true value
    double acc;  // fraction of keys whose read-out is nearest (by cosine) to its own
                 // value among the N stored values
} LabRecall;

// N pairs, keys from `keys` (N distinct pool rows, or Gaussian), values N(0, I);
// all written in order, then every key read back. Means over keys and trials.
// With a pool, N must be <= n_pool.
LabRecall lab_recall(const LabMemSpec *sp, const LabKeys *keys, size_t N, size_t trials,
                     uint64_t seed);

typedef struct {
    double first, second;          // least squares y ≈ first·v1 + second·v2, mean over trials
    double cos_first, cos_second;  // mean cos(y, v1), cos(y, v2)
} LabOverwrite;

// One key written twice, with v1 and then v2, into an empty memory; read with the key.
LabOverwrite lab_overwrite(const LabMemSpec *sp, const LabKeys *keys, size_t trials, uint64_t seed);
