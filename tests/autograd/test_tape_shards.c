// test_tape_shards.c — the sharded forward and backward (tape.h:
// tape_set_batches) against the node-by-node replay: every activation, the
// loss, every activation's and parameter's gradient, the same bits at 2 and
// 3 threads as at 1. Five sequences, so 2 threads split them 2 + 3 and 3
// threads 1 + 2 + 2: shards of unequal size, one starting past sequence 0
// (AttnIO.b0 > 0). Models: every kind with its in-place attention, the key
// shift (its attention node runs on the slab route, which does not shard: the
// sharded forward stops before it, the sharded backward after it), an output
// norm (a LayerNorm per head: model.c's attn.ln_head), bf16 products where the
// CPU has them. Also: which nodes shard, and that each sharded pass wakes the
// pool once.
#include <string.h>

#include "../small_model.h"
#include "../test.h"
#include "kernels/bf16.h"
#include "model/model.h"
#include "util/pool.h"
#include "util/rng.h"

enum { V = 37, B = 5 };

typedef struct {
    const char *name;
    SmallModel s;
    Precision p;
} Case;

// One forward and backward's activations, their gradients, the loss and the
// parameter gradients
typedef struct {
    float *act, *act_grad, *grad;
    double loss;
} Result;

static Result run(Graph *g, Model *m, int threads) {
    pool_init(threads);
    small_batch(g, V, 7);
    // the same graph runs every time: NaN everywhere first, so a row that a
    // run leaves unwritten cannot keep the value an earlier run wrote there
    Tape *t = &g->tape;
    memset(t->act, 0xff, t->act_floats * sizeof(float));
    memset(t->act_grad, 0xff, t->act_floats * sizeof(float));
    memset(t->saved, 0xff, t->saved_floats * sizeof(float));
    Result r;
    r.loss = graph_forward_backward(g, m);
    r.act = malloc(t->act_floats * sizeof(float));
    r.act_grad = malloc(t->act_floats * sizeof(float));
    r.grad = malloc(m->n_floats * sizeof(float));
    memcpy(r.act, t->act, t->act_floats * sizeof(float));
    memcpy(r.act_grad, t->act_grad, t->act_floats * sizeof(float));
    memcpy(r.grad, m->grad, m->n_floats * sizeof(float));
    pool_init(1);
    return r;
}

static void result_free(Result *r) {
    free(r->act);
    free(r->act_grad);
    free(r->grad);
}

// The index of the first attention node, or n_nodes
static size_t first_attention(const Tape *t) {
    for (size_t i = 0; i < t->n_nodes; i++)
        if (strcmp(t->nodes[i].op->name, "attention") == 0) return i;
    return t->n_nodes;
}

// The index of the last attention node (there is one)
static size_t last_attention(const Tape *t) {
    size_t last = 0;
    for (size_t i = 0; i < t->n_nodes; i++)
        if (strcmp(t->nodes[i].op->name, "attention") == 0) last = i;
    return last;
}

// CHECK with the failure's details on stderr
#define CHECK_MSG(cond, ...)                      \
    do {                                          \
        if (!(cond)) fprintf(stderr, __VA_ARGS__); \
        if (!(cond)) fprintf(stderr, "\n");       \
        CHECK(cond);                              \
    } while (0)

static void one_case(const Case *k) {
    Config c;
    small_config(&c, k->s);
    c.batch_size = B;
    Model m;
    model_build(&m, &c, V);
    Graph g;
    graph_build_prec(&g, &m, B, (size_t)c.block_size, k->p);
    const Tape *t = &g.tape;
    // which nodes shard: all but the loss, or (key shift) those before the first attention
    size_t want = k->s.key_shift ? first_attention(t) : t->n_nodes - 1;
    CHECK_MSG(t->shard_nodes == want, "%s: %zu nodes shard, expected %zu of %zu", k->name, t->shard_nodes, want,
          t->n_nodes);
    // backward: all but the embedding (its gradients are all parameters'), or
    // (key shift) those after the last attention
    size_t want_bwd = k->s.key_shift ? last_attention(t) + 1 : 1;
    CHECK_MSG(t->shard_bwd_from == want_bwd, "%s: backward shards from node %zu, expected %zu", k->name,
              t->shard_bwd_from, want_bwd);
    Result one = run(&g, &m, 1);
    for (int threads = 2; threads <= 3; threads++) {
        Result r = run(&g, &m, threads);
        CHECK_MSG(memcmp(&r.loss, &one.loss, sizeof r.loss) == 0, "%s, %d threads: loss %.9g, node by node %.9g",
              k->name, threads, r.loss, one.loss);
        size_t bad = 0, first = 0;
        for (size_t i = 0; i < t->act_floats; i++)
            if (memcmp(&r.act[i], &one.act[i], sizeof(float)) != 0 && !bad++) first = i;
        CHECK_MSG(bad == 0, "%s, %d threads: %zu activation floats differ (the first at %zu)", k->name, threads, bad,
              first);
        bad = 0;
        for (size_t i = 0; i < t->act_floats; i++)
            if (memcmp(&r.act_grad[i], &one.act_grad[i], sizeof(float)) != 0) bad++;
        CHECK_MSG(bad == 0, "%s, %d threads: %zu activation-gradient floats differ", k->name, threads, bad);
        bad = 0;
        for (size_t i = 0; i < m.n_floats; i++)
            if (memcmp(&r.grad[i], &one.grad[i], sizeof(float)) != 0) bad++;
        CHECK_MSG(bad == 0, "%s, %d threads: %zu parameter-gradient floats differ", k->name, threads, bad);
        result_free(&r);
    }
    result_free(&one);
    graph_free(&g);
    model_free(&m);
}

static const Case CASES[] = {
    {"softmax", {"softmax", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9}, PRECISION_FP32},
    {"linear", {"linear", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9, .chunk = 4},
     PRECISION_FP32},
    {"linear_decay data", {"linear_decay", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9, .chunk = 4,
                           .decay = DECAY_DATA}, PRECISION_FP32},
    {"delta", {"delta", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9, .chunk = 4}, PRECISION_FP32},
    {"delta data, no pos", {"delta", .layers = 1, .heads = 4, .d_model = 16, .block_size = 7, .chunk = 3,
                            .pos = POS_NONE, .decay = DECAY_DATA}, PRECISION_FP32},
    {"softmax, key shift", {"softmax", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9, .key_shift = 1},
     PRECISION_FP32},
    {"linear, output norm", {"linear", .layers = 2, .heads = 2, .d_model = 16, .block_size = 9, .output_norm = 1},
     PRECISION_FP32},
};

static void test_same_bits(void) {
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) one_case(&CASES[i]);
}

static void test_same_bits_bf16(void) {
    const char *missing = bf16_cpu_missing();
    if (missing) {
        SKIP("avx512_bf16", "bf16 products: %s", missing);
        return;
    }
    Case k = {"softmax bf16", {"softmax", .layers = 2, .heads = 2, .d_model = 32, .block_size = 9},
              PRECISION_BF16};
    one_case(&k);
    Case d = {"delta bf16", {"delta", .layers = 1, .heads = 2, .d_model = 32, .block_size = 9, .chunk = 4},
              PRECISION_BF16};
    one_case(&d);
}

// a sharded forward is one dispatch, the backward two (rows, then the
// parameters' gradients)
static void test_one_dispatch(void) {
    Config c;
    small_config(&c, (SmallModel){"linear", .layers = 3, .heads = 2, .d_model = 16, .block_size = 9});
    Model m;
    model_build(&m, &c, V);
    Graph g;
    graph_build(&g, &m, B, (size_t)c.block_size);
    small_batch(&g, V, 3);
    pool_init(3);
    pool_profile(1);
    tape_forward(&g.tape);
    unsigned long forward = pool_dispatches();
    pool_profile(1);
    model_zero_grad(&m);
    tape_backward(&g.tape, g.loss);
    unsigned long backward = pool_dispatches();
    pool_profile(0);
    CHECK_MSG(forward == 1, "a sharded forward woke the pool %lu times", forward);
    // the rows, then the parameters' gradients (each node's on one thread)
    CHECK_MSG(backward == 2, "a sharded backward woke the pool %lu times", backward);
    CHECK(g.tape.param_nodes != NULL);
    pool_init(1);
    graph_free(&g);
    model_free(&m);
}

// Two products with one weight, both in the sharded backward: their parts
// of its gradient must add in node order, so the plan runs the parameter
// parts node by node (param_nodes NULL), and every gradient is still the
// same bits as at 1 thread.
static void test_shared_weight(void) {
    enum { SB = 5, ST = 6, C = 8 };
    Rng r;
    rng_seed(&r, 5);
    float w_data[C * C], w_grad[C * C], ln_w[C], ln_b[C], ln_wg[C], ln_bg[C];
    for (size_t i = 0; i < C * C; i++) w_data[i] = 0.3f * rng_normal(&r);
    for (size_t i = 0; i < C; i++) ln_w[i] = 1.0f, ln_b[i] = 0.0f;
    Tensor w = {w_data, w_grad, C, C, C * C, "w"}, lw = {ln_w, ln_wg, 1, C, C, "ln.w"},
           lb = {ln_b, ln_bg, 1, C, C, "ln.b"};
    int targets[SB * ST];
    for (size_t i = 0; i < SB * ST; i++) targets[i] = (int)(i * 5 % C);
    Tape t;
    tape_init(&t);
    tape_set_batches(&t, SB, ST);
    Tensor *x = tape_tensor(&t, "x", SB * ST, C, 1);
    Tensor *h = op_matmul(&t, "a", op_layernorm(&t, "ln", x, &lw, &lb), &w);
    Tensor *loss = op_crossentropy(&t, "loss", op_matmul(&t, "b", op_gelu(&t, "g", h), &w), targets);
    tape_finalize(&t);
    CHECK(t.shard_bwd_from == 0);
    CHECK(t.param_nodes == NULL);
    float first[C * C + 2 * C];
    for (int threads = 1; threads <= 3; threads++) {
        pool_init(threads);
        for (size_t i = 0; i < x->n; i++) x->data[i] = (float)((i * 37) % 11) - 5.0f;
        memset(w_grad, 0, sizeof w_grad);
        memset(ln_wg, 0, sizeof ln_wg);
        memset(ln_bg, 0, sizeof ln_bg);
        tape_forward(&t);
        tape_backward(&t, loss);
        float got[C * C + 2 * C];
        memcpy(got, w_grad, sizeof w_grad);
        memcpy(got + C * C, ln_wg, sizeof ln_wg);
        memcpy(got + C * C + C, ln_bg, sizeof ln_bg);
        if (threads == 1) memcpy(first, got, sizeof got);
        else CHECK_MSG(memcmp(got, first, sizeof got) == 0, "%d threads: the parameters' gradients differ", threads);
    }
    pool_init(1);
    tape_free(&t);
}

int main(void) {
    TEST(test_same_bits);
    TEST(test_same_bits_bf16);
    TEST(test_one_dispatch);
    TEST(test_shared_weight);
    return test_summary();
}
