// test_embed.c — embed_forward/backward: forward vs a plain lookup, central-
// difference gradients of wte and wpe through a double reference (repeated
// tokens, wpe = NULL, NULL gradients), and bit-identical results for 1, 2
// and 3 threads.
#include "kernels/nn.h"
#include "nn_check.h"

typedef struct {
    double *wte, *wpe, *R;  // wpe may be NULL
    const int *tokens;
    size_t B, T, C;
} EmbLoss;

// L = sum over (b, t, c) of (wte[tok] + wpe[t])[c] * R[b, t, c]
static double emb_loss(void *vctx) {
    EmbLoss *k = vctx;
    double L = 0;
    for (size_t bt = 0; bt < k->B * k->T; bt++)
        for (size_t c = 0; c < k->C; c++) {
            double o = k->wte[(size_t)k->tokens[bt] * k->C + c];
            if (k->wpe) o += k->wpe[(bt % k->T) * k->C + c];
            L += o * k->R[bt * k->C + c];
        }
    return L;
}

static void check_shape(size_t B, size_t T, size_t C, size_t V, int use_wpe, uint64_t seed) {
    Rng rng;
    rng_seed(&rng, seed);
    size_t BT = B * T;
    int *tok = xmalloc(BT * sizeof(int));
    // few distinct tokens so most of them repeat: the scatter must accumulate
    for (size_t i = 0; i < BT; i++) tok[i] = (int)rng_below(&rng, V < 4 ? V : 4) * (int)(V / 4 + 1) % (int)V;
    float *wte = xmalloc(V * C * sizeof(float)), *wpe = xmalloc(T * C * sizeof(float)),
          *out = xmalloc(BT * C * sizeof(float)), *R = xmalloc(BT * C * sizeof(float)),
          *dwte = xmalloc(V * C * sizeof(float)), *dwpe = xmalloc(T * C * sizeof(float)),
          *dwte0 = xmalloc(V * C * sizeof(float)), *dwpe0 = xmalloc(T * C * sizeof(float));
    fill_uniform(&rng, wte, V * C, -1, 1);
    fill_uniform(&rng, wpe, T * C, -1, 1);
    fill_uniform(&rng, R, BT * C, -1, 1);
    fill_uniform(&rng, dwte0, V * C, -1, 1);
    fill_uniform(&rng, dwpe0, T * C, -1, 1);

    // forward: one float add per element, so it must be exact
    embed_forward(out, tok, wte, use_wpe ? wpe : NULL, B, T, C);
    int exact = 1;
    for (size_t bt = 0; bt < BT; bt++)
        for (size_t c = 0; c < C; c++) {
            float want = wte[(size_t)tok[bt] * C + c];
            if (use_wpe) want += wpe[(bt % T) * C + c];
            exact &= out[bt * C + c] == want;
        }
    CHECK(exact);

    memcpy(dwte, dwte0, V * C * sizeof(float));
    memcpy(dwpe, dwpe0, T * C * sizeof(float));
    embed_backward(dwte, use_wpe ? dwpe : NULL, R, tok, B, T, C, V);

    double *wted = xmalloc(V * C * sizeof(double)), *wped = xmalloc(T * C * sizeof(double)),
           *Rd = xmalloc(BT * C * sizeof(double)), *g = xmalloc((V + T) * C * sizeof(double));
    to_double(wted, wte, V * C);
    to_double(wped, wpe, T * C);
    to_double(Rd, R, BT * C);
    EmbLoss L = {wted, use_wpe ? wped : NULL, Rd, tok, B, T, C};
    // each gradient is a float sum of <= B*T terms of size <= 1
    double tol = 4e-7 * (double)(BT > 1 ? BT : 1);
    fd_grad(g, wted, V * C, emb_loss, &L);
    CHECK(grad_err(dwte, dwte0, g, V * C, 1.0) <= tol);
    if (use_wpe) {
        fd_grad(g, wped, T * C, emb_loss, &L);
        CHECK(grad_err(dwpe, dwpe0, g, T * C, 1.0) <= tol);
    } else {
        CHECK(memcmp(dwpe, dwpe0, T * C * sizeof(float)) == 0);  // untouched
    }

    // NULL dwte: dwpe alone comes out the same
    if (use_wpe) {
        float *dwpe2 = xmalloc(T * C * sizeof(float));
        memcpy(dwpe2, dwpe0, T * C * sizeof(float));
        embed_backward(NULL, dwpe2, R, tok, B, T, C, V);
        CHECK(memcmp(dwpe2, dwpe, T * C * sizeof(float)) == 0);
        free(dwpe2);
    }
    free(tok), free(wte), free(wpe), free(out), free(R), free(dwte), free(dwpe), free(dwte0);
    free(dwpe0), free(wted), free(wped), free(Rd), free(g);
}

static void test_embed_odd_shapes(void) {
    size_t shapes[][4] = {{1, 1, 1, 1}, {1, 3, 5, 7}, {3, 5, 33, 11}, {2, 17, 17, 5}, {4, 3, 1, 65}};
    uint64_t seed = 11;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int pos = 0; pos <= 1; pos++)
            check_shape(shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], pos, seed++);
}

// A token outside [0, V) is a caller bug; the backward must not write out of
// bounds for it (ASan watches) and must still scatter every valid row.
static void test_embed_backward_skips_bad_tokens(void) {
    int tok[4] = {1, -1, 3, 1};  // 3 is out of range for V = 2
    float dout[4 * 2] = {1, 2, 10, 20, 100, 200, 1000, 2000}, dwte[2 * 2] = {0};
    embed_backward(dwte, NULL, dout, tok, 1, 4, 2, 2);
    CHECK(dwte[0] == 0 && dwte[1] == 0);
    CHECK(dwte[2] == 1001 && dwte[3] == 2002);
}

typedef struct {
    size_t B, T, C, V;
    int *tok;
    float *wte, *wpe, *dout;
} EmbDet;

static void emb_det_run(void *vctx, unsigned char *bytes) {
    EmbDet *k = vctx;
    float *out = (float *)bytes, *dwte = out + k->B * k->T * k->C, *dwpe = dwte + k->V * k->C;
    embed_forward(out, k->tok, k->wte, k->wpe, k->B, k->T, k->C);
    embed_backward(dwte, dwpe, k->dout, k->tok, k->B, k->T, k->C, k->V);
}

// B*T = 7206 rows of C = 56: the forward (12 bytes a float) splits in 3 tasks
// at 3 threads, the backward in 16-channel grains (3 tasks)
static void test_embed_thread_count_invariant(void) {
    EmbDet k = {6, 1201, 56, 65, NULL, NULL, NULL, NULL};
    Rng rng;
    rng_seed(&rng, 21);
    size_t BT = k.B * k.T;
    k.tok = xmalloc(BT * sizeof(int));
    for (size_t i = 0; i < BT; i++) k.tok[i] = (int)rng_below(&rng, k.V);
    k.wte = xmalloc(k.V * k.C * sizeof(float));
    k.wpe = xmalloc(k.T * k.C * sizeof(float));
    k.dout = xmalloc(BT * k.C * sizeof(float));
    fill_uniform(&rng, k.wte, k.V * k.C, -1, 1);
    fill_uniform(&rng, k.wpe, k.T * k.C, -1, 1);
    fill_uniform(&rng, k.dout, BT * k.C, -1, 1);
    size_t nfloats = BT * k.C + k.V * k.C + k.T * k.C;
    CHECK(same_bits_for_1_2_3_threads(emb_det_run, &k, nfloats * sizeof(float), 2));
    free(k.tok), free(k.wte), free(k.wpe), free(k.dout);
}

int main(void) {
    TEST(test_embed_odd_shapes);
    TEST(test_embed_backward_skips_bad_tokens);
    TEST(test_embed_thread_count_invariant);
    pool_shutdown();
    return test_summary();
}
