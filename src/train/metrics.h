// metrics.h — metrics.csv: one row per logged step, written as training goes
// (flushed per row, so a crash loses at most the row being written) and read
// back by the report, the charts and --resume.
#pragma once
#include <stddef.h>
#include <stdio.h>

typedef struct {
    long step;
    unsigned long long tokens;
    double lr, train_loss, val_loss, val_acc, grad_norm, tokens_per_s, elapsed_s;  // NaN = empty
    double cpu_s;              // process CPU time of the training steps so far (elapsed_s: their wall time)
    const double *lambda;      // (layers) mean λ over heads, or NULL
    const double *state_norm;  // (layers) mean ||S|| at the last position, or NULL
} MetricsRow;

typedef struct {
    FILE *f;
    char *path;
    int layers, has_lambda, has_state, has_acc;
    int has_cpu;  // the cpu_s column: always in a new file; a resumed file written before it keeps its columns
} Metrics;

// Opens path for appending rows. fresh: writes the header. resume: keeps the
// existing rows with step <= keep_step (rows after the checkpoint belong to a
// future that was lost) and continues after them.
int metrics_open(Metrics *m, const char *path, int layers, int has_lambda, int has_state, int has_acc,
                 int resume, long keep_step);
int metrics_write(Metrics *m, const MetricsRow *r);
int metrics_close(Metrics *m);

// A metrics.csv read back as columns of doubles (empty cells are NaN).
typedef struct {
    size_t rows, cols;
    char **names;   // (cols)
    double *v;      // (rows, cols)
    // The first cell whose text reads as NaN ("nan", "-nan"): the writer
    // leaves a cell empty where it has no value and never writes NaN, so such
    // a cell was put there by something else. nan_row = rows if none.
    size_t nan_row, nan_col;
} MetricsTable;

int metrics_read(const char *path, MetricsTable *t);
void metrics_table_free(MetricsTable *t);
// Column index by name, or -1.
int metrics_col(const MetricsTable *t, const char *name);
// The last non-NaN value in a column (NaN if none / no such column).
double metrics_last(const MetricsTable *t, const char *name);
// The smallest non-NaN value in a column (NaN if none).
double metrics_min(const MetricsTable *t, const char *name);
