// model_gradcheck.c — the whole graph against central finite differences.
//
// The op-level checks prove each backward; this proves the wiring: the tied
// head, the residual adds, the per-head norm, the key shift and θ all reach
// the right parameters.
#include "model_gradcheck.h"

#include <stdlib.h>
#include <string.h>

#include "autograd/gradcheck.h"
#include "model/model.h"
#include "util/err.h"

static int check_one(FILE *out, const char *kind, int output_norm, int key_shift, int ffn,
                     DecayMode decay, KeyNorm key_norm) {
    if (!attn_kind_find(kind)) return 0;
    Config c;
    config_defaults(&c);
    snprintf(c.kind, sizeof c.kind, "%s", kind);
    c.layers = 2;
    c.heads = 2;
    c.d_model = 8;
    c.block_size = 16;  // long enough that θ (the decay) moves the loss measurably
    c.ffn_mult = ffn;
    c.chunk = 4;
    c.output_norm = output_norm;
    c.key_shift = key_shift;
    c.decay_init[0] = 0.5;  // dλ/dθ = λ(1-λ) at its largest: θ gradients big enough for float32 FD
    c.n_decay_init = 1;
    c.decay = decay;
    c.decay_learnable = decay != DECAY_FIXED;
    c.key_norm = key_norm;
    Model m;
    model_build(&m, &c, 7);
    // larger weights than the 0.02 init, so every path carries signal
    for (size_t i = 0; i < m.n_params; i++) {
        Tensor *t = &m.params[i].t;
        if (strstr(t->name, "weight") && t->rows > 1)
            for (size_t j = 0; j < t->n; j++) t->data[j] *= 10.0f;
    }
    Graph g;
    graph_build(&g, &m, 2, 16);
    for (size_t i = 0; i < 32; i++) {
        g.tokens[i] = (int)((i * 5 + 3) % 7);
        g.targets[i] = i % 5 == 2 ? -1 : (int)((i * 3 + 1) % 7);
    }
    Tensor *leaves[64];
    int n = 0;
    for (size_t i = 0; i < m.n_params && n < 64; i++)
        if (m.params[i].t.grad) leaves[n++] = &m.params[i].t;
    GradcheckStats st = gradcheck_directional(&g.tape, g.loss, leaves, n, 3, 3);
    int ok = st.max_err <= 1.0;
    if (out)
        fprintf(out, "model %-13s norm=%d shift=%d ffn=%d%s%s %s  worst %.3f of tolerance (%s: analytic %.6g, numeric %.6g), %zu checked\n",
                kind, output_norm, key_shift, ffn, decay == DECAY_DATA ? " data" : "     ",
                key_norm == KEYNORM_L2 ? " l2" : "   ", ok ? "ok  " : "FAIL", st.max_err,
                st.worst_input ? st.worst_input : "-", st.worst_a, st.worst_n, st.checked);
    graph_free(&g);
    model_free(&m);
    return ok ? 0 : 1;
}

int model_gradcheck_all(FILE *out) {
    int bad = 0;
    for (int i = 0; attn_kinds[i]; i++) {
        const AttnKind *k = attn_kinds[i];
        bad += check_one(out, k->name, 0, 0, 2, DECAY_LEARNED, KEYNORM_SUM);
        bad += check_one(out, k->name, 1, 1, 0, DECAY_LEARNED, KEYNORM_SUM);
        if (k->data_decay) bad += check_one(out, k->name, 0, 1, 2, DECAY_DATA, KEYNORM_SUM);
        if (k->uses_key_norm) bad += check_one(out, k->name, 0, 0, 0, DECAY_DATA, KEYNORM_L2);
    }
    return bad;
}
