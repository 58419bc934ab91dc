// test_grad_store.c — gradients stored by their first writer instead of
// zeroed and added to (tape.h: OpDef.grad_store). The tape's plan: which
// nodes store which inputs' gradients, and that a tensor read twice by one
// node is zeroed as before. The values: a tape that stores against the same
// tape zeroing every gradient (Tape.no_grad_store), every gradient the same
// bits, node by node and sharded over 2 and 3 threads, with the gradient
// buffers filled with NaN first (an element a store missed stays NaN). And
// the two kernels' store forms against their add forms into zeros, signed
// zeros included: 0 + -0 is +0, so a store that writes the product alone
// differs from the add exactly there.
#include <string.h>

#include "../test.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "kernels/bf16.h"
#include "kernels/nn.h"
#include "util/pool.h"
#include "util/rng.h"

enum { SB = 5, ST = 6, C = 8, F = 32, V = 11 };

// The parameters both tapes share: LayerNorms, an MLP (C -> F -> C), a head (V x C)
typedef struct {
    float ln_w[C], ln_b[C], fc[F * C], proj[C * F], head[V * C];
    float g_ln_w[C], g_ln_b[C], g_fc[F * C], g_proj[C * F], g_head[V * C];
    Tensor ln_wt, ln_bt, fct, projt, headt;
} Params;

static void params_init(Params *p) {
    Rng r;
    rng_seed(&r, 11);
    for (size_t i = 0; i < C; i++) p->ln_w[i] = 1.0f + 0.1f * rng_normal(&r), p->ln_b[i] = 0.1f * rng_normal(&r);
    for (size_t i = 0; i < F * C; i++) p->fc[i] = 0.6f * rng_normal(&r);
    for (size_t i = 0; i < C * F; i++) p->proj[i] = 0.3f * rng_normal(&r);
    for (size_t i = 0; i < V * C; i++) p->head[i] = 0.5f * rng_normal(&r);
    // proj's first input column all zero: that column of the GELU output's
    // gradient is +0, and times a negative GELU slope the product is -0
    for (size_t o = 0; o < C; o++) p->proj[o * F] = 0.0f;
    p->ln_wt = (Tensor){p->ln_w, p->g_ln_w, 1, C, C, "ln.w"};
    p->ln_bt = (Tensor){p->ln_b, p->g_ln_b, 1, C, C, "ln.b"};
    p->fct = (Tensor){p->fc, p->g_fc, F, C, F * C, "fc"};
    p->projt = (Tensor){p->proj, p->g_proj, C, F, C * F, "proj"};
    p->headt = (Tensor){p->head, p->g_head, V, C, V * C, "head"};
}

// The nodes of one tape the test looks at
typedef struct {
    Tape t;
    Tensor *x, *h, *fc, *act, *loss;
    size_t n_fc, n_gelu, n_proj, n_head;
} Net;

// x -> LN -> fc -> GELU -> x + proj(.) -> LN -> head -> cross-entropy
static void net_build(Net *n, Params *p, const int *targets, int no_store) {
    Tape *t = &n->t;
    tape_init(t);
    tape_set_batches(t, SB, ST);
    t->no_grad_store = no_store;
    n->x = tape_tensor(t, "x", SB * ST, C, 1);
    n->h = op_layernorm(t, "ln_1", n->x, &p->ln_wt, &p->ln_bt);
    n->fc = op_matmul(t, "fc", n->h, &p->fct);
    n->n_fc = t->n_nodes - 1;
    n->act = op_gelu(t, "gelu", n->fc);
    n->n_gelu = t->n_nodes - 1;
    Tensor *y = op_matmul_residual(t, "proj+residual", n->x, n->act, &p->projt, PRECISION_FP32);
    n->n_proj = t->n_nodes - 1;
    Tensor *logits = op_matmul(t, "head", op_layernorm(t, "ln_f", y, &p->ln_wt, &p->ln_bt), &p->headt);
    n->n_head = t->n_nodes - 1;
    n->loss = op_crossentropy(t, "loss", logits, targets);
    tape_finalize(t);
}

// 1 if x's gradient is zeroed by the tape (it is in a zero list)
static int zeroed(const Tape *t, const Tensor *x) {
    for (size_t z = 0; z < t->zero_start[t->n_nodes + 1]; z++)
        if (t->zero_list[z] == x) return 1;
    return 0;
}

static void test_plan(void) {
    Params p;
    params_init(&p);
    int targets[SB * ST] = {0};
    Net s, z;
    net_build(&s, &p, targets, 0);
    net_build(&z, &p, targets, 1);
    // first writers that store: fc's x (ln_1's output), GELU's x (fc's
    // output), proj's x (GELU's output) and res (x: read by ln_1 too, but
    // proj+residual is its last reader), the head's x (ln_f's output)
    CHECK(s.t.nodes[s.n_fc].grad_store == 1u);
    CHECK(s.t.nodes[s.n_gelu].grad_store == 1u);
    CHECK(s.t.nodes[s.n_proj].grad_store == (1u | 4u));
    CHECK(s.t.nodes[s.n_head].grad_store == 1u);
    CHECK(!zeroed(&s.t, s.h) && !zeroed(&s.t, s.fc) && !zeroed(&s.t, s.act) && !zeroed(&s.t, s.x));
    // LayerNorm does not store: x's other writer adds after proj's store
    CHECK(s.t.nodes[0].grad_store == 0);
    // the same tape told not to store zeroes every one of them
    for (size_t i = 0; i < z.t.n_nodes; i++) CHECK(z.t.nodes[i].grad_store == 0);
    CHECK(zeroed(&z.t, z.h) && zeroed(&z.t, z.fc) && zeroed(&z.t, z.act) && zeroed(&z.t, z.x));
    tape_free(&s.t);
    tape_free(&z.t);
}

// A tensor read twice by one node (here as both the product's input and the
// residual) cannot be stored by it: its two contributions add
static void test_read_twice_is_zeroed(void) {
    Params p;
    params_init(&p);
    float sq[C * C], g_sq[C * C];
    for (size_t i = 0; i < C * C; i++) sq[i] = 0.1f * (float)(i % 7);
    Tensor w = {sq, g_sq, C, C, C * C, "w"};
    Tape t;
    tape_init(&t);
    Tensor *x = tape_tensor(&t, "x", 4, C, 1);
    Tensor *h = op_layernorm(&t, "ln", x, &p.ln_wt, &p.ln_bt);
    Tensor *y = op_matmul_residual(&t, "h + h w^T", h, h, &w, PRECISION_FP32);
    (void)y;
    tape_finalize(&t);
    CHECK(t.nodes[1].grad_store == 0);
    CHECK(zeroed(&t, h));
    tape_free(&t);
}

static void fill_input(Net *n) {
    for (size_t i = 0; i < n->x->n; i++) n->x->data[i] = (float)((i * 37) % 11) - 5.0f + 0.25f * (float)(i % 3);
}

// Every activation gradient and parameter gradient of one forward and
// backward at `threads`, gradient buffers NaN first
static void run(Net *n, Params *p, int threads, float *act_grad, float *grads) {
    pool_init(threads);
    fill_input(n);
    memset(n->t.act_grad, 0xff, n->t.act_floats * sizeof(float));
    memset(p->g_ln_w, 0, sizeof p->g_ln_w), memset(p->g_ln_b, 0, sizeof p->g_ln_b);
    memset(p->g_fc, 0, sizeof p->g_fc), memset(p->g_proj, 0, sizeof p->g_proj), memset(p->g_head, 0, sizeof p->g_head);
    tape_forward(&n->t);
    tape_backward(&n->t, n->loss);
    memcpy(act_grad, n->t.act_grad, n->t.act_floats * sizeof(float));
    float *g = grads;
    memcpy(g, p->g_ln_w, sizeof p->g_ln_w), g += C;
    memcpy(g, p->g_ln_b, sizeof p->g_ln_b), g += C;
    memcpy(g, p->g_fc, sizeof p->g_fc), g += F * C;
    memcpy(g, p->g_proj, sizeof p->g_proj), g += C * F;
    memcpy(g, p->g_head, sizeof p->g_head);
    pool_init(1);
}

static size_t differing(const float *a, const float *b, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return bad;
}

static void test_same_bits_as_zeroing(void) {
    Params p;
    params_init(&p);
    int targets[SB * ST];
    for (size_t i = 0; i < SB * ST; i++) targets[i] = (int)(i * 5 % V);
    Net s, z;
    net_build(&s, &p, targets, 0);
    net_build(&z, &p, targets, 1);
    CHECK(s.t.act_floats == z.t.act_floats);
    enum { NG = 2 * C + F * C + C * F + V * C };
    size_t na = s.t.act_floats;
    float *as = malloc(na * sizeof(float)), *az = malloc(na * sizeof(float)), gs[NG], gz[NG];
    // the -0 case the data was built for: +0 gradients at negative slopes
    run(&z, &p, 1, az, gz);
    size_t neg_slope_zero = 0;
    for (size_t r = 0; r < SB * ST; r++)
        neg_slope_zero += z.act->grad[r * F] == 0.0f && z.fc->data[r * F] < -1.0f;
    CHECK(neg_slope_zero > 0);
    for (int threads = 1; threads <= 3; threads++) {
        run(&s, &p, threads, as, gs);
        run(&z, &p, threads, az, gz);
        size_t bad = differing(as, az, na);
        if (bad) fprintf(stderr, "  %d threads: %zu activation-gradient floats differ\n", threads, bad);
        CHECK(bad == 0);
        CHECK(differing(gs, gz, NG) == 0);
        // every stored gradient written whole (NaN where a store missed)
        const Tensor *stored[] = {s.x, s.h, s.fc, s.act};
        for (size_t k = 0; k < sizeof stored / sizeof *stored; k++) {
            size_t off = (size_t)(stored[k]->grad - s.t.act_grad), nan = 0;
            for (size_t i = 0; i < stored[k]->n; i++) nan += isnan(as[off + i]);
            if (nan) fprintf(stderr, "  %d threads: %s: %zu gradient floats not written\n", threads, stored[k]->name, nan);
            CHECK(nan == 0);
        }
    }
    free(as), free(az);
    tape_free(&s.t);
    tape_free(&z.t);
}

// gelu_backward_store against gelu_backward into zeros, bit for bit: lengths
// past the 16-lane body, ±0 upstream gradients at negative and positive slopes
static void test_gelu_store_bits(void) {
    enum { N = 67 };
    float x[N], dout[N], add[N], store[N];
    for (size_t i = 0; i < N; i++) {
        x[i] = -3.0f + 0.09f * (float)i;                       // slopes of both signs
        dout[i] = i % 4 == 0 ? 0.0f : i % 4 == 1 ? -0.0f : 0.5f - 0.01f * (float)i;
    }
    for (size_t n = 1; n <= N; n += 13) {
        memset(add, 0, sizeof add);
        memset(store, 0xff, sizeof store);
        gelu_backward(add, x, dout, n);
        gelu_backward_store(store, x, dout, n);
        CHECK(memcmp(add, store, n * sizeof(float)) == 0);
        for (size_t i = n; i < N; i++) CHECK(isnan(store[i]));  // nothing past n written
    }
}

// matmul_backward_prec's dinp_store against the add into zeros, bit for bit:
// dout with zero rows and tiny values (bf16's products flush to a signed zero)
static void matmul_store_case(Precision prec) {
    enum { N = 19, CI = 21, OC = 35 };
    static float inp[N * CI], w[OC * CI], dout[N * OC], add[N * CI], store[N * CI];
    Rng r;
    rng_seed(&r, 3);
    for (size_t i = 0; i < N * CI; i++) inp[i] = rng_normal(&r);
    // column 2 of w and row 5 of dout tiny: their products are below the
    // normal range (bf16's instruction flushes each sum to a zero of its
    // sign, -0 here); row 3 of dout all +0
    for (size_t i = 0; i < OC * CI; i++) w[i] = i % CI == 2 ? -1e-20f : rng_normal(&r);
    for (size_t i = 0; i < N * OC; i++) dout[i] = i / OC == 3 ? 0.0f : i / OC == 5 ? 1e-20f : rng_normal(&r);
    memset(add, 0, sizeof add);
    memset(store, 0xff, sizeof store);
    matmul_backward_prec(add, NULL, dout, inp, w, N, CI, OC, prec, 0);
    matmul_backward_prec(store, NULL, dout, inp, w, N, CI, OC, prec, 1);
    CHECK(memcmp(add, store, sizeof add) == 0);
}

static void test_matmul_store_bits(void) {
    matmul_store_case(PRECISION_FP32);
    if (bf16_cpu_missing()) {
        SKIP("avx512_bf16", "bf16 products: %s", bf16_cpu_missing());
        return;
    }
    matmul_store_case(PRECISION_BF16);
}

int main(void) {
    TEST(test_plan);
    TEST(test_read_twice_is_zeroed);
    TEST(test_same_bits_as_zeroing);
    TEST(test_gelu_store_bits);
    TEST(test_matmul_store_bits);
    pool_shutdown();
    return test_summary();
}
