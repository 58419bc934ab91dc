// report.c — `lmtrain report DIR`: report.md, report.html, curves.svg and
// curves_zoom.svg from the finished runs of the ablation in DIR (its ablation.tsv names the
// runs), whoever trained them: `ablate`, or the lines of `ablate --plan` run
// by xargs, GNU parallel or a Slurm array. Names the runs that are missing or
// unfinished; the statistics use the finished ones.
#include <stdio.h>

#include "cmd/args.h"
#include "cmd/commands.h"
#include "experiment/report.h"
#include "experiment/results.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"
#include "util/err.h"

int cmd_report(int argc, char **argv) {
    const char *dirs[1], *baseline = NULL;
    ArgList dir_list = {dirs, 1, 0};
    const ArgOpt opts[] = {
        {"--baseline", ARG_STRING, &baseline, "NAME",
         .help = "the run name differences are taken against", .shown_default = "the ablation's first config"},
    };
    const ArgSpec spec = {"report", "DIR [--baseline NAME]",
                          "An ablation's report from its finished runs, whoever trained them (ablate, or the\n"
                          "lines of ablate --plan): DIR/report.md, report.html and the curves*.svg charts.",
                          ARGS_TABLE(opts), .positional = &dir_list,
                          .positional_help = "DIR  the --out folder of `lmtrain ablate`"};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);
    if (dir_list.n == 0) return err_set(ERR_USAGE, "report: missing DIR (see lmtrain report --help)");
    const char *dir = dirs[0];
    // An ablate (or another report) writing in DIR is refused, naming it: its
    // report would replace ours, or ours would list its runs half-done.
    long holder = dir_lock_holder(dir);
    if (holder) return dir_lock_busy(dir, "write the report in", holder);
    Ablation a;
    rc = ablation_load_baseline(&a, dir, baseline);
    if (rc) return rc;
    DirLock lock = {.fd = -1};
    if (a.n_finished && (rc = dir_lock_take(&lock, dir, "write the report in"))) {
        ablation_free(&a);
        return rc;
    }
    if (a.n_finished) atomic_remove_stale(dir);  // temporary files of a report writer that was killed
    for (size_t i = 0; i < a.n_run; i++)
        if (a.run[i].state != RUN_FINISHED)
            fprintf(stderr, "lmtrain: report: %s/%s: %s\n", dir, a.run[i].plan.rel, run_state_name(a.run[i].state));
    if (a.n_run == 0)
        rc = err_set(ERR_RUNTIME, "report: no runs under %s (no ablation.tsv, no run folders)", dir);
    else if (a.n_finished == 0)
        rc = err_set(ERR_RUNTIME, "report: none of the %zu runs planned in %s has finished; nothing to report", a.n_run,
                     dir);
    else if (!(rc = report_write(&a, dir)))
        printf("report written to %s/report.md, report.html and curves*.svg (%zu of %zu runs finished)\n", dir,
               a.n_finished, a.n_run);
    dir_lock_release(&lock);
    ablation_free(&a);
    return rc;
}
