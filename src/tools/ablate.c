// ablate.c — `lmtrain ablate A.ini B.ini ...`: train each config with the same
// seed and batch order into DIR/<name>/, then write DIR/report.md (one table)
// and DIR/curves.svg (all runs' train and val loss on one chart).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/svg.h"
#include "train/checkpoint.h"
#include "train/data.h"
#include "train/metrics.h"
#include "train/summary.h"
#include "train/run_folder.h"
#include "train/train.h"
#include "util/atomic_file.h"
#include "util/err.h"

#define ABLATE_MAX 16

typedef struct {
    Config cfg;
    char dir[4096];
    MetricsTable m;
    size_t params;
    size_t mem[4];
    unsigned long long batch_hash;
} Entry;

// --sweep section.key=v1,v2,...: every config is trained again at each value;
// the report gains a table of final val accuracy (recall) or val loss per
// kind and value.
typedef struct {
    char key[128];
    char values[32][64];
    int n;
    double *result;  // (n_configs, n) final val_acc or val_loss
} Sweep;

static int parse_sweep(Sweep *sw, const char *arg) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof sw->key)
        return err_set(ERR_USAGE, "--sweep %s: expected section.key=v1,v2,...", arg);
    memcpy(sw->key, arg, (size_t)(eq - arg));
    sw->key[eq - arg] = 0;
    const char *p = eq + 1;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= sizeof sw->values[0] || sw->n == 32)
            return err_set(ERR_USAGE, "--sweep %s: expected 1 to 32 non-empty values", arg);
        memcpy(sw->values[sw->n], p, len);
        sw->values[sw->n][len] = 0;
        sw->n++;
        p = c ? c + 1 : p + len;
    }
    if (sw->n == 0) return err_set(ERR_USAGE, "--sweep %s: no values", arg);
    return 0;
}

static void write_sweep_table(FILE *f, const Sweep *sw, const Entry *e, int n) {
    int recall = e[0].cfg.task == TASK_RECALL;
    fprintf(f, "\n## Sweep over `%s`: final %s\n\n| kind |", sw->key, recall ? "val accuracy" : "val loss");
    for (int j = 0; j < sw->n; j++) fprintf(f, " %s |", sw->values[j]);
    fprintf(f, "\n|---|");
    for (int j = 0; j < sw->n; j++) fprintf(f, "---:|");
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "| %s |", e[i].cfg.kind);
        for (int j = 0; j < sw->n; j++) fprintf(f, recall ? " %.3f |" : " %.4f |", sw->result[i * sw->n + j]);
        fputc('\n', f);
    }
}

static int write_report(const char *out, Entry *e, int n, const Sweep *sw) {
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", out);
    AtomicFile a;
    int rc = atomic_open(&a, path);
    if (rc) return rc;
    FILE *f = a.f;
    int recall = e[0].cfg.task == TASK_RECALL;
    const size_t lens[] = REPORT_LENGTHS;
    fprintf(f, "# Ablation: only the attention module changes\n\n");
    fprintf(f, "Same data, seed, batch order, optimiser and schedule (%d steps of %d x %d tokens). "
               "Inference memory is per sequence, all layers: the KV cache for softmax, the fixed "
               "fast-weight state otherwise.\n\n", e[0].cfg.steps, e[0].cfg.batch_size, e[0].cfg.block_size);
    fprintf(f, "| kind | parameters | final train loss | final val loss | best val loss |%s tokens/s |",
            recall ? " val acc |" : "");
    for (size_t i = 0; i < 4; i++) fprintf(f, " memory @ %zu |", lens[i]);
    fprintf(f, "\n|---|---:|---:|---:|---:|%s---:|", recall ? "---:|" : "");
    for (size_t i = 0; i < 4; i++) fprintf(f, "---:|");
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        MetricsTable *t = &e[i].m;
        // tokens/s over the whole run: tokens / elapsed training time
        double tok = metrics_last(t, "tokens"), el = metrics_last(t, "elapsed_s");
        fprintf(f, "| %s | %zu | %.4f | %.4f | %.4f |", e[i].cfg.kind, e[i].params,
                metrics_last(t, "train_loss"), metrics_last(t, "val_loss"), metrics_min(t, "val_loss"));
        if (recall) fprintf(f, " %.3f |", metrics_last(t, "val_acc"));
        fprintf(f, " %.0f |", el > 0 ? tok / el : NAN);
        for (size_t k = 0; k < 4; k++) {
            char b[32];
            format_bytes(b, sizeof b, (double)e[i].mem[k]);
            fprintf(f, " %s |", b);
        }
        fputc('\n', f);
    }
    int same = 1;
    for (int i = 1; i < n; i++) same &= e[i].batch_hash == e[0].batch_hash;
    if (same)
        fprintf(f, "\nEvery run trained on the same batches in the same order (batch fingerprint %016llx).\n",
                e[0].batch_hash);
    else
        fprintf(f, "\n**Warning: the runs did not see the same training batches** (their batch fingerprints "
                   "differ: the configs differ in data, seed, batch_size or block_size).\n");
    fprintf(f, "\nRuns: ");
    for (int i = 0; i < n; i++) fprintf(f, "%s`%s/`", i ? ", " : "", e[i].dir);
    fprintf(f, ". Curves: `curves.svg`.\n");
    if (sw->n) write_sweep_table(f, sw, e, n);
    return atomic_commit(&a);
}

static int write_curves(const char *out, Entry *e, int n) {
    SvgSeries s[2 * ABLATE_MAX];
    double *bufs[3 * ABLATE_MAX];
    char labels[2 * ABLATE_MAX][160];
    int ns = 0, nb = 0;
    for (int i = 0; i < n; i++) {
        MetricsTable *t = &e[i].m;
        int cs = metrics_col(t, "step"), ct = metrics_col(t, "train_loss"), cv = metrics_col(t, "val_loss");
        double *x = xcalloc(t->rows + 1, sizeof(double)), *tr = xcalloc(t->rows + 1, sizeof(double)),
               *va = xcalloc(t->rows + 1, sizeof(double));
        for (size_t r = 0; r < t->rows; r++) {
            x[r] = t->v[r * t->cols + (size_t)cs];
            tr[r] = t->v[r * t->cols + (size_t)ct];
            va[r] = t->v[r * t->cols + (size_t)cv];
        }
        bufs[nb++] = x;
        bufs[nb++] = tr;
        bufs[nb++] = va;
        snprintf(labels[ns], sizeof labels[ns], "%s train", e[i].cfg.kind);
        s[ns] = (SvgSeries){labels[ns], x, tr, t->rows, 1, i + 1};
        ns++;
        snprintf(labels[ns], sizeof labels[ns], "%s val", e[i].cfg.kind);
        s[ns] = (SvgSeries){labels[ns], x, va, t->rows, 0, i + 1};
        ns++;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/curves.svg", out);
    SvgChart c = {"Ablation: train (dashed) and validation (solid) loss", "step", "loss (nats/char)", 0, 0};
    int rc = svg_line_chart(path, &c, s, (size_t)ns);
    for (int i = 0; i < nb; i++) free(bufs[i]);
    return rc;
}

static int run_sweep(Sweep *sw, const char *out, const Entry *e, int n, const char *const *files,
                     char **sets, int n_sets, RunMode mode) {
    sw->result = xcalloc((size_t)(n * sw->n), sizeof(double));
    char assign[256], *all[257];
    memcpy(all, sets, (size_t)n_sets * sizeof *all);
    all[n_sets] = assign;  // the sweep value is applied after the user's --set options
    for (int j = 0; j < sw->n; j++) {
        snprintf(assign, sizeof assign, "%s=%s", sw->key, sw->values[j]);
        for (int i = 0; i < n; i++) {
            Config c;
            int rc = cli_load_config(&c, files[i], all, n_sets + 1);
            if (rc) return rc;
            char dir[4600], path[4700];
            snprintf(dir, sizeof dir, "%s/sweep_%s_%s/%s", out, sw->key, sw->values[j], e[i].cfg.name);
            printf("== sweep %s = %s: %s\n", sw->key, sw->values[j], c.name);
            fflush(stdout);
            if ((rc = train_run(&c, dir, mode))) return rc;
            MetricsTable t;
            snprintf(path, sizeof path, "%s/metrics.csv", dir);
            if ((rc = metrics_read(path, &t))) return rc;
            sw->result[i * sw->n + j] = metrics_last(&t, c.task == TASK_RECALL ? "val_acc" : "val_loss");
            metrics_table_free(&t);
        }
    }
    return 0;
}

int cmd_ablate(int argc, char **argv) {
    const char *files[ABLATE_MAX], *out = "runs/ablation";
    char *sets[256];
    int n = 0, n_sets = 0;
    RunMode mode = RUN_NEW;
    Sweep sw;
    memset(&sw, 0, sizeof sw);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc) {
            if (sw.n) return err_set(ERR_USAGE, "ablate: one --sweep at most");
            int rc = parse_sweep(&sw, argv[++i]);
            if (rc) return rc;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            if (n_sets == 256) return err_set(ERR_USAGE, "too many --set options");
            sets[n_sets++] = argv[++i];
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--overwrite") == 0) mode = RUN_OVERWRITE;
        else if (argv[i][0] == '-') return err_set(ERR_USAGE, "ablate: unknown or incomplete option '%s'", argv[i]);
        else if (n == ABLATE_MAX) return err_set(ERR_USAGE, "ablate: at most %d configs", ABLATE_MAX);
        else files[n++] = argv[i];
    }
    if (n < 2) return err_set(ERR_USAGE, "ablate needs at least two config files");
    Entry *e = xcalloc((size_t)n, sizeof *e);
    int rc = 0;
    // Validate every config before training any, so a typo in the third file
    // does not surface after two runs' worth of waiting.
    for (int i = 0; i < n && !rc; i++) rc = cli_load_config(&e[i].cfg, files[i], sets, n_sets);
    for (int i = 0; i < n && !rc; i++)
        for (int j = 0; j < i && !rc; j++)
            if (!strcmp(e[i].cfg.name, e[j].cfg.name))
                rc = err_set(ERR_USAGE, "ablate: %s and %s have the same [run] name '%s'", files[j], files[i],
                             e[i].cfg.name);
    // Every run folder is checked before any training: a refusal (a run already
    // there, a folder in use) comes first, with nothing written.
    for (int i = 0; i < n && !rc; i++) {
        snprintf(e[i].dir, sizeof e[i].dir, "%s/%s", out, e[i].cfg.name);
        rc = run_folder_check(e[i].dir, mode);
        if (rc == ERR_USAGE) err_wrap(rc, "ablate: ");
    }
    // One ablation per folder at a time: its report and chart are written here.
    DirLock lock = {.fd = -1};
    if (!rc) rc = make_dirs(out);
    if (!rc) rc = dir_lock_take(&lock, out, "ablate into");
    for (int i = 0; i < n && !rc; i++) {
        printf("== ablate %d/%d: %s (%s)\n", i + 1, n, e[i].cfg.name, e[i].cfg.kind);
        fflush(stdout);
        rc = train_run(&e[i].cfg, e[i].dir, mode);
        if (rc) break;
        char path[4200];
        snprintf(path, sizeof path, "%s/metrics.csv", e[i].dir);
        if ((rc = metrics_read(path, &e[i].m))) break;
        TrainState st;
        snprintf(path, sizeof path, "%s/checkpoint.bin", e[i].dir);
        if ((rc = checkpoint_read_state(path, &st))) break;
        e[i].batch_hash = st.batch_hash;
        // parameter count and memory figures from a model of the same shape
        Dataset *d = NULL;
        if ((rc = dataset_open(&e[i].cfg, &d))) break;
        Model m;
        model_build(&m, &e[i].cfg, (size_t)dataset_vocab_size(d));
        e[i].params = m.n_weights;
        const size_t lens[] = REPORT_LENGTHS;
        for (int k = 0; k < 4; k++) e[i].mem[k] = model_inference_bytes(&m, lens[k]);
        model_free(&m);
        dataset_free(d);
    }
    if (!rc && sw.n) rc = run_sweep(&sw, out, e, n, files, sets, n_sets, mode);
    if (!rc) rc = write_report(out, e, n, &sw);
    if (!rc) rc = write_curves(out, e, n);
    if (!rc) printf("comparison written to %s/report.md and %s/curves.svg\n", out, out);
    dir_lock_release(&lock);
    for (int i = 0; i < n; i++) metrics_table_free(&e[i].m);
    free(e);
    free(sw.result);
    return rc;
}
