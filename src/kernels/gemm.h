// gemm.h — the one matrix-multiply building block every dense op uses.
//
// Row-major. C (M x N, leading dim ldc) = alpha * op(A) * op(B) + beta * C,
// op(A) is M x K (A stored K x M when transA), op(B) is K x N (B stored N x K
// when transB). beta = 0 means C is not read (may hold garbage / NaN).
// Threaded through the pool; deterministic: each C element is produced by one
// task with a summation order that does not depend on the thread count.
#pragma once
#include "kernels/kernel_names.h"
#include <stddef.h>

// K is summed in blocks of GEMM_KC (each from zero, the blocks' sums then
// added in order): part of every result, so code that must reproduce gemm's
// values bit for bit (kernels/matvec.c) cuts K at the same places.
#ifndef GEMM_KC
#define GEMM_KC 256
#endif

extern void gemm(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
          const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
          size_t ldc);

// The same product with op(A) and op(B) rounded to bf16 (round to nearest
// even, in the packing: no extra pass over memory) and multiplied through the
// AVX-512 BF16 dot product, two products per fp32 lane and instruction,
// accumulated in fp32. Same contract as gemm(): every C element is one fixed
// chain (k pairs ascending per GEMM_KC block, from zero), so the result does
// not depend on the thread count. Only where bf16_cpu_missing() (bf16.h) is
// NULL; a call elsewhere is an internal error.
extern void gemm_bf16(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
               const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
               size_t ldc);

// An element-wise step fused onto a product (kernels/fused.c): fn runs on each
// finished piece of C — rows [i0, i0 + m), columns [j0, j0 + n), at c = C +
// i0*ldc + j0 — right after the piece's last K block is stored, while it is
// still in cache, exactly once per element. Each element then holds gemm()'s
// value bit for bit (the epilogue comes after the chain, never inside it), so
// a fused op computes what the product followed by the separate pass computes.
// fn may rewrite c in place and read or write other arrays at the same (i, j);
// it runs on whichever pool thread owns the piece.
typedef struct GemmEpilogue GemmEpilogue;
struct GemmEpilogue {
    void (*fn)(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n);
    const void *ctx;
};

// gemm() and gemm_bf16() with an epilogue (NULL: none, the plain product).
extern void gemm_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A, size_t lda,
              const float *B, size_t ldb, float beta, float *C, size_t ldc, const GemmEpilogue *epi);
extern void gemm_bf16_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                   size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc,
                   const GemmEpilogue *epi);

// Which kernel set the products run: "avx512", "avx2" or "plain-c" (the
// variant kernels/dispatch.c chose; its tile shape GEMM_MR x GEMM_NR in
// gemm_kernels.h). Tests pick their expectations by it.
extern const char *gemm_isa(void);

// The slow, obviously-right reference (double accumulation, no threads) the
// fast path is tested against.
extern void gemm_ref(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
              size_t ldc);

// Single-threaded fast path, for callers that already parallelise outside
// (e.g. attention kernels running one (batch, head) per task).
extern void gemm_serial(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                 const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                 size_t ldc);
