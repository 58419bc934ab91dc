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

// Every validation window of g->T tokens once, g->B at a time, in order (rows
// past the last window repeat window 0 with every target masked, so they count
// for nothing): after each batch's forward, visit(ctx, g, loss) with loss the
// batch's mean over scored positions. pause_point(pause) after the first batch;
// returns the signal of a stop request (interrupt.h), checked every batch, or 0.
// The one window loop of training's recall evaluation and `lmtrain eval`.
int eval_windows(Graph *g, const Dataset *d, const char *pause, void (*visit)(void *ctx, const Graph *g, double loss),
                 void *ctx);

// The seed of the validation-batch stream, distinct from the training stream.
unsigned long long eval_seed(const Config *c);

// Counts positions with target >= 0 whose argmax logit equals the target.
size_t count_correct(const float *logits, const int *targets, size_t N, size_t V);
