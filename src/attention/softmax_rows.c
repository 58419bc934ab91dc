// softmax_rows.c — softmax_rows.h's row kernels, one variant per path. A
// kernel file rather than inline code in softmax.c: softmax.c is the tile
// loop (threads, tiles, products through gemm) and calls these once per row or
// per tile, so one indirect call each costs nothing next to the row's work,
// and the rest of softmax.c stays baseline code.
#include "attention/softmax_rows.h"

float row_max(const float *x, size_t n) { return row_max_impl(x, n); }
float row_exp_sum(float *x, size_t n, float sub) { return row_exp_sum_impl(x, n, sub); }
void row_dots(float *D, const float *a, const float *b, size_t ld, size_t rows, size_t n) {
    row_dots_impl(D, a, b, ld, rows, n);
}
void tile_transpose(float *dst, size_t ldd, const float *src, size_t lds, size_t rows, size_t n) {
    tile_transpose_impl(dst, ldd, src, lds, rows, n);
}
