// eval_generate.c — the validation split through generator_step (see
// eval_generate.h).
#include "cmd/eval_generate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/nn.h"
#include "train/data.h"
#include "util/err.h"

static const double LN2 = 0.69314718055994530942;

int eval_generate(const LoadedRun *r, size_t T, GenWeights w) {
    const Model *m = &r->model;
    size_t windows = dataset_eval_windows(r->data, SPLIT_VAL, T);
    if (windows == 0)
        return err_set(ERR_RUNTIME, "eval: the validation split of %s holds no full window of %zu tokens", r->dir, T);
    int *inputs = xcalloc(T, sizeof(int)), *targets = xcalloc(T, sizeof(int));
    float *probs = xcalloc(m->V, sizeof(float));  // crossentropy_forward's, unused here
    Generator g;
    // a cache as long as the window: softmax then attends to the whole window as
    // the training graph does at --length T, not to the last block_size tokens
    generator_init_window(&g, m, w, T > m->Tmax ? T : m->Tmax);
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < windows; i++) {
        dataset_eval_window(r->data, SPLIT_VAL, i, T, inputs, targets);
        generator_reset(&g);
        for (size_t t = 0; t < T; t++) {
            const float *logits = generator_step(&g, inputs[t], t);
            if (targets[t] < 0) continue;
            // the training eval's own per-row loss (one row: no threads)
            sum += crossentropy_forward(probs, NULL, logits, &targets[t], 1, m->V, NULL);
            n++;
        }
    }
    generator_free(&g);
    free(inputs);
    free(targets);
    free(probs);
    double loss = n ? sum / (double)n : NAN;
    printf("run             %s (%s, step %llu)\n", r->dir, r->cfg.kind, (unsigned long long)r->st.step);
    printf("validation set  %zu windows of %zu tokens, through the generation path (one token at a time,\n"
           "                teacher-forced, each window from a fresh state), weights %s\n",
           windows, T, GEN_WEIGHTS_NAME[w]);
    printf("tokens scored   %zu\n", n);
    printf("val loss        %.4f nats/token\n", loss);
    printf("%-15s %.4f\n", r->cfg.task == TASK_RECALL ? "bits/token" : "bits/char", loss / LN2);
    return isfinite(loss) ? 0 : err_set(ERR_RUNTIME, "eval: the loss through the generation path is not finite");
}
