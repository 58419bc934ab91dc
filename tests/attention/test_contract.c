// test_contract.c — what every registered kind tells the rest of the program
// agrees with itself, for every variant it accepts: the parameters it owns
// (params.h) against the aux layout the attention op and generation use
// (attn_aux), a state that grows with the position has the benchmark's
// shortcut to a far position (state_extend), and a kind with θ and the
// in-place form adds dθ for the sharded backward (add_dtheta).
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "attention/params.h"
#include "test.h"

static void test_owned_params_match_the_aux_layout(void) {
    int kinds = 0;
    for (int ki = 0; attn_kinds[ki]; ki++) {
        const AttnKind *k = attn_kinds[ki];
        kinds++;
        for (int dd = 0; dd < (k->data_decay ? 2 : 1); dd++)
            for (int learned = 0; learned < 2; learned++) {
                AttnConfig c = {.heads = 2, .dh = 8, .data_decay = dd, .decay_learned = learned || dd};
                AttnOwnParam own[ATTN_MAX_OWN];
                size_t n = attn_own_params(k, &c, own), thetas = 0;
                CHECK(n <= ATTN_MAX_OWN);
                CHECK(attn_own_rows(own, n) == attn_aux(k, &c));  // the qkv rows the op scatters
                for (size_t i = 0; i < n; i++) {
                    CHECK(own[i].what != NULL && own[i].name != NULL && own[i].per_head >= 1);
                    if (own[i].place != ATTN_OWN_THETA) continue;
                    thetas++;
                    // the checkpoint's name, trained unless decay = fixed
                    CHECK(strcmp(own[i].name, "attn.theta") == 0 && own[i].per_head == 1);
                    CHECK(own[i].learnable == c.decay_learned);
                }
                CHECK(thetas == (size_t)k->uses_decay);  // forward reads θ exactly when it is owned
            }
    }
    CHECK(kinds >= 4);
}

static void test_growing_state_has_a_far_position_shortcut(void) {
    for (int ki = 0; attn_kinds[ki]; ki++) {
        const AttnKind *k = attn_kinds[ki];
        AttnConfig c = {.heads = 2, .dh = 8};
        int grows = k->state_floats(&c, 1) != k->state_floats(&c, 2);
        CHECK(grows == (k->state_extend != NULL));  // bench's generate part relies on it
        CHECK(grows == (k->state_layout == NULL));  // a cache, not a fast-weight state
    }
}

// The sharded backward (autograd/tape_shards.c) calls backward_io a share of
// sequences at a time with dtheta NULL and adds dθ once through add_dtheta: a
// kind with θ and backward_io but no add_dtheta would lose dθ at 2 threads.
static void test_theta_kinds_add_dtheta(void) {
    for (int ki = 0; attn_kinds[ki]; ki++) {
        const AttnKind *k = attn_kinds[ki];
        if (k->backward_io) CHECK((k->add_dtheta != NULL) == (k->uses_decay != 0));
        else CHECK(k->add_dtheta == NULL);  // nothing calls it
    }
}

int main(void) {
    TEST(test_owned_params_match_the_aux_layout);
    TEST(test_theta_kinds_add_dtheta);
    TEST(test_growing_state_has_a_far_position_shortcut);
    return test_summary();
}
