// eval_summary.c — see eval_summary.h.
#include "eval_summary.h"

#include <stdio.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/err.h"
#include "util/file_check.h"

int eval_summary_write(const char *run_dir, const EvalSummary *e) {
    AtomicFile a;
    int rc = atomic_open_in(&a, run_dir, "eval/summary.txt");
    if (rc) return rc;
    // %.17g: the report's statistics use the exact value
    fprintf(a.f, "val_loss %.17g\ntokens %zu\nwindow %zu\nstep %llu\nbatch_fingerprint %016llx\n", e->loss,
            e->tokens, e->window, e->step, e->batch_hash);
    return atomic_commit(&a);
}

int eval_summary_read(const char *run_dir, EvalSummary *e) {
    char path[4200];
    snprintf(path, sizeof path, "%s/eval/summary.txt", run_dir);
    memset(e, 0, sizeof *e);
    FILE *f = fopen_regular(path);
    if (!f) return err_set(ERR_RUNTIME, "%s: missing (run `lmtrain eval --run %s`)", path, run_dir);
    int n = fscanf(f, "val_loss %lf tokens %zu window %zu step %llu batch_fingerprint %llx", &e->loss, &e->tokens,
                   &e->window, &e->step, &e->batch_hash);
    fclose(f);
    if (n != 5) return err_set(ERR_RUNTIME, "%s: malformed", path);
    return 0;
}
