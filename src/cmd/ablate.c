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

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "experiment/estimate.h"
#include "experiment/plan.h"
#include "experiment/report.h"
#include "experiment/results.h"
#include "train/checkpoint.h"
#include "train/run_folder.h"
#include "train/train.h"
#include "util/dirs.h"
#include "util/err.h"

#define ABLATE_MAX 16

// --sweep section.key=v1,v2,...: every config is trained again at each value.
typedef struct {
    char key[128];
    char values[32][64];
    int n;
} Sweep;

typedef struct {
    const char *files[ABLATE_MAX];
    int n_files;
    const char *sets[256];
    int n_sets;
    const char *out;
    Sweep sweep;
    long seeds;  // 0: the configs' [run] seeds
    int resume, plan, estimate;
    long jobs;   // --plan: runs meant to run at once (divides the cores); 0: one per core
    int argc;
    char **argv;
} Args;

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
        if (len == 0 || len >= sizeof sw->values[0] || sw->n == 32 || memchr(p, '/', len))
            return err_set(ERR_USAGE, "--sweep %s: expected 1 to 32 non-empty values without '/'", arg);
        memcpy(sw->values[sw->n], p, len);
        sw->values[sw->n][len] = 0;
        sw->n++;
        p = c ? c + 1 : p + len;
    }
    if (sw->n == 0) return err_set(ERR_USAGE, "--sweep %s: no values", arg);
    return 0;
}

static int parse_args(Args *a, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->out = "runs/ablation";
    a->argc = argc;
    a->argv = argv;
    const char *sweep = NULL;
    size_t seeds = 0, jobs = 0;
    ArgList files = {a->files, ABLATE_MAX, 0}, sets = {a->sets, 256, 0};
    const ArgOpt opts[] = {
        {"--seeds", ARG_SIZE, &seeds, "N", .help = "train every config with N seeds (paired across configs)",
         .lo = 1, .hi = 1000, .shown_default = "1: the configs' [run] seed"},
        {"--set", ARG_REPEAT, &sets, "section.key=value", .help = "override a config key in every config"},
        {"--out", ARG_STRING, &a->out, "DIR", .help = "the comparison folder (a run per config and seed inside)"},
        {"--sweep", ARG_STRING, &sweep, "section.key=v1,v2,...", .help = "train every config again at each value"},
        {"--resume", ARG_FLAG, &a->resume, NULL, .help = "continue an interrupted ablation in DIR"},
        {"--plan", ARG_FLAG, &a->plan, NULL, .help = "print one command per run (for xargs, parallel, Slurm); train nothing"},
        {"--estimate", ARG_FLAG, &a->estimate, NULL, .help = "print how long the runs still to do should take; train nothing"},
        {"--jobs", ARG_SIZE, &jobs, "J", .help = "with --plan: runs meant to run at once (they share the cores)",
         .lo = 1, .hi = 1000, .shown_default = "one per core"},
    };
    const ArgSpec spec = {"ablate", "CONFIG CONFIG... [options]",
                          "Train each config with the same seeds and batch order, then compare them:\n"
                          "DIR/report.md (tables with paired differences), curves.svg and curves_zoom.svg.",
                          ARGS_TABLE(opts), .positional = &files,
                          .positional_help = "CONFIG  a config file, or a name in configs/ (two or more)"};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc;
    a->n_files = files.n;
    a->n_sets = sets.n;
    a->seeds = (long)seeds;
    a->jobs = (long)jobs;
    if (sweep && (rc = parse_sweep(&a->sweep, sweep))) return rc;
    if (a->n_files < 2) return err_set(ERR_USAGE, "ablate needs at least two config files");
    if (a->jobs && !a->plan) return err_set(ERR_USAGE, "ablate: --jobs goes with --plan");
    if (a->plan && a->resume) return err_set(ERR_USAGE, "ablate: --plan and --resume do not go together");
    if (a->plan && a->estimate) return err_set(ERR_USAGE, "ablate: --plan and --estimate do not go together");
    return 0;
}

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
    return rc;
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
                    "order, then: lmtrain report %s\n",
            p->n, threads, threads == 1 ? "" : "s", jobs, cores, a->out);
    return fflush(stdout) ? err_set(ERR_RUNTIME, "ablate --plan: cannot write the plan") : 0;
}

// ============================================================================
// Before training: what each folder holds, and whether we may go on
// ============================================================================

// Refuses (before any file is written) folders that hold something else, and
// unfinished runs without --resume. Fills state[].
static int check_folders(const Args *a, const Plan *p, RunState *state, int *to_do) {
    *to_do = 0;
    // Another ablation (or one of its runs, e.g. a --plan line) writing here is refused first, naming its pid.
    long holder = dir_lock_holder(a->out);
    if (holder) return dir_lock_busy(a->out, "ablate into", holder);
    for (size_t k = 0; k < p->n; k++) {
        const PlanRun *r = &p->run[k];
        char dir[4700], path[4800], diff[1024];
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
        }
        if ((state[k] == RUN_EMPTY || state[k] == RUN_INTERRUPTED) && !a->resume) {
            fprintf(stderr, "lmtrain: %s was interrupted (%s). Continue the ablation with:\n  ", dir,
                    run_state_name(state[k]));
            put_continue_command(stderr, a);
            return err_set(ERR_USAGE, "ablate: unfinished runs in %s; add --resume to continue them", a->out);
        }
        *to_do += state[k] != RUN_FINISHED;
    }
    return 0;
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

int cmd_ablate(int argc, char **argv) {
    Args a;
    int rc = parse_args(&a, argc, argv);
    if (rc) return args_status(rc);
    Plan p = {0};
    if ((rc = build_plan(&a, &p))) goto out;
    if (a.plan) {
        if (!(rc = make_dirs(a.out)) && !(rc = plan_write(&p, a.out))) rc = print_plan(&a, &p);
        if (!rc) rc = estimate_plan_lines(&a, &p);
        goto out;
    }
    RunState *state = xcalloc(p.n, sizeof *state);
    int to_do = 0;
    rc = check_folders(&a, &p, state, &to_do);  // refusals come before anything is written
    if (!rc && a.estimate) {  // the estimate alone (e.g. of every ablation make frontier will run)
        Estimate est = {0};
        if (to_do) rc = estimate_runs(&a, &p, state, &est, 0, 1, stdout);
        else printf("all %zu runs in %s are finished: nothing to train\n", p.n, a.out);
        estimate_free(&est);
        free(state);
        goto out;
    }
    DirLock lock = {.fd = -1};                   // one ablation per folder: it writes the plan and the report
    if (!rc) rc = make_dirs(a.out);
    if (!rc) rc = dir_lock_take(&lock, a.out, "ablate into");
    if (!rc) rc = plan_write(&p, a.out);
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
    if (!rc) {
        Ablation res;
        if (!(rc = ablation_load(&res, a.out))) {
            rc = report_write(&res, a.out);
            ablation_free(&res);
        }
    }
    dir_lock_release(&lock);
    if (rc) goto out;
    if (!rc) printf("comparison written to %s/report.md, report.html and curves*.svg\n", a.out);
out:
    plan_free(&p);
    return rc;
}
