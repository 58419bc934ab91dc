// test_fw_tri.c — attention/fastweight_tri.h against gemm_serial's full
// product (K = L), bit for bit (memcmp), and its FLOP count against what it
// runs. M is lower triangular with exact +0 above the diagonal (as the masked
// products' operands are); its triangle and B hold values over several
// decades with exact zeros and negative zeros among them, and a row of M all
// zero (relu features: φ(q_r) = 0), so that a dropped or added term, or a
// chain that starts or stops in the wrong place, shows in the last bits or in
// a zero's sign. Chunk lengths around the row blocks (1 .. 17, 31 .. 33, 63,
// 64, 65) and one past gemm's K block (300: the full product), widths 1
// (the ones column), 5, 16, 17, 32, 33, 64, 65; beta 0, 1 and a decay's
// 0.7 over an old C; C's columns past n untouched.
#include <string.h>

#include "attention/fastweight_tri.h"
#include "kernels/gemm.h"
#include "test.h"
#include "util/rng.h"

static float val(Rng *r) {
    double u = rng_f32(r);
    if (u < 0.03) return 0.0f;
    if (u < 0.06) return -0.0f;
    return (float)(rng_normal(r) * pow(10.0, 3.0 * rng_f32(r) - 2.0));
}

static const size_t Ls[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 300};
static const size_t ns[] = {1, 5, 16, 17, 32, 33, 64, 65};
static const float betas[] = {0.0f, 1.0f, 0.7f};
#define COUNT(a) (sizeof a / sizeof a[0])

// one case: both products against the full one; returns 1 if all equal
static int check(Rng *r, size_t L, size_t n, float beta, int transposed) {
    size_t ldb = n + 3, ldc = n + 2;
    float *M = malloc(L * L * sizeof(float)), *B = malloc(L * ldb * sizeof(float));
    float *C0 = malloc(L * ldc * sizeof(float)), *got = malloc(L * ldc * sizeof(float));
    float *want = malloc(L * ldc * sizeof(float));
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < L; j++) M[i * L + j] = j <= i ? val(r) : 0.0f;
    if (L > 2)
        for (size_t j = 0; j < L; j++) M[(L / 2) * L + j] = 0.0f;  // a zero row of M (a zero column of Mᵀ)
    for (size_t i = 0; i < L * ldb; i++) B[i] = val(r);
    for (size_t i = 0; i < L * ldc; i++) C0[i] = val(r);
    memcpy(got, C0, L * ldc * sizeof(float));
    memcpy(want, C0, L * ldc * sizeof(float));
    gemm_serial(transposed, 0, L, n, L, 1.0f, M, L, B, ldb, beta, want, ldc);
    if (transposed)
        fw_tri_mul_t(L, n, M, B, ldb, beta, got, ldc);
    else
        fw_tri_mul(L, n, M, B, ldb, beta, got, ldc);
    int ok = memcmp(got, want, L * ldc * sizeof(float)) == 0;
    if (!ok) fprintf(stderr, "    %s L %zu n %zu beta %g\n", transposed ? "Mᵀ B" : "M B", L, n, (double)beta);
    free(M), free(B), free(C0), free(got), free(want);
    return ok;
}

static void test_tri_matches_full_product(void) {
    Rng r;
    rng_seed(&r, 31);
    for (size_t a = 0; a < COUNT(Ls); a++)
        for (size_t b = 0; b < COUNT(ns); b++)
            for (size_t c = 0; c < COUNT(betas); c++)
                for (int t = 0; t < 2; t++) CHECK(check(&r, Ls[a], ns[b], betas[c], t));
}

// the count: 2 per multiply-add of the blocks that run, the full product's
// past the K block; a block's K is its last row + 1 (M B) or L − its first row (Mᵀ B)
static void test_tri_flops(void) {
    CHECK(fw_tri_skips(64) && fw_tri_skips(GEMM_KC) && !fw_tri_skips(GEMM_KC + 1));
    for (size_t a = 0; a < COUNT(Ls); a++) {
        size_t L = Ls[a];
        double want = 0, want_t = 0;
        for (size_t r0 = 0; r0 < L; r0 += FW_TRI_ROWS) {
            size_t m = L - r0 < FW_TRI_ROWS ? L - r0 : FW_TRI_ROWS;
            want += 2.0 * m * (r0 + m) * 5, want_t += 2.0 * m * (L - r0) * 5;
        }
        if (!fw_tri_skips(L)) want = want_t = 2.0 * L * L * 5;
        CHECK(fw_tri_mul_flops(L, 5) == want);
        CHECK(fw_tri_mul_flops(L, 5) == want_t);
    }
    CHECK(fw_tri_mul_flops(64, 32) == 2.0 * 8 * 288 * 32);  // 8 + 16 + ... + 64: 9/16 of the full 2·64·64·32
}

int main(void) {
    TEST(test_tri_matches_full_product);
    TEST(test_tri_flops);
    return test_summary();
}
