// plan_check.h — what makes a plan unfit before anything trains: run names
// that cannot be folders or table cells, and a folder that already holds
// another plan.
#pragma once
#include <stddef.h>

#include "experiment/plan.h"

// Why `name` cannot be a group folder under an ablation folder and a row of
// its report tables, or NULL if it can. Refused: names that are the
// ablation's own files (report.md, ablation.tsv, .lmtrain.lock, ...), hidden
// names (a leading '.'), the layout's own folder names (sweep_*, seed<N>),
// and '|' or '`', which would break a Markdown table or code span.
const char *plan_name_problem(const char *name);

// How a planned ablation relates to the one already recorded in the folder.
typedef enum {
    PLAN_NEW,      // no ablation.tsv yet
    PLAN_SAME,     // the same runs (in any order): the recorded order is kept
    PLAN_PART,     // every planned run is in the recorded plan, which has more: the recorded plan is kept
    PLAN_EXTENDS,  // every recorded run is in the new plan, which has more (e.g. more seeds)
    PLAN_OTHER,    // each has runs the other lacks: refused
} PlanRelation;

// Compares `p` with DIR/ablation.tsv. *rel gets the relation; with
// PLAN_OTHER, `why` names a run of each side that the other lacks. 0, or
// ERR_RUNTIME if DIR/ablation.tsv exists but cannot be read (a FIFO, a
// malformed line): such a folder is not overwritten either.
int plan_relation(const Plan *p, const char *dir, PlanRelation *rel, Plan *recorded, char *why, size_t cap);
