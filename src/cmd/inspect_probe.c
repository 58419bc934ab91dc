// inspect_probe.c — state norms, parallel vs recurrent, float16 drift.
#include "inspect_probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "model/generate.h"
#include "model/sampler.h"
#include "format/fp16.h"
#include "util/err.h"

// ============================================================================
// ||S|| and ||z|| along a long stretch
// ============================================================================

void probe_state_norms(const Model *m, const int *tokens, size_t n, double *s_norm, double *z_norm) {
    Generator g;
    generator_init(&g, m);
    size_t L = m->L, H = m->H;
    for (size_t t = 0; t < n; t++) {
        generator_step(&g, tokens[t], t);
        for (size_t l = 0; l < L; l++) {
            const float *st = generator_layer_state(&g, l);
            double s = 0, z = 0;
            for (size_t h = 0; h < H; h++) {
                double sh, zh;
                attn_state_norms(m->kind, &m->acfg, st, h, &sh, &zh);
                s += sh;
                z += zh;
            }
            s_norm[t * L + l] = s / (double)H;
            z_norm[t * L + l] = z / (double)H;  // NaN without z
        }
    }
    generator_free(&g);
}

void probe_state_snapshots(const Model *m, const int *tokens, size_t n, size_t layer, size_t head,
                           const size_t *at, size_t n_at, float *S) {
    AttnStateLayout lay;
    m->kind->state_layout(&m->acfg, &lay);
    Generator g;
    generator_init(&g, m);
    size_t d = m->dh, next = 0;
    for (size_t t = 0; t < n && next < n_at; t++) {
        generator_step(&g, tokens[t], t);
        if (at[next] == t + 1)
            memcpy(S + next++ * d * d, generator_layer_state(&g, layer) + head * lay.head_stride,
                   d * d * sizeof(float));
    }
    generator_free(&g);
}

typedef struct {
    size_t layer, head, dh, na;  // na: aux inputs per head and token (attn_aux)
    ProbeHeadTrace *tr;
} TraceTap;

static void trace_tap(void *ctx, size_t layer, size_t pos, const float *q, const float *k, const float *v,
                      const float *aux, const float *y) {
    TraceTap *t = ctx;
    if (layer != t->layer) return;
    size_t d = t->dh, o = t->head * d;
    memcpy(t->tr->q + pos * d, q + o, d * sizeof(float));
    memcpy(t->tr->k + pos * d, k + o, d * sizeof(float));
    memcpy(t->tr->v + pos * d, v + o, d * sizeof(float));
    memcpy(t->tr->y + pos * d, y + o, d * sizeof(float));
    if (t->na) memcpy(t->tr->aux + pos * t->na, aux + t->head * t->na, t->na * sizeof(float));
}

void probe_head_trace(const Model *m, const int *tokens, size_t T, size_t layer, size_t head,
                      ProbeHeadTrace *tr) {
    Generator g;
    generator_init(&g, m);
    TraceTap tap = {layer, head, m->dh, attn_aux(m->kind, &m->acfg), tr};
    g.hook = trace_tap;
    g.hook_ctx = &tap;
    for (size_t t = 0; t < T; t++) generator_step(&g, tokens[t], t);
    generator_free(&g);
}

// ============================================================================
// parallel (training) form vs recurrent (generation) form
// ============================================================================

static void diff_max(ProbeDiff *d, const float *got, const float *ref, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - (double)ref[i]), r = fabs((double)ref[i]);
        if (!(e <= d->max_abs)) d->max_abs = e;  // NaN sticks
        if (r > d->ref_max) d->ref_max = r;
    }
}

void probe_parallel_vs_recurrent(Model *m, const int *tokens, size_t B, ProbeDiff *layers,
                                 ProbeDiff *logits) {
    size_t T = m->Tmax, C = m->C, V = m->V;
    Graph g;
    graph_build(&g, m, B, T);
    memcpy(g.tokens, tokens, B * T * sizeof(int));
    for (size_t i = 0; i < B * T; i++) g.targets[i] = tokens[i];  // any valid target: logits are read
    graph_forward(&g);

    // the attention op alone, on the graph's own q, k, v
    const AttnKind *kind = m->kind;
    float *state = xcalloc(kind->state_floats(&m->acfg, T), sizeof(float));
    float *y = xcalloc(C, sizeof(float)), *zero = xcalloc(C, sizeof(float));
    for (size_t l = 0; l < m->L; l++) {
        const Node *nd = &g.tape.nodes[g.attn_node[l]];
        const float *qkv = nd->in[0]->data, *yref = nd->out->data;  // (B*T, W), (B*T, C)
        size_t W = nd->in[0]->cols;
        const float *theta = m->layer[l].theta ? m->layer[l].theta->data : NULL;
        layers[l] = (ProbeDiff){0, 0};
        for (size_t b = 0; b < B; b++) {
            kind->state_reset(&m->acfg, state, T);
            for (size_t t = 0; t < T; t++) {
                const float *row = qkv + (b * T + t) * W;
                // key shift as in training: the key projected from the previous row, zero at t = 0
                const float *k = !m->cfg.key_shift ? row + C : t ? row - W + C : zero;
                kind->step(&m->acfg, state, T, t, y, row, k, row + 2 * C, row + 3 * C, theta);
                diff_max(&layers[l], y, yref + (b * T + t) * C, C);
            }
        }
    }
    free(state);
    free(y);
    free(zero);

    // the whole model
    Generator gen;
    generator_init(&gen, m);
    *logits = (ProbeDiff){0, 0};
    for (size_t b = 0; b < B; b++) {
        generator_reset(&gen);
        for (size_t t = 0; t < T; t++) {
            const float *lg = generator_step(&gen, tokens[b * T + t], t);
            diff_max(logits, lg, g.logits->data + (b * T + t) * V, V);
        }
    }
    generator_free(&gen);
    graph_free(&g);
}

// ============================================================================
// float16 drift
// ============================================================================

typedef struct {
    const Model *m;
    float *shadow;   // (L, state_floats) the float16-rounded copy
    size_t per_layer;
    float *y;        // (C) the shadow step's read-out, unused
} Shadow;

// The float32 path just ran layer l's step on (q, k, v): give the shadow the
// same update, then round it to float16 as if it were stored that way.
static void shadow_step(void *ctx, size_t layer, size_t pos, const float *q, const float *k,
                        const float *v, const float *aux, const float *y) {
    (void)y;
    Shadow *s = ctx;
    const Model *m = s->m;
    float *st = s->shadow + layer * s->per_layer;
    const float *theta = m->layer[layer].theta ? m->layer[layer].theta->data : NULL;
    m->kind->step(&m->acfg, st, m->Tmax, pos, s->y, q, k, v, aux, theta);
    fp16_round_array(st, s->per_layer);
}

// relative error of S (part 0) or z (part 1) of one layer, over all heads
// (NaN for z when the kind keeps none)
static double rel_err(const Model *m, const float *a16, const float *a32, int part) {
    AttnStateLayout lay;
    m->kind->state_layout(&m->acfg, &lay);
    if (part && !lay.has_z) return NAN;
    size_t d = m->dh, off = part ? d * d : 0, n = part ? d : d * d;
    double num = 0, den = 0;
    for (size_t h = 0; h < m->H; h++) {
        const float *x = a16 + h * lay.head_stride + off, *r = a32 + h * lay.head_stride + off;
        for (size_t i = 0; i < n; i++) {
            double e = (double)x[i] - (double)r[i];
            num += e * e;
            den += (double)r[i] * r[i];
        }
    }
    if (den == 0) return num == 0 ? 0.0 : INFINITY;
    return sqrt(num / den);
}

void probe_fp16_drift(const Model *m, int start, size_t n, uint64_t seed, const size_t *at,
                      size_t n_at, double *s_err, double *z_err,
                      void (*progress)(size_t done, size_t n)) {
    Generator g;
    generator_init(&g, m);
    Shadow sh = {m, NULL, g.state_floats, NULL};
    sh.shadow = xcalloc(m->L * g.state_floats, sizeof(float));
    sh.y = xcalloc(m->C, sizeof(float));
    for (size_t l = 0; l < m->L; l++) {
        float *st = sh.shadow + l * g.state_floats;
        m->kind->state_reset(&m->acfg, st, g.window);
        fp16_round_array(st, g.state_floats);  // 0 and 1 are exact; stated, not assumed
    }
    g.hook = shadow_step;
    g.hook_ctx = &sh;
    Sampler s;
    sampler_init(&s, m->V, 1.0f, 0, seed);
    int tok = start;
    size_t next = 0, every = n / 10 ? n / 10 : 1;
    for (size_t t = 0; t < n && next < n_at; t++) {
        const float *lg = generator_step(&g, tok, t);
        while (next < n_at && at[next] == t + 1) {
            for (size_t l = 0; l < m->L; l++) {
                const float *a16 = sh.shadow + l * g.state_floats, *a32 = generator_layer_state(&g, l);
                s_err[next * m->L + l] = rel_err(m, a16, a32, 0);
                z_err[next * m->L + l] = rel_err(m, a16, a32, 1);
            }
            next++;
        }
        // a non-finite float32 model (a diverged checkpoint) cannot be sampled:
        // keep feeding the same token rather than read garbage probabilities
        if (logits_finite(lg, m->V)) tok = sampler_next(&s, lg);
        if (progress && (t + 1) % every == 0) progress(t + 1, n);
    }
    sampler_free(&s);
    free(sh.shadow);
    free(sh.y);
    generator_free(&g);
}

// ============================================================================
// float16 state: its effect on the next-token loss
// ============================================================================

typedef struct {
    Generator *g;
} Rounder;

// the layer's step has run: store its state as float16 would keep it
static void round_state(void *ctx, size_t layer, size_t pos, const float *q, const float *k, const float *v,
                        const float *aux, const float *y) {
    (void)pos, (void)q, (void)k, (void)v, (void)aux, (void)y;
    Rounder *r = ctx;
    fp16_round_array(generator_layer_state(r->g, layer), r->g->state_floats);
}

// -log softmax(logits)[target], in double
static double token_loss(const float *lg, size_t V, int target) {
    double mx = lg[0], sum = 0;
    for (size_t i = 1; i < V; i++) mx = lg[i] > mx ? lg[i] : mx;
    for (size_t i = 0; i < V; i++) sum += exp((double)lg[i] - mx);
    return log(sum) + mx - (double)lg[target];
}

void probe_fp16_loss(const Model *m, const int *tokens, size_t n, const size_t *at, size_t n_at,
                     double *loss32, double *loss16, void (*progress)(size_t done, size_t n)) {
    Generator g32, g16;
    generator_init(&g32, m);
    generator_init(&g16, m);
    for (size_t l = 0; l < m->L; l++)  // 0 and 1 are exact in float16; stated, not assumed
        fp16_round_array(generator_layer_state(&g16, l), g16.state_floats);
    Rounder rd = {&g16};
    g16.hook = round_state;
    g16.hook_ctx = &rd;
    double s32 = 0, s16 = 0;
    size_t next = 0, since = 0, every = n / 10 ? n / 10 : 1;
    // position t predicts token t + 1; the last token of the stream has no target
    for (size_t t = 0; t + 1 < n && next < n_at; t++) {
        s32 += token_loss(generator_step(&g32, tokens[t], t), m->V, tokens[t + 1]);
        s16 += token_loss(generator_step(&g16, tokens[t], t), m->V, tokens[t + 1]);
        since++;
        if (at[next] == t + 1) {
            loss32[next] = s32 / (double)since;
            loss16[next] = s16 / (double)since;
            s32 = s16 = 0;
            since = 0;
            next++;
        }
        if (progress && (t + 1) % every == 0) progress(t + 1, n);
    }
    for (; next < n_at; next++) loss32[next] = loss16[next] = NAN;
    generator_free(&g32);
    generator_free(&g16);
}
