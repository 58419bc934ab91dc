// test_gemm_micro.c — the build's micro-kernel (gemm_micro over gemm_pack_a /
// gemm_pack_b) and, where it has them, the matrix-vector kernels (gemm_vec,
// gemm_vec_t), called directly, bit for bit against the chain of
// gemm_kernels.h written out in scalar C:
//   per K block: acc from 0, acc = fma(a, b, acc) for k ascending (plain C:
//   acc + a*b, two roundings); t = alpha*acc; c = fma(b, c, t) (plain C:
//   t + b*c), b = beta for the first block (0: c not read), 1 after.
// test_gemm.c checks the same chain through gemm(); here every tile edge
// (each mr <= GEMM_MR with each nr <= GEMM_NR), every vector-width edge of the
// matrix-vector kernels, strides, and that nothing outside the tile or the
// output range is written, at sizes small enough to go through them all.
#include <stdint.h>
#include <string.h>

#include "kernels/gemm_kernels.h"
#include "test.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static float frand(void) {  // uniform in [-1, 1)
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static void fill(float *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = frand();
}

// The one path without FMA: plain C (C11 does not contract a*b + c).
static int fused(void) { return strcmp(GEMM_ISA, "plain-c") != 0; }

static float step(float acc, float a, float b) { return fused() ? fmaf(a, b, acc) : acc + a * b; }

// c after one K block's acc: alpha*acc + b*c, c not read where b is 0
static float finish(float acc, float alpha, float b, float c) {
    float t = alpha * acc;
    return b == 0.0f ? t : fused() ? fmaf(b, c, t) : t + b * c;
}

static int same_bits(float x, float y) { return memcmp(&x, &y, sizeof x) == 0; }

static float *alloc64(size_t n) {  // the packed operands' 64-byte alignment
    return aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
}

// One tile, op(A) (mr x kc) and op(B) (kc x nr) stored with either transpose,
// packed, multiplied into a C with a border of sentinels around the tile.
static size_t check_tile(int ta, int tb, size_t mr, size_t nr, size_t kc, float alpha, float beta) {
    size_t lda = (ta ? mr : kc) + 1, ldb = (tb ? kc : nr) + 2, ldc = nr + 3;
    float *A = malloc((ta ? kc : mr) * lda * sizeof(float)), *B = malloc((tb ? nr : kc) * ldb * sizeof(float));
    float *ap = alloc64(GEMM_MR * (kc ? kc : 1)), *bp = alloc64(GEMM_NR * (kc ? kc : 1));
    float *C0 = malloc((mr + 1) * ldc * sizeof(float)), *C = malloc((mr + 1) * ldc * sizeof(float));
    fill(A, (ta ? kc : mr) * lda), fill(B, (tb ? nr : kc) * ldb), fill(C0, (mr + 1) * ldc);
    if (beta == 0.0f)  // C is not read: a NaN there must not reach the result
        for (size_t i = 0; i < mr; i++) C0[i * ldc] = NAN;
    memcpy(C, C0, (mr + 1) * ldc * sizeof(float));
    gemm_pack_a(ap, ta, A, lda, 0, mr, 0, kc);
    gemm_pack_b(bp, tb, B, ldb, 0, kc, 0, nr);
    gemm_micro(kc, ap, bp, C, ldc, mr, nr, alpha, beta);
    size_t bad = 0;
    for (size_t i = 0; i <= mr; i++)
        for (size_t j = 0; j < ldc; j++) {
            float want = C0[i * ldc + j];  // outside the tile: untouched
            if (i < mr && j < nr) {
                float acc = 0.0f;
                for (size_t k = 0; k < kc; k++)
                    acc = step(acc, ta ? A[k * lda + i] : A[i * lda + k], tb ? B[j * ldb + k] : B[k * ldb + j]);
                want = finish(acc, alpha, beta, C0[i * ldc + j]);
            }
            if (!same_bits(want, C[i * ldc + j]) && bad++ == 0)
                fprintf(stderr, "  %s ta=%d tb=%d mr=%zu nr=%zu kc=%zu beta=%g: C[%zu][%zu] = %.9g, chain %.9g\n",
                        GEMM_ISA, ta, tb, mr, nr, kc, beta, i, j, C[i * ldc + j], want);
        }
    free(A), free(B), free(ap), free(bp), free(C0), free(C);
    return bad;
}

static void test_micro_every_edge(void) {
    static const size_t kcs[] = {1, 2, 7, 64, 131};
    for (int t = 0; t < 4; t++)
        for (size_t mr = 1; mr <= GEMM_MR; mr++)
            for (size_t nr = 1; nr <= GEMM_NR; nr++)
                for (size_t s = 0; s < sizeof kcs / sizeof kcs[0]; s++) {
                    CHECK(check_tile(t >> 1, t & 1, mr, nr, kcs[s], 0.7f, 0.0f) == 0);
                    CHECK(check_tile(t >> 1, t & 1, mr, nr, kcs[s], 0.7f, -0.3f) == 0);
                }
}

#if defined(GEMM_HAS_VEC)
enum { VEC_X_ROWS, VEC_X_COLS };  // gemm_vec: x[k*ldx + r]; gemm_vec_t: x[r*ldx + k]

// y[r*incy] for r in [r0, r1) against the chain; every other y untouched.
static size_t check_vec(int form, size_t r0, size_t r1, size_t K, size_t kb, size_t incs, size_t incy,
                        float beta) {
    size_t R = r1 + 2, ldx = form == VEC_X_ROWS ? R + 1 : K + 3, xn = (form == VEC_X_ROWS ? K : R) * ldx;
    float *x = malloc(xn * sizeof(float)), *s = malloc((K * incs + 1) * sizeof(float));
    float *y0 = malloc(R * incy * sizeof(float)), *y = malloc(R * incy * sizeof(float));
    float alpha = 1.3f;
    fill(x, xn), fill(s, K * incs + 1), fill(y0, R * incy);
    if (beta == 0.0f) y0[r0 * incy] = NAN;  // not read
    memcpy(y, y0, R * incy * sizeof(float));
    if (form == VEC_X_ROWS)
        gemm_vec(r0, r1, K, kb, alpha, x, ldx, s, incs, beta, y, incy);
    else
        gemm_vec_t(r0, r1, K, kb, alpha, x, ldx, s, incs, beta, y, incy);
    size_t bad = 0;
    for (size_t i = 0; i < R * incy; i++) {
        float want = y0[i];
        size_t r = i / incy;
        if (i % incy == 0 && r >= r0 && r < r1)
            for (size_t k0 = 0; k0 < K; k0 += kb) {
                float acc = 0.0f;
                for (size_t k = k0; k < K && k < k0 + kb; k++)
                    acc = step(acc, form == VEC_X_ROWS ? x[k * ldx + r] : x[r * ldx + k], s[k * incs]);
                want = finish(acc, alpha, k0 == 0 ? beta : 1.0f, want);
            }
        if (!same_bits(want, y[i]) && bad++ == 0)
            fprintf(stderr, "  %s %s r0=%zu r1=%zu K=%zu kb=%zu incs=%zu incy=%zu beta=%g: y[%zu] = %.9g, chain %.9g\n",
                    GEMM_ISA, form == VEC_X_ROWS ? "gemm_vec" : "gemm_vec_t", r0, r1, K, kb, incs, incy, beta, i,
                    y[i], want);
    }
    free(x), free(s), free(y0), free(y);
    return bad;
}

// Output counts across every vector and register-block width (1 .. 150 from
// r0 = 0 and 3), K below, at and past a K block (kb), strided s and y.
static void test_vec_every_edge(void) {
    static const size_t Ks[][2] = {{1, GEMM_KC}, {3, GEMM_KC}, {9, 4}, {21, 8}, {300, GEMM_KC}};
    for (int form = VEC_X_ROWS; form <= VEC_X_COLS; form++)
        for (size_t n = 1; n <= 150; n += n < 40 ? 1 : 11)
            for (size_t r0 = 0; r0 <= 3; r0 += 3)
                for (size_t s = 0; s < sizeof Ks / sizeof Ks[0]; s++) {
                    CHECK(check_vec(form, r0, r0 + n, Ks[s][0], Ks[s][1], 1, 1, 0.0f) == 0);
                    CHECK(check_vec(form, r0, r0 + n, Ks[s][0], Ks[s][1], 3, 2, 0.4f) == 0);
                }
}
#endif

int main(void) {
    printf("kernel set %s, %d x %d tiles\n", GEMM_ISA, GEMM_MR, GEMM_NR);
    TEST(test_micro_every_edge);
#if defined(GEMM_HAS_VEC)
    TEST(test_vec_every_edge);
#endif
    return test_summary();
}
