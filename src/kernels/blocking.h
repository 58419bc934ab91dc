// blocking.h — the panel sizes of the products (gemm.c), chosen per CPU.
//
// GEMM_MC rows of A and GEMM_NC columns of B per block are a question of the
// caches, not of the result: every C element is the same chain whatever the
// blocking (gemm.c), because K is cut at GEMM_KC (gemm.h), which never
// changes. So the blocking may differ from CPU to CPU, and does:
//   1. a tuning file, written by `lmtrain bench --part tune` on this CPU model:
//      $XDG_CACHE_HOME/lmtrain/gemm-VENDOR-FAMILY-MODEL.txt (default ~/.cache);
//      unreadable, corrupt or made on another CPU model: a warning, then 2.
//   2. the table of CPUs measured (blocking.c), keyed by vendor/family/model;
//   3. the defaults (the blocking measured on Zen 5, where it was tuned).
// Sizes are counted in register tiles (GEMM_MR rows, GEMM_NR columns of the
// path that runs), so one choice fits each path's tile shape.
//
// One more choice rides along: whether the weights' gradients (dW = dYᵀX,
// op(A) = Aᵀ) pack dYᵀ into slivers or let the tiles read it where it lies.
// In place, a tile's step reads 32 bytes from each of kc rows lda apart,
// prefetched a few steps ahead. On Zen 5 that measured faster than packing;
// on an Intel Xeon (Emerald Rapids) too while the rows are under a page
// apart (the baby model), but 5-10 % slower at the large model, whose rows
// are 4.5-6 KiB apart (a new page every step). So pack_at = 1 packs only
// rows 4 KiB or more apart (gemm.c: GEMM_PACK_AT_MIN_LDA); 0 reads every
// stride in place. The AVX-512 and AVX2 paths have the in-place kernels; the
// portable one always packs. Either way the tile runs the same chain: the
// same bits.
#pragma once
#include <stddef.h>

#include "kernels/cpu.h"

// Bounds a blocking must keep (a tuning file outside them is refused).
#define BLOCKING_MIN_TILES 2
#define BLOCKING_MAX_MC_TILES 96
#define BLOCKING_MAX_NC_TILES 64

typedef struct {
    int mc_tiles;  // GEMM_MC = GEMM_MR * mc_tiles
    int nc_tiles;  // GEMM_NC = GEMM_NR * nc_tiles
    int pack_at;   // 1: op(A) = Aᵀ is packed when its rows are a page apart; 0: read in place (not portable)
} GemmBlocking;

// The blocking of path isa in force now (chosen at first use, as above).
GemmBlocking gemm_blocking(KernelIsa isa);
// Where it came from: "tuned (FILE)", "table (...)", "default (...)".
const char *gemm_blocking_source(void);

// The table's (or the defaults') choice for cpu on path isa, and why (a
// phrase for gemm_blocking_source).
GemmBlocking gemm_blocking_builtin(const CpuInfo *cpu, KernelIsa isa, const char **why);

// Sets the blocking of path isa from now on (bench --part tune's candidates,
// tests). Call only while no product runs.
void gemm_blocking_set(KernelIsa isa, GemmBlocking b, const char *source);

// Forgets the choice and makes it again, with the tuning file looked for in
// cache_dir (NULL: $XDG_CACHE_HOME/lmtrain, else $HOME/.cache/lmtrain) — for
// tests, which must not read the user's cache. Call while no product runs.
void gemm_blocking_reload(const char *cache_dir);

// The tuning file of cpu under cache_dir (as above when NULL) into out;
// 0, or -1 when no folder is known ($HOME unset).
int blocking_file_path(const CpuInfo *cpu, const char *cache_dir, char *out, size_t n);

// Reads a tuning file for cpu: 1 and b[] filled (one per path; a path the file
// does not name keeps b[isa] as given), 0 when the file does not exist, -1 when
// it cannot be used (the reason in why: unreadable, corrupt, another CPU).
int blocking_file_read(const char *path, const CpuInfo *cpu, GemmBlocking b[KERNEL_N_ISAS], char *why,
                       size_t whylen);
// Writes b[] (the paths with have[isa] set) for cpu to path, creating its
// folder; 0 or an error code with the message set (util/err.h).
int blocking_file_write(const char *path, const CpuInfo *cpu, const GemmBlocking b[KERNEL_N_ISAS],
                        const int have[KERNEL_N_ISAS]);

// "blocking: mc 24 tiles, nc 16 tiles, dYᵀ read in place; tuned (FILE)", the
// running path's, for --version and bench.
void gemm_blocking_describe(char *out, size_t n);
