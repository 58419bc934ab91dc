// test_matvec.c — generation's one-token products (kernels/matvec.h).
//
// fp32: bit for bit the training forward's row (matmul_forward with N = 1), in
// both modes, on shapes spanning several K blocks (K > GEMM_KC), several
// panels and partial vectors. bf16: against an obviously-right reference
// (weights and input rounded to bf16 by a separate, slow rounding, products
// and sum in double) within the bound derived below, for both kernels (the
// vdpbf16ps one where the CPU has it, and plain C).
#include <stdint.h>

#include "kernels/matvec.h"
#include "kernels/nn.h"
#include "nn_check.h"

static const size_t SHAPES[][2] = {{1, 1},   {7, 3},   {128, 384}, {128, 65}, {512, 128},
                                   {600, 530}, {33, 257}, {256, 16}, {257, 17}, {2, 300}};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

static float *packed_f32(const float *w, size_t OC, size_t K) {
    float *p = aligned_alloc(64, (matvec_f32_packed_size(K, OC) * sizeof(float) + 63) / 64 * 64 + 64);
    matvec_f32_pack(p, w, OC, K);
    return p;
}

static void test_f32_matches_matmul_row(void) {
    for (size_t si = 0; si < N_SHAPES; si++) {
        size_t K = SHAPES[si][0], OC = SHAPES[si][1];
        Rng rng;
        rng_seed(&rng, 100 + si);
        float *x = xmalloc(K * sizeof(float)), *w = xmalloc(OC * K * sizeof(float));
        float *a = xmalloc(OC * sizeof(float)), *b = xmalloc(OC * sizeof(float));
        float *r = xmalloc(OC * sizeof(float)), *c = xmalloc(OC * sizeof(float));
        fill_uniform(&rng, x, K, -1, 1);
        fill_uniform(&rng, w, OC * K, -1, 1);
        float *p = packed_f32(w, OC, K);
        for (size_t o = 0; o < OC; o++) a[o] = b[o] = NAN;  // both must overwrite
        matmul_forward(a, x, w, 1, K, OC);
        matvec_f32(b, x, p, K, OC, MATVEC_STORE);
        CHECK(memcmp(a, b, OC * sizeof(float)) == 0);
        // add mode: the residual stream's r + W x, as add_forward(r, r, W x)
        fill_uniform(&rng, r, OC, -4, 4);
        memcpy(c, r, OC * sizeof(float));
        add_forward(r, r, a, OC);
        matvec_f32(c, x, p, K, OC, MATVEC_ADD);
        CHECK(memcmp(r, c, OC * sizeof(float)) == 0);
        free(x), free(w), free(a), free(b), free(r), free(c), free(p);
    }
}

// The reference's rounding, written independently of matvec.c's: the nearest
// bf16 value (the float with the low 16 bits cleared, or the next one up),
// ties to the even one, found by comparing distances in double.
static double bf16_ref(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t lo_bits = u & 0xFFFF0000u, hi_bits = lo_bits + 0x10000u;
    float lo, hi;
    memcpy(&lo, &lo_bits, sizeof lo);
    memcpy(&hi, &hi_bits, sizeof hi);
    double dl = fabs((double)f - lo), dh = fabs((double)hi - f);
    if (dl < dh) return lo;
    if (dh < dl) return hi;
    return (lo_bits >> 16) % 2 == 0 ? lo : hi;
}

// Bound. Each product of two bf16 values (8-bit significands) is exact in
// fp32 and in double, so the only error is the fp32 summation: K additions,
// each rounding by at most a relative 2^-24 of a partial sum, whose size is at
// most S = sum_k |w_k x_k|. So |got - ref| <= K * 2^-24 * S (the usual
// gamma_K bound to first order, whatever the order of the sum, or whether the
// hardware rounds after each product or each pair). Add mode adds one more
// rounding of the final add: 2^-24 |r + ref|.
static void check_bf16(const char *kernel) {
    for (size_t si = 0; si < N_SHAPES; si++) {
        size_t K = SHAPES[si][0], OC = SHAPES[si][1];
        Rng rng;
        rng_seed(&rng, 200 + si);
        float *x = xmalloc(K * sizeof(float)), *w = xmalloc(OC * K * sizeof(float));
        float *y = xmalloc(OC * sizeof(float)), *r = xmalloc(OC * sizeof(float)), *r0 = xmalloc(OC * sizeof(float));
        fill_uniform(&rng, x, K, -2, 2);
        fill_uniform(&rng, w, OC * K, -1, 1);
        fill_uniform(&rng, r0, OC, -4, 4);
        uint16_t *p = aligned_alloc(64, (matvec_bf16_packed_size(K, OC) * 2 + 63) / 64 * 64 + 64);
        uint32_t *scratch = aligned_alloc(64, (matvec_bf16_scratch_size(K) * 4 + 63) / 64 * 64 + 64);
        matvec_bf16_pack(p, w, OC, K);
        for (size_t o = 0; o < OC; o++) y[o] = NAN;
        memcpy(r, r0, OC * sizeof(float));
        matvec_bf16(y, x, p, K, OC, MATVEC_STORE, scratch);
        matvec_bf16(r, x, p, K, OC, MATVEC_ADD, scratch);
        int ok = 1, rounded = 0;
        for (size_t o = 0; o < OC; o++) {
            double ref = 0, S = 0, ref32 = 0;
            for (size_t k = 0; k < K; k++) {
                double t = bf16_ref(w[o * K + k]) * bf16_ref(x[k]);
                ref += t, S += fabs(t);
                ref32 += (double)w[o * K + k] * x[k];
            }
            double bound = (double)K * 0x1p-24 * S;
            ok &= fabs(y[o] - ref) <= bound;
            ok &= fabs(r[o] - (r0[o] + ref)) <= bound + 0x1p-24 * fabs(r0[o] + ref);
            rounded |= ref != ref32;  // the rounding really happened
        }
        if (!ok || !rounded) printf("  bf16 %s, K %zu, OC %zu: outside the bound or not rounded\n", kernel, K, OC);
        CHECK(ok);
        CHECK(rounded || K * OC < 4);
        free(x), free(w), free(y), free(r), free(r0), free(p), free(scratch);
    }
}

static void test_bf16_against_reference(void) {
    printf("  bf16 kernel on this CPU: %s\n", matvec_bf16_kernel());
    check_bf16(matvec_bf16_kernel());
    matvec_bf16_force_plain(1);
    CHECK(strcmp(matvec_bf16_kernel(), "plain-c") == 0);
    check_bf16("plain-c");
    matvec_bf16_force_plain(0);
}

// Exact cases: values whose products and sums are exact in fp32 give the
// same answer from either kernel, and a tie rounds to even (1 + 2^-8 is
// halfway between two bf16 values and rounds down to 1; 1 + 3 * 2^-8 rounds up).
static void test_bf16_exact_and_ties(void) {
    enum { K = 4, OC = 3 };
    float w[OC * K] = {1, 2, 3, 4, 1 + 0x1p-8f, 1 + 3 * 0x1p-8f, 0, 0, -1, 0.5f, 0.25f, -0.125f};
    float x[K] = {1, 1, 2, -1};
    uint16_t *p = aligned_alloc(64, 4096);
    uint32_t *s = aligned_alloc(64, 64);
    matvec_bf16_pack(p, w, OC, K);
    for (int plain = 0; plain < 2; plain++) {
        matvec_bf16_force_plain(plain);
        float y[OC];
        matvec_bf16(y, x, p, K, OC, MATVEC_STORE, s);
        CHECK(y[0] == 1 + 2 + 6 - 4);
        CHECK(y[1] == 1 + (1 + 4 * 0x1p-8f));
        CHECK(y[2] == -1 + 0.5f + 0.5f + 0.125f);
    }
    matvec_bf16_force_plain(0);
    free(p), free(s);
}

// MATVEC_IN_GELU: the product of the rounded GELU of the input, bit for bit
// what gelu_forward followed by matvec_bf16 gives (the same rounded words in
// the same order), from either kernel, in store and add mode, for input
// lengths around the block (MATVEC_BLOCK) and panel widths.
static void test_bf16_gelu_input_is_gelu_then_product(void) {
    for (int plain = 0; plain < 2; plain++) {
        matvec_bf16_force_plain(plain);
        for (size_t si = 0; si < N_SHAPES; si++) {
            size_t K = SHAPES[si][0], OC = SHAPES[si][1];
            Rng rng;
            rng_seed(&rng, 300 + si);
            float *x = xmalloc(K * sizeof(float)), *gx = xmalloc(K * sizeof(float)), *w = xmalloc(OC * K * sizeof(float));
            float *y0 = xmalloc(OC * sizeof(float)), *y1 = xmalloc(OC * sizeof(float));
            fill_uniform(&rng, x, K, -4, 4);
            fill_uniform(&rng, w, OC * K, -1, 1);
            fill_uniform(&rng, y0, OC, -4, 4);
            memcpy(y1, y0, OC * sizeof(float));
            uint16_t *p = aligned_alloc(64, (matvec_bf16_packed_size(K, OC) * 2 + 63) / 64 * 64 + 64);
            uint32_t *scratch = aligned_alloc(64, (matvec_bf16_scratch_size(K) * 4 + 63) / 64 * 64 + 64);
            matvec_bf16_pack(p, w, OC, K);
            gelu_forward(gx, x, K);
            for (int mode = 0; mode < 2; mode++) {
                MatvecMode md = mode ? MATVEC_ADD : MATVEC_STORE;
                matvec_bf16(y0, gx, p, K, OC, md, scratch);
                matvec_bf16_in(y1, x, MATVEC_IN_GELU, p, K, OC, md, scratch);
                int same = memcmp(y0, y1, OC * sizeof(float)) == 0;
                if (!same) printf("  gelu input, %s, K %zu, OC %zu, %s: differs\n", matvec_bf16_kernel(), K, OC, mode ? "add" : "store");
                CHECK(same);
            }
            free(x), free(gx), free(w), free(y0), free(y1), free(p), free(scratch);
        }
    }
    matvec_bf16_force_plain(0);
}

// The bf16 packed copy read back by matvec.h's documented layout, with the
// slow rounding above: panels of MATVEC_PANEL outputs, width = outputs rounded
// up to 16; per pair p of k, per output j, bf16(W[j][2p]) then bf16(W[j][2p+1])
// (the low half of the word first); zero past K and past the panel's outputs.
// Plain code on every CPU: a layout both kernels misread alike (pairs swapped,
// panels transposed) fails here even where only the plain kernel runs.
static void test_bf16_packed_layout(void) {
    for (size_t si = 0; si < N_SHAPES; si++) {
        size_t K = SHAPES[si][0], OC = SHAPES[si][1], kp = (K + 1) / 2;
        Rng rng;
        rng_seed(&rng, 400 + si);
        float *w = xmalloc(OC * K * sizeof(float));
        fill_uniform(&rng, w, OC * K, -3, 3);
        size_t total = matvec_bf16_packed_size(K, OC);
        uint16_t *p = aligned_alloc(64, (total * 2 + 63) / 64 * 64 + 64);
        memset(p, 0xA5, total * 2);  // every value must be written
        matvec_bf16_pack(p, w, OC, K);
        size_t at = 0, bad = 0;
        for (size_t r0 = 0; r0 < OC; r0 += MATVEC_PANEL) {
            size_t n = OC - r0 < MATVEC_PANEL ? OC - r0 : MATVEC_PANEL, width = (n + 15) / 16 * 16;
            for (size_t q = 0; q < kp; q++)
                for (size_t j = 0; j < width; j++)
                    for (size_t h = 0; h < 2; h++, at++) {
                        size_t k = 2 * q + h;
                        float want = j < n && k < K ? bf16_ref(w[(r0 + j) * K + k]) : 0.0f;
                        uint32_t bits = (uint32_t)p[at] << 16;
                        float got;
                        memcpy(&got, &bits, 4);
                        bad += got != want;
                    }
        }
        CHECK(at == total && bad == 0);
        if (bad) printf("  K %zu, OC %zu: %zu packed values out of place or misrounded\n", K, OC, bad);
        free(w), free(p);
    }
}

int main(void) {
    TEST(test_f32_matches_matmul_row);
    TEST(test_bf16_packed_layout);
    TEST(test_bf16_against_reference);
    TEST(test_bf16_exact_and_ties);
    TEST(test_bf16_gelu_input_is_gelu_then_product);
    pool_shutdown();
    return test_summary();
}
