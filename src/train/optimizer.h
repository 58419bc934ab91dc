// optimizer.h — AdamW, global-norm clipping and the learning-rate schedule.
#pragma once
#include "config/config.h"
#include "kernels/nn.h"
#include "model/model.h"

typedef struct {
    float *m, *v;   // first and second moments, same layout as the parameter block
    size_t n;
    AdamSpan *spans;  // the learnable tensors, neighbours with the same decay merged
    size_t n_spans;
} AdamW;

void adamw_init(AdamW *o, const Model *model);
void adamw_free(AdamW *o);

// nanoGPT's schedule: linear warm-up over `warmup` steps to lr, then cosine
// decay to min_lr at `steps`. `step` is 0-based.
double lr_at(const Config *c, long step);

// Global L2 norm of the gradient block (checked for NaN/Inf by the caller
// before any parameter moves).
double grad_norm(const Model *model);
// Clips by the global norm `norm` (if grad_clip > 0, as PyTorch's
// clip_grad_norm_) and applies one AdamW step (1-based `t`) to every learnable
// parameter; weight decay only where Param.weight_decay.
void adamw_step(AdamW *o, Model *model, double lr, long t, double norm);
