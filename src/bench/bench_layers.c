// bench_layers.c — the linear layers' products of the benchmark models (bench_layers.h).
#include "bench/bench_layers.h"

#include <stdlib.h>
#include <time.h>

#include "kernels/gemm.h"
#include "util/err.h"

// the baby model: C = 128, 12 x 64 tokens; the large one: C = 384, 8 x 256 (bench_train.c's sizes)
const BenchLayer BENCH_LAYERS[BENCH_N_LAYERS] = {
    {"baby", "qkv", 768, 128, 384},     {"baby", "ffn up", 768, 128, 512},     {"baby", "ffn down", 768, 512, 128},
    {"large", "qkv", 2048, 384, 1152},  {"large", "ffn up", 2048, 384, 1536}, {"large", "ffn down", 2048, 1536, 384},
};

const char *const bench_product_names[BENCH_N_PRODUCTS] = {"forward", "dX", "dW"};

static float *filled(size_t n) {
    float *p = malloc(n * sizeof *p);
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) p[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    return p;
}

int bench_layer_alloc(BenchLayerBufs *b, const BenchLayer *l) {
    size_t T = l->tokens, C = l->in, OC = l->out;
    *b = (BenchLayerBufs){filled(T * C), filled(OC * C), filled(T * OC), filled(T * OC), filled(T * C), filled(OC * C)};
    if (b->x && b->w && b->y && b->dy && b->dx && b->dw) return 0;
    bench_layer_free(b);
    return err_set(ERR_RUNTIME, "out of memory for the %s model's %s products", l->model, l->layer);
}

void bench_layer_free(BenchLayerBufs *b) {
    free(b->x), free(b->w), free(b->y), free(b->dy), free(b->dx), free(b->dw);
    *b = (BenchLayerBufs){0};
}

// Each product in the form the training step runs it (kernels/matmul.c): dX is
// stored, since every layer's input feeds that layer alone and the tape lets
// its one writer store its gradient (autograd/tape.c: plan_zeroing); dW adds
// into the weights' gradient. (Timing dX as an add read the large FFN-down's
// 12 MiB output once more than training does: 4-10 % of that product.)
void bench_layer_product(BenchLayerBufs *b, const BenchLayer *l, int product) {
    size_t T = l->tokens, C = l->in, OC = l->out;
    switch (product) {
    case PRODUCT_FORWARD: gemm_serial(0, 1, T, OC, C, 1.0f, b->x, C, b->w, C, 0.0f, b->y, OC); break;   // y = x Wᵀ
    case PRODUCT_DX: gemm_serial(0, 0, T, C, OC, 1.0f, b->dy, OC, b->w, C, 0.0f, b->dx, C); break;      // dX = dY W
    default: gemm_serial(1, 0, OC, C, T, 1.0f, b->dy, OC, b->x, C, 1.0f, b->dw, C); break;              // dW += dYᵀ X
    }
}

double bench_layer_flops(const BenchLayer *l) { return 2.0 * (double)l->tokens * (double)l->in * (double)l->out; }

double bench_thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
