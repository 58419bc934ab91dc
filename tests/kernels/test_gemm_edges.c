// test_gemm_edges.c — gemm_serial on the shapes where a kernel's edges are:
// single tiles of every width and height up to and past every build's
// register tile (plain C 6 x 8, AVX2 6 x 16, NEON 8 x 12, AVX-512 8 x 32 and
// its half-width 16), and the matrix-vector products (M == 1, N == 1: the
// M == 1 / N == 1 kernels where a build has them, generation's matvec_f32
// among their callers) at every output count up to 40 and some past it, for
// every transpose, strided operands and K below, at and past a K block. Each
// element bit for bit against the chain of gemm_kernels.h written out in
// scalar C:
//   per K block of GEMM_KC: acc from 0, acc = fma(a, b, acc) for k ascending
//   (plain C: acc + a*b, two roundings); t = alpha*acc; c = fma(b, c, t)
//   (plain C: t + b*c), b = beta for the first block (0: c not read), 1 after.
// test_gemm.c checks the same chain on products that cross gemm's blocking;
// this one goes through the edges one by one, at sizes small enough to run
// under emulation (qemu-aarch64), and checks that nothing past C's edge is
// written.
#include <stdint.h>
#include <string.h>

#include "kernels/gemm.h"
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
// the running path (LMTRAIN_ISA): plain C accumulates without FMA
static int fused(void) { return strcmp(gemm_isa(), "plain-c") != 0; }

// One element's chain: row i of op(A) at arow (step astep), column j of op(B)
// at bcol (step bstep), old value c.
static float chain(const float *arow, size_t astep, const float *bcol, size_t bstep, size_t K, float alpha,
                   float beta, float c) {
    for (size_t k0 = 0; k0 < K; k0 += GEMM_KC) {
        float acc = 0.0f;
        for (size_t k = k0; k < K && k < k0 + GEMM_KC; k++) {
            float a = arow[k * astep], b = bcol[k * bstep];
            acc = fused() ? fmaf(a, b, acc) : acc + a * b;
        }
        float t = alpha * acc, b = k0 == 0 ? beta : 1.0f;
        c = b == 0.0f ? t : fused() ? fmaf(b, c, t) : t + b * c;
    }
    return c;
}

// C (M x N, ldc = N + 3, one row more) = alpha op(A) op(B) + beta C by
// gemm_serial, every element against the chain, the padding untouched.
static size_t check(int ta, int tb, size_t M, size_t N, size_t K, float beta) {
    size_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
    size_t na = (ta ? K : M) * lda, nb = (tb ? N : K) * ldb, nc = (M + 1) * ldc;
    float *A = malloc(na * sizeof(float)), *B = malloc(nb * sizeof(float));
    float *C0 = malloc(nc * sizeof(float)), *C = malloc(nc * sizeof(float));
    float alpha = 0.7f;
    fill(A, na), fill(B, nb), fill(C0, nc);
    if (beta == 0.0f)  // C is not read: a NaN there must not reach the result
        for (size_t i = 0; i < M; i++) C0[i * ldc + (i % N)] = NAN;
    memcpy(C, C0, nc * sizeof(float));
    gemm_serial(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    size_t bad = 0;
    for (size_t i = 0; i <= M; i++)
        for (size_t j = 0; j < ldc; j++) {
            float want = C0[i * ldc + j];  // past C's edge: untouched
            if (i < M && j < N)
                want = chain(ta ? A + i : A + i * lda, ta ? lda : 1, tb ? B + j * ldb : B + j, tb ? 1 : ldb, K,
                             alpha, beta, want);
            if (memcmp(&want, &C[i * ldc + j], sizeof want) != 0 && bad++ == 0)
                fprintf(stderr, "  %s ta=%d tb=%d M=%zu N=%zu K=%zu beta=%g: C[%zu][%zu] = %.9g, chain %.9g\n",
                        gemm_isa(), ta, tb, M, N, K, beta, i, j, C[i * ldc + j], want);
        }
    free(A), free(B), free(C0), free(C);
    return bad;
}

// One tile at most (M <= 17 rows, N <= 33 columns: every build's tile and
// one more), K of 1, 7 and 131 steps.
static void test_tile_edges(void) {
    static const size_t Ms[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17};
    static const size_t Ns[] = {2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 24, 31, 32, 33};
    static const size_t Ks[] = {1, 7, 131};
    for (int t = 0; t < 4; t++)
        for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
            for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
                for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
                    CHECK(check(t >> 1, t & 1, Ms[mi], Ns[ni], Ks[ki], 0.0f) == 0);
                    CHECK(check(t >> 1, t & 1, Ms[mi], Ns[ni], Ks[ki], -0.3f) == 0);
                }
}

// M == 1 and N == 1: 1 .. 40 outputs, then every 11th to 150 (every vector
// and register-block width of the matrix-vector kernels), K below, at and
// past a K block; every transpose (strided and contiguous operands, strided
// outputs for N == 1).
static void test_matvec_edges(void) {
    static const size_t Ks[] = {1, 3, GEMM_KC, GEMM_KC + 45};
    for (int t = 0; t < 4; t++)
        for (size_t n = 1; n <= 150; n += n < 40 ? 1 : 11)
            for (size_t ki = 0; ki < sizeof Ks / sizeof Ks[0]; ki++) {
                float beta = (n + ki) % 2 ? 0.0f : 0.4f;
                CHECK(check(t >> 1, t & 1, 1, n, Ks[ki], beta) == 0);
                CHECK(check(t >> 1, t & 1, n, 1, Ks[ki], beta) == 0);
            }
}

int main(void) {
    printf("kernel set %s\n", gemm_isa());
    TEST(test_tile_edges);
    TEST(test_matvec_edges);
    return test_summary();
}
