// fastweight_tri.c — products with a lower-triangular (L, L) operand, row
// block by row block over only the K range the block needs (see the header).
#include "fastweight_tri.h"

#include "kernels/gemm.h"

int fw_tri_skips(size_t L) { return L <= GEMM_KC; }

static size_t block_rows(size_t L, size_t r0) { return L - r0 < FW_TRI_ROWS ? L - r0 : FW_TRI_ROWS; }

void fw_tri_mul(size_t L, size_t n, const float *M, const float *B, size_t ldb, float beta, float *C,
                size_t ldc) {
    if (!fw_tri_skips(L)) {
        gemm_serial(0, 0, L, n, L, 1.0f, M, L, B, ldb, beta, C, ldc);
        return;
    }
    // rows [r0, r0 + m) read M's columns and B's rows [0, r0 + m)
    for (size_t r0 = 0, m; r0 < L; r0 += m) {
        m = block_rows(L, r0);
        gemm_serial(0, 0, m, n, r0 + m, 1.0f, M + r0 * L, L, B, ldb, beta, C + r0 * ldc, ldc);
    }
}

void fw_tri_mul_t(size_t L, size_t n, const float *M, const float *B, size_t ldb, float beta, float *C,
                  size_t ldc) {
    if (!fw_tri_skips(L)) {
        gemm_serial(1, 0, L, n, L, 1.0f, M, L, B, ldb, beta, C, ldc);
        return;
    }
    // rows [r0, r0 + m) of Mᵀ read M's rows and B's rows [r0, L), M's columns [r0, r0 + m)
    for (size_t r0 = 0, m; r0 < L; r0 += m) {
        m = block_rows(L, r0);
        gemm_serial(1, 0, m, n, L - r0, 1.0f, M + r0 * L + r0, L, B + r0 * ldb, ldb, beta, C + r0 * ldc, ldc);
    }
}

double fw_tri_mul_flops(size_t L, size_t n) {
    if (!fw_tri_skips(L)) return 2.0 * (double)L * (double)L * (double)n;
    double f = 0;
    for (size_t r0 = 0, m; r0 < L; r0 += m) {
        m = block_rows(L, r0);
        f += 2.0 * (double)m * (double)(r0 + m) * (double)n;
    }
    return f;
}
