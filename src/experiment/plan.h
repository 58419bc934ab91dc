// plan.h — the runs of an ablation and where each one lives.
//
// An ablation trains every config with every seed (and, with --sweep, again at
// every value of one key). Each run has its own folder under the ablation
// folder DIR:
//     DIR/<name>/seed<S>/                       the main comparison
//     DIR/sweep_<key>_<value>/<name>/seed<S>/   a sweep cell
// and runs of one group (the same folder but for the seed) differ only in
// their seed, which is what the report averages over and pairs by.
//
// DIR/ablation.tsv lists the planned runs in order, one per line; `ablate`
// writes it before training (and `ablate --plan` before printing), `report`
// reads it to know which runs to expect and which group is the baseline.
#pragma once
#include <stddef.h>

typedef struct {
    char rel[512];          // run folder relative to DIR: "softmax/seed1337"
    char group[400];        // rel without the seed: "softmax", "sweep_data.pairs_4/recall_delta"
    char name[128];         // the config's [run] name
    unsigned long long seed;
    char sweep_key[128];    // "" outside a sweep
    char sweep_value[64];
    int config;             // index of the config file on the ablate command line (-1 when read back)
} PlanRun;

typedef struct {
    PlanRun *run;  // (n)
    size_t n;
} Plan;

// Appends one run; its folder follows from name, seed and the sweep cell.
void plan_add(Plan *p, const char *name, unsigned long long seed, const char *sweep_key, const char *sweep_value,
              int config);
// DIR/ablation.tsv, written atomically. 0 or ERR_RUNTIME.
int plan_write(const Plan *p, const char *dir);
// Reads DIR/ablation.tsv. ERR_RUNTIME naming the file if it is missing or malformed.
int plan_read(Plan *p, const char *dir);
// Without an ablation.tsv: the run folders found under DIR (folders holding a
// config.ini, up to three levels down), sorted by path; a run's group is its
// path without a trailing seed<S> folder, a sweep cell's key and value come
// from its sweep_<key>_<value> folder. 0 (p->n may be 0) or ERR_RUNTIME.
int plan_discover(Plan *p, const char *dir);
void plan_free(Plan *p);

// How far a run folder got. A folder only counts as a run of the plan when
// the caller has also checked its configuration.
typedef enum {
    RUN_ABSENT,       // no folder
    RUN_EMPTY,        // a folder without a checkpoint: nothing to keep
    RUN_INTERRUPTED,  // a checkpoint but no summary.txt: continue with --resume
    RUN_TRAINED,      // summary.txt, but no whole-split evaluation yet
    RUN_FINISHED,     // summary.txt and eval/summary.txt
} RunState;

RunState run_state(const char *run_dir);
const char *run_state_name(RunState s);
