// fastweight_tri.h — the chunk's products with a causal mask: an (L, L)
// operand M that is lower triangular (M_rj = 0 exactly for j > r, as the
// masked A = Φq Φkᵀ ⊙ D and G ⊙ D of fastweight_chunk.c are), times B.
//
//   fw_tri_mul    C (L, n) = M B + beta C     row r needs B's rows 0 .. r
//   fw_tri_mul_t  C (L, n) = Mᵀ B + beta C    row s needs B's rows s .. L-1
//
// Rows go in blocks of FW_TRI_ROWS, each one gemm_serial over only the K
// range its rows need: the terms left out are M's zeros above the diagonal,
// trailing a row's chain (M B) or leading it (Mᵀ B). Every element is then
// the value gemm_serial's full product (K = L) gives, for finite B:
//   - leading: the full chain starts at +0 and adds M_ks B_k = ±0 for each
//     skipped k; +0 + ±0 = +0, so it reaches the first kept term at +0, where
//     the short chain starts;
//   - trailing: the full chain goes on from the short one's value t by t ± 0,
//     which is t for every t but −0 (then +0). A chain of FMAs from +0 ends at
//     −0 only if a term's exact sum underflows below the smallest subnormal
//     with a minus sign: not seen in a run (the same argument as the skipped
//     zero-state products, fastweight_chunk.c).
// gemm cuts K into GEMM_KC blocks counted from the product's first term, so
// moving that first term (leading) would move the cuts: the blocks are used
// only while L <= GEMM_KC (fw_tri_skips); past that both are the full product.
// tests/attention/test_fw_tri.c holds both to gemm_serial's full product bit for bit.
#pragma once
#include <stddef.h>

enum { FW_TRI_ROWS = 8 };

// whether the products skip M's zeros at chunk length L
int fw_tri_skips(size_t L);

// B rows ldb apart, C rows ldc apart; M (L, L) rows L apart
void fw_tri_mul(size_t L, size_t n, const float *M, const float *B, size_t ldb, float beta, float *C,
                size_t ldc);
void fw_tri_mul_t(size_t L, size_t n, const float *M, const float *B, size_t ldb, float beta, float *C,
                  size_t ldc);

// the FLOPs either runs (2 per multiply-add; both run the same count:
// Σ rows·(block end) = Σ rows·(L − block start))
double fw_tri_mul_flops(size_t L, size_t n);
