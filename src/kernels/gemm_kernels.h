// gemm_kernels.h — internal to gemm.c: tile sizes, operand packing and the
// register-blocked micro-kernel, one variant per instruction set.
//
// Packed layouts, zero-padded to whole tiles so the micro-kernel never
// branches on edges while it accumulates:
//   A block: per GEMM_MR rows of op(A), the kc columns stored k-major
//            ap[p*kc + k*GEMM_MR + i] = op(A)[i0 + p + i][k0 + k]   (p a multiple of GEMM_MR)
//   B panel: per GEMM_NR columns of op(B), the kc rows stored k-major
//            bp[q*kc + k*GEMM_NR + j] = op(B)[k0 + k][j0 + q + j]   (q a multiple of GEMM_NR)
// Both must be 64-byte aligned.
#pragma once
#include "kernels/kernel_names.h"
#include <stddef.h>

#include "kernels/cpu.h"   // KernelIsa
#include "kernels/gemm.h"  // GEMM_KC

// One product's arguments, as gemm() or gemm_bf16() received them (gemm.h).
typedef struct {
    int transA, transB;
    size_t M, N, K;
    float alpha, beta;
    const float *A, *B;
    float *C;
    size_t lda, ldb, ldc;
    int bf16;  // gemm_bf16: op(A), op(B) rounded to bf16, products through vdpbf16ps
    const GemmEpilogue *epi;  // NULL, or run once on each finished piece of C after its last K block (gemm.h)
} GemmArgs;

// Runs g's epilogue (if any) on C[i0 .. i0+m)[j0 .. j0+n).
static inline void gemm_epilogue(const GemmArgs *g, size_t i0, size_t j0, size_t m, size_t n) {
    if (g->epi && m && n) g->epi->fn(g->epi, g->C + i0 * g->ldc + j0, g->ldc, i0, j0, m, n);
}

#if defined(__AVX512F__)
// 8 x 32: 16 zmm accumulators, per k 2 loads + 8 broadcasts for 16 FMAs.
// (Measured best on Zen 5 against 12x32, 14x32, 6x64 and 4x64.)
#define GEMM_ISA "avx512"
#define GEMM_PATH KERNEL_AVX512
#define GEMM_MR 8
#define GEMM_NR 32
#elif defined(__AVX2__) && defined(__FMA__)
// 6 x 16: 12 ymm accumulators, the classic Haswell-era shape.
#define GEMM_ISA "avx2"
#define GEMM_PATH KERNEL_AVX2
#define GEMM_MR 6
#define GEMM_NR 16
#elif defined(__aarch64__) && defined(__ARM_NEON)
// 8 x 12: 24 of the 32 q registers accumulate, per k 2 loads of A and 3 of B
// for 24 FMAs by lane (gemm_neon.c; the shape BLIS uses on ARMv8).
#define GEMM_ISA "neon"
#define GEMM_PATH KERNEL_PORTABLE  // aarch64 has one path, named portable (kernels/cpu.h)
#define GEMM_MR 8
#define GEMM_NR 12
#else
#define GEMM_ISA "plain-c"
#define GEMM_PATH KERNEL_PORTABLE
#define GEMM_MR 6
#define GEMM_NR 8
#endif

// Blocking, the defaults (the packing buffers hold at least these; the
// blocking in force is chosen per CPU, kernels/blocking.h, in register tiles
// of this path: gemm_mc() / gemm_nc() below). KC * GEMM_NR floats (one B sliver, 32 KB) sit in L1d; GEMM_MC * KC
// (the packed A block, 192 KB) and KC * GEMM_NC (the packed B panel, 512 KB)
// in L2. On the Zen 5 target, KC 128..512, MC 96..768 and NC 256..2048 all
// measured within noise of each other; these keep the per-thread buffers small.
// KC (gemm.h) is part of the result: it fixes where the K sum is cut into blocks.
#ifndef GEMM_MC
#define GEMM_MC (GEMM_MR * 24)  // = kernels/blocking.c's DEFAULT_BLOCKING
#endif
#ifndef GEMM_NC  // at least 256: the bf16 product's panel (gemm_bf16.c) shares the buffer
#define GEMM_NC (GEMM_NR * 16 >= 256 ? GEMM_NR * 16 : 256)
#endif

// The blocking in force for this path (kernels/blocking.h), in rows / columns.
size_t gemm_mc(void);
size_t gemm_nc(void);

// At most this many floats in one packed op(B) panel over all of K (gemm.c's
// K-inner loop order): 4 MiB per thread; a longer K gets fewer columns.
#ifndef GEMM_BK_FLOATS
#define GEMM_BK_FLOATS ((size_t)1 << 20)
#endif

// op(A)[i0 .. i0+mc)[k0 .. k0+kc) -> ap; rows padded with zeros to a multiple of GEMM_MR.
void gemm_pack_a(float *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                 size_t k0, size_t kc);
// op(B)[k0 .. k0+kc)[j0 .. j0+nc) -> bp; columns padded with zeros to a multiple of GEMM_NR.
void gemm_pack_b(float *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                 size_t j0, size_t nc);

// One GEMM_MR x GEMM_NR tile from one A sliver and one B sliver:
//   acc[i][j] = sum over k = 0, 1, ..., kc-1 of ap[k][i] * bp[k][j]
// accumulated in that order from zero (one FMA per step where the ISA has
// FMA), then for i < mr, j < nr:
//   c[i*ldc + j] = alpha*acc + beta*c[i*ldc + j]     (beta == 0: c is not read)
// Full and edge tiles share this arithmetic, so an element's value never
// depends on which tile, block or thread computed it.
void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta);

#if defined(__AVX512F__)
// gemm_micro with op(A) = A read in place (no packing): the tile's row i is
// A[i*lda + k], k < kc; rows i >= mr are not stored. Same arithmetic.
#define GEMM_HAS_MICRO_ROWS 1
void gemm_micro_rows(size_t kc, const float *A, size_t lda, const float *bp, float *c, size_t ldc,
                     size_t mr, size_t nr, float alpha, float beta);
// gemm_micro and gemm_micro_rows with op(B) = B read in place (no packing):
// row k of the tile's B sliver is B[k*ldb + j], j < nr (ldb >= 1); columns
// j >= nr are not read. Same arithmetic.
void gemm_micro_b(size_t kc, const float *ap, const float *B, size_t ldb, float *c, size_t ldc, size_t mr,
                  size_t nr, float alpha, float beta);
void gemm_micro_rows_b(size_t kc, const float *A, size_t lda, const float *B, size_t ldb, float *c, size_t ldc,
                       size_t mr, size_t nr, float alpha, float beta);

// gemm_micro_b with op(A) = A^T read in place (gemm_micro_cols below).
void gemm_micro_cols_b(size_t kc, const float *A, size_t lda, const float *B, size_t ldb, float *c, size_t ldc,
                       size_t mr, size_t nr, float alpha, float beta);
#endif

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
// gemm_micro with op(A) = A^T read in place (no packing): the tile's row i
// at step k is A[k*lda + i], the GEMM_MR contiguous floats a packed sliver
// holds, rows of A lda apart; rows i >= mr are not stored. Same arithmetic.
// Whether dW's dYᵀ is read so or packed: kernels/blocking.h (pack_at).
#define GEMM_HAS_MICRO_COLS 1
void gemm_micro_cols(size_t kc, const float *A, size_t lda, const float *bp, float *c, size_t ldc, size_t mr,
                     size_t nr, float alpha, float beta);

// Products with op(A) = A run their K blocks innermost, so that a block of C
// stays in L2 over all of K (gemm.c: gemm_block_k_inner): AVX-512 reads A in
// place there, AVX2 packs it per K block. Measured on the AVX2 path of the
// Emerald Rapids Xeon (bench --part products): the large model's forward
// products 5-10 % faster, its FFN-down dX (C 12 MiB wide, added into) 2-4 %.
// The other paths keep the GotoBLAS order (not measured there). gemm.c relies
// on the pair: with K-inner, only op(A) = Aᵀ reaches the in-place-or-packed
// choice.
#define GEMM_K_INNER 1
#endif

#if defined(__AVX512F__) || (defined(__aarch64__) && defined(__ARM_NEON))
#define GEMM_HAS_VEC 1
// The M == 1 / N == 1 products whose outputs run along the contiguous
// direction of one operand (op(B) = B with M == 1, op(A) = A^T with N == 1),
// for outputs r in [r0, r1), without packing or wasted tile lanes:
//   per K block [k0, k0 + kb): acc(r) = sum_k x[k*ldx + r] * s[k*incs], k ascending, FMA from 0
//   y[r*incy] = alpha*acc + b*y[r*incy],  b = beta for the first block (0: y not read), else 1
// That is gemm_micro's arithmetic step for step (an FMA's product is
// symmetric), so these outputs are bit-identical to the tiled path's.
void gemm_vec(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x, size_t ldx,
              const float *s, size_t incs, float beta, float *y, size_t incy);
// The other two (op(B) = B^T with M == 1, op(A) = A with N == 1: outputs
// along rows of an operand), same arithmetic, x transposed in registers:
//   acc(r) = sum_k x[r*ldx + k] * s[k*incs]
void gemm_vec_t(size_t r0, size_t r1, size_t K, size_t kb, float alpha, const float *x,
                size_t ldx, const float *s, size_t incs, float beta, float *y, size_t incy);
#endif

// This thread's packing buffers (gemm.c): a holds at least GEMM_MC x GEMM_KC
// floats and gemm_mc() x GEMM_KC, b GEMM_KC x GEMM_NC and GEMM_KC x gemm_nc(),
// both 64-byte aligned; allocated on first use (grown when the blocking
// grows), freed when the thread exits. The bf16 path packs into the same bytes.
typedef struct {
    void *raw;
    float *a;  // (GEMM_MC, GEMM_KC) packed A block
    float *b;  // (GEMM_KC, GEMM_NC) packed B panel
    size_t mc, nc;  // the rows / columns they hold
    void *bk_raw;
    float *bk;      // gemm.c's panels of op(B) over all of K, grown on demand
    size_t bk_cap;  // floats
} PackBufs;
PackBufs *gemm_pack_bufs(void);

// gemm_bf16.c: C[m0..m1, n0..n1) of the bf16 product (gemm.h: gemm_bf16), all
// of K; K > 0. Only called when bf16_cpu_missing() is NULL.
void gemm_block_bf16(const GemmArgs *g, size_t m0, size_t m1, size_t n0, size_t n1);
// Rows (columns) per threading unit of the bf16 product: its tile.
#define GEMM_BF16_MR 8
#define GEMM_BF16_NR 32
