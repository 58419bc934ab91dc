// test_estimate.c — the memory estimate the trainer checks before touching a
// run folder (train.c check_memory) must bound what a training step really
// uses: the model, AdamW, the graph with its activations, and each attention
// kind's own work buffer (softmax: B*H*T*T probabilities; fast-weight kinds:
// per-chunk states). Measured as the growth of the resident set from before
// model_build to after one forward and backward pass (every page touched).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "small_model.h"
#include "test.h"
#include "train/optimizer.h"
#include "util/pool.h"

// Resident bytes of this process (/proc/self/statm, field 2), 0 if unknown.
static double resident_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    long size = 0, res = 0;
    int n = fscanf(f, "%ld %ld", &size, &res);
    fclose(f);
    return n == 2 ? (double)res * (double)sysconf(_SC_PAGESIZE) : 0;
}

typedef struct {
    const char *kind;
    int layers, heads, d_model, block, batch, chunk;
    DecayMode decay;  // learned unless given (the gated kinds also take data)
} Shape;

static void check_shape(const Shape *s) {
    Config c;
    small_config(&c, (SmallModel){s->kind, s->layers, s->heads, s->d_model, s->block, s->batch, s->chunk,
                                  .decay = s->decay});
    const size_t V = 65;
    double before = resident_bytes();
    Model m;
    model_build(&m, &c, V);
    CHECK(!strcmp(m.kind->name, s->kind) && (m.acfg.data_decay != 0) == (s->decay == DECAY_DATA));
    AdamW o;
    adamw_init(&o, &m);
    Graph g;
    graph_build(&g, &m, (size_t)s->batch, (size_t)s->block);
    for (size_t i = 0; i < (size_t)s->batch * (size_t)s->block; i++) {
        g.tokens[i] = (int)(i % V);
        g.targets[i] = (int)((i * 7 + 1) % V);
    }
    graph_forward_backward(&g, &m);
    double used = resident_bytes() - before;
    double est = (double)model_estimate_bytes(&c, V, (size_t)s->batch, (size_t)s->block);
    if (!(est >= used))
        fprintf(stderr, "  %s L%d H%d C%d T%d B%d decay %d: estimate %.1f MiB < measured %.1f MiB\n", s->kind,
                s->layers, s->heads, s->d_model, s->block, s->batch, (int)s->decay, est / 1048576, used / 1048576);
    CHECK(before > 0);
    CHECK(est >= used);
    graph_free(&g);
    adamw_free(&o);
    model_free(&m);
}

// Shapes where the attention work buffer is the largest single allocation:
// long blocks for softmax (T^2), short chunks for the fast-weight kinds; and
// the variants that change it: decay = data (a gate row per head, λ_t and
// its gradient per slab), delta's WY form (head size 64).
static void test_estimate_bounds_a_real_step(void) {
    const Shape shapes[] = {
        {"softmax", 1, 8, 16, 1024, 4, 64, 0},
        {"linear", 1, 2, 64, 256, 4, 1, 0},
        {"linear_decay", 1, 2, 64, 256, 4, 1, 0},
        {"delta", 1, 2, 64, 256, 4, 1, 0},
        {"softmax", 1, 2, 16, 64, 4, 64, 0},  // the small everyday case as well
        {"linear_decay", 1, 2, 64, 256, 4, 1, DECAY_DATA},
        {"delta", 1, 2, 64, 256, 4, 1, DECAY_DATA},
        {"delta", 1, 1, 64, 256, 4, 16, DECAY_DATA},  // head size 64: the WY form
    };
    size_t n = sizeof shapes / sizeof shapes[0];
    for (size_t i = 0; i < n; i++) check_shape(&shapes[i]);
    for (int k = 0; attn_kinds[k]; k++) {  // every registered kind has a shape here
        int found = 0;
        for (size_t i = 0; i < n; i++) found |= strcmp(shapes[i].kind, attn_kinds[k]->name) == 0;
        CHECK(found);
    }
}

int main(void) {
    pool_init(1);
    TEST(test_estimate_bounds_a_real_step);
    return test_summary();
}
