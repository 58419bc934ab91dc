// run_keys.h — the raw keys a trained model's head writes, for the memory lab.
#pragma once
#include <stddef.h>

#include "model/model.h"

// Teacher-forces tokens[0..n) through the generator, one block_size window at
// a time from a fresh state (the contexts training saw), and copies the key one
// head of one layer writes at every position: keys (n, dh), raw (before φ),
// after the key shift when the model has one — exactly what that head's
// attention step receives. layer < L, head < H.
void lab_run_keys(const Model *m, const int *tokens, size_t n, size_t layer, size_t head, float *keys);
