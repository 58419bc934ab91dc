// frontier.h — the trade between loss and compute across context lengths
// (`make frontier`, `lmtrain frontier DIR`, docs/frontier.md).
//
// DIR holds one ablation per context length, DIR/ctx<N>/ (N = block_size),
// with the same kinds (configs) and seeds. Per length and kind: the loss at
// the end (the last validation loss on the eval batches, mean and min–max over
// seeds) and the training CPU-seconds used (metrics.csv's cpu_s); and for each
// kind against the baseline (the first config, softmax in `make frontier`):
// the CPU-seconds it needs to reach the baseline's final loss, as a ratio to
// what the baseline spent, paired by seed (compute.h's PairedRatio).
//
// The crossover is the shortest length from which on (that length and every
// longer one measured) some kind reaches the baseline's loss in fewer
// CPU-seconds: every seed reached it, and the ratio's interval lies below 1.
#pragma once
#include <stdio.h>

#include "experiment/compute.h"
#include "experiment/results.h"

enum { FRONTIER_MAX_LENGTHS = 16, FRONTIER_MAX_KINDS = 16 };

typedef struct {
    int runs;                 // finished runs with a cpu_s column
    Summary loss, cpu;        // final val loss (eval batches), training CPU-seconds
    double loss_lo, loss_hi, cpu_lo, cpu_hi;  // min–max over seeds
    Summary eval;             // whole-split val loss (lmtrain eval), from the ablation
    PairedRatio to_base;      // CPU-s to reach the baseline's final loss / the baseline's CPU-s, by seed
    int reached;              // seeds in which it reached the baseline's final loss
} FrontierCell;

typedef struct {
    size_t n_len, n_kinds;
    int length[FRONTIER_MAX_LENGTHS];
    char dir[FRONTIER_MAX_LENGTHS][4200];
    char kind[FRONTIER_MAX_KINDS][160];      // group labels, in the first length's order
    FrontierCell cell[FRONTIER_MAX_LENGTHS][FRONTIER_MAX_KINDS];
    size_t n_seeds;           // of the first length
    int crossover_len;        // 0: none found
    size_t crossover_kind;
} Frontier;

// Reads every DIR/ctx<N>/ that holds an ablation.tsv, by increasing N.
// ERR_USAGE when there is none, or when the lengths do not have the same kinds.
int frontier_load(Frontier *f, const char *dir);
// Sets crossover_len (0: none) and crossover_kind from the cells (frontier_load calls it).
void frontier_find_crossover(Frontier *f);
// DIR/frontier.md, DIR/frontier.svg and DIR/frontier.html. 0 or ERR_RUNTIME.
int frontier_write(const Frontier *f, const char *dir);
void frontier_markdown(const Frontier *f, FILE *out);
void frontier_svg(const Frontier *f, FILE *out);
