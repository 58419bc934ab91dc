// test_gemm_epilogue.c — gemm_epi / gemm_bf16_epi (gemm.h): the epilogue runs
// exactly once on every element of C, after the element's last K block, and
// nowhere else. The epilogue under test copies what it is handed into a
// second array and counts each element; afterwards the copy must be the plain
// product's bits (the element was final when the epilogue saw it), every
// count 1, nothing outside the M x N block touched, and C itself the plain
// product's bits (an epilogue that does not write C leaves it alone). Shapes
// reach every loop of gemm.c: row and column blocks (MC, NC) and K blocks (KC)
// crossed, edge tiles, both operand layouts (K-inner, packed-A), B read in
// place (few rows), the matrix-vector shortcuts (M == 1, N == 1), K == 0; at
// 1 and 3 threads (some shapes cut between tasks), fp32 and (where the CPU has
// it) bf16.
#include <stdint.h>
#include <string.h>

#include "kernels/bf16.h"
#include "kernels/gemm.h"
#include "test.h"
#include "util/pool.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static float frand(void) {  // uniform in [-1, 1)
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

typedef struct {
    float *seen;  // (M, ld): what the epilogue was handed
    int *count;   // (M, ld): how often
    const float *C;
    size_t ld, M, N, ldc;
    int bad;  // a call outside C's M x N block, or a c that is not C + i0*ldc + j0
} Spy;

static void spy(const GemmEpilogue *e, float *c, size_t ldc, size_t i0, size_t j0, size_t m, size_t n) {
    Spy *s = (Spy *)e->ctx;
    if (ldc != s->ldc || i0 + m > s->M || j0 + n > s->N || c != s->C + i0 * ldc + j0) {
        s->bad = 1;
        return;
    }
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            s->seen[(i0 + i) * s->ld + j0 + j] = c[i * ldc + j];
            s->count[(i0 + i) * s->ld + j0 + j]++;
        }
}

// 1 if the epilogue saw every element once, final, and C is the plain product
static int one_case(int bf16, int threads, int ta, int tb, size_t M, size_t N, size_t K, float beta) {
    pool_init(threads);
    size_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
    size_t na = (ta ? K : M) * lda + 1, nb = (tb ? N : K) * ldb + 1, nc = M * ldc + 1;
    float *A = malloc(na * sizeof(float)), *B = malloc(nb * sizeof(float));
    float *C0 = malloc(nc * sizeof(float)), *want = malloc(nc * sizeof(float)), *got = malloc(nc * sizeof(float));
    for (size_t i = 0; i < na; i++) A[i] = frand();
    for (size_t i = 0; i < nb; i++) B[i] = frand();
    for (size_t i = 0; i < nc; i++) C0[i] = frand();
    memcpy(want, C0, nc * sizeof(float));
    memcpy(got, C0, nc * sizeof(float));
    if (bf16)
        gemm_bf16(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, beta, want, ldc);
    else
        gemm(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, beta, want, ldc);
    Spy s = {calloc(nc, sizeof(float)), calloc(nc, sizeof(int)), got, ldc, M, N, ldc, 0};
    GemmEpilogue e = {spy, &s};
    if (bf16)
        gemm_bf16_epi(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, beta, got, ldc, &e);
    else
        gemm_epi(ta, tb, M, N, K, 0.7f, A, lda, B, ldb, beta, got, ldc, &e);
    size_t wrong = 0;
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < ldc; j++) {
            size_t x = i * ldc + j;
            int inside = j < N;
            if (memcmp(&got[x], &want[x], sizeof(float)) != 0 || s.count[x] != inside ||
                (inside && memcmp(&s.seen[x], &want[x], sizeof(float)) != 0))
                if (wrong++ == 0)
                    fprintf(stderr, "  %s %d threads ta=%d tb=%d M=%zu N=%zu K=%zu: [%zu][%zu] seen %d times, %.9g; "
                                    "C %.9g, plain product %.9g\n",
                            bf16 ? "bf16" : "fp32", threads, ta, tb, M, N, K, i, j, s.count[x], s.seen[x], got[x],
                            want[x]);
        }
    int ok = wrong == 0 && !s.bad;
    free(A), free(B), free(C0), free(want), free(got), free(s.seen), free(s.count);
    return ok;
}

static void suite(int bf16) {
    if (bf16 && bf16_cpu_missing()) {
        SKIP("avx512_bf16", "%s", bf16_cpu_missing());
        return;
    }
    // (M, N, K, split): MC = 192 rows and NC = 512 columns crossed (apart, and
    // both in one product: 203 x 545), KC = 256 crossed twice, edge tiles
    // everywhere; few rows (B in place); M == 1, N == 1; K == 0. split: the
    // product is over two of gemm's 2 M-FMA tasks, so at 3 threads its rows
    // (M >= N) or columns are cut between tasks, and a task's epilogue must
    // address C from its own first row or column (checked: both products of
    // the case reach the workers).
    static const size_t shp[][4] = {{37, 70, 600, 0},   {203, 45, 300, 0}, {50, 545, 300, 1}, {9, 33, 530, 0},
                                    {1, 40, 600, 0},    {40, 1, 600, 0},   {1, 1, 3, 0},      {13, 20, 0, 0},
                                    {800, 40, 600, 1},  {6000, 1, 1100, 1}, {1, 6000, 1100, 1}, {203, 545, 300, 1}};
    for (int threads = 1; threads <= 3; threads += 2)
        for (int t = 0; t < 4; t++)
            for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++)
                for (int b = 0; b < 2; b++) {
                    pool_profile(1);
                    CHECK(one_case(bf16, threads, t >> 1, t & 1, shp[i][0], shp[i][1], shp[i][2], b ? 1.0f : 0.0f));
                    if (threads == 3 && shp[i][3]) CHECK(pool_dispatches() == 2);
                    pool_profile(0);
                }
    pool_init(1);
}

static void test_fp32(void) { suite(0); }
static void test_bf16(void) { suite(1); }

int main(void) {
    TEST(test_fp32);
    TEST(test_bf16);
    pool_shutdown();
    return test_summary();
}
