// metrics.c — the metrics.csv writer and reader.
#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"
#include "util/file_check.h"
#include "util/err.h"

static void header(const Metrics *m, FILE *f) {
    fprintf(f, "step,tokens,lr,train_loss,val_loss,%sgrad_norm,tokens_per_s,elapsed_s%s",
            m->has_acc ? "val_acc," : "", m->has_cpu ? ",cpu_s" : "");
    for (int l = 0; l < m->layers && m->has_lambda; l++) fprintf(f, ",lambda_%d", l);
    for (int l = 0; l < m->layers && m->has_state; l++) fprintf(f, ",state_norm_%d", l);
    fputc('\n', f);
}

// metrics.csv is a few hundred bytes per logged step; 1 GiB is far beyond any
// real run and keeps a wrong file from being read without bound.
#define METRICS_MAX_BYTES ((size_t)1 << 30)

static char *slurp(const char *path, size_t *len) {
    char *buf = NULL;
    return read_regular(path, "metrics file", METRICS_MAX_BYTES, &buf, len) ? NULL : buf;
}

// Whether a header line names the column `name`.
static int header_has(const char *line, const char *name) {
    size_t n = strlen(name);
    for (const char *p = line; p && *p && *p != '\n'; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n' || !p[n])) return 1;
    return 0;
}

// Rewrites path keeping the header and the rows whose step <= keep_step.
// *has_cpu: whether its header has the cpu_s column (a file from before it has not).
static int truncate_rows(const char *path, long keep_step, int *has_cpu) {
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) return err_wrap(ERR_RUNTIME, "--resume: ");
    AtomicFile a;
    if (atomic_open(&a, path)) {
        free(text);
        return ERR_RUNTIME;
    }
    char *line = text, *next;
    int first = 1;
    for (; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (!next) break;  // an unterminated last line was being written when the run died
        if (first) *has_cpu = header_has(line, "cpu_s");
        if (first || strtol(line, NULL, 10) <= keep_step) fprintf(a.f, "%s\n", line);
        first = 0;
    }
    free(text);
    return atomic_commit(&a);
}

int metrics_open(Metrics *m, const char *path, int layers, int has_lambda, int has_state, int has_acc,
                 int resume, long keep_step) {
    memset(m, 0, sizeof *m);
    m->layers = layers;
    m->has_lambda = has_lambda;
    m->has_state = has_state;
    m->has_acc = has_acc;
    m->has_cpu = 1;
    m->path = xstrdup(path);
    if (resume) {
        int rc = truncate_rows(path, keep_step, &m->has_cpu);
        if (rc) return rc;
    }
    int fd, rc = open_regular_output(path, !resume, &fd);
    if (rc) return rc;
    m->f = fdopen(fd, resume ? "a" : "w");
    if (!m->f) {
        close(fd);
        return err_set(ERR_RUNTIME, "cannot open %s: %s", path, strerror(errno));
    }
    if (!resume) header(m, m->f);
    return 0;
}

static void cell(FILE *f, const char *fmt, double v) {
    fputc(',', f);
    if (!isnan(v)) fprintf(f, fmt, v);
}

int metrics_write(Metrics *m, const MetricsRow *r) {
    FILE *f = m->f;
    fprintf(f, "%ld,%llu", r->step, r->tokens);
    cell(f, "%.6g", r->lr);
    cell(f, "%.6f", r->train_loss);
    cell(f, "%.6f", r->val_loss);
    if (m->has_acc) cell(f, "%.6f", r->val_acc);
    cell(f, "%.6f", r->grad_norm);
    cell(f, "%.1f", r->tokens_per_s);
    cell(f, "%.3f", r->elapsed_s);
    if (m->has_cpu) cell(f, "%.6f", r->cpu_s);  // a tiny step takes well under a millisecond
    for (int l = 0; l < m->layers && m->has_lambda; l++) cell(f, "%.6f", r->lambda[l]);
    for (int l = 0; l < m->layers && m->has_state; l++) cell(f, "%.6g", r->state_norm[l]);
    fputc('\n', f);
    if (fflush(f) != 0 || ferror(f))
        return err_set(ERR_RUNTIME, "%s: write failed: %s", m->path, strerror(errno));
    return 0;
}

int metrics_close(Metrics *m) {
    int rc = 0;
    if (m->f && fclose(m->f) != 0) rc = err_set(ERR_RUNTIME, "%s: close failed: %s", m->path, strerror(errno));
    free(m->path);
    memset(m, 0, sizeof *m);
    return rc;
}

// ---- reader ----

int metrics_read(const char *path, MetricsTable *t) {
    memset(t, 0, sizeof *t);
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) return ERR_RUNTIME;  // read_regular's message names the file
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (!line) {
        free(text);
        return err_set(ERR_RUNTIME, "%s: empty (no header)", path);
    }
    // header: comma-separated column names
    for (const char *p = line;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        t->names = xrealloc(t->names, (t->cols + 1) * sizeof *t->names);
        t->names[t->cols] = xmalloc(n + 1);
        memcpy(t->names[t->cols], p, n);
        t->names[t->cols][n] = 0;
        t->cols++;
        if (!end) break;
        p = end + 1;
    }
    size_t cap = 0;
    t->nan_row = (size_t)-1;
    while ((line = strtok_r(NULL, "\n", &save))) {
        if (t->rows == cap) {
            cap = cap ? 2 * cap : 256;
            t->v = xrealloc(t->v, cap * t->cols * sizeof(double));
        }
        double *row = t->v + t->rows * t->cols;
        const char *p = line;
        for (size_t c = 0; c < t->cols; c++) {
            char *end;
            row[c] = NAN;
            if (*p && *p != ',') {
                double x = strtod(p, &end);
                if (end != p) row[c] = x;
                if (end != p && isnan(x) && t->nan_row == (size_t)-1) t->nan_row = t->rows, t->nan_col = c;
                p = end;
            }
            while (*p && *p != ',') p++;
            if (*p == ',') p++;
        }
        t->rows++;
    }
    if (t->nan_row == (size_t)-1) t->nan_row = t->rows;
    free(text);
    return 0;
}

void metrics_table_free(MetricsTable *t) {
    for (size_t c = 0; c < t->cols; c++) free(t->names[c]);
    free(t->names);
    free(t->v);
    memset(t, 0, sizeof *t);
}

int metrics_col(const MetricsTable *t, const char *name) {
    for (size_t c = 0; c < t->cols; c++)
        if (strcmp(t->names[c], name) == 0) return (int)c;
    return -1;
}

double metrics_last(const MetricsTable *t, const char *name) {
    int c = metrics_col(t, name);
    if (c < 0) return NAN;
    for (size_t r = t->rows; r-- > 0;)
        if (!isnan(t->v[r * t->cols + (size_t)c])) return t->v[r * t->cols + (size_t)c];
    return NAN;
}

double metrics_min(const MetricsTable *t, const char *name) {
    int c = metrics_col(t, name);
    double best = NAN;
    if (c < 0) return NAN;
    for (size_t r = 0; r < t->rows; r++) {
        double x = t->v[r * t->cols + (size_t)c];
        if (!isnan(x) && (isnan(best) || x < best)) best = x;
    }
    return best;
}
