// ablate.c — `lmtrain ablate A.ini B.ini ... [--seeds N] [--sweep k=a,b] [--out DIR]
//                            [--resume] [--plan [--jobs J]]`
//
// Trains every config with seeds seed .. seed+N-1 (and again at each sweep
// value) into DIR/<name>/seed<S>/, evaluates each on its whole validation
// split, then writes DIR/report.md and the curves from what the run folders
// hold (experiment/results.h), exactly as `lmtrain report DIR` would.
//
// Runs are independent, so an ablation is resumable run by run: finished runs
// are kept, an interrupted one continues from its checkpoint (--resume), and
// re-running a finished ablation only rebuilds the report. --plan prints one
// shell command per run instead of training, for xargs -P, GNU parallel or a
// Slurm array (docs/sweeps.md).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/ablate.h"
#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "experiment/estimate.h"
#include "experiment/plan.h"
#include "experiment/plan_check.h"
#include "experiment/report_pairs.h"
#include "experiment/report.h"
#include "experiment/results.h"
#include "train/checkpoint.h"
#include "train/run_folder.h"
#include "train/data_check.h"
#include "train/train.h"
#include "util/atomic_file.h"
#include "util/dir_lock.h"
#include "util/dirs.h"
#include "util/err.h"

// ============================================================================
// The plan and each run's configuration
// ============================================================================

// The config of one planned run: its file, the --set options, the sweep value
// (after the user's options), and its seed.
static int run_config(const Args *a, const PlanRun *r, Config *c) {
    char assign[256];
    const char *all[257];
    memcpy(all, a->sets, (size_t)a->n_sets * sizeof *all);
    int n = a->n_sets;
    if (*r->sweep_key) {
        snprintf(assign, sizeof assign, "%s=%s", r->sweep_key, r->sweep_value);
        all[n++] = assign;
    }
    int rc = cli_load_config(c, a->files[r->config], all, n);
    if (rc) return err_wrap(rc, "%s: ", r->rel);
    c->seed = r->seed;
    return 0;
}

// Two sweep values that give one configuration (2e-3 and 0.002) would train
// the same runs twice under two names: refused, naming them.
static int check_sweep_cells(const Args *a, const Plan *p) {
    for (size_t i = 0; i < p->n; i++) {
        const PlanRun *x = &p->run[i];
        if (!*x->sweep_key || x->seed != p->run[0].seed) continue;
        for (size_t j = 0; j < i; j++) {
            const PlanRun *y = &p->run[j];
            if (!*y->sweep_key || y->config != x->config || y->seed != x->seed) continue;
            Config cx, cy;
            int rc = run_config(a, x, &cx);
            if (!rc) rc = run_config(a, y, &cy);
            if (rc) return rc;
            if (config_diff(&cx, &cy, NULL, 0, 0) == 0)
                return err_set(ERR_USAGE, "--sweep %s: the values %s and %s give the same configuration; give "
                                          "each value once", x->sweep_key, y->sweep_value, x->sweep_value);
        }
    }
    return 0;
}

// Every config × seed, seed by seed (so an interrupted ablation has whole
// pairs), then the sweep cells the same way. Validates every run's config
// before anything is trained, so a bad value fails now and not in an hour.
static int build_plan(const Args *a, Plan *p) {
    Config base[ABLATE_MAX];
    int rc = 0;
    for (int i = 0; i < a->n_files && !rc; i++) rc = cli_load_config(&base[i], a->files[i], a->sets, a->n_sets);
    for (int i = 0; i < a->n_files && !rc; i++)
        for (int j = 0; j < i && !rc; j++)
            if (!strcmp(base[i].name, base[j].name))
                rc = err_set(ERR_USAGE, "ablate: %s and %s have the same [run] name '%s'", a->files[j], a->files[i],
                             base[i].name);
    for (int i = 0; i < a->n_files && !rc; i++) {
        const char *why = plan_name_problem(base[i].name);
        if (why)
            rc = err_set(ERR_USAGE, "ablate: %s: the [run] name '%s' %s; it names the run's folder and table row, "
                                    "so give the config another [run] name", a->files[i], base[i].name, why);
    }
    for (int i = 1; i < a->n_files && !rc; i++)
        if (base[i].seed != base[0].seed)
            rc = err_set(ERR_USAGE, "ablate: %s and %s have different [run] seed (%llu, %llu): the kinds are compared "
                                    "seed by seed, so every config needs the same seed; set it in both or give "
                                    "--set run.seed=N", a->files[0], a->files[i], base[0].seed, base[i].seed);
    if (rc) return rc;
    long seeds = a->seeds;
    for (int i = 0; i < a->n_files && !seeds; i++)
        if (base[i].seeds != base[0].seeds)
            return err_set(ERR_USAGE, "ablate: %s and %s ask for different [run] seeds (%d, %d); give --seeds N",
                           a->files[0], a->files[i], base[0].seeds, base[i].seeds);
    if (!seeds) seeds = base[0].seeds;
    for (int v = -1; v < a->sweep.n; v++)
        for (long s = 0; s < seeds; s++)
            for (int i = 0; i < a->n_files; i++)
                plan_add(p, base[i].name, base[i].seed + (unsigned long long)s, v < 0 ? "" : a->sweep.key,
                         v < 0 ? "" : a->sweep.values[v], i);
    Config c;
    for (size_t k = 0; k < p->n && !rc; k++) rc = run_config(a, &p->run[k], &c);
    return rc ? rc : check_sweep_cells(a, p);
}

// The settings that decide a run's result agree (name, folder, threads and
// the seeds count do not enter it).
static int same_run(const Config *stored, const Config *planned, char *diff, size_t cap) {
    Config c = *planned;
    memcpy(c.name, stored->name, sizeof c.name);
    memcpy(c.out_dir, stored->out_dir, sizeof c.out_dir);
    c.threads = stored->threads;
    c.seeds = stored->seeds;
    return config_diff(stored, &c, diff, cap, 0) == 0;
}

// ============================================================================
// Commands as text: the continue command and the plan's lines
// ============================================================================

// The running binary's path, so printed commands work as printed.
static void self_path(char *buf, size_t cap) {
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) snprintf(buf, cap, "lmtrain");
    else buf[n] = 0;
}

// s as one shell word: bare if it is plainly safe, else single-quoted.
static void put_word(FILE *f, const char *s) {
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") == strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

// The command line that continues this ablation: the same arguments plus --resume.
static void put_continue_command(FILE *f, const Args *a) {
    char self[4096];
    self_path(self, sizeof self);
    put_word(f, self);
    for (int i = 0; i < a->argc; i++) {
        if (!strcmp(a->argv[i], "--resume")) continue;
        fputc(' ', f);
        put_word(f, a->argv[i]);
    }
    fputs(" --resume\n", f);
}

// One self-contained line per run: train it into its folder, then evaluate it
// on the whole split. Threads: the cores divided among `jobs` runs at once; a
// --set run.threads=... of the user's comes later and wins.
static int print_plan(const Args *a, const Plan *p) {
    char self[4096], cwd[4096];
    self_path(self, sizeof self);
    if (!getcwd(cwd, sizeof cwd)) return err_set(ERR_RUNTIME, "ablate --plan: cannot read the current folder");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    long jobs = a->jobs ? a->jobs : cores, threads = cores / jobs > 0 ? cores / jobs : 1;
    for (size_t k = 0; k < p->n; k++) {
        const PlanRun *r = &p->run[k];
        char dir[4700], tset[64], sseed[64], sweep[256];
        snprintf(dir, sizeof dir, "%s/%s", a->out, r->rel);
        snprintf(tset, sizeof tset, "run.threads=%ld", threads);
        snprintf(sseed, sizeof sseed, "run.seed=%llu", r->seed);
        printf("cd ");
        put_word(stdout, cwd);
        printf(" && ");
        put_word(stdout, self);
        printf(" --config ");
        put_word(stdout, a->files[r->config]);
        printf(" --set %s", tset);
        for (int i = 0; i < a->n_sets; i++) {
            printf(" --set ");
            put_word(stdout, a->sets[i]);
        }
        if (*r->sweep_key) {
            snprintf(sweep, sizeof sweep, "%s=%s", r->sweep_key, r->sweep_value);
            printf(" --set ");
            put_word(stdout, sweep);
        }
        printf(" --set %s --out ", sseed);
        put_word(stdout, dir);
        printf(" && ");
        put_word(stdout, self);
        printf(" eval --run ");
        put_word(stdout, dir);
        putchar('\n');
    }
    fprintf(stderr, "lmtrain: %zu runs, %ld thread%s each (%ld at once fill %ld cores); run the lines in any "
                    "order, then: ",
            p->n, threads, threads == 1 ? "" : "s", jobs, cores);
    put_word(stderr, self);
    fputs(" report ", stderr);
    put_word(stderr, a->out);
    fputc('\n', stderr);
    return fflush(stdout) ? err_set(ERR_RUNTIME, "ablate --plan: cannot write the plan") : 0;
}

// ============================================================================
// Before training: what each folder holds, and whether we may go on
// ============================================================================

// Refuses (before any file is written) folders that hold something else, and
// unfinished runs without --resume (when training here: `train`). Fills state[].
static int check_folders(const Args *a, const Plan *p, RunState *state, int *to_do, int train) {
    *to_do = 0;
    // Another ablation (or one of its runs, e.g. a --plan line) writing here is refused first, naming its pid.
    long holder = dir_lock_holder(a->out);
    if (holder) return dir_lock_busy(a->out, a->plan ? "plan an ablation in" : "ablate into", holder);
    char path[4800];
    static const char *const run_files[] = {"checkpoint.bin", "metrics.csv", "config.ini", "summary.txt", NULL};
    for (const char *const *f = run_files; *f; f++) {  // (curves.svg is the ablation's too)
        snprintf(path, sizeof path, "%s/%s", a->out, *f);
        if (access(path, F_OK) == 0)
            return err_set(ERR_USAGE, "%s holds a single run (%s is there), not an ablation; choose another --out",
                           a->out, *f);
    }
    for (size_t k = 0; k < p->n; k++) {
        const PlanRun *r = &p->run[k];
        char dir[4700], diff[1024];
        snprintf(path, sizeof path, "%s/%s/config.ini", a->out, r->group);
        if (access(path, F_OK) == 0)
            return err_set(ERR_USAGE, "%s/%s holds a single run (the layout before --seeds); choose another --out",
                           a->out, r->group);
        snprintf(dir, sizeof dir, "%s/%s", a->out, r->rel);
        if ((holder = dir_lock_holder(dir))) return dir_lock_busy(dir, "train into", holder);
        state[k] = run_state(dir);
        if (state[k] >= RUN_INTERRUPTED) {
            Config stored, planned;
            snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
            int rc = checkpoint_read_config(path, &stored);
            if (!rc) rc = run_config(a, r, &planned);
            if (rc) return rc;
            if (!same_run(&stored, &planned, diff, sizeof diff))
                return err_set(ERR_USAGE, "%s holds a run of another configuration (%s differ); choose another --out",
                               dir, diff);
            if ((rc = checkpoint_data_check(path, &planned)))  // the rest would train on other data
                return err_wrap(rc, "ablate: the runs kept in %s would not be comparable with the ones still to "
                                    "train: ", a->out);
        }
        if (train && (state[k] == RUN_EMPTY || state[k] == RUN_INTERRUPTED) && !a->resume) {
            fprintf(stderr, "lmtrain: %s was interrupted (%s). Continue the ablation with:\n  ", dir,
                    run_state_name(state[k]));
            put_continue_command(stderr, a);
            return err_set(ERR_USAGE, "ablate: unfinished runs in %s; add --resume to continue them", a->out);
        }
        *to_do += state[k] != RUN_FINISHED;
    }
    return 0;
}

// The plan recorded in the folder against this one: another plan is refused
// (its runs and report are kept); the recorded plan is kept when this one
// names only runs it has (fewer configs or seeds: the report still covers
// them all, and says so); *write tells whether ablation.tsv is to be written.
static int check_recorded_plan(const Args *a, const Plan *p, int *write) {
    Plan recorded;
    PlanRelation rel;
    char why[1200];
    int rc = plan_relation(p, a->out, &rel, &recorded, why, sizeof why);
    if (rc) return rc;
    *write = rel == PLAN_NEW || rel == PLAN_EXTENDS;
    if (rel == PLAN_OTHER)
        rc = err_set(ERR_USAGE, "%s holds another ablation (its ablation.tsv: %s); its runs and report are kept: "
                                "choose another --out, or give the same configs, seeds and sweep", a->out, why);
    else if (rel == PLAN_PART)
        fprintf(stderr, "lmtrain: %s/ablation.tsv plans %zu runs; these arguments name %zu of them. The others are "
                        "kept, and the report covers all %zu.\n", a->out, recorded.n, p->n, recorded.n);
    plan_free(&recorded);
    return rc;
}

// The message after SIGINT/SIGTERM: where it stopped and the exact command that continues.
static int interrupted(const Args *a, const char *where, int sig) {
    fprintf(stderr, "lmtrain: ablation interrupted %s; finished runs are kept. Continue with:\n  ", where);
    put_continue_command(stderr, a);
    return 128 + sig;
}

// Trains (or resumes) and evaluates run k as its state requires.
static int do_run(const Args *a, const Plan *p, size_t k, RunState state) {
    const PlanRun *r = &p->run[k];
    char dir[4700];
    snprintf(dir, sizeof dir, "%s/%s", a->out, r->rel);
    Config c;
    int rc = run_config(a, r, &c);
    if (rc) return rc;
    printf("== ablate %zu/%zu: %s, seed %llu%s%s%s (%s)%s\n", k + 1, p->n, c.name, r->seed, *r->sweep_key ? ", " : "",
           r->sweep_key, *r->sweep_key ? "=" : "", c.kind,
           state == RUN_FINISHED ? ": finished, kept" : state == RUN_TRAINED ? ": trained, evaluating"
           : state == RUN_INTERRUPTED ? ": resuming" : "");
    if (*r->sweep_key) printf("   (%s = %s)\n", r->sweep_key, r->sweep_value);
    fflush(stdout);
    if (state == RUN_FINISHED) return 0;
    char where[4900];
    snprintf(where, sizeof where, "before run %zu of %zu (%s)", k + 1, p->n, dir);
    if (train_stop_signal()) return interrupted(a, where, train_stop_signal());
    if (state != RUN_TRAINED) {
        // an interrupted run continues; a started one without a checkpoint has nothing to keep
        rc = train_run(&c, dir, state == RUN_INTERRUPTED ? TRAIN_RESUME : state == RUN_EMPTY ? TRAIN_OVERWRITE : TRAIN_NEW);
        snprintf(where, sizeof where, "in run %zu of %zu (%s, its checkpoint is saved)", k + 1, p->n, dir);
        if (rc > 128) return interrupted(a, where, rc - 128);  // a stop signal or a closed stdout (141)
        if (rc) return rc;
    }
    rc = eval_run_folder(dir);
    snprintf(where, sizeof where, "after run %zu of %zu (%s)", k + 1, p->n, dir);
    if (rc > 128) return interrupted(a, where, rc - 128);  // during its whole-split evaluation
    if (!rc && train_stop_signal() && k + 1 < p->n) return interrupted(a, where, train_stop_signal());
    return rc;
}

// Under the folder's lock: temporary files left by writers that were killed
// (report.md.tmp-*, ablation.tsv.tmp-*, RUN/eval/summary.txt.tmp-*) go.
static void remove_stale_temps(const char *out, const Plan *p) {
    char dir[4800];
    int n = atomic_remove_stale(out);
    for (size_t k = 0; k < p->n; k++) {
        snprintf(dir, sizeof dir, "%s/%s", out, p->run[k].rel);
        n += run_folder_remove_stale(dir);
    }
    if (n) fprintf(stderr, "lmtrain: removed %d temporary file%s left by a writer that was killed\n", n, n == 1 ? "" : "s");
}

// The estimate of the runs still to train (experiment/estimate.h), printed before the first.
// threads > 0: each run's (a --plan line's); jobs: runs at once.
static int estimate_runs(const Args *a, const Plan *p, const RunState *state, Estimate *e, int threads, int jobs,
                         FILE *out) {
    Config *cfgs = xcalloc(p->n, sizeof *cfgs);
    char (*dirs)[4700] = xcalloc(p->n, sizeof *dirs);
    const char **dirp = xcalloc(p->n, sizeof *dirp);
    int *todo = xcalloc(p->n, sizeof *todo), rc = 0;
    for (size_t k = 0; k < p->n && !rc; k++) {
        snprintf(dirs[k], sizeof dirs[k], "%s/%s", a->out, p->run[k].rel);
        dirp[k] = dirs[k];
        todo[k] = state[k] < RUN_TRAINED;
        if (todo[k]) rc = run_config(a, &p->run[k], &cfgs[k]);
        if (threads > 0) cfgs[k].threads = threads;
    }
    if (!rc) rc = estimate_plan(e, cfgs, dirp, todo, p->n, jobs, out);
    free(cfgs), free(dirs), free(dirp), free(todo);
    return rc;
}

// --plan: the estimate of the lines whose runs are not trained yet, on stderr
// (stdout is the plan), for `jobs` at once with the plan's threads each.
static int estimate_plan_lines(const Args *a, const Plan *p) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long jobs = a->jobs ? a->jobs : cores > 0 ? cores : 1, threads = cores / jobs > 0 ? cores / jobs : 1;
    RunState *state = xcalloc(p->n, sizeof *state);
    for (size_t k = 0; k < p->n; k++) {
        char dir[4700];
        snprintf(dir, sizeof dir, "%s/%s", a->out, p->run[k].rel);
        state[k] = run_state(dir);
    }
    Estimate est = {0};
    int rc = estimate_runs(a, p, state, &est, (int)threads, (int)jobs, stderr);
    estimate_free(&est);
    free(state);
    return rc;
}

// --plan: the checks ablate makes before training, the plan recorded under
// the folder's lock, then the lines.
static int plan_only(const Args *a, const Plan *p) {
    RunState *state = xcalloc(p->n + 1, sizeof *state);
    int to_do = 0, write = 0;
    int rc = check_folders(a, p, state, &to_do, 0);
    free(state);
    if (!rc) rc = check_recorded_plan(a, p, &write);
    DirLock lock = {.fd = -1};
    if (!rc) rc = make_dirs(a->out);
    if (!rc) rc = dir_lock_take(&lock, a->out, "plan an ablation in");
    if (!rc && write) rc = plan_write(p, a->out);
    dir_lock_release(&lock);
    if (!rc) rc = print_plan(a, p);
    return rc ? rc : estimate_plan_lines(a, p);
}

int cmd_ablate(int argc, char **argv) {
    Args a;
    int rc = ablate_parse_args(&a, argc, argv);
    if (rc) return args_status(rc);
    Plan p = {0};
    if ((rc = build_plan(&a, &p))) goto out;
    if (a.plan) {
        rc = plan_only(&a, &p);
        goto out;
    }
    RunState *state = xcalloc(p.n + 1, sizeof *state);
    int to_do = 0, write = 0;
    rc = check_folders(&a, &p, state, &to_do, 1);  // refusals come before anything is written
    if (!rc) rc = check_recorded_plan(&a, &p, &write);
    if (!rc && a.estimate) {  // the estimate alone (e.g. of every ablation make frontier will run)
        Estimate est = {0};
        if (to_do) rc = estimate_runs(&a, &p, state, &est, 0, 1, stdout);
        else printf("all %zu runs in %s are finished: nothing to train\n", p.n, a.out);
        estimate_free(&est);
        free(state);
        goto out;
    }
    DirLock lock = {.fd = -1};                      // one ablation per folder: it writes the plan and the report
    if (!rc) rc = make_dirs(a.out);
    if (!rc) rc = dir_lock_take(&lock, a.out, "ablate into");
    if (!rc) remove_stale_temps(a.out, &p);
    if (!rc && write) rc = plan_write(&p, a.out);
    if (!rc && to_do == 0) printf("all %zu runs in %s are finished: rebuilding the report without training\n", p.n, a.out);
    train_signals_install();
    Estimate est = {0};
    if (!rc && to_do) rc = estimate_runs(&a, &p, state, &est, 0, 1, stdout);
    for (size_t k = 0; k < p.n && !rc; k++) {
        estimate_progress(&est, k, stdout);
        rc = do_run(&a, &p, k, state[k]);
    }
    estimate_free(&est);
    free(state);
    Ablation res;
    int loaded = 0;
    if (!rc && !(rc = ablation_load(&res, a.out))) {
        loaded = 1;
        rc = report_write(&res, a.out);
    }
    dir_lock_release(&lock);
    if (!rc && train_stop_signal()) {  // the report was written whole (atomically), but the user asked to stop
        rc = interrupted(&a, "while writing the report (it is complete)", train_stop_signal());
    } else if (!rc) {
        printf("comparison written to %s/report.md, report.html and curves*.svg\n", a.out);
        report_verdicts(&res, stdout);
    }
    if (loaded) ablation_free(&res);
out:
    plan_free(&p);
    return rc;
}
