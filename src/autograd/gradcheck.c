// gradcheck.c — finite-difference checks of every op through the tape.
#include "gradcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "attention/params.h"
#include "autograd/ops.h"
#include "util/err.h"
#include "util/rng.h"

static double loss_value(Tape *t) {
    tape_forward(t);
    return t->nodes[t->n_nodes - 1].value;
}

GradcheckStats gradcheck_tape(Tape *t, Tensor *loss, Tensor **leaves, int n, size_t samples,
                              unsigned long long seed, double global_frac) {
    GradcheckStats st = {0};
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) memset(leaves[i]->grad, 0, leaves[i]->n * sizeof(float));
    tape_forward(t);
    tape_backward(t, loss);
    double global = 0;
    for (int i = 0; i < n; i++)
        for (size_t j = 0; j < leaves[i]->n; j++)
            if (fabs(leaves[i]->grad[j]) > global) global = fabs(leaves[i]->grad[j]);
    for (int i = 0; i < n; i++) {
        Tensor *x = leaves[i];
        double scale = global_frac * global, xscale = 0;
        for (size_t j = 0; j < x->n; j++) {
            if (fabs(x->grad[j]) > scale) scale = fabs(x->grad[j]);
            if (fabs(x->data[j]) > xscale) xscale = fabs(x->data[j]);
        }
        size_t count = x->n < samples ? x->n : samples;
        for (size_t s = 0; s < count; s++) {
            size_t j = x->n <= samples ? s : (size_t)rng_below(&rng, x->n);
            float orig = x->data[j];
            // eps relative to the tensor's scale: large enough that float32
            // rounding of x +- eps is far below eps, small enough that an
            // input of scale 0.02 (embeddings at init) is not moved by 5 %
            float eps = (float)(1e-3 * (xscale > 0 ? xscale : 1));
            x->data[j] = orig + eps;
            double lp = loss_value(t);
            x->data[j] = orig - eps;
            double lm = loss_value(t);
            x->data[j] = orig;
            double num = (lp - lm) / ((double)(orig + eps) - (double)(orig - eps));
            double ana = x->grad[j];
            double tol = GC_REL * fmax(fabs(ana), fabs(num)) + GC_ABS * scale + 1e-7;
            double ratio = fabs(ana - num) / tol;
            if (!(ratio <= st.max_err)) {  // NaN-safe: a NaN ratio always becomes the worst
                st.max_err = ratio;
                st.worst_a = ana;
                st.worst_n = num;
                st.worst_input = x->name;
            }
            st.checked++;
        }
    }
    tape_forward(t);  // leave the tape holding the unperturbed values
    return st;
}

GradcheckStats gradcheck_directional(Tape *t, Tensor *loss, Tensor **leaves, int n, int dirs,
                                     unsigned long long seed) {
    GradcheckStats st = {0};
    Rng rng;
    rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) memset(leaves[i]->grad, 0, leaves[i]->n * sizeof(float));
    tape_forward(t);
    tape_backward(t, loss);
    for (int i = 0; i < n; i++) {
        Tensor *x = leaves[i];
        double xscale = 0;
        for (size_t j = 0; j < x->n; j++)
            if (fabs(x->data[j]) > xscale) xscale = fabs(x->data[j]);
        float *orig = xcalloc(x->n, sizeof(float)), *d = xcalloc(x->n, sizeof(float));
        memcpy(orig, x->data, x->n * sizeof(float));
        for (int k = 0; k < dirs; k++) {
            double ana = 0, mag = 0;
            // a larger step than the element-wise check (rounding noise drops
            // 10x); the extrapolation below keeps the truncation error small
            float eps = (float)(1e-2 * (xscale > 0 ? xscale : 1));
            for (size_t j = 0; j < x->n; j++) {
                d[j] = rng_normal(&rng);
                ana += (double)x->grad[j] * d[j];
                mag += fabs((double)x->grad[j] * d[j]);
            }
            // Richardson extrapolation of the central differences with steps
            // eps and eps/2 cancels the O(eps^2) truncation term
            double D[3];  // central differences with steps eps, eps/2, 2 eps
            const float steps[3] = {eps, eps / 2, 2 * eps};
            for (int h = 0; h < 3; h++) {
                float e = steps[h];
                for (size_t j = 0; j < x->n; j++) x->data[j] = orig[j] + e * d[j];
                double lp = loss_value(t);
                for (size_t j = 0; j < x->n; j++) x->data[j] = orig[j] - e * d[j];
                double lm = loss_value(t);
                D[h] = (lp - lm) / (2.0 * (double)e);
            }
            double num = (4.0 * D[1] - D[0]) / 3.0;
            // How much the three step sizes disagree measures the rounding
            // noise of the float32 forward (and leftover truncation). A
            // gradient smaller than that cannot be resolved, so it widens the
            // tolerance instead of failing on noise.
            double noise = 2.0 * (fabs(D[0] - D[1]) + fabs(D[0] - D[2]));
            double tol = GC_REL * fmax(fabs(ana), fabs(num)) + GC_ABS * mag + noise + 1e-9;
            double ratio = fabs(ana - num) / tol;
            if (!(ratio <= st.max_err)) {
                st.max_err = ratio;
                st.worst_a = ana;
                st.worst_n = num;
                st.worst_input = x->name;
            }
            st.checked++;
        }
        memcpy(x->data, orig, x->n * sizeof(float));
        free(orig);
        free(d);
    }
    tape_forward(t);
    return st;
}

// ============================================================================
// The cases
// ============================================================================

typedef struct {
    Tensor *t[8];
    int n;
} Leaves;

static Tensor *leaf(Leaves *L, const char *name, size_t rows, size_t cols, Rng *r, float scale,
                    float offset) {
    Tensor *x = xcalloc(1, sizeof *x);
    x->name = name;
    x->rows = rows;
    x->cols = cols;
    x->n = rows * cols;
    x->data = xcalloc(x->n, sizeof(float));
    x->grad = xcalloc(x->n, sizeof(float));
    for (size_t i = 0; i < x->n; i++) x->data[i] = offset + scale * rng_normal(r);
    L->t[L->n++] = x;
    return x;
}

static void leaves_free(Leaves *L) {
    for (int i = 0; i < L->n; i++) {
        free(L->t[i]->data);
        free(L->t[i]->grad);
        free(L->t[i]);
    }
    L->n = 0;
}

static int finish(FILE *out, const char *name, Tape *t, Tensor *y, Leaves *L, float *r, Rng *rng) {
    for (size_t i = 0; i < y->n; i++) r[i] = rng_normal(rng);
    Tensor *loss = op_dot(t, "dot", y, r);
    tape_finalize(t);
    GradcheckStats st = gradcheck_tape(t, loss, L->t, L->n, 48, 7, 0.0);
    int ok = st.max_err <= 1.0;
    if (out)
        fprintf(out, "%-44s %s  worst %.3f of tolerance (%s: analytic %.6g, numeric %.6g), %zu checked\n",
                name, ok ? "ok  " : "FAIL", st.max_err, st.worst_input ? st.worst_input : "-", st.worst_a,
                st.worst_n, st.checked);
    return ok ? 0 : 1;
}

static int case_dense(FILE *out, const char *which) {
    Rng rng;
    rng_seed(&rng, 42);
    Tape t;
    tape_init(&t);
    Leaves L = {0};
    size_t N = 7, C = 6, V = 5;
    Tensor *y = NULL;
    int *tok = xcalloc(N, sizeof(int));
    for (size_t i = 0; i < N; i++) tok[i] = (int)((i * 3) % V);
    if (!strcmp(which, "embed")) {
        Tensor *wte = leaf(&L, "wte", V, C, &rng, 1, 0), *wpe = leaf(&L, "wpe", 7, C, &rng, 1, 0);
        y = op_embed(&t, "y", tok, wte, wpe, 1, N);
    } else if (!strcmp(which, "matmul")) {
        Tensor *x = leaf(&L, "x", N, C, &rng, 1, 0), *w = leaf(&L, "w", 9, C, &rng, 1, 0);
        y = op_matmul(&t, "y", x, w);
    } else if (!strcmp(which, "layernorm")) {
        Tensor *x = leaf(&L, "x", N, C, &rng, 1, 0.5f), *w = leaf(&L, "w", 1, C, &rng, 0.3f, 1),
               *b = leaf(&L, "b", 1, C, &rng, 0.3f, 0);
        y = op_layernorm(&t, "y", x, w, b);
    } else if (!strcmp(which, "layernorm (small inputs: eps matters)")) {
        Tensor *x = leaf(&L, "x", N, C, &rng, 0.01f, 0.0f), *w = leaf(&L, "w", 1, C, &rng, 0.3f, 1),
               *b = leaf(&L, "b", 1, C, &rng, 0.3f, 0);
        y = op_layernorm(&t, "y", x, w, b);
    } else if (!strcmp(which, "layernorm (per head)")) {
        Tensor *x = leaf(&L, "x", N, C, &rng, 1, 0.5f), *w = leaf(&L, "w", 1, 3, &rng, 0.3f, 1),
               *b = leaf(&L, "b", 1, 3, &rng, 0.3f, 0);
        y = op_layernorm(&t, "y", x, w, b);
    } else if (!strcmp(which, "gelu")) {
        y = op_gelu(&t, "y", leaf(&L, "x", N, C, &rng, 1.5f, 0));
    } else if (!strcmp(which, "add")) {
        Tensor *a = leaf(&L, "a", N, C, &rng, 1, 0), *b = leaf(&L, "b", N, C, &rng, 1, 0);
        y = op_add(&t, "y", a, b);
    } else if (!strcmp(which, "matmul+residual")) {
        Tensor *x = leaf(&L, "x", N, C, &rng, 1, 0), *w = leaf(&L, "w", 9, C, &rng, 1, 0),
               *res = leaf(&L, "res", N, 9, &rng, 1, 0);
        y = op_matmul_residual(&t, "y", res, x, w, PRECISION_FP32);
    } else if (!strcmp(which, "crossentropy")) {
        Tensor *x = leaf(&L, "logits", N, V, &rng, 2, 0);
        for (size_t i = 0; i < N; i++) tok[i] = i % 3 == 1 ? -1 : (int)((i * 2) % V);  // some unscored
        y = op_crossentropy(&t, "y", x, tok);
    }
    float *r = xcalloc(y->n, sizeof(float));
    char name[64];
    snprintf(name, sizeof name, "op %s", which);
    int bad = finish(out, name, &t, y, &L, r, &rng);
    tape_free(&t);
    leaves_free(&L);
    free(r);
    free(tok);
    return bad;
}

// One of a kind's own check configurations (AttnKind.check_cases).
static int case_attention(FILE *out, const AttnKind *kind, const AttnCheckCase *ac) {
    Rng rng;
    rng_seed(&rng, 99);
    Tape t;
    tape_init(&t);
    Leaves L = {0};
    size_t B = 2, T = 11, H = 2, dh = 4, C = H * dh;
    AttnOp a = {kind,
                {.heads = (int)H, .dh = (int)dh, .feature_map = ac->fmap, .eps = 1e-6f,
                 .normalize = ac->normalize, .chunk = ac->chunk, .state_identity = ac->identity,
                 .key_norm = ac->key_norm, .data_decay = ac->data_decay},
                B, T, ac->key_shift};
    Tensor *qkv = leaf(&L, "qkv", B * T, 3 * C + H * attn_aux(kind, &a.cfg), &rng, 0.7f, 0);
    Tensor *theta = NULL;
    AttnOwnParam own[ATTN_MAX_OWN];
    size_t n_own = attn_own_params(kind, &a.cfg, own), owns_theta = 0;
    for (size_t i = 0; i < n_own; i++) owns_theta |= own[i].place == ATTN_OWN_THETA;
    if (owns_theta) {
        theta = leaf(&L, "theta", 1, H, &rng, 0, 0);
        float lam = ac->lam;
        theta->data[0] = (float)attn_logit(lam);
        theta->data[1] = (float)attn_logit(0.6);
    }
    Tensor *y = op_attention(&t, "attn", qkv, theta, &a);
    float *r = xcalloc(y->n, sizeof(float));
    char name[128];
    snprintf(name, sizeof name, "attention %s fmap=%d norm=%d%s init=%s shift=%d chunk=%d lam=%.3g%s", kind->name,
             (int)ac->fmap, ac->normalize, ac->key_norm == KEYNORM_L2 ? " l2" : "", ac->identity ? "I" : "0",
             ac->key_shift, ac->chunk, ac->lam, ac->data_decay ? " data" : "");
    int bad = finish(out, name, &t, y, &L, r, &rng);
    tape_free(&t);
    leaves_free(&L);
    free(r);
    return bad;
}

int gradcheck_all(FILE *out) {
    int bad = 0;
    const char *dense[] = {"embed", "matmul", "layernorm", "layernorm (small inputs: eps matters)", "layernorm (per head)", "gelu", "add",
                           "matmul+residual", "crossentropy"};
    for (size_t i = 0; i < sizeof dense / sizeof dense[0]; i++) bad += case_dense(out, dense[i]);
    for (int k = 0; attn_kinds[k]; k++)
        for (size_t i = 0; i < attn_kinds[k]->n_check_cases; i++)
            bad += case_attention(out, attn_kinds[k], &attn_kinds[k]->check_cases[i]);
    return bad;
}
