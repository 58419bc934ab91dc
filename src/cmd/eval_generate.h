// eval_generate.h — `lmtrain eval --weights W`: the validation split scored
// through the generation path instead of the training graph.
#pragma once
#include <stddef.h>

#include "cmd/run_load.h"
#include "model/generate.h"

// The windows `eval` scores (T tokens each, the whole validation split), fed
// one token at a time through a Generator holding the weights as w (each
// window from a fresh state, teacher-forced: the next input is the true
// token), the cross-entropy of each scored position's logits summed in double.
// Prints the loss and bits per character (token) on stdout; writes no file.
// With w = fp32 the figure equals `eval`'s up to float rounding (the same
// function; only attention's form differs), so bf16's and int8's distance
// from it is what their rounding costs.
int eval_generate(const LoadedRun *r, size_t T, GenWeights w);
