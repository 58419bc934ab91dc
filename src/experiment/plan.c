// plan.c — see plan.h.
#include "plan.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config.h"

#include "util/atomic_file.h"
#include "util/err.h"
#include "util/file_check.h"

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

// rel stays inside the ablation folder: relative, no "." or ".." component
// (a name such as "lin..v2" is fine).
static int inside(const char *rel) {
    if (rel[0] == '/') return 0;
    for (const char *c = rel; *c;) {
        size_t n = strcspn(c, "/");
        if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.') || n == 0) return 0;
        c += n;
        if (*c == '/') c++;
    }
    return 1;
}

int plan_read(Plan *p, const char *dir) {
    memset(p, 0, sizeof *p);
    char path[4200], line[2048];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST);
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return err_set(ERR_RUNTIME, "%s is %s, not the plan file lmtrain writes; move it away", path,
                       file_kind(st.st_mode));
    FILE *f = fopen_regular(path);
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
            (r.seed = strtoull(seed, &end, 10), *end) || !inside(r.rel)) {
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

static int exists(const char *dir, const char *file);

// rel (under dir) is a run folder: add it, with its group, seed and sweep cell.
static void discovered(Plan *p, const char *dir, const char *rel) {
    PlanRun r;
    memset(&r, 0, sizeof r);
    r.config = -1;
    snprintf(r.rel, sizeof r.rel, "%s", rel);
    snprintf(r.group, sizeof r.group, "%s", rel);
    char *last = strrchr(r.group, '/'), *end;
    const char *leaf = last ? last + 1 : r.group;
    unsigned long long seed = 0;
    int seeded = !strncmp(leaf, "seed", 4) && leaf[4] && (seed = strtoull(leaf + 4, &end, 10), !*end);
    if (seeded && last) *last = 0;
    Config c;
    char path[4800];
    snprintf(path, sizeof path, "%s/%s/config.ini", dir, rel);
    config_defaults_record(&c);  // the run's record, not a config a person wrote
    if (config_load(&c, path) != 0) c.seed = seed;
    r.seed = seeded ? seed : c.seed;
    const char *slash = strrchr(r.group, '/');
    snprintf(r.name, sizeof r.name, "%.127s", slash ? slash + 1 : r.group);
    if (!strncmp(r.group, "sweep_", 6) && slash) {  // sweep_<key>_<value>/<name>: the value follows the last '_'
        char cell[400];
        snprintf(cell, sizeof cell, "%.*s", (int)(strchr(r.group, '/') - r.group - 6), r.group + 6);
        char *us = strrchr(cell, '_');
        if (us) {
            *us = 0;
            snprintf(r.sweep_key, sizeof r.sweep_key, "%.127s", cell);
            snprintf(r.sweep_value, sizeof r.sweep_value, "%.63s", us + 1);
        }
    }
    p->run = xrealloc(p->run, (p->n + 1) * sizeof *p->run);
    p->run[p->n++] = r;
}

static void walk(Plan *p, const char *dir, const char *rel, int depth) {
    char path[4800];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    if (*rel && exists(path, "config.ini")) {
        discovered(p, dir, rel);
        return;  // a run folder: nothing inside is another run
    }
    if (depth == 3) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[512], full[5400];
        if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= sizeof sub) continue;
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) walk(p, dir, sub, depth + 1);
    }
    closedir(d);
}

static int by_rel(const void *a, const void *b) { return strcmp(((const PlanRun *)a)->rel, ((const PlanRun *)b)->rel); }

int plan_discover(Plan *p, const char *dir) {
    memset(p, 0, sizeof *p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return err_set(ERR_RUNTIME, "%s: no such folder", dir);
    walk(p, dir, "", 0);
    if (p->n) qsort(p->run, p->n, sizeof *p->run, by_rel);
    return 0;
}

void plan_free(Plan *p) {
    free(p->run);
    memset(p, 0, sizeof *p);
}

static int exists(const char *dir, const char *file) {
    char path[5000];
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
