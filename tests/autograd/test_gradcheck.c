// test_gradcheck.c — every op and the whole model of every kind against
// finite differences, and proof that the checker catches a wrong gradient.
#include <string.h>

#include "../test.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "model/model_gradcheck.h"
#include "util/err.h"
#include "util/pool.h"
#include "util/rng.h"

static void test_every_op(void) { CHECK(gradcheck_all(stderr) == 0); }
static void test_whole_model_every_kind(void) { CHECK(model_gradcheck_all(stderr) == 0); }

// gelu whose backward is 3 % too large: both checkers must flag it.
static void bad_bwd(Node *n) {
    for (size_t i = 0; i < n->out->n; i++) {
        float x = n->in[0]->data[i];
        float t = tanhf(0.7978845608f * (x + 0.044715f * x * x * x));
        float dt = (1 - t * t) * 0.7978845608f * (1 + 3 * 0.044715f * x * x);
        n->in[0]->grad[i] += 1.03f * n->out->grad[i] * (0.5f * (1 + t) + 0.5f * x * dt);
    }
}
static void bad_fwd(Node *n) {
    for (size_t i = 0; i < n->out->n; i++) {
        float x = n->in[0]->data[i];
        n->out->data[i] = 0.5f * x * (1 + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
}
static const OpDef BAD = {"bad_gelu", bad_fwd, bad_bwd};

static void test_checker_catches_a_wrong_gradient(void) {
    Rng r;
    rng_seed(&r, 1);
    Tensor x = {0};
    x.name = "x";
    x.rows = 4;
    x.cols = 5;
    x.n = 20;
    x.data = xcalloc(20, sizeof(float));
    x.grad = xcalloc(20, sizeof(float));
    for (int i = 0; i < 20; i++) x.data[i] = rng_normal(&r);
    float rr[20];
    for (int i = 0; i < 20; i++) rr[i] = rng_normal(&r);
    Tape t;
    tape_init(&t);
    Tensor *y = tape_tensor(&t, "y", 4, 5, 1);
    tape_node(&t, &BAD, y)->in[0] = &x;
    Tensor *loss = op_dot(&t, "dot", y, rr);
    tape_finalize(&t);
    Tensor *leaves[] = {&x};
    GradcheckStats a = gradcheck_tape(&t, loss, leaves, 1, 20, 1, 0.0);
    GradcheckStats b = gradcheck_directional(&t, loss, leaves, 1, 3, 1);
    CHECK(a.max_err > 1.0);
    CHECK(b.max_err > 1.0);
    tape_free(&t);
    free(x.data);
    free(x.grad);
}

int main(void) {
    pool_init(2);
    TEST(test_every_op);
    TEST(test_whole_model_every_kind);
    TEST(test_checker_catches_a_wrong_gradient);
    return test_summary();
}
