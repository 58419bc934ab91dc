// evaluate.h — validation loss (and recall accuracy) during training.
#pragma once
#include "config/config.h"
#include "model/model.h"
#include "train/data.h"

// text: mean loss over eval_batches random validation batches drawn from a
// fixed seed (the same batches at every evaluation and for every kind).
// recall: loss and accuracy (argmax == value at the query positions) over the
// whole fixed validation set; *acc receives the accuracy when acc != NULL.
// A stop request (interrupt.h) abandons the evaluation after the current batch
// and returns NaN (and NaN accuracy), so a Ctrl-C never waits for it.
double evaluate(Graph *g, Model *m, Dataset *d, const Config *c, double *acc);

// The seed of the validation-batch stream, distinct from the training stream.
unsigned long long eval_seed(const Config *c);

// Counts positions with target >= 0 whose argmax logit equals the target.
size_t count_correct(const float *logits, const int *targets, size_t N, size_t V);
