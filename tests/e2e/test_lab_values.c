// test_lab_values.c — `lmtrain lab`'s numbers end to end, against values the
// test computes on its own: the four write rules re-implemented here in
// double precision (memory.h's formulas), fed the documented draws (per trial
// a stream seeded with seed * 0x9E3779B97F4A7C15 + trial: N·dh key components,
// then N·dh value components, N(0, 1); run keys: a partial Fisher-Yates over
// the pool), every row of recall.csv compared: each head size (16, 32, 64),
// each N = dh/8 .. 4·dh, each rule. With `--run R --layer 0 --head 1` the keys
// are computed here from the checkpoint's weights (LayerNorm, then that head's
// rows of the key projection: no attention runs before layer 0's keys) and the
// decay rule's λ from that head's θ: a layer or head taken from the wrong
// place changes the numbers. Agreement: 1e-4 (absolute plus relative), the
// lab's float32 state against double here; a head swapped moves rows by 4e-3.
#include "../test.h"
#include "e2e.h"
#include "cmd/run_load.h"
#include "util/rng.h"

static char corpus[512], run_dir[512];

static double phi(int fmap_identity, double x) { return fmap_identity ? x : x > 0 ? x + 1 : exp(x); }

enum { SUM, DECAY, DELTA_SUM, DELTA_L2 };

// Mean cos(read-out, value) of N pairs over `trials`, keys from `pool` (n_pool, dh) or Gaussian.
static double recall_cos(int rule, int identity, size_t dh, size_t N, size_t trials, uint64_t seed, double lambda,
                         double eps, const float *pool, size_t n_pool) {
    double *S = calloc(dh * dh, sizeof(double)), *z = calloc(dh, sizeof(double)), *f = calloc(dh, sizeof(double));
    double *k = calloc(N * dh, sizeof(double)), *v = calloc(N * dh, sizeof(double)), *y = calloc(dh, sizeof(double));
    size_t *idx = pool ? calloc(n_pool, sizeof(size_t)) : NULL;
    double cos_sum = 0;
    for (size_t t = 0; t < trials; t++) {
        Rng r;
        rng_seed(&r, seed * 0x9E3779B97F4A7C15ull + (uint64_t)t);
        if (!pool) {
            for (size_t i = 0; i < N * dh; i++) k[i] = rng_normal(&r);
        } else {
            for (size_t i = 0; i < n_pool; i++) idx[i] = i;
            for (size_t i = 0; i < N; i++) {
                size_t j = i + (size_t)rng_below(&r, n_pool - i), s = idx[i];
                idx[i] = idx[j], idx[j] = s;
                for (size_t c = 0; c < dh; c++) k[i * dh + c] = pool[idx[i] * dh + c];
            }
        }
        for (size_t i = 0; i < N * dh; i++) v[i] = rng_normal(&r);
        memset(S, 0, dh * dh * sizeof(double));
        memset(z, 0, dh * sizeof(double));
        for (int pass = 0; pass < 2; pass++)  // 0: write every pair, 1: read every key
            for (size_t n = 0; n < N; n++) {
                double sum = 0, sq = 0, scale = 1;
                for (size_t c = 0; c < dh; c++) f[c] = phi(identity, k[n * dh + c]), sum += f[c], sq += f[c] * f[c];
                if (rule == DELTA_SUM) scale = 1 / (sum + eps);
                if (rule == DELTA_L2) scale = 1 / (sqrt(sq) + eps);
                for (size_t c = 0; c < dh; c++) f[c] *= scale;
                const double *vn = v + n * dh;
                if (pass == 0 && rule <= DECAY) {
                    double l = rule == DECAY ? lambda : 1;
                    for (size_t i = 0; i < dh; i++) {
                        z[i] = l * z[i] + f[i];
                        for (size_t j = 0; j < dh; j++) S[i * dh + j] = l * S[i * dh + j] + f[i] * vn[j];
                    }
                } else if (pass == 0) {
                    for (size_t j = 0; j < dh; j++) {
                        double old = 0;
                        for (size_t i = 0; i < dh; i++) old += f[i] * S[i * dh + j];
                        for (size_t i = 0; i < dh; i++) S[i * dh + j] += f[i] * (vn[j] - old);  // β = 1
                    }
                } else {
                    double den = eps, yy = 0, vv = 0, yv = 0;
                    for (size_t i = 0; i < dh; i++) den += f[i] * z[i];
                    for (size_t j = 0; j < dh; j++) {
                        y[j] = 0;
                        for (size_t i = 0; i < dh; i++) y[j] += f[i] * S[i * dh + j];
                        if (rule <= DECAY && !identity) y[j] /= den;
                        yy += y[j] * y[j], vv += vn[j] * vn[j], yv += y[j] * vn[j];
                    }
                    cos_sum += yy > 0 && vv > 0 ? yv / sqrt(yy * vv) : 0;
                }
            }
    }
    free(S), free(z), free(f), free(k), free(v), free(y), free(idx);
    return cos_sum / (double)(N * trials);
}

// Each row of DIR/recall.csv whose keys column is `keys` against recall_cos;
// how many rows were compared.
static int check_csv(const char *dir, const char *keys, uint64_t seed, size_t trials, double lambda, double eps,
                     const float *pool, size_t n_pool) {
    static const char *const rules[] = {"sum", "decay", "delta-sum", "delta-l2"};
    char p[700];
    snprintf(p, sizeof p, "%s/recall.csv", dir);
    char *t = read_all(p, NULL);
    CHECK(t != NULL);
    int rows = 0, bad = 0;
    for (char *line = t ? strchr(t, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
        char k[32], fm[16], rule[16];
        size_t dh, N;
        double ratio, cos, acc;
        if (sscanf(line + 1, "%31[^,],%15[^,],%zu,%zu,%lf,%15[^,],%lf,%lf", k, fm, &dh, &N, &ratio, rule, &cos, &acc) != 8)
            continue;
        if (strcmp(k, keys)) continue;
        int r = 0;
        while (r < 4 && strcmp(rules[r], rule)) r++;
        double want = recall_cos(r, !strcmp(fm, "identity"), dh, N, trials, seed, lambda, eps, pool, n_pool);
        bad += !(fabs(cos - want) <= 1e-4 + 1e-4 * fabs(want)) || fabs(ratio * dh - 8.0 * N / 8.0) > 1e-9 ||
               r == 4;
        if (!(fabs(cos - want) <= 1e-4 + 1e-4 * fabs(want)) && bad < 4)
            fprintf(stderr, "  %s %s dh %zu N %zu %s: cos %.6f, want %.6f\n", keys, fm, dh, N, rule, cos, want);
        rows++;
    }
    CHECK(bad == 0);
    free(t);
    return rows;
}

static void test_gaussian_capacity_every_head_size(void) {
    char out[512];
    tpath(out, sizeof out, "lab");
    char *argv[] = {"lab", "--out", out, "--trials", "3", "--seed", "11", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) return (void)fprintf(stderr, "%s\n", e2e_out);
    // identity: 3 rules (delta-sum does not apply), elu1: 4; 3 head sizes x 6 N each
    CHECK(check_csv(out, "gaussian", 11, 3, 0.97, 1e-6, NULL, 0) == 3 * 6 * (3 + 4));
}

static void test_run_keys_from_the_named_layer_and_head(void) {
    char out[512];
    tpath(out, sizeof out, "lab_run");
    char *argv[] = {"lab", "--run", run_dir, "--layer", "0", "--head", "1", "--trials", "2", "--seed", "4",
                    "--out", out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) return (void)fprintf(stderr, "%s\n", e2e_out);
    LoadedRun r;
    if (run_load(&r, run_dir)) {
        CHECK(!"the run loads");
        return;
    }
    const Model *m = &r.model;
    size_t T = m->Tmax, C = m->C, dh = m->dh, head = 1, n = 0;
    // the validation text window after window, up to --key-tokens (4096)
    size_t windows = dataset_eval_windows(r.data, SPLIT_VAL, T);
    int *tok = calloc(4096 + T, sizeof(int)), *tg = calloc(T, sizeof(int));
    for (size_t w = 0; w < windows && n + T <= 4096; w++, n += T) dataset_eval_window(r.data, SPLIT_VAL, w, T, tok + n, tg);
    float *pool = calloc(n * dh, sizeof(float));
    const Layer *l0 = &m->layer[0];
    for (size_t i = 0; i < n; i++) {
        double x[256], mean = 0, var = 0;
        for (size_t c = 0; c < C; c++) {
            x[c] = m->wte->data[(size_t)tok[i] * C + c] + (m->wpe ? m->wpe->data[(i % T) * C + c] : 0);
            mean += x[c] / (double)C;
        }
        for (size_t c = 0; c < C; c++) var += (x[c] - mean) * (x[c] - mean) / (double)C;
        for (size_t c = 0; c < C; c++) x[c] = (x[c] - mean) / sqrt(var + 1e-5) * l0->ln1_w->data[c] + l0->ln1_b->data[c];
        for (size_t d = 0; d < dh; d++) {  // rows C + head*dh + d of qkv: the key of this head
            double s = 0;
            for (size_t c = 0; c < C; c++) s += l0->qkv->data[(C + head * dh + d) * C + c] * x[c];
            pool[i * dh + d] = (float)s;
        }
    }
    double lambda = 1 / (1 + exp(-(double)l0->theta->data[head]));
    CHECK(check_csv(out, "run", 4, 2, lambda, r.cfg.eps, pool, n) == 6 * 4);
    free(tok), free(tg), free(pool);
    run_unload(&r);
}

static void train_run(void) {
    char cfg[512], text[2048];
    tpath(cfg, sizeof cfg, "tiny.ini");
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nseed = 7\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.3\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 32\nblock_size = 16\n"
             "[attention]\nkind = linear_decay\ndecay_init = 0.9\n"
             "[train]\nsteps = 20\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 20\n"
             "eval_batches = 2\nlog_every = 10\ncheckpoint_every = 20\n", corpus);
    write_text(cfg, text);
    char *argv[] = {"--config", cfg, "--out", run_dir, NULL};
    int rc = run_lmtrain(argv);
    if (rc) fprintf(stderr, "training: %s\n", e2e_out);
    CHECK(rc == 0);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(run_dir, sizeof run_dir, "run");
    write_corpus(corpus, 20000);
    TEST(train_run);
    TEST(test_gaussian_capacity_every_head_size);
    TEST(test_run_keys_from_the_named_layer_and_head);
    e2e_teardown();
    return test_summary();
}
