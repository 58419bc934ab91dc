// gemm_kernels.h — internal to gemm.c: tile sizes, operand packing and the
// register-blocked micro-kernel, one variant per instruction set.
//
// Packed layouts (zero-padded to whole tiles, so the micro-kernel never
// branches on edges while it accumulates):
//   A panel: for each block of GEMM_MR rows of op(A), kc columns stored k-major:
//            ap[p*GEMM_MR*kc + k*GEMM_MR + i] = op(A)[i0 + p*GEMM_MR + i][k0 + k]
//   B panel: for each block of GEMM_NR columns of op(B), kc rows stored k-major:
//            bp[q*GEMM_NR*kc + k*GEMM_NR + j] = op(B)[k0 + k][j0 + q*GEMM_NR + j]
#pragma once
#include <stddef.h>

#if defined(__AVX512F__)
#define GEMM_ISA "avx512"
#ifndef GEMM_MR
#define GEMM_MR 8
#endif
#ifndef GEMM_NR
#define GEMM_NR 32
#endif
#elif defined(__AVX2__) && defined(__FMA__)
#define GEMM_ISA "avx2"
#define GEMM_MR 6
#define GEMM_NR 16
#else
#define GEMM_ISA "plain-c"
#define GEMM_MR 4
#define GEMM_NR 16
#endif

// op(A)[i0 .. i0+mc)[k0 .. k0+kc) -> ap, rows padded with zeros to a multiple of GEMM_MR.
void gemm_pack_a(float *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                 size_t k0, size_t kc);
// op(B)[k0 .. k0+kc)[j0 .. j0+nc) -> bp, columns padded with zeros to a multiple of GEMM_NR.
void gemm_pack_b(float *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                 size_t j0, size_t nc);

// One GEMM_MR x GEMM_NR tile: acc = sum_{k < kc} ap[k][i] * bp[k][j], k ascending,
// one fused multiply-add per step starting from zero; then for i < mr, j < nr:
//   c[i*ldc + j] = alpha*acc + beta*c   (beta == 0: c is not read)
// Every element goes through the same arithmetic whatever tile or thread it
// lands in, which is what makes the threaded gemm bit-reproducible.
void gemm_micro(size_t kc, const float *ap, const float *bp, float *c, size_t ldc, size_t mr,
                size_t nr, float alpha, float beta);
