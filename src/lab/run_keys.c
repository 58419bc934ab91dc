// run_keys.c — see run_keys.h.
#include "lab/run_keys.h"

#include <string.h>

#include "model/generate.h"

typedef struct {
    size_t layer, head, dh;
    float *keys;  // (n, dh)
} KeyTap;

static void tap(void *ctx, size_t layer, size_t pos, const float *q, const float *k, const float *v,
                const float *aux, const float *y) {
    (void)q, (void)v, (void)aux, (void)y;
    KeyTap *t = ctx;
    if (layer == t->layer) memcpy(t->keys + pos * t->dh, k + t->head * t->dh, t->dh * sizeof(float));
}

void lab_run_keys(const Model *m, const int *tokens, size_t n, size_t layer, size_t head, float *keys) {
    Generator g;
    generator_init(&g, m);
    KeyTap t = {layer, head, m->dh, keys};  // keys: re-pointed at each window's start
    g.hook = tap;
    g.hook_ctx = &t;
    for (size_t i = 0; i < n; i++) {
        if (i % m->Tmax == 0) generator_reset(&g);
        t.keys = keys + (i - i % m->Tmax) * m->dh;  // the hook writes at the window's pos
        generator_step(&g, tokens[i], i % m->Tmax);
    }
    generator_free(&g);
}
