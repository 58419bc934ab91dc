// report.c — `lmtrain report DIR`: report.md, curves.svg and curves_zoom.svg
// from the finished runs of the ablation in DIR (its ablation.tsv names the
// runs), whoever trained them: `ablate`, or the lines of `ablate --plan` run
// by xargs, GNU parallel or a Slurm array. Names the runs that are missing or
// unfinished; the statistics use the finished ones.
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "experiment/report.h"
#include "experiment/results.h"
#include "util/err.h"

static const char USAGE[] = "usage: lmtrain report DIR   (DIR: the --out folder of `lmtrain ablate`)";

int cmd_report(int argc, char **argv) {
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts(USAGE);
            return 0;
        }
        if (argv[i][0] == '-' || dir) return err_set(ERR_USAGE, "report: unexpected argument '%s'\n%s", argv[i], USAGE);
        dir = argv[i];
    }
    if (!dir) return err_set(ERR_USAGE, "report: missing DIR\n%s", USAGE);
    Ablation a;
    int rc = ablation_load(&a, dir);
    if (rc) return rc;
    for (size_t i = 0; i < a.n_run; i++)
        if (a.run[i].state != RUN_FINISHED)
            fprintf(stderr, "lmtrain: report: %s/%s: %s\n", dir, a.run[i].plan.rel, run_state_name(a.run[i].state));
    if (a.n_run == 0)
        rc = err_set(ERR_RUNTIME, "report: no runs under %s (no ablation.tsv, no run folders)", dir);
    else if (a.n_finished == 0)
        rc = err_set(ERR_RUNTIME, "report: none of the %zu runs planned in %s has finished; nothing to report", a.n_run,
                     dir);
    else if (!(rc = report_write(&a, dir)))
        printf("report written to %s/report.md, curves.svg and curves_zoom.svg (%zu of %zu runs finished)\n", dir,
               a.n_finished, a.n_run);
    ablation_free(&a);
    return rc;
}
