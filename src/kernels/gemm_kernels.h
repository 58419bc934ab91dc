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
#include <stddef.h>

#if defined(__AVX512F__)
// 8 x 32: 16 zmm accumulators, per k 2 loads + 8 broadcasts for 16 FMAs.
// (Measured best on Zen 5 against 12x32, 14x32, 6x64 and 4x64.)
#define GEMM_ISA "avx512"
#define GEMM_MR 8
#define GEMM_NR 32
#elif defined(__AVX2__) && defined(__FMA__)
// 6 x 16: 12 ymm accumulators, the classic Haswell-era shape.
#define GEMM_ISA "avx2"
#define GEMM_MR 6
#define GEMM_NR 16
#else
#define GEMM_ISA "plain-c"
#define GEMM_MR 4
#define GEMM_NR 16
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

// Matrix-vector products (the M == 1 and N == 1 shapes), for r in [r0, r1):
//   y[r*incy] = alpha * sum_k X[r*rs + k*ks] * v[k*incv] + beta * y[r*incy]
// (beta == 0: y is not read). One of rs, ks must be 1; which one selects the
// loop (dot products along k, or 16-wide columns accumulated over k), and each
// output's arithmetic is fixed by (rs, ks, K) alone.
void gemm_gemv(size_t r0, size_t r1, size_t K, float alpha, const float *X, size_t rs, size_t ks,
               const float *v, size_t incv, float beta, float *y, size_t incy);
