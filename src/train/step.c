// step.c — one optimiser step (see step.h).
#include "step.h"

#include <math.h>

int train_step(Graph *g, Model *m, AdamW *o, long step, StepStats *s) {
    s->loss = graph_forward_backward(g, m);
    s->grad_norm = grad_norm(m);
    s->lr = lr_at(&m->cfg, step);
    if (!isfinite(s->loss) || !isfinite(s->grad_norm)) return 0;
    adamw_step(o, m, s->lr, step + 1, s->grad_norm);  // AdamW counts steps from 1
    return 1;
}
