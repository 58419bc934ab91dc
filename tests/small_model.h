// small_model.h — the set-up tests of the model share: the Config of a small
// model (config_defaults, then the shape and options a test names) and a
// fixed pseudo-random batch for a training graph.
//
//     Config c;
//     small_config(&c, (SmallModel){"delta", .layers = 2, .heads = 2, .d_model = 64, .block_size = 32});
//     Model m;
//     model_build(&m, &c, V);
//
// The kind is written as given, without config_set's kind-following defaults
// (key_norm, feature_map stay config_defaults' values unless the test sets them).
#pragma once
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "model/model.h"

// A field left 0 (kind NULL) keeps config_defaults' value; for pos, key_shift,
// output_norm and decay that value is 0 too (learned positions, no key shift,
// no output norm, a learned decay), so 0 always means "the default".
typedef struct {
    const char *kind;
    int layers, heads, d_model, block_size, batch_size, chunk;
    PosKind pos;
    int key_shift, output_norm;
    DecayMode decay;
} SmallModel;

static inline void small_config(Config *c, SmallModel s) {
    config_defaults(c);
    if (s.kind) snprintf(c->kind, sizeof c->kind, "%s", s.kind);
    if (s.layers) c->layers = s.layers;
    if (s.heads) c->heads = s.heads;
    if (s.d_model) c->d_model = s.d_model;
    if (s.block_size) c->block_size = s.block_size;
    if (s.batch_size) c->batch_size = s.batch_size;
    if (s.chunk) c->chunk = s.chunk;
    c->pos = s.pos;
    c->key_shift = s.key_shift;
    c->output_norm = s.output_norm;
    c->decay = s.decay;
}

// Tokens and targets of g's (B, T) batch, in [0, V), drawn by a 32-bit LCG
// from `seed`: the same batch for the same seed, whatever builds the graph.
static inline void small_batch(Graph *g, size_t V, uint32_t seed) {
    uint32_t s = seed;
    for (size_t i = 0; i < g->B * g->T; i++) {
        s = s * 1664525u + 1013904223u;
        g->tokens[i] = (int)((s >> 8) % V);
        g->targets[i] = (int)((s >> 20) % V);
    }
}
