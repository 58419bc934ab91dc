// step.h — one optimiser step of the training recipe, on a batch already in place.
//
// The training loop and the golden-trajectory test (tests/train/test_golden.c)
// both run exactly this, so the test guards the recipe the loop uses:
// forward + backward, the global gradient norm before clipping, the learning
// rate of the schedule, then clipping and AdamW.
#pragma once
#include "model/model.h"
#include "train/optimizer.h"

typedef struct {
    double loss;       // mean training loss of the batch, before the update
    double grad_norm;  // global L2 norm of the gradient, before clipping
    double lr;         // lr_at(cfg, step): the rate this step used
} StepStats;

// One step on the batch in g->tokens / g->targets. `step` is 0-based (the
// steps completed so far). Returns 1 after updating the weights, or 0 if the
// loss or the gradient norm is not finite: then no parameter has moved and
// the gradients are left in place for the caller to name the culprit.
int train_step(Graph *g, Model *m, AdamW *o, long step, StepStats *s);
