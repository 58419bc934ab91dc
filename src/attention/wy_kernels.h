// wy_kernels.h — the inner loops of the WY/UT delta form (delta_wy.c) that are
// not matrix products: the two triangular substitutions, the double dot
// products per row, and the dL/db pair updates; and the one product shape of
// its own, the lower triangle of A Bᵀ.
//
// Each is written so that every value it produces is the same chain of float
// (or double) operations, in the same order, as the plain loop it replaced —
// spelled out below and in tests/attention/test_wy_kernels.c, which checks
// them bit for bit against those loops. Only independent chains are
// interleaved (rows side by side, columns in vector lanes), so the speed
// comes from running chains in parallel, never from reassociating one.
#pragma once
#include "attention/attn_kernel_names.h"
#include <stddef.h>

// Forward substitution of (I + A) U = Z, A (L, L) strictly lower (lda = L),
// Z and U (L, d). Row r, column i: u[r][i] starts as z[r][i], then for
// j = 0, 1, ..., r-1:
//   u[r][i] = u[r][i] − (A[r][j] · u[j][i])        (a product, then a difference)
extern void wy_forward_subst(size_t L, size_t d, const float *A, const float *Z, float *U);

// Back substitution of (I + Aᵀ) dZ = dU: for r = L-1 down to 0, dz_r starts as
// du_r, then for j = r+1, ..., L-1:
//   dz[r][i] = dz[r][i] − (A[j][r] · dz[j][i])
extern void wy_back_subst(size_t L, size_t d, const float *A, const float *dU, float *dZ);

// out[r] += Σ_i (double)a[r][i] · b[r][i], i = 0 .. d-1 ascending, one double
// chain per row starting from out[r] (out[r] = 0 gives a plain dot product),
// for rows r < n; a and b rows lie lda and ldb apart.
extern void wy_dotd_rows(size_t n, size_t d, const float *a, size_t lda, const float *b, size_t ldb,
                  double *out);

// The pairs (r, j), j < r < L, of two (L, L) matrices: x_rj = (double)P[r][j] · G[r][j]
// goes to db[r] with + and to db[j] with −. The order of the loop this
// replaces (r ascending, j ascending inside, both updates per pair) per db
// element: db[m] first gains x_m0, x_m1, ..., x_m(m-1) in that order, then
// loses x_(m+1)m, x_(m+2)m, ..., x_(L-1)m in that order.
extern void wy_pairs_db(size_t L, const float *P, const float *G, double *db);

// out[r] = Σ_{j<r} ((double)G[r][j] · D[r][j]) · M[r][j], j ascending from 0
// (the first product exact, the second rounded, then the sum), rows r < L of
// (L, L) matrices side by side.
extern void wy_dbeta_rows(size_t L, const float *G, const float *D, const float *M, double *out);

// C (L, L, row stride L) = alpha · A Bᵀ (A, B: L rows of d, lda and ldb apart)
// where only C's lower triangle (j <= r) is read: row blocks of
// WY_LOWER_ROWS stop at the block's last column, so the tiles wholly above the
// diagonal are not formed (at L = 64 a quarter). Every element it writes is
// gemm_serial's full product's element bit for bit (gemm.h: one chain per
// element whatever the product's shape); the rest of C is left as it was.
enum { WY_LOWER_ROWS = 32 };
extern void wy_gemm_lower(size_t L, size_t d, float alpha, const float *A, size_t lda, const float *B, size_t ldb,
                   float *C);
// its FLOPs (2 per multiply-add it runs)
extern double wy_gemm_lower_flops(size_t L, size_t d);
