// test_optimizer.c — adamw_init's spans (train/optimizer.c): the one-dispatch
// AdamW step updates exactly the elements the spans cover, each with its span's
// decay, so the spans must cover every learnable tensor once, with that
// tensor's weight-decay flag, and nothing else (not a frozen tensor, not the
// padding between tensors). Checked element by element against the Param list,
// on models whose tensors alternate between decayed and not, with a frozen θ
// and without one. (A bad merge also moves test_golden's trajectory; this
// names what is wrong.)
#include <stdlib.h>

#include "small_model.h"
#include "test.h"
#include "train/optimizer.h"

enum { V = 11 };

// per element of the parameter block: -1 outside every learnable tensor, else
// the tensor's decay flag; the spans must give the same map
static void check_spans(SmallModel s) {
    Config c;
    small_config(&c, s);
    Model m;
    model_build(&m, &c, V);
    AdamW o;
    adamw_init(&o, &m);
    signed char *want = malloc(m.n_floats), *got = malloc(m.n_floats);
    for (size_t i = 0; i < m.n_floats; i++) want[i] = got[i] = -1;
    int frozen = 0;
    for (size_t p = 0; p < m.n_params; p++) {
        const Param *q = &m.params[p];
        if (!q->t.grad) {
            frozen++;
            continue;
        }
        for (size_t i = 0; i < q->t.n; i++) want[q->offset + i] = (signed char)(q->weight_decay != 0);
    }
    int overlap = 0, outside = 0;
    for (size_t s_ = 0; s_ < o.n_spans; s_++) {
        const AdamSpan *sp = &o.spans[s_];
        if (sp->offset + sp->n > m.n_floats) {
            outside = 1;
            continue;
        }
        for (size_t i = sp->offset; i < sp->offset + sp->n; i++) {
            if (got[i] != -1) overlap = 1;
            got[i] = (signed char)(sp->decay != 0);
        }
    }
    CHECK(!outside);
    CHECK(!overlap);
    size_t mismatch = 0;
    for (size_t i = 0; i < m.n_floats; i++) mismatch += want[i] != got[i];
    if (mismatch) fprintf(stderr, "  %s: %zu elements whose span coverage or decay differs\n", s.kind, mismatch);
    CHECK(mismatch == 0);
    // merging is what makes it one dispatch: fewer spans than learnable tensors
    CHECK(o.n_spans < m.n_params - (size_t)frozen);
    if (s.decay == DECAY_FIXED) CHECK(frozen > 0);  // the case the spans must skip is there
    free(want), free(got);
    adamw_free(&o);
    model_free(&m);
}

static void test_spans_softmax(void) { check_spans((SmallModel){"softmax", .layers = 2, .heads = 2, .d_model = 32}); }
static void test_spans_decay_learned(void) {
    check_spans((SmallModel){"linear_decay", .layers = 2, .heads = 2, .d_model = 32});
}
static void test_spans_decay_frozen(void) {
    check_spans((SmallModel){"linear_decay", .layers = 2, .heads = 2, .d_model = 32, .decay = DECAY_FIXED});
}
static void test_spans_delta_output_norm(void) {
    check_spans((SmallModel){"delta", .layers = 2, .heads = 2, .d_model = 32, .output_norm = 1, .pos = POS_NONE});
}

int main(void) {
    TEST(test_spans_softmax);
    TEST(test_spans_decay_learned);
    TEST(test_spans_decay_frozen);
    TEST(test_spans_delta_output_norm);
    return test_summary();
}
