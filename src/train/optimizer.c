// optimizer.c — AdamW over the model's parameter block.
#include "optimizer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/nn.h"
#include "util/err.h"

void adamw_init(AdamW *o, const Model *model) {
    o->n = model->n_floats;
    o->m = xcalloc(o->n, sizeof(float));
    o->v = xcalloc(o->n, sizeof(float));
    // One span per learnable tensor, a tensor that continues the previous span
    // (no padding between, the same decay) merged into it: the step is then
    // one pool dispatch, not one per tensor. Frozen tensors (no gradient) are
    // left out, as the step skips them.
    o->spans = xcalloc(model->n_params ? model->n_params : 1, sizeof *o->spans);
    o->n_spans = 0;
    for (size_t i = 0; i < model->n_params; i++) {
        const Param *p = &model->params[i];
        if (!p->t.grad) continue;
        AdamSpan *last = o->n_spans ? &o->spans[o->n_spans - 1] : NULL;
        int decay = p->weight_decay != 0;
        if (last && last->offset + last->n == p->offset && last->decay == decay)
            last->n += p->t.n;
        else
            o->spans[o->n_spans++] = (AdamSpan){p->offset, p->t.n, decay};
    }
}

void adamw_free(AdamW *o) {
    free(o->m);
    free(o->v);
    free(o->spans);
    memset(o, 0, sizeof *o);
}

double lr_at(const Config *c, long step) {
    if (step < c->warmup) return c->lr * (double)(step + 1) / (double)(c->warmup + 1);
    if (step >= c->steps) return c->min_lr;
    double span = (double)(c->steps - c->warmup);
    double ratio = span > 0 ? (double)(step - c->warmup) / span : 1.0;
    double coeff = 0.5 * (1.0 + cos(3.14159265358979323846 * ratio));
    return c->min_lr + coeff * (c->lr - c->min_lr);
}

double grad_norm(const Model *model) {
    // Padding between tensors is zero in the gradient block, so the norm of the
    // whole block is the norm of the gradients.
    return global_norm(model->grad, model->n_floats);
}

void adamw_step(AdamW *o, Model *model, double lr, long t, double norm) {
    const Config *c = &model->cfg;
    float scale = 1.0f;
    double coef = c->grad_clip / (norm + 1e-6);
    if (c->grad_clip > 0 && coef < 1.0) scale = (float)coef;
    adamw_update_spans(model->data, model->grad, o->m, o->v, o->spans, o->n_spans, (float)lr, (float)c->beta1,
                       (float)c->beta2, 1e-8f, (float)c->weight_decay, scale, t);
}
