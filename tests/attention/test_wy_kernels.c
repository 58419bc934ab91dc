// test_wy_kernels.c — attention/wy_kernels.h against the plain loops of
// delta_wy.c they replaced, bit for bit (memcmp): the forward and back
// substitutions, the per-row double dot products, the dL/db pair updates and
// the dβ row sums. Chunk lengths around the row blocks (1 .. 9, 16, 17, 63,
// 64) and head sizes around the 16-lane vectors and 64-column strips (1, 3,
// 15, 16, 17, 20, 63, 64, 65, 100, 128, 130); values spread over several
// decades (so that a changed summation order shows in the last bits), with
// exact zeros and negative zeros among them. The substitutions' rows past the
// system and the columns past d stay untouched. wy_gemm_lower: its lower
// triangle against gemm_serial's full product, its upper part untouched.
#include <string.h>

#include "attention/wy_kernels.h"
#include "kernels/gemm.h"
#include "test.h"
#include "util/rng.h"

enum { MAXL = 64, MAXD = 130 };

static float val(Rng *r, double scale) {
    double u = rng_f32(r);
    if (u < 0.03) return 0.0f;
    if (u < 0.06) return -0.0f;
    return (float)(scale * rng_normal(r) * pow(10.0, 3.0 * rng_f32(r) - 2.0));
}
static void fill(float *x, size_t n, Rng *r, double scale) {
    for (size_t i = 0; i < n; i++) x[i] = val(r, scale);
}

// ---- the plain loops (delta_wy.c before wy_kernels.c) ----

static void ref_forward_subst(size_t L, size_t d, const float *A, float *U) {
    for (size_t r = 0; r < L; r++) {
        float *ur = U + r * d;
        for (size_t j = 0; j < r; j++) {
            float c = A[r * L + j];
            const float *uj = U + j * d;
            for (size_t i = 0; i < d; i++) ur[i] -= c * uj[i];
        }
    }
}

static void ref_back_subst(size_t L, size_t d, const float *A, const float *dU, float *dZ) {
    for (size_t r = L; r-- > 0;) {
        float *dzr = dZ + r * d;
        memcpy(dzr, dU + r * d, d * sizeof(float));
        for (size_t j = r + 1; j < L; j++) {
            float c2 = A[j * L + r];
            const float *dzj = dZ + j * d;
            for (size_t i = 0; i < d; i++) dzr[i] -= c2 * dzj[i];
        }
    }
}

static double dotd(const float *a, const float *b, size_t n) {
    double acc = 0;
    for (size_t i = 0; i < n; i++) acc += (double)a[i] * b[i];
    return acc;
}

static void ref_pairs_db(size_t L, const float *P, const float *G, double *db) {
    for (size_t r = 0; r < L; r++)
        for (size_t j = 0; j < r; j++) {
            double x = (double)P[r * L + j] * G[r * L + j];
            db[r] += x;
            db[j] -= x;
        }
}

static void ref_dbeta_rows(size_t L, const float *G, const float *D, const float *M, double *out) {
    for (size_t r = 0; r < L; r++) {
        double dbeta = 0;
        for (size_t j = 0; j < r; j++) dbeta += (double)G[r * L + j] * D[r * L + j] * M[r * L + j];
        out[r] = dbeta;
    }
}

static const size_t Ls[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 63, 64};
static const size_t ds[] = {1, 3, 15, 16, 17, 20, 63, 64, 65, 100, 128, 130};
#define NL (sizeof Ls / sizeof Ls[0])
#define ND (sizeof ds / sizeof ds[0])

static float A[MAXL * MAXL], Z[(MAXL + 1) * MAXD], U0[(MAXL + 1) * MAXD], U1[(MAXL + 1) * MAXD];

static void test_forward_subst(void) {
    Rng r;
    rng_seed(&r, 11);
    for (size_t a = 0; a < NL; a++)
        for (size_t b = 0; b < ND; b++) {
            size_t L = Ls[a], d = ds[b];
            fill(A, L * L, &r, 0.3), fill(Z, (L + 1) * d, &r, 1.0);
            memcpy(U0, Z, sizeof Z);
            fill(U1, (L + 1) * d, &r, 1.0);  // U's old rows < L: overwritten
            memcpy(U1 + L * d, Z + L * d, d * sizeof(float));
            ref_forward_subst(L, d, A, U0);
            wy_forward_subst(L, d, A, Z, U1);
            size_t bytes = (L + 1) * d * sizeof(float);  // the row past the system untouched too
            CHECK(memcmp(U0, U1, bytes) == 0);
            if (memcmp(U0, U1, bytes)) fprintf(stderr, "    L %zu d %zu\n", L, d);
        }
}

static void test_back_subst(void) {
    Rng r;
    rng_seed(&r, 12);
    for (size_t a = 0; a < NL; a++)
        for (size_t b = 0; b < ND; b++) {
            size_t L = Ls[a], d = ds[b];
            fill(A, L * L, &r, 0.3), fill(Z, (L + 1) * d, &r, 1.0);
            fill(U0, (L + 1) * d, &r, 1.0);  // dZ's old contents: overwritten (rows < L only)
            memcpy(U1, U0, sizeof U0);
            ref_back_subst(L, d, A, Z, U0);
            wy_back_subst(L, d, A, Z, U1);
            CHECK(memcmp(U0, U1, sizeof U0) == 0);
            if (memcmp(U0, U1, sizeof U0)) fprintf(stderr, "    L %zu d %zu\n", L, d);
        }
}

static void test_dotd_rows(void) {
    enum { N = 27, LD = 131 };  // 27 rows: three blocks of 8 and a tail of 3
    static float x[N * LD], y[N * LD];
    double o0[N + 1], o1[N + 1];
    Rng r;
    rng_seed(&r, 13);
    for (size_t n = 0; n <= N; n++)
        for (size_t b = 0; b < ND; b++) {
            size_t d = ds[b];
            fill(x, N * LD, &r, 1.0), fill(y, N * LD, &r, 1.0);
            for (size_t i = 0; i <= N; i++) o0[i] = o1[i] = rng_normal(&r);
            for (size_t i = 0; i < n; i++) {
                double s = o0[i];  // the chain continues from out[r]
                for (size_t k = 0; k < d; k++) s += (double)x[i * LD + k] * y[i * LD + 1 + k];
                o0[i] = s;
            }
            wy_dotd_rows(n, d, x, LD, y + 1, LD, o1);
            CHECK(memcmp(o0, o1, sizeof o0) == 0);  // out[n] untouched
            if (n == 5 && d == 64) {  // from zero it is dotd, row by row
                double z[N] = {0};
                wy_dotd_rows(n, d, x, LD, y, LD, z);
                for (size_t i = 0; i < n; i++) CHECK(z[i] == dotd(x + i * LD, y + i * LD, d));
            }
        }
}

static void test_pairs_db_and_dbeta(void) {
    static float P[MAXL * MAXL], G[MAXL * MAXL], D[MAXL * MAXL];
    double db0[MAXL + 1], db1[MAXL + 1], b0[MAXL + 1], b1[MAXL + 1];
    Rng r;
    rng_seed(&r, 14);
    for (size_t L = 1; L <= MAXL; L++) {
        fill(P, L * L, &r, 1.0), fill(G, L * L, &r, 1.0), fill(D, L * L, &r, 1.0);
        for (size_t i = 0; i <= MAXL; i++) db0[i] = db1[i] = rng_normal(&r), b0[i] = b1[i] = 7.0;
        ref_pairs_db(L, P, G, db0);
        wy_pairs_db(L, P, G, db1);
        CHECK(memcmp(db0, db1, sizeof db0) == 0);
        ref_dbeta_rows(L, G, D, P, b0);
        wy_dbeta_rows(L, G, D, P, b1);
        CHECK(memcmp(b0, b1, sizeof b0) == 0);
        if (memcmp(db0, db1, sizeof db0) || memcmp(b0, b1, sizeof b0)) fprintf(stderr, "    L %zu\n", L);
    }
}

static void test_gemm_lower(void) {
    enum { LD = MAXD + 3 };  // rows of A and B further apart than d
    static float A[(MAXL + 1) * LD], B[(MAXL + 1) * LD], full[(MAXL + 1) * (MAXL + 1)], C[(MAXL + 1) * (MAXL + 1)];
    static const size_t Ls[] = {1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65}, ds[] = {1, 3, 16, 17, 64, 130};
    Rng r;
    rng_seed(&r, 15);
    for (size_t li = 0; li < sizeof Ls / sizeof *Ls; li++)
        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
            size_t L = Ls[li], d = ds[di];
            float alpha = li % 2 ? -1.0f : 1.0f;
            fill(A, L * LD, &r, 1.0), fill(B, L * LD, &r, 1.0);
            gemm_serial(0, 1, L, L, d, alpha, A, LD, B, LD, 0.0f, full, L);
            for (size_t i = 0; i < L * L; i++) C[i] = 12345.0f;
            wy_gemm_lower(L, d, alpha, A, LD, B, LD, C);
            int ok = 1, formed = 0;
            for (size_t i = 0; i < L; i++)
                for (size_t j = 0; j < L; j++) {
                    if (j <= i) ok &= memcmp(&C[i * L + j], &full[i * L + j], sizeof(float)) == 0;
                    else if (C[i * L + j] != 12345.0f) formed++;  // a tile that straddles the diagonal
                }
            // what it skipped is exactly what its FLOP count leaves out
            double skipped = 2.0 * d * ((double)L * L - formed - (double)L * (L + 1) / 2);
            ok &= wy_gemm_lower_flops(L, d) == 2.0 * L * L * d - skipped;
            CHECK(ok);
            if (!ok) fprintf(stderr, "    L %zu d %zu\n", L, d);
        }
}

int main(void) {
    TEST(test_gemm_lower);
    TEST(test_forward_subst);
    TEST(test_back_subst);
    TEST(test_dotd_rows);
    TEST(test_pairs_db_and_dbeta);
    return test_summary();
}
