// ablate_args.c — `lmtrain ablate`'s command line (see ablate.h): the option
// table, --sweep's values, and the refusals that need nothing but the arguments.
#include "cmd/ablate.h"

#include <string.h>

#include "cmd/args.h"
#include "util/err.h"

static int parse_sweep(Sweep *sw, const char *arg) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof sw->key)
        return err_set(ERR_USAGE, "--sweep %s: expected section.key=v1,v2,...", arg);
    memcpy(sw->key, arg, (size_t)(eq - arg));
    sw->key[eq - arg] = 0;
    // [run] keys name, place and seed the runs; none is a setting to compare (the seeds are what
    // the cells are paired by: --seeds gives them)
    if (!strncmp(sw->key, "run.", 4))
        return err_set(ERR_USAGE, "--sweep %s: a [run] key cannot be swept (%s); sweep a setting of [data], "
                                  "[model], [attention] or [train]%s", arg,
                       !strcmp(sw->key, "run.seed") ? "every cell trains the same seeds, so that cells pair by seed"
                                                     : "it names, places or seeds the runs",
                       !strcmp(sw->key, "run.seed") ? ", and give more seeds with --seeds N" : "");
    const char *p = eq + 1;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= sizeof sw->values[0] || sw->n == 32 || memchr(p, '/', len))
            return err_set(ERR_USAGE, "--sweep %s: expected 1 to 32 non-empty values without '/'", arg);
        memcpy(sw->values[sw->n], p, len);
        sw->values[sw->n][len] = 0;
        for (int j = 0; j < sw->n; j++)
            if (!strcmp(sw->values[j], sw->values[sw->n]))
                return err_set(ERR_USAGE, "--sweep %s: the value %s is given twice (both cells would be one folder)",
                               arg, sw->values[j]);
        if (strpbrk(sw->values[sw->n], "|`"))
            return err_set(ERR_USAGE, "--sweep %s: a value must not contain '|' or '`' (it heads a report column)",
                           arg);
        sw->n++;
        p = c ? c + 1 : p + len;
    }
    if (sw->n == 0) return err_set(ERR_USAGE, "--sweep %s: no values", arg);
    return 0;
}

// The key of "section.key=value" (spaces around the parts dropped) into key.
static void set_key(const char *assignment, char *key, size_t cap) {
    size_t n = 0;
    for (const char *p = assignment; *p && *p != '=' && n + 1 < cap; p++)
        if (*p != ' ' && *p != '\t') key[n++] = *p;
    key[n] = 0;
}

// A key given twice, or a --set of the swept key, would be overridden without
// a word: refused, naming both.
static int check_sets(const Args *a) {
    char ki[256], kj[256];
    for (int i = 0; i < a->n_sets; i++) {
        set_key(a->sets[i], ki, sizeof ki);
        if (a->sweep.n && !strcmp(ki, a->sweep.key))
            return err_set(ERR_USAGE, "ablate: --set %s and --sweep %s=...: the sweep sets %s in every cell; "
                                      "drop the --set", a->sets[i], a->sweep.key, ki);
        for (int j = 0; j < i; j++) {
            set_key(a->sets[j], kj, sizeof kj);
            if (!strcmp(ki, kj))
                return err_set(ERR_USAGE, "ablate: --set %s and --set %s set the same key; give it once",
                               a->sets[j], a->sets[i]);
        }
    }
    return 0;
}

int ablate_parse_args(Args *a, int argc, char **argv) {
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
        {"--sweep", ARG_STRING, &sweep, "section.key=v1,v2,...",
         .help = "train every config again at each value (one --sweep per ablation)"},
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
    // a second --sweep would replace the first without a word (the option parser keeps the last value)
    int n_sweeps = 0;
    for (int i = 1; i < argc; i++) n_sweeps += !strcmp(argv[i], "--sweep") || !strncmp(argv[i], "--sweep=", 8);
    if (n_sweeps > 1)
        return err_set(ERR_USAGE, "ablate: one --sweep per ablation (got %d); sweep the other key in another --out",
                       n_sweeps);
    if (sweep && (rc = parse_sweep(&a->sweep, sweep))) return rc;
    if (a->n_files < 2) return err_set(ERR_USAGE, "ablate needs at least two config files");
    if (a->out[strcspn(a->out, "\n\r\t")] || !*a->out)
        return err_set(ERR_USAGE, "ablate --out: the folder name must be non-empty, without a newline or tab "
                                  "(the plan and its commands are written one per line)");
    if ((rc = check_sets(a))) return rc;
    if (a->jobs && !a->plan) return err_set(ERR_USAGE, "ablate: --jobs goes with --plan");
    if (a->plan && a->resume) return err_set(ERR_USAGE, "ablate: --plan and --resume do not go together");
    if (a->plan && a->estimate) return err_set(ERR_USAGE, "ablate: --plan and --estimate do not go together");
    return 0;
}

