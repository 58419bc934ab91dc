// bench_layers.h — the linear layers' products of the two benchmark models,
// for the parts that time the products alone (tune, products).
//
// A linear layer y = x Wᵀ of T tokens, C inputs and OC outputs has three
// products a training step runs: the forward, dX = dY W and dW += dYᵀ X.
// The layers are the baby and large models' attention QKV (C -> 3C), FFN up
// (C -> 4C) and FFN down (4C -> C): most of a step's matmul FLOPs.
// tests/reference/blas_anchor.py times the same list with numpy's BLAS.
#pragma once
#include <stddef.h>

typedef struct {
    const char *model, *layer;  // "baby", "qkv"
    size_t tokens, in, out;     // T, C, OC
} BenchLayer;

#define BENCH_N_LAYERS 6
extern const BenchLayer BENCH_LAYERS[BENCH_N_LAYERS];

enum { PRODUCT_FORWARD, PRODUCT_DX, PRODUCT_DW, BENCH_N_PRODUCTS };
extern const char *const bench_product_names[BENCH_N_PRODUCTS];  // "forward", "dX", "dW"

// one layer's operands, filled with fixed values in [-0.5, 0.5)
typedef struct {
    float *x, *w, *y, *dy, *dx, *dw;  // (T, C), (OC, C), (T, OC), (T, OC), (T, C), (OC, C)
} BenchLayerBufs;

// 0, or ERR_RUNTIME (out of memory) with *b freed
int bench_layer_alloc(BenchLayerBufs *b, const BenchLayer *l);
void bench_layer_free(BenchLayerBufs *b);

// one of the three products on one thread (gemm_serial, the blocking in force)
void bench_layer_product(BenchLayerBufs *b, const BenchLayer *l, int product);

// 2 T C OC
double bench_layer_flops(const BenchLayer *l);

// this thread's CPU time, seconds: other processes' time slices do not count
double bench_thread_cpu(void);
