// metrics_check.c — see metrics_check.h.
#include "metrics_check.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file_check.h"

long metrics_last_logged_step(long step, int log_every, int eval_every, long steps) {
    if (step >= steps) return step;
    long by_log = step - step % log_every, by_eval = step - step % eval_every;
    return by_log > by_eval ? by_log : by_eval;
}

// The index of column `name` in the header line (ends at '\n'), or -1.
static int column(const char *header, const char *name) {
    size_t n = strlen(name);
    int col = 0;
    for (const char *p = header; *p && *p != '\n'; col++) {
        size_t len = strcspn(p, ",\n");
        if (len == n && !strncmp(p, name, n)) return col;
        p += len;
        if (*p == ',') p++;
    }
    return -1;
}

// The value of column `col` of the line at p, as a step (-1 if absent or not a number).
static long field_step(const char *p, int col) {
    for (int c = 0; c < col; c++) {
        p += strcspn(p, ",\n");
        if (*p != ',') return -1;
        p++;
    }
    char *end;
    long v = strtol(p, &end, 10);
    return end == p || (*end != ',' && *end != '\n') ? -1 : v;
}

int metrics_check_reaches(const char *path, long want, long ckpt_step, const char *harm, const char *remedy) {
    char *text = NULL;
    size_t n = 0;
    if (read_regular(path, "metrics file", (size_t)1 << 30, &text, &n)) return ERR_RUNTIME;
    int col = column(text, "step");
    long last = -1;
    const char *line = strchr(text, '\n');
    // only complete lines count: one without its '\n' was being written when the run died
    for (line = line ? line + 1 : NULL; line && *line; line = strchr(line, '\n') + 1) {
        if (!strchr(line, '\n')) break;
        long s = field_step(line, col);
        if (s >= 0) last = s;
    }
    free(text);
    if (col < 0) return err_set(ERR_RUNTIME, "%s has no \"step\" column: it is not a metrics.csv lmtrain wrote", path);
    if (last >= want) return 0;
    char ends[64];
    if (last < 0) snprintf(ends, sizeof ends, "holds no complete row");
    else snprintf(ends, sizeof ends, "ends at step %ld", last);
    return err_set(ERR_RUNTIME,
                   "%s %s, but the checkpoint is at step %ld and had logged up to step %ld: the file was cut "
                   "short, and %s. Nothing was changed; %s",
                   path, ends, ckpt_step, want, harm, remedy);
}
