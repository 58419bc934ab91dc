// test_layernorm.c — layernorm_forward/backward against a double reference:
// forward values, central-difference gradients of inp, w and b on odd shapes,
// NULL gradients, and bit-identical results for 1, 2 and 3 threads;
// layernorm_row (generation's one row) bit for bit layernorm_forward at N = 1.
#include "kernels/nn.h"
#include "nn_check.h"

// double reference: out = (x - mean) / sqrt(var + 1e-5) * w + b, biased var
static void ln_ref(double *out, double *mean, double *rstd, const double *x, const double *w,
                   const double *b, size_t N, size_t C) {
    for (size_t r = 0; r < N; r++) {
        const double *xr = x + r * C;
        double m = 0, v = 0;
        for (size_t c = 0; c < C; c++) m += xr[c];
        m /= (double)C;
        for (size_t c = 0; c < C; c++) v += (xr[c] - m) * (xr[c] - m);
        v /= (double)C;
        double s = 1.0 / sqrt(v + 1e-5);
        for (size_t c = 0; c < C; c++) out[r * C + c] = (xr[c] - m) * s * w[c] + b[c];
        if (mean) mean[r] = m;
        if (rstd) rstd[r] = s;
    }
}

typedef struct {
    double *x, *w, *b, *R, *out;
    size_t N, C;
} LnLoss;

// L = sum(out * R), R random: a non-constant scalar reduction
static double ln_loss(void *vctx) {
    LnLoss *k = vctx;
    ln_ref(k->out, NULL, NULL, k->x, k->w, k->b, k->N, k->C);
    double L = 0;
    for (size_t i = 0; i < k->N * k->C; i++) L += k->out[i] * k->R[i];
    return L;
}

// One shape: forward vs reference, then FD gradients. `offset` shifts the
// inputs' mean away from 0 (the case a one-pass variance gets wrong).
static void check_shape(size_t N, size_t C, float offset, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    size_t NC = N * C;
    float *x = xmalloc(NC * sizeof(float)), *w = xmalloc(C * sizeof(float)),
          *b = xmalloc(C * sizeof(float)), *out = xmalloc(NC * sizeof(float)),
          *mean = xmalloc(N * sizeof(float)), *rstd = xmalloc(N * sizeof(float)),
          *R = xmalloc(NC * sizeof(float)), *dx = xmalloc(NC * sizeof(float)),
          *dw = xmalloc(C * sizeof(float)), *db = xmalloc(C * sizeof(float)),
          *dx0 = xmalloc(NC * sizeof(float)), *dw0 = xmalloc(C * sizeof(float)),
          *db0 = xmalloc(C * sizeof(float));
    fill_uniform(&rng, x, NC, offset - 2.0f, offset + 3.0f);
    fill_uniform(&rng, w, C, -1.5f, 1.5f);
    fill_uniform(&rng, b, C, -0.5f, 0.5f);
    fill_uniform(&rng, R, NC, -1.0f, 1.0f);
    fill_uniform(&rng, dx0, NC, -1.0f, 1.0f);
    fill_uniform(&rng, dw0, C, -1.0f, 1.0f);
    fill_uniform(&rng, db0, C, -1.0f, 1.0f);

    double *xd = xmalloc(NC * sizeof(double)), *wd = xmalloc(C * sizeof(double)),
           *bd = xmalloc(C * sizeof(double)), *Rd = xmalloc(NC * sizeof(double)),
           *outd = xmalloc(NC * sizeof(double)), *meand = xmalloc(N * sizeof(double)),
           *rstdd = xmalloc(N * sizeof(double)), *g = xmalloc(NC * sizeof(double));
    to_double(xd, x, NC);
    to_double(wd, w, C);
    to_double(bd, b, C);
    to_double(Rd, R, NC);

    // forward. The float kernel's error is dominated by rounding x - mean:
    // ~eps * |mean| absolute on a unit-scale xhat, so the bound scales with
    // 1 + |offset| * rstd (rstd ~ 0.7 for inputs spread over 5).
    layernorm_forward(out, mean, rstd, x, w, b, N, C);
    ln_ref(outd, meand, rstdd, xd, wd, bd, N, C);
    double scale = 1.0 + fabs(offset);
    double e_out = 0, e_mean = 0, e_rstd = 0;
    for (size_t i = 0; i < NC; i++) e_out = fmax(e_out, fabs(out[i] - outd[i]));
    for (size_t r = 0; r < N; r++) {
        e_mean = fmax(e_mean, fabs(mean[r] - meand[r]) / (fabs(meand[r]) + 1));
        e_rstd = fmax(e_rstd, fabs(rstd[r] - rstdd[r]) / rstdd[r]);
    }
    // |out| <= ~|xhat| |w| + |b| ~ 3: absolute 16 eps * scale is a few ulp of that
    CHECK(e_out <= 16 * FLT_EPSILON * scale);
    CHECK(e_mean <= 8 * FLT_EPSILON);
    CHECK(e_rstd <= 16 * FLT_EPSILON * scale);

    // backward with dout = R, into nonzero gradients (it must ADD)
    memcpy(dx, dx0, NC * sizeof(float));
    memcpy(dw, dw0, C * sizeof(float));
    memcpy(db, db0, C * sizeof(float));
    layernorm_backward(dx, dw, db, R, x, w, mean, rstd, N, C);

    LnLoss L = {xd, wd, bd, Rd, outd, N, C};
    // float sums of <= 128 terms: a few 1e-7 relative; FD itself is ~1e-10
    double tol = 2e-6 * scale;
    fd_grad(g, xd, NC, ln_loss, &L);
    double e = grad_err(dx, dx0, g, NC, 1e-3);
    CHECK(e <= tol);
    fd_grad(g, wd, C, ln_loss, &L);
    double ew = grad_err(dw, dw0, g, C, 1e-3);
    CHECK(ew <= tol);
    fd_grad(g, bd, C, ln_loss, &L);
    double eb = grad_err(db, db0, g, C, 1e-3);
    CHECK(eb <= tol);
    if (t_case_failed)
        fprintf(stderr, "    N=%zu C=%zu offset=%g: out %.3g mean %.3g rstd %.3g dx %.3g dw %.3g db %.3g\n",
                N, C, offset, e_out, e_mean, e_rstd, e, ew, eb);

    // NULL gradients: the others come out the same, bit for bit
    float *dx2 = xmalloc(NC * sizeof(float)), *dw2 = xmalloc(C * sizeof(float));
    memcpy(dx2, dx0, NC * sizeof(float));
    layernorm_backward(dx2, NULL, NULL, R, x, w, mean, rstd, N, C);
    CHECK(memcmp(dx2, dx, NC * sizeof(float)) == 0);
    memcpy(dw2, dw0, C * sizeof(float));
    layernorm_backward(NULL, dw2, NULL, R, x, w, mean, rstd, N, C);
    CHECK(memcmp(dw2, dw, C * sizeof(float)) == 0);

    free(x), free(w), free(b), free(out), free(mean), free(rstd), free(R), free(dx), free(dw);
    free(db), free(dx0), free(dw0), free(db0), free(dx2), free(dw2);
    free(xd), free(wd), free(bd), free(Rd), free(outd), free(meand), free(rstdd), free(g);
}

static void test_layernorm_odd_shapes(void) {
    size_t Ns[] = {1, 3, 17}, Cs[] = {1, 5, 16, 33, 128};
    uint64_t seed = 1;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 5; j++) check_shape(Ns[i], Cs[j], 0.0f, seed++);
}

static void test_layernorm_large_mean(void) {
    check_shape(3, 33, 100.0f, 41);
    check_shape(17, 5, -30.0f, 42);
}

// C = 1: the row is its own mean, so out = b exactly and every gradient
// reaching x is exactly zero (xhat = 0).
static void test_layernorm_single_channel(void) {
    float x[3] = {2.0f, -7.0f, 0.25f}, w[1] = {1.5f}, b[1] = {0.25f}, out[3], mean[3], rstd[3];
    float dout[3] = {1.0f, -2.0f, 3.0f}, dx[3] = {0}, dw[1] = {0}, db[1] = {0};
    layernorm_forward(out, mean, rstd, x, w, b, 3, 1);
    for (int r = 0; r < 3; r++) CHECK(out[r] == 0.25f && mean[r] == x[r]);
    CHECK_NEAR(rstd[0], 1.0 / sqrt(1e-5), 1e-6 * 316.3);
    layernorm_backward(dx, dw, db, dout, x, w, mean, rstd, 3, 1);
    for (int r = 0; r < 3; r++) CHECK(dx[r] == 0.0f);
    CHECK(dw[0] == 0.0f);
    CHECK(db[0] == 2.0f);  // sum of dout
}

typedef struct {
    size_t N, C;
    float *x, *w, *b, *dout;
} LnDet;

static void ln_det_run(void *vctx, unsigned char *bytes) {
    LnDet *k = vctx;
    size_t N = k->N, C = k->C;
    float *o = (float *)bytes;  // out (N*C) mean (N) rstd (N) dx (N*C) dw (C) db (C)
    float *out = o, *mean = out + N * C, *rstd = mean + N, *dx = rstd + N, *dw = dx + N * C,
          *db = dw + C;
    layernorm_forward(out, mean, rstd, k->x, k->w, k->b, N, C);
    layernorm_backward(dx, dw, db, k->dout, k->x, k->w, mean, rstd, N, C);
}

// N = 10007 rows of C = 56: the row passes (8 and 16 bytes a float) split in
// 3 tasks at 3 threads, and so does the channel pass (16-channel grains: each
// channel's column is 80 KB).
static void test_layernorm_thread_count_invariant(void) {
    Rng rng;
    rng_seed(&rng, 7);
    LnDet k = {10007, 56, NULL, NULL, NULL, NULL};
    k.x = xmalloc(k.N * k.C * sizeof(float));
    k.dout = xmalloc(k.N * k.C * sizeof(float));
    k.w = xmalloc(k.C * sizeof(float));
    k.b = xmalloc(k.C * sizeof(float));
    fill_uniform(&rng, k.x, k.N * k.C, -3, 3);
    fill_uniform(&rng, k.dout, k.N * k.C, -1, 1);
    fill_uniform(&rng, k.w, k.C, -1, 1);
    fill_uniform(&rng, k.b, k.C, -1, 1);
    size_t nfloats = 2 * k.N * k.C + 2 * k.N + 2 * k.C;
    CHECK(same_bits_for_1_2_3_threads(ln_det_run, &k, nfloats * sizeof(float), 3));
    free(k.x), free(k.dout), free(k.w), free(k.b);
}

// every C from 1 to 300 (whole vectors, tails, none) and a large mean, with
// random weights and biases: the same bits as layernorm_forward's row
static void test_layernorm_row_bit_identical(void) {
    Rng rng;
    rng_seed(&rng, 11);
    enum { MAXC = 300 };
    static float x[MAXC], w[MAXC], b[MAXC], o0[MAXC + 1], o1[MAXC + 1];
    for (size_t C = 1; C <= MAXC; C++)
        for (int big = 0; big < 2; big++) {
            fill_uniform(&rng, x, C, -3, 3);
            if (big)
                for (size_t c = 0; c < C; c++) x[c] += 1000.0f;
            fill_uniform(&rng, w, C, -1, 1);
            fill_uniform(&rng, b, C, -1, 1);
            o0[C] = o1[C] = 12345.0f;
            layernorm_forward(o0, NULL, NULL, x, w, b, 1, C);
            layernorm_row(o1, x, w, b, C);
            int same = memcmp(o0, o1, (C + 1) * sizeof(float)) == 0;  // and nothing past C written
            if (!same) printf("  layernorm_row C %zu%s differs\n", C, big ? " (mean 1000)" : "");
            CHECK(same);
        }
}

int main(void) {
    TEST(test_layernorm_row_bit_identical);
    TEST(test_layernorm_odd_shapes);
    TEST(test_layernorm_large_mean);
    TEST(test_layernorm_single_channel);
    TEST(test_layernorm_thread_count_invariant);
    pool_shutdown();
    return test_summary();
}
