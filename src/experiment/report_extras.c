// report_extras.c — see report_extras.h.
#include "experiment/report_extras.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/metrics.h"
#include "util/err.h"
#include "util/file_check.h"

// Adds RUN/eval/loss_by_position.csv (position,loss,bits,count) into sum/cnt,
// growing them to the file's length. 1 if read.
static int add_positions(const char *run_dir, double **sum, size_t **cnt, size_t *n) {
    char path[4800], line[256];
    snprintf(path, sizeof path, "%s/eval/loss_by_position.csv", run_dir);
    FILE *f = fopen_regular(path);
    if (!f) return 0;
    int ok = fgets(line, sizeof line, f) && !strncmp(line, "position,loss", 13);
    while (ok && fgets(line, sizeof line, f)) {
        size_t pos;
        double loss;
        if (sscanf(line, "%zu,%lf", &pos, &loss) != 2 || pos > 1u << 24) continue;  // recall: empty rows
        if (pos >= *n) {
            *sum = xrealloc(*sum, (pos + 1) * sizeof(double));
            *cnt = xrealloc(*cnt, (pos + 1) * sizeof(size_t));
            for (size_t i = *n; i <= pos; i++) (*sum)[i] = 0, (*cnt)[i] = 0;
            *n = pos + 1;
        }
        (*sum)[pos] += loss;
        (*cnt)[pos]++;
    }
    fclose(f);
    return ok;
}

GroupExtras *report_extras_load(const Ablation *a) {
    GroupExtras *e = xcalloc(a->n_group + 1, sizeof *e);
    for (size_t g = 0; g < a->n_group; g++) {
        const GroupStats *gs = &a->group[g];
        double *sum = NULL, *lsum = NULL;
        size_t *cnt = NULL, n = 0, lruns = 0, L = 0;
        for (int k = 0; k < gs->n_runs; k++) {
            const RunResult *r = &a->run[gs->runs[k]];
            if (r->state != RUN_FINISHED) continue;
            char dir[4700], path[4800];
            snprintf(dir, sizeof dir, "%s/%s", a->dir, r->plan.rel);
            add_positions(dir, &sum, &cnt, &n);
            snprintf(path, sizeof path, "%s/metrics.csv", dir);
            MetricsTable t;
            if (metrics_read(path, &t)) {
                err_clear();
                continue;
            }
            size_t layers = 0;
            while (layers < 1024) {
                char col[32];
                snprintf(col, sizeof col, "lambda_%zu", layers);
                if (metrics_col(&t, col) < 0) break;
                layers++;
            }
            if (layers && (L == 0 || L == layers)) {
                if (!lsum) lsum = xcalloc(layers, sizeof(double));
                L = layers;
                for (size_t l = 0; l < layers; l++) {
                    char col[32];
                    snprintf(col, sizeof col, "lambda_%zu", l);
                    lsum[l] += metrics_last(&t, col);
                }
                lruns++;
            }
            metrics_table_free(&t);
        }
        if (n) {
            e[g].loss = xcalloc(n, sizeof(double));
            for (size_t i = 0; i < n; i++) e[g].loss[i] = cnt[i] ? sum[i] / (double)cnt[i] : NAN;
            e[g].n_pos = n;
        }
        if (lruns) {
            for (size_t l = 0; l < L; l++) lsum[l] /= (double)lruns;
            e[g].lambda = lsum;
            e[g].n_layers = L;
        } else {
            free(lsum);
        }
        free(sum);
        free(cnt);
    }
    return e;
}

void report_extras_free(GroupExtras *e, size_t n) {
    if (!e) return;
    for (size_t g = 0; g < n; g++) {
        free(e[g].loss);
        free(e[g].lambda);
    }
    free(e);
}
