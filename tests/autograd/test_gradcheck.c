// test_gradcheck.c — every op and the whole model of every kind against
// finite differences, and proof that the checker catches a wrong gradient.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "model/model_gradcheck.h"
#include "util/err.h"
#include "util/pool.h"
#include "util/rng.h"

static void test_every_op(void) { CHECK(gradcheck_all(stderr) == 0); }
static void test_whole_model_every_kind(void) { CHECK(model_gradcheck_all(stderr) == 0); }

// A leaf (rows, cols) outside any tape, its values drawn from r, its
// gradient zero; free_leaf releases it.
static Tensor leaf(Rng *r, const char *name, size_t rows, size_t cols) {
    Tensor x = {0};
    x.name = name;
    x.rows = rows;
    x.cols = cols;
    x.n = rows * cols;
    x.data = xcalloc(x.n, sizeof(float));
    x.grad = xcalloc(x.n, sizeof(float));
    for (size_t i = 0; i < x.n; i++) x.data[i] = rng_normal(r);
    return x;
}
static void free_leaf(Tensor *x) {
    free(x->data);
    free(x->grad);
}

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
static const OpDef BAD = {"bad_gelu", bad_fwd, bad_bwd, NULL, NULL, NULL, 0};

static void test_checker_catches_a_wrong_gradient(void) {
    Rng r;
    rng_seed(&r, 1);
    Tensor x = leaf(&r, "x", 4, 5);
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
    free_leaf(&x);
}

// The tape zeroes each activation gradient just before the first node of the
// backward that writes it. Here h feeds gelu (earlier) and the add (later,
// so first in the backward): zeroing at gelu's turn would drop the add's
// part, not zeroing would double it on the second backward. Both backwards
// must give the same bits, and the finite-difference check must pass.
static void test_zeroing_before_first_writer(void) {
    Rng r;
    rng_seed(&r, 3);
    Tensor a = leaf(&r, "a", 3, 4);
    float rr[12], g1[12];
    for (int i = 0; i < 12; i++) rr[i] = rng_normal(&r);
    Tape t;
    tape_init(&t);
    Tensor *h = op_add(&t, "h", &a, &a);
    Tensor *y = op_add(&t, "y", h, op_gelu(&t, "g", h));
    Tensor *loss = op_dot(&t, "dot", y, rr);
    tape_finalize(&t);
    // The gradient block starts as garbage (all NaN: a reused allocation may
    // hold anything, while fresh pages are zero and would hide the bug), so a
    // gradient added to before the tape zeroes it makes this backward NaN.
    memset(t.act_grad, 0xFF, t.act_floats * sizeof(float));
    tape_forward(&t);
    tape_backward(&t, loss);
    memcpy(g1, a.grad, sizeof g1);
    CHECK(tensor_is_finite(g1, 12));
    memset(a.grad, 0, 12 * sizeof(float));
    tape_forward(&t);
    tape_backward(&t, loss);
    CHECK(memcmp(g1, a.grad, sizeof g1) == 0);
    Tensor *leaves[] = {&a};
    CHECK(gradcheck_tape(&t, loss, leaves, 1, 12, 1, 0.0).max_err <= 1.0);
    tape_free(&t);
    free_leaf(&a);
}

// Recording after tape_finalize is refused: finalize sized the zeroing plan
// and the storage by what was recorded then. In a child, whose abort is the
// expected outcome (`what` 0: a node, 1: a tensor).
static int aborts_after_finalize(int what) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        Rng r;
        rng_seed(&r, 4);
        Tensor a = leaf(&r, "a", 2, 2);
        Tape t;
        tape_init(&t);
        Tensor *h = op_add(&t, "h", &a, &a);
        tape_finalize(&t);
        static const OpDef LATE = {"late", NULL, NULL, NULL, NULL, NULL, 0};
        if (what == 0)
            tape_node(&t, &LATE, h);  // (op_add would stop at its tensor first)
        else
            tape_tensor(&t, "late", 2, 2, 1);
        _exit(0);  // recorded: not refused
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 0;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void test_recording_after_finalize_is_refused(void) {
    CHECK(aborts_after_finalize(0));
    CHECK(aborts_after_finalize(1));
}

int main(void) {
    TEST(test_recording_after_finalize_is_refused);
    TEST(test_zeroing_before_first_writer);
    pool_init(2);
    TEST(test_every_op);
    TEST(test_whole_model_every_kind);
    TEST(test_checker_catches_a_wrong_gradient);
    return test_summary();
}
