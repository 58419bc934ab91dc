// test_gemm.c — gemm_serial and the threaded gemm against gemm_ref, and
// gemm_ref against hand-worked products.
//
// Tolerance. Each C element is a sum of K products accumulated in float (with
// K blocking), scaled by alpha and added to beta*C. The standard worst-case
// bound for such a sum is about (K + 3) * 2^-24 * mag, where
//   mag = |alpha| * sum_k |op(A)[i][k]| |op(B)[k][j]| + |beta| |C0[i][j]|,
// plus half an ulp for rounding the double reference. We check every element
// against (K + 4) * 2^-24 * mag: any indexing, packing or edge mistake is an
// O(mag) error and fails by orders of magnitude.
//
// bf16 (gemm_bf16, the same suites once more with g_bf16 set). The reference
// multiplies op(A) and op(B) rounded to bf16 (bf16_round, round to nearest
// even), in double. Each product of two bf16 values is exact in fp32 (8 x 8
// significant bits), so what remains is fp32 accumulation: per element at most
// K additions (vdpbf16ps adds a pair's two products one at a time), and per K
// block of 256 (nblk of them) the alpha multiply and the beta add, plus half an
// ulp for the double reference's final rounding:
//   |got - ref| <= (K + 2 nblk + 2) 2^-24 mag + K 2^-126,
// mag as above over the rounded operands; the last term covers vdpbf16ps
// flushing denormal results to zero. Rounding differently from the reference
// (truncating, or not rounding at all) is an error near 2^-8 per product,
// ~10^3 times this bound at small K, so the packing's conversion is checked too.
#include <stdint.h>
#include <string.h>

#include "kernels/bf16.h"
#include "kernels/gemm.h"
#include "test.h"
#include "util/pool.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static float frand(void) {  // uniform in [-1, 1)
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static void fill(float *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = frand();
}

// Storage of op(X) (rows x cols): stored transposed when trans.
static size_t stored_rows(int trans, size_t rows, size_t cols) { return trans ? cols : rows; }
static size_t stored_cols(int trans, size_t rows, size_t cols) { return trans ? rows : cols; }

enum { FAST_SERIAL, FAST_THREADED };

// Set while the suites run a second time, on gemm_bf16.
static int g_bf16;

// The product under test: gemm_serial or gemm, or gemm_bf16 for both.
static void fast(int which, int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
                 size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    if (g_bf16)
        gemm_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else if (which == FAST_SERIAL)
        gemm_serial(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// One comparison: buffers with leading dims width + pad and a pointer offset,
// guard values in the padding, and an element-wise bound relative to mag.
// Returns 1 if everything matched.
static int check_case(int which, int ta, int tb, size_t M, size_t N, size_t K, float alpha,
                      float beta, size_t pad, size_t off, int nan_c) {
    size_t ar = stored_rows(ta, M, K), ac = stored_cols(ta, M, K);
    size_t br = stored_rows(tb, K, N), bc = stored_cols(tb, K, N);
    size_t lda = ac + pad, ldb = bc + pad, ldc = N + pad;
    size_t na = off + ar * lda + 1, nb = off + br * ldb + 1, nc = off + M * ldc + 1;
    float *A = malloc(na * sizeof(float)), *B = malloc(nb * sizeof(float));
    float *C = malloc(nc * sizeof(float)), *R = malloc(nc * sizeof(float));
    float *absA = malloc(na * sizeof(float)), *absB = malloc(nb * sizeof(float));
    float *mag = malloc(nc * sizeof(float));
    fill(A, na), fill(B, nb), fill(C, nc);
    if (nan_c)
        for (size_t i = 0; i < nc; i++) C[i] = NAN;
    const float guard = 12345.0f;  // the padding of C must survive untouched
    for (size_t i = 0; i < nc; i++) {
        size_t r = i >= off ? (i - off) / ldc : 0, c = i >= off ? (i - off) % ldc : 0;
        if (i < off || r >= M || c >= N) C[i] = guard;
    }
    memcpy(R, C, nc * sizeof(float));
    // the reference's operands: as given, or rounded to bf16 (the kernel gets them unrounded)
    float *refA = malloc(na * sizeof(float)), *refB = malloc(nb * sizeof(float));
    for (size_t i = 0; i < na; i++) refA[i] = g_bf16 ? bf16_round(A[i]) : A[i];
    for (size_t i = 0; i < nb; i++) refB[i] = g_bf16 ? bf16_round(B[i]) : B[i];
    for (size_t i = 0; i < na; i++) absA[i] = fabsf(refA[i]);
    for (size_t i = 0; i < nb; i++) absB[i] = fabsf(refB[i]);
    for (size_t i = 0; i < nc; i++) mag[i] = nan_c ? 0.0f : fabsf(C[i]);

    gemm_ref(ta, tb, M, N, K, alpha, refA + off, lda, refB + off, ldb, beta, R + off, ldc);
    gemm_ref(ta, tb, M, N, K, fabsf(alpha), absA + off, lda, absB + off, ldb, fabsf(beta),
             mag + off, ldc);
    fast(which, ta, tb, M, N, K, alpha, A + off, lda, B + off, ldb, beta, C + off, ldc);

    int ok = 1;
    size_t nblk = (K + 255) / 256;
    double tol_rel = g_bf16 ? (double)(K + 2 * nblk + 2) * 0x1p-24 : (double)(K + 4) * 0x1p-24;
    double tol_abs = g_bf16 ? (double)K * 0x1p-126 : 0.0;
    for (size_t i = 0; i < nc && ok; i++) {
        size_t r = i >= off ? (i - off) / ldc : 0, c = i >= off ? (i - off) % ldc : 0;
        if (i < off || r >= M || c >= N) {
            if (!(C[i] == guard)) {
                fprintf(stderr, "  padding at %zu overwritten\n", i);
                ok = 0;
            }
            continue;
        }
        double tol = tol_rel * mag[i] + tol_abs + 1e-30;
        if (!(fabs((double)C[i] - (double)R[i]) <= tol)) {
            fprintf(stderr, "  C[%zu][%zu] = %.9g, ref %.9g (tol %.3g)\n", r, c, C[i], R[i], tol);
            ok = 0;
        }
    }
    if (!ok)
        fprintf(stderr, "  case: %s ta=%d tb=%d M=%zu N=%zu K=%zu alpha=%g beta=%g pad=%zu off=%zu nan=%d\n",
                g_bf16 ? "bf16" : which == FAST_SERIAL ? "serial" : "threaded", ta, tb, M, N, K, alpha, beta, pad,
                off, nan_c);
    free(A), free(B), free(C), free(R), free(absA), free(absB), free(mag), free(refA), free(refB);
    return ok;
}

// ---- the reference itself, on a product worked by hand ----
static void test_ref_by_hand(void) {
    // op(A) = [1 2 3; 4 5 6], op(B) = [7 8; 9 10; 11 12] -> [58 64; 139 154]
    const float a[6] = {1, 2, 3, 4, 5, 6}, at[6] = {1, 4, 2, 5, 3, 6};
    const float b[6] = {7, 8, 9, 10, 11, 12}, bt[6] = {7, 9, 11, 8, 10, 12};
    const float want[4] = {58, 64, 139, 154};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            float c[4] = {NAN, NAN, NAN, NAN};
            gemm_ref(ta, tb, 2, 2, 3, 1.0f, ta ? at : a, ta ? 2 : 3, tb ? bt : b, tb ? 3 : 2, 0.0f,
                     c, 2);
            for (int i = 0; i < 4; i++) CHECK(c[i] == want[i]);
            // alpha and beta: 0.5 * AB + 2 * C
            float c2[4] = {1, -1, 2, 0};
            gemm_ref(ta, tb, 2, 2, 3, 0.5f, ta ? at : a, ta ? 2 : 3, tb ? bt : b, tb ? 3 : 2, 2.0f,
                     c2, 2);
            const float want2[4] = {31, 30, 73.5f, 77};
            for (int i = 0; i < 4; i++) CHECK(c2[i] == want2[i]);
        }
}

// ---- every transpose combination on odd shapes ----
static void test_odd_shapes(void) {
    static const size_t sz[] = {1, 2, 3, 7, 16, 17, 33, 64, 129};
    const size_t n = sizeof sz / sizeof sz[0];
    int bad = 0;
    for (int t = 0; t < 4; t++)
        for (size_t im = 0; im < n; im++)
            for (size_t in = 0; in < n; in++)
                for (size_t ik = 0; ik < n; ik++)
                    if (!bad && !check_case(FAST_SERIAL, t >> 1, t & 1, sz[im], sz[in], sz[ik], 1.0f,
                                            0.0f, 0, 0, 0))
                        bad = 1;  // one printed failure is enough
    CHECK(!bad);
}

// ---- shapes crossing every blocking boundary (K blocks, row and column blocks) ----
static void test_block_boundaries(void) {
    // (blocks in gemm.c: K by 256, rows by 192, columns by 512)
    static const size_t shp[][3] = {
        {200, 40, 300}, {9, 600, 100}, {129, 65, 257}, {40, 33, 513}, {5, 2100, 20}};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof shp / sizeof shp[0]; s++) {
            CHECK(check_case(FAST_SERIAL, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2], 1.0f,
                             1.0f, 0, 0, 0));
            CHECK(check_case(FAST_THREADED, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2],
                             -0.5f, 0.25f, 3, 1, 0));
        }
}

// ---- leading dims wider than the matrix, pointers off by one float ----
static void test_unaligned_ld(void) {
    static const size_t shp[][3] = {{17, 33, 7}, {33, 17, 64}, {64, 129, 33}, {3, 2, 129}};
    static const size_t pads[] = {1, 5, 16};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof shp / sizeof shp[0]; s++)
            for (size_t p = 0; p < 3; p++)
                for (size_t off = 0; off < 2; off++)
                    CHECK(check_case(FAST_SERIAL, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2],
                                     1.0f, 0.0f, pads[p], off + p, 0));
}

// ---- alpha and beta ----
static void test_alpha_beta(void) {
    static const float alphas[] = {1.0f, -0.5f, 3.0f, 0.0f};
    static const float betas[] = {0.0f, 1.0f, 0.25f, -2.0f};
    static const size_t shp[][3] = {{7, 17, 33}, {33, 64, 16}, {129, 3, 300}};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < 3; s++)
            for (size_t a = 0; a < 4; a++)
                for (size_t b = 0; b < 4; b++)
                    CHECK(check_case(FAST_SERIAL, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2],
                                     alphas[a], betas[b], 2, 1, 0));
}

// ---- beta = 0 must not read C (NaN there must not leak out) ----
static void test_beta0_ignores_nan(void) {
    static const size_t shp[][3] = {{1, 1, 1}, {17, 33, 7}, {64, 64, 32}, {129, 17, 300}};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < 4; s++) {
            CHECK(check_case(FAST_SERIAL, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2], 1.0f,
                             0.0f, 1, 1, 1));
            CHECK(check_case(FAST_THREADED, t >> 1, t & 1, shp[s][0], shp[s][1], shp[s][2], 2.0f,
                             0.0f, 0, 0, 1));
        }
    // K = 0: C = beta * C, and with beta = 0, zeros even over NaN
    float c[6] = {NAN, NAN, NAN, NAN, NAN, NAN}, d[6] = {1, 2, 3, 4, 5, 6};
    float dummy = 1.0f;
    fast(FAST_SERIAL, 0, 0, 2, 3, 0, 1.0f, &dummy, 1, &dummy, 3, 0.0f, c, 3);
    fast(FAST_THREADED, 1, 1, 2, 3, 0, 1.0f, &dummy, 2, &dummy, 1, 0.5f, d, 3);
    for (int i = 0; i < 6; i++) {
        CHECK(c[i] == 0.0f);
        CHECK(d[i] == 0.5f * (float)(i + 1));
    }
}

// ---- NaN in an operand propagates (no silent masking by the padding) ----
static void test_nan_propagates(void) {
    size_t M = 17, N = 33, K = 20;
    float *A = calloc(M * K, sizeof(float)), *B = calloc(K * N, sizeof(float));
    float *C = calloc(M * N, sizeof(float));
    fill(A, M * K), fill(B, K * N);
    A[5 * K + 3] = NAN;  // row 5 of C must be all NaN, the rest finite
    fast(FAST_SERIAL, 0, 0, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) CHECK(i == 5 ? isnan(C[i * N + j]) : isfinite(C[i * N + j]));
    free(A), free(B), free(C);
}

// ---- an element's value does not depend on the rest of the product ----
// gemm's contract (generate.c relies on it: a one-row projection equals the
// same row of the batched one, bit for bit). Sub-products — single rows,
// single columns, single elements, a block — must reproduce the full
// product's values exactly, with K spanning several K blocks.
static void test_subproduct_bit_identical(void) {
    const size_t M = 37, N = 45, K = 600;
    static const float betas[] = {0.0f, 0.5f};
    for (int t = 0; t < 4; t++)
        for (int bi = 0; bi < 2; bi++) {
            int ta = t >> 1, tb = t & 1;
            float beta = betas[bi];
            size_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
            float *A = malloc((ta ? K : M) * lda * sizeof(float));
            float *B = malloc((tb ? N : K) * ldb * sizeof(float));
            float *C0 = malloc(M * ldc * sizeof(float)), *C = malloc(M * ldc * sizeof(float));
            float *S = malloc(M * ldc * sizeof(float));
            fill(A, (ta ? K : M) * lda), fill(B, (tb ? N : K) * ldb), fill(C0, M * ldc);
            memcpy(C, C0, M * ldc * sizeof(float));
            fast(FAST_SERIAL, ta, tb, M, N, K, 0.75f, A, lda, B, ldb, beta, C, ldc);
            // op(A) rows i0.. start at A + i0*lda (A) or A + i0 (A^T); op(B) columns alike
#define AROW(i) (ta ? A + (i) : A + (i) * lda)
#define BCOL(j) (tb ? B + (j) * ldb : B + (j))
            int same_rows = 1, same_cols = 1, same_elems = 1, same_block = 1;
            for (size_t i = 0; i < M; i += 5) {
                memcpy(S, C0, M * ldc * sizeof(float));
                fast(FAST_SERIAL, ta, tb, 1, N, K, 0.75f, AROW(i), lda, B, ldb, beta, S + i * ldc, ldc);
                same_rows &= memcmp(S + i * ldc, C + i * ldc, N * sizeof(float)) == 0;
            }
            for (size_t j = 0; j < N; j += 7) {
                memcpy(S, C0, M * ldc * sizeof(float));
                fast(FAST_THREADED, ta, tb, M, 1, K, 0.75f, A, lda, BCOL(j), ldb, beta, S + j, ldc);
                for (size_t i = 0; i < M; i++) same_cols &= S[i * ldc + j] == C[i * ldc + j];
            }
            for (size_t e = 0; e < 6; e++) {
                size_t i = (e * 13) % M, j = (e * 29) % N;
                memcpy(S, C0, M * ldc * sizeof(float));
                fast(FAST_SERIAL, ta, tb, 1, 1, K, 0.75f, AROW(i), lda, BCOL(j), ldb, beta,
                     S + i * ldc + j, ldc);
                same_elems &= S[i * ldc + j] == C[i * ldc + j];
            }
            memcpy(S, C0, M * ldc * sizeof(float));
            fast(FAST_SERIAL, ta, tb, 11, 19, K, 0.75f, AROW(3), lda, BCOL(5), ldb, beta,
                 S + 3 * ldc + 5, ldc);
            for (size_t i = 3; i < 14; i++)
                same_block &= memcmp(S + i * ldc + 5, C + i * ldc + 5, 19 * sizeof(float)) == 0;
#undef AROW
#undef BCOL
            CHECK(same_rows);
            CHECK(same_cols);
            CHECK(same_elems);
            CHECK(same_block);
            free(A), free(B), free(C0), free(C), free(S);
        }
}

// ---- B read in place (blocks of few rows) against B packed ----
// A block of at most 64 rows of C reads op(B) = B in place (gemm.c); more rows
// pack it. Both must give the same bits: a 100-row product (packed) against
// its rows computed as blocks of 64 and 36 rows (in place), for odd widths
// (edge tiles of 1..16 and 17..31 columns) and K over several K blocks.
static void test_b_in_place_bit_identical(void) {
    const size_t M = 100, K = 600;
    static const size_t Ns[] = {1, 7, 17, 33, 45, 64};
    for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (int ta = 0; ta < 2; ta++)
            for (int bi = 0; bi < 2; bi++) {
                size_t N = Ns[ni], lda = (ta ? M : K) + 1, ldb = N + 2, ldc = N + 3;
                float beta = bi ? 0.5f : 0.0f;
                float *A = malloc((ta ? K : M) * lda * sizeof(float)), *B = malloc(K * ldb * sizeof(float));
                float *C0 = malloc(M * ldc * sizeof(float)), *C = malloc(M * ldc * sizeof(float));
                float *S = malloc(M * ldc * sizeof(float));
                fill(A, (ta ? K : M) * lda), fill(B, K * ldb), fill(C0, M * ldc);
                memcpy(C, C0, M * ldc * sizeof(float));
                memcpy(S, C0, M * ldc * sizeof(float));
                fast(FAST_SERIAL, ta, 0, M, N, K, 0.75f, A, lda, B, ldb, beta, C, ldc);
                fast(FAST_SERIAL, ta, 0, 64, N, K, 0.75f, A, lda, B, ldb, beta, S, ldc);
                fast(FAST_SERIAL, ta, 0, M - 64, N, K, 0.75f, ta ? A + 64 : A + 64 * lda, lda, B, ldb, beta,
                     S + 64 * ldc, ldc);
                int same = 1;
                for (size_t i = 0; i < M; i++) same &= memcmp(S + i * ldc, C + i * ldc, N * sizeof(float)) == 0;
                if (!same) fprintf(stderr, "  N=%zu transA=%d beta=%g: in place != packed\n", N, ta, beta);
                CHECK(same);
                free(A), free(B), free(C0), free(C), free(S);
            }
}

// ---- bit-identical for 1, 2, 3 threads, and equal to gemm_serial ----
static void test_threads_bit_identical(void) {
    // Row split (M >= N), column split (N > M), K spanning several K blocks,
    // and matrix-vector shapes (N == 1 split by rows, M == 1 by columns).
    // Each is at least 4M multiply-adds, so gemm really splits it (a task
    // gets >= 2M, GEMM_MIN_TASK_FMA in gemm.c).
    static const size_t shp[][3] = {{300, 200, 300}, {40, 700, 300},  {520, 129, 129},
                                    {96, 96, 1000},  {40000, 1, 128}, {1, 40000, 128}};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof shp / sizeof shp[0]; s++) {
            int ta = t >> 1, tb = t & 1;
            size_t M = shp[s][0], N = shp[s][1], K = shp[s][2];
            size_t lda = ta ? M : K, ldb = tb ? K : N;
            float *A = malloc(M * K * sizeof(float)), *B = malloc(K * N * sizeof(float));
            float *C0 = malloc(M * N * sizeof(float)), *C[4];
            fill(A, M * K), fill(B, K * N), fill(C0, M * N);
            for (int v = 0; v < 4; v++) {
                C[v] = malloc(M * N * sizeof(float));
                memcpy(C[v], C0, M * N * sizeof(float));
            }
            fast(FAST_SERIAL, ta, tb, M, N, K, 0.75f, A, lda, B, ldb, 0.5f, C[0], N);
            for (int th = 1; th <= 3; th++) {
                pool_init(th);
                fast(FAST_THREADED, ta, tb, M, N, K, 0.75f, A, lda, B, ldb, 0.5f, C[th], N);
            }
            pool_init(1);
            for (int v = 1; v < 4; v++) CHECK(memcmp(C[0], C[v], M * N * sizeof(float)) == 0);
            free(A), free(B), free(C0);
            for (int v = 0; v < 4; v++) free(C[v]);
        }
    // and the threaded result is right, not just stable
    pool_init(2);
    CHECK(check_case(FAST_THREADED, 0, 1, 300, 200, 300, 1.0f, 0.0f, 0, 0, 0));
    CHECK(check_case(FAST_THREADED, 1, 0, 40, 700, 300, 1.0f, 1.0f, 0, 0, 0));
    pool_init(1);
}

// ---- every element is the frozen chain, bit for bit ----
// What the training figures were measured on (any change flips recall seeds):
// per element, per K block of GEMM_KC steps from k = 0, an accumulator from 0
// over k ascending, acc = fma(a, b, acc) (plain C: acc + a*b, two roundings,
// as C11 does not contract them); then t = alpha*acc and c = fma(b, c, t)
// (plain C: t + b*c), b = beta for the first block (0: c not read, c = t),
// 1 after. Written out here once more, scalar, for every transpose, over
// products that cross every blocking gemm.c does: several K blocks, row
// blocks, column panels (also the narrower panels of a long K), edge tiles
// and half-width ones, B read in place (few rows) and packed. Re-blocking,
// re-packing or re-tiling gemm is free; changing this chain fails here.
static float chain_ref(int fused, const float *arow, size_t astep, const float *bcol, size_t bstep, size_t K,
                       float alpha, float beta, float c) {
    for (size_t k0 = 0; k0 < K; k0 += GEMM_KC) {
        size_t k1 = K - k0 < GEMM_KC ? K : k0 + GEMM_KC;
        float acc = 0.0f;
        for (size_t k = k0; k < k1; k++) {
            float a = arow[k * astep], b = bcol[k * bstep];
            acc = fused ? fmaf(a, b, acc) : acc + a * b;
        }
        float t = alpha * acc, b = k0 == 0 ? beta : 1.0f;
        c = b == 0.0f ? t : fused ? fmaf(b, c, t) : t + b * c;
    }
    return c;
}

static void test_chain_exact(void) {
    int fused = strcmp(gemm_isa(), "plain-c") != 0;
    static const size_t shp[][3] = {{37, 70, 600},   {200, 45, 300}, {50, 600, 300},
                                    {9, 33, 2300},   {9, 520, 2100}, {1, 40, 600}, {40, 1, 600}};
    static const float betas[] = {0.0f, 0.3f};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < sizeof shp / sizeof shp[0]; s++)
            for (int bi = 0; bi < 2; bi++) {
                int ta = t >> 1, tb = t & 1;
                size_t M = shp[s][0], N = shp[s][1], K = shp[s][2];
                size_t lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2, ldc = N + 3;
                float alpha = 0.7f, beta = betas[bi];
                float *A = malloc((ta ? K : M) * lda * sizeof(float));
                float *B = malloc((tb ? N : K) * ldb * sizeof(float));
                float *C0 = malloc(M * ldc * sizeof(float)), *C = malloc(M * ldc * sizeof(float));
                fill(A, (ta ? K : M) * lda), fill(B, (tb ? N : K) * ldb), fill(C0, M * ldc);
                size_t mism = 0;
                for (int which = FAST_SERIAL; which <= FAST_THREADED; which++) {
                    pool_init(which == FAST_THREADED ? 2 : 1);
                    memcpy(C, C0, M * ldc * sizeof(float));
                    fast(which, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
                    for (size_t i = 0; i < M; i++)
                        for (size_t j = 0; j < N; j++) {
                            const float *arow = ta ? A + i : A + i * lda, *bcol = tb ? B + j * ldb : B + j;
                            float want = chain_ref(fused, arow, ta ? lda : 1, bcol, tb ? 1 : ldb, K, alpha, beta,
                                                   C0[i * ldc + j]);
                            if (memcmp(&want, &C[i * ldc + j], sizeof want) != 0 && mism++ == 0)
                                fprintf(stderr, "  %s ta=%d tb=%d M=%zu N=%zu K=%zu beta=%g: C[%zu][%zu] = %.9g, chain %.9g\n",
                                        which == FAST_SERIAL ? "serial" : "threaded", ta, tb, M, N, K, beta, i, j,
                                        C[i * ldc + j], want);
                        }
                }
                pool_init(1);
                CHECK(mism == 0);
                free(A), free(B), free(C0), free(C);
            }
}

// The suites once more on gemm_bf16, where the CPU has AVX-512 BF16.
#define BF16_SUITE(name)                                                                     \
    static void bf16_##name(void) {                                                          \
        if (bf16_cpu_missing()) {                                                            \
            SKIP("avx512_bf16", "%s", bf16_cpu_missing());                                   \
            return;                                                                          \
        }                                                                                    \
        g_bf16 = 1;                                                                          \
        name();                                                                              \
        g_bf16 = 0;                                                                          \
    }
BF16_SUITE(test_odd_shapes)
BF16_SUITE(test_block_boundaries)
BF16_SUITE(test_unaligned_ld)
BF16_SUITE(test_alpha_beta)
BF16_SUITE(test_beta0_ignores_nan)
BF16_SUITE(test_nan_propagates)
BF16_SUITE(test_subproduct_bit_identical)
BF16_SUITE(test_threads_bit_identical)

int main(void) {
    TEST(test_ref_by_hand);
    TEST(test_odd_shapes);
    TEST(test_block_boundaries);
    TEST(test_unaligned_ld);
    TEST(test_alpha_beta);
    TEST(test_beta0_ignores_nan);
    TEST(test_nan_propagates);
    TEST(test_subproduct_bit_identical);
    TEST(test_b_in_place_bit_identical);
    TEST(test_threads_bit_identical);
    TEST(test_chain_exact);
    TEST(bf16_test_odd_shapes);
    TEST(bf16_test_block_boundaries);
    TEST(bf16_test_unaligned_ld);
    TEST(bf16_test_alpha_beta);
    TEST(bf16_test_beta0_ignores_nan);
    TEST(bf16_test_nan_propagates);
    TEST(bf16_test_subproduct_bit_identical);
    TEST(bf16_test_threads_bit_identical);
    pool_shutdown();
    return test_summary();
}
