// plan.c — see plan.h.
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/atomic_file.h"
#include "util/err.h"

static const char MANIFEST[] = "ablation.tsv";
static const char HEADER[] = "# lmtrain ablation: run folder, group, seed, sweep key, sweep value\n";

void plan_add(Plan *p, const char *name, unsigned long long seed, const char *sweep_key, const char *sweep_value,
              int config) {
    p->run = xrealloc(p->run, (p->n + 1) * sizeof *p->run);
    PlanRun *r = &p->run[p->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->seed = seed;
    r->config = config;
    if (sweep_key && *sweep_key) {
        snprintf(r->sweep_key, sizeof r->sweep_key, "%s", sweep_key);
        snprintf(r->sweep_value, sizeof r->sweep_value, "%s", sweep_value);
        snprintf(r->group, sizeof r->group, "sweep_%s_%s/%s", sweep_key, sweep_value, name);
    } else {
        snprintf(r->group, sizeof r->group, "%s", name);
    }
    snprintf(r->rel, sizeof r->rel, "%s/seed%llu", r->group, seed);
}

int plan_write(const Plan *p, const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    AtomicFile a;
    int rc = atomic_open(&a, path);
    if (rc) return rc;
    fputs(HEADER, a.f);
    for (size_t i = 0; i < p->n; i++) {
        const PlanRun *r = &p->run[i];
        fprintf(a.f, "%s\t%s\t%llu\t%s\t%s\n", r->rel, r->group, r->seed, *r->sweep_key ? r->sweep_key : "-",
                *r->sweep_key ? r->sweep_value : "-");
    }
    return atomic_commit(&a);
}

// Copies the next tab- or newline-terminated field of *s into out.
static int field(char **s, char *out, size_t cap) {
    size_t n = strcspn(*s, "\t\n");
    if (n == 0 || n >= cap) return -1;
    memcpy(out, *s, n);
    out[n] = 0;
    *s += n;
    if (**s == '\t') (*s)++;
    return 0;
}

int plan_read(Plan *p, const char *dir) {
    memset(p, 0, sizeof *p);
    char path[4200], line[2048];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(ERR_RUNTIME, "%s: no ablation here (%s is written by `lmtrain ablate` and `ablate --plan`)",
                       dir, MANIFEST);
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        PlanRun r;
        memset(&r, 0, sizeof r);
        char seed[32], *s = line, *end;
        if (field(&s, r.rel, sizeof r.rel) || field(&s, r.group, sizeof r.group) || field(&s, seed, sizeof seed) ||
            field(&s, r.sweep_key, sizeof r.sweep_key) || field(&s, r.sweep_value, sizeof r.sweep_value) ||
            (r.seed = strtoull(seed, &end, 10), *end) || strstr(r.rel, "..") || r.rel[0] == '/') {
            fclose(f);
            plan_free(p);
            return err_set(ERR_RUNTIME, "%s:%d: malformed line (expected 5 tab-separated fields)", path, lineno);
        }
        if (!strcmp(r.sweep_key, "-")) r.sweep_key[0] = r.sweep_value[0] = 0;
        const char *slash = strrchr(r.group, '/');
        snprintf(r.name, sizeof r.name, "%.127s", slash ? slash + 1 : r.group);
        r.config = -1;
        p->run = xrealloc(p->run, (p->n + 1) * sizeof *p->run);
        p->run[p->n++] = r;
    }
    fclose(f);
    return 0;
}

void plan_free(Plan *p) {
    free(p->run);
    memset(p, 0, sizeof *p);
}

static int exists(const char *dir, const char *file) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct stat st;
    return stat(path, &st) == 0;
}

RunState run_state(const char *run_dir) {
    struct stat st;
    if (stat(run_dir, &st) != 0) return RUN_ABSENT;
    if (!exists(run_dir, "checkpoint.bin")) return RUN_EMPTY;
    if (!exists(run_dir, "summary.txt")) return RUN_INTERRUPTED;
    if (!exists(run_dir, "eval/summary.txt")) return RUN_TRAINED;
    return RUN_FINISHED;
}

const char *run_state_name(RunState s) {
    switch (s) {
    case RUN_ABSENT: return "not started";
    case RUN_EMPTY: return "started, no checkpoint yet";
    case RUN_INTERRUPTED: return "interrupted (checkpoint, not finished)";
    case RUN_TRAINED: return "trained, whole-split evaluation missing";
    case RUN_FINISHED: return "finished";
    }
    return "?";
}
