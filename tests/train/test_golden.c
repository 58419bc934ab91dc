// test_golden.c — the golden trajectories: lmtrain trains as an independent
// implementation of the recipe says it should (the llm.c test_gpt2 idea).
//
// tests/reference/golden.safetensors (written by tests/reference/make_golden.py
// from the PyTorch implementation in torch_reference.py, in float64; its
// format is described there) holds, for several model variants (every
// attention kind, decay_learnable = false, key_norm = l2, decay = data, delta in
// its token and its WY form, ...), the initial weights, a fixed
// list of batches, and per AdamW step the loss, the gradient norm before
// clipping and the learning rate, then every parameter after the last step.
// This test builds each variant from its stored configuration, loads those
// weights, runs train_step (the loop's own step: forward, backward, norm,
// schedule, clipping, AdamW) on those batches, and compares everything.
//
// Tolerances are relative (a value: |got - want| / |want|; a tensor: the largest
// |got - want| over the tensor's largest |want|). lmtrain computes in float32,
// the golden numbers are float64, so these bound lmtrain's rounding (measured:
// loss <= 2e-8, grad norm <= 4e-6, parameters <= 6e-6). Every recipe slip
// tried (a linear schedule, no clipping, weight decay on LayerNorm and θ, a
// frozen θ that learns; q or k not L2-normalised, the sum norm for l2, eps
// outside its square root; the data gate a token late, its weight or its bias
// θ untrained) moves some final tensor by 66 times PARAM_TOL or more
// (make_golden.py refuses to write a file where one would move it by less
// than 10 times, or where float32 rounding would come within 10 times).
#include <stdint.h>
#include <string.h>

#include "../test.h"
#include "config/config.h"
#include "model/model.h"
#include "format/safetensors_read.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "util/err.h"
#include "util/pool.h"

#define LOSS_TOL_FIRST 1e-5  // step 0: the same weights, so only the forward's rounding
#define LOSS_TOL 1e-4        // every later step, and the last
#define NORM_TOL_FIRST 1e-5
#define NORM_TOL 1e-4
#define LR_TOL 1e-12         // the schedule is computed in double on both sides
#define PARAM_TOL 1e-4       // every tensor after the last step

// The repo root relative to the working directory, from this file's path
// (`make test` compiles it as tests/train/test_golden.c from the root).
static void source_path(char *buf, size_t cap, const char *rel) {
    const char *me = __FILE__;
    const char *cut = strstr(me, "tests/train/");
    size_t n = cut ? (size_t)(cut - me) : 0;
    snprintf(buf, cap, "%.*s%s", (int)n, me, rel);
}

static StFile golden;

// Tensor `name` of dtype `dtype` with exactly `n` elements, copied into out
// (elem bytes each; the file makes no alignment promise). 0 if it is missing
// or of another type or size (with a FAIL naming it).
static int get(const char *name, const char *dtype, size_t n, size_t elem, void *out) {
    const StEntry *e = safetensors_find(&golden, name);
    if (!e || strcmp(e->dtype, dtype) != 0 || e->end - e->begin != n * elem) {
        fprintf(stderr, "  golden file: tensor %s missing or not %s with %zu elements\n", name, dtype, n);
        CHECK(0);
        return 0;
    }
    memcpy(out, golden.data + e->begin, n * elem);
    return 1;
}

static size_t meta_size(const char *key) {
    const char *v = safetensors_meta(&golden, key, NULL);
    return v ? (size_t)strtoull(v, NULL, 10) : 0;
}

static double rel(double got, double want) { return fabs(got - want) / fabs(want); }

// Trains one variant along its golden trajectory; prints the worst errors.
static void replay(const char *variant, size_t steps, size_t B, size_t T, const int32_t *inputs,
                   const int32_t *targets) {
    char key[256];
    snprintf(key, sizeof key, "%s.config", variant);
    size_t len = 0;
    const char *ini = safetensors_meta(&golden, key, &len);
    CHECK(ini != NULL);
    if (!ini) return;
    Config c, record;
    config_defaults(&c);
    int rc = config_load_text(&c, ini, len, key);
    if (rc) fprintf(stderr, "  %s\n", err_msg());
    CHECK(rc == 0);
    // Each variant names the keys whose default depends on the kind (delta's
    // key_norm and feature_map), so it means the same whatever the defaults:
    // read as a run's record (a missing key as sum) it is the same model.
    config_defaults_record(&record);
    CHECK(config_load_text(&record, ini, len, key) == 0);
    char diff[256];
    if (config_diff(&c, &record, diff, sizeof diff, 0)) {
        fprintf(stderr, "  %s: the configuration leaves to the kind's default: %s\n", variant, diff);
        CHECK(0);
    }
    CHECK((size_t)c.batch_size == B && (size_t)c.block_size == T);
    snprintf(key, sizeof key, "%s/init/wte", variant);
    const StEntry *wte = safetensors_find(&golden, key);
    CHECK(wte && wte->ndim == 2);
    if (rc || !wte || wte->ndim != 2) return;
    size_t V = wte->shape[0];

    Model m;
    model_build(&m, &c, V);
    // The initial weights: every model tensor from the file, and nothing in
    // the file's init set that the model lacks.
    size_t in_file = 0, prefix = (size_t)snprintf(key, sizeof key, "%s/init/", variant);
    for (size_t i = 0; i < golden.n; i++) in_file += !strncmp(golden.t[i].name, key, prefix);
    CHECK(in_file == m.n_params);
    for (size_t i = 0; i < m.n_params; i++) {
        Tensor *t = &m.params[i].t;
        snprintf(key, sizeof key, "%s/init/%s", variant, t->name);
        get(key, "F32", t->n, sizeof(float), t->data);
    }
    AdamW o;
    adamw_init(&o, &m);
    Graph g;
    graph_build(&g, &m, B, T);

    double *want[3];
    const char *series[3] = {"loss", "grad_norm", "lr"};
    for (int k = 0; k < 3; k++) {
        want[k] = calloc(steps, sizeof(double));
        snprintf(key, sizeof key, "%s/%s", variant, series[k]);
        get(key, "F64", steps, sizeof(double), want[k]);
    }
    // Per series (loss, grad norm, lr): the worst error and the first step
    // past its tolerance; one line per series and variant when it fails.
    const double tol[3] = {LOSS_TOL, NORM_TOL, LR_TOL};
    double worst[3] = {0, 0, 0};
    long first_bad[3] = {-1, -1, -1};
    for (size_t s = 0; s < steps; s++) {
        for (size_t i = 0; i < B * T; i++) {
            g.tokens[i] = inputs[s * B * T + i];
            g.targets[i] = targets[s * B * T + i];
        }
        StepStats st;
        CHECK(train_step(&g, &m, &o, (long)s, &st) == 1);
        double got[3] = {st.loss, st.grad_norm, st.lr};
        for (int k = 0; k < 3; k++) {
            double e = rel(got[k], want[k][s]);
            if (!(e <= worst[k])) worst[k] = e;
            if (!(e <= tol[k]) && first_bad[k] < 0) {
                first_bad[k] = (long)s;
                fprintf(stderr, "  %s: %s at step %zu is %.9g, want %.9g (relative error %.2g, tolerance %.0e)\n",
                        variant, series[k], s, got[k], want[k][s], e, tol[k]);
            }
        }
        if (s == 0) {
            CHECK_NEAR(rel(st.loss, want[0][0]), 0, LOSS_TOL_FIRST);
            CHECK_NEAR(rel(st.grad_norm, want[1][0]), 0, NORM_TOL_FIRST);
        }
    }
    for (int k = 0; k < 3; k++) CHECK(worst[k] <= tol[k]);
    // Every parameter after the last step; one line for all that are off.
    double worst_param = 0;
    const char *worst_name = "";
    size_t n_bad = 0;
    for (size_t i = 0; i < m.n_params; i++) {
        Tensor *t = &m.params[i].t;
        float *fin = calloc(t->n, sizeof(float));
        snprintf(key, sizeof key, "%s/final/%s", variant, t->name);
        if (get(key, "F32", t->n, sizeof(float), fin)) {
            double e = max_rel_err(t->data, fin, t->n, 0);
            n_bad += !(e <= PARAM_TOL);
            if (!(e <= worst_param)) {
                worst_param = e;
                worst_name = t->name;
            }
        }
        free(fin);
    }
    if (n_bad)
        fprintf(stderr, "  %s: %zu of %zu tensors differ after %zu steps, worst %s (relative error %.2g, "
                "tolerance %.0e)\n", variant, n_bad, m.n_params, steps, worst_name, worst_param, PARAM_TOL);
    CHECK(worst_param <= PARAM_TOL);
    printf("%-20s worst relative error: loss %.1e, grad norm %.1e, lr %.1e, parameters %.1e (%s)\n", variant,
           worst[0], worst[1], worst[2], worst_param, worst_name);
    for (int k = 0; k < 3; k++) free(want[k]);
    graph_free(&g);
    adamw_free(&o);
    model_free(&m);
}

static void test_golden_trajectories(void) {
    char path[1024];
    source_path(path, sizeof path, "tests/reference/golden.safetensors");
    int rc = safetensors_read(path, &golden);
    if (rc) fprintf(stderr, "  %s\n", err_msg());
    CHECK(rc == 0);
    if (rc) return;
    const char *fmt = safetensors_meta(&golden, "format", NULL);
    CHECK(fmt && !strcmp(fmt, "lmtrain-golden 1"));
    size_t steps = meta_size("steps"), B = meta_size("batch_size"), T = meta_size("block_size");
    CHECK(steps >= 12 && B > 0 && T > 0);
    int32_t *inputs = calloc(steps * B * T + 1, sizeof(int32_t)), *targets = calloc(steps * B * T + 1, sizeof(int32_t));
    if (get("batches.inputs", "I32", steps * B * T, sizeof(int32_t), inputs) &&
        get("batches.targets", "I32", steps * B * T, sizeof(int32_t), targets)) {
        // every variant in the file, and at least every kind
        const char *list = safetensors_meta(&golden, "variants", NULL);
        CHECK(list != NULL);
        char names[1024];
        snprintf(names, sizeof names, "%s", list ? list : "");
        const char *need[] = {"softmax", "linear", "linear_decay", "delta"};
        for (size_t k = 0; k < sizeof need / sizeof *need; k++) {
            int found = 0;
            char tmp[1024], *save = NULL;
            snprintf(tmp, sizeof tmp, "%s", names);
            for (char *v = strtok_r(tmp, ",", &save); v; v = strtok_r(NULL, ",", &save)) found |= !strcmp(v, need[k]);
            CHECK(found);
        }
        char *save = NULL;
        for (char *v = strtok_r(names, ",", &save); v; v = strtok_r(NULL, ",", &save))
            replay(v, steps, B, T, inputs, targets);
    }
    free(inputs);
    free(targets);
    safetensors_free(&golden);
}

int main(void) {
    pool_init(2);  // results do not depend on the thread count (SPEC §6); 2 exercises the pool
    TEST(test_golden_trajectories);
    return test_summary();
}
