// plan_check.c — see plan_check.h.
#include "plan_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"

// The files an ablation folder holds besides its run folders (report_write,
// plan_write, dir_lock): a run named after one of them would collide.
static const char *const RESERVED[] = {"ablation.tsv", "report.md", "report.html", "curves.svg", "curves_zoom.svg",
                                       "curves_diff.svg", NULL};

const char *plan_name_problem(const char *name) {
    for (int i = 0; RESERVED[i]; i++)
        if (!strcmp(name, RESERVED[i])) return "is the name of one of the ablation folder's own files";
    if (name[0] == '.') return "starts with '.' (the folder would be hidden, or be the lock file .lmtrain.lock)";
    if (!strncmp(name, "sweep_", 6)) return "starts with \"sweep_\", the prefix of a sweep cell's folder";
    if (!strncmp(name, "seed", 4) && name[4] && strspn(name + 4, "0123456789") == strlen(name + 4))
        return "has the form seed<N> of a seed's folder";
    if (strchr(name, '|')) return "contains '|', which would split a report table's cell";
    if (strchr(name, '`')) return "contains '`', which would break the report's code spans";
    if (strchr(name, '\t')) return "contains a tab, the separator of ablation.tsv";
    return NULL;
}

static int run_equal(const PlanRun *a, const PlanRun *b) {
    return !strcmp(a->rel, b->rel) && !strcmp(a->group, b->group) && a->seed == b->seed &&
           !strcmp(a->sweep_key, b->sweep_key) && !strcmp(a->sweep_value, b->sweep_value);
}

// The first run of a that b lacks, or NULL.
static const PlanRun *missing_from(const Plan *a, const Plan *b) {
    for (size_t i = 0; i < a->n; i++) {
        size_t j = 0;
        while (j < b->n && !run_equal(&a->run[i], &b->run[j])) j++;
        if (j == b->n) return &a->run[i];
    }
    return NULL;
}

int plan_relation(const Plan *p, const char *dir, PlanRelation *rel, Plan *recorded, char *why, size_t cap) {
    char path[4200];
    snprintf(path, sizeof path, "%s/ablation.tsv", dir);
    memset(recorded, 0, sizeof *recorded);
    if (why && cap) why[0] = 0;
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) return err_set(ERR_RUNTIME, "%s: cannot read it", path);
        *rel = PLAN_NEW;
        return 0;
    }
    int rc = plan_read(recorded, dir);
    if (rc) return rc;
    const PlanRun *only_new = missing_from(p, recorded), *only_old = missing_from(recorded, p);
    *rel = !only_new && !only_old ? PLAN_SAME : !only_new ? PLAN_PART : !only_old ? PLAN_EXTENDS : PLAN_OTHER;
    if (*rel == PLAN_OTHER && why)
        snprintf(why, cap, "it plans %s/ and not %s/", only_old->rel, only_new->rel);
    return 0;
}
