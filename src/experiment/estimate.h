// estimate.h — how long an ablation will take, said before it trains, and how
// far it is while it runs.
//
// The estimate comes from a short measured step of each distinct config (a
// warm-up step, then two timed ones, with the run's own threads), times the
// steps each unfinished run still has (its checkpoint says how many it did),
// plus its evaluations (eval_batches forward passes every eval_every steps)
// and the whole-split evaluation ablate runs after training; a forward pass
// is counted as a third of a step. It is an estimate: the machine's load, and
// a CPU budget ([train] cpu_seconds) ending a run early, change the truth.
//
//     Estimate e;
//     estimate_plan(&e, cfgs, dirs, todo, n, stdout);   // prints "estimate: ..."
//     for each run k: estimate_progress(&e, k, stdout); ... train run k ...
//     estimate_free(&e);
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "config/config.h"

typedef struct {
    size_t n;
    double *run_s;       // (n) estimated wall seconds of each run still to do (0: finished)
    double total_s;      // their sum
    double cpu_s;        // the CPU-seconds of their training steps (less sensitive to the machine's load)
    double started;      // monotonic clock when the plan was estimated
    double measured_s;   // time spent measuring steps (not part of the runs)
} Estimate;

// The short measured step of one config: wall and process CPU seconds per
// optimiser step (after a warm-up step). 0, or the error of opening its data.
int estimate_step(const Config *c, double *wall_s, double *cpu_s);

// The steps a run of config c still has after steps_done: up to `steps`, and
// with a CPU budget at most what it buys at step_cpu_s CPU-seconds a step.
long estimate_steps_left(const Config *c, double step_cpu_s, long steps_done);
// The wall seconds one run of config c still needs, from a measured step and
// the steps it already did; with a CPU budget, at most what that budget buys.
// The whole-split evaluation needs the number of validation windows.
double estimate_run_seconds(const Config *c, double step_wall_s, double step_cpu_s, long steps_done,
                            size_t val_windows);

// Measures each distinct config among the runs with todo[k] (configs equal but
// for run.seed, name and out_dir share a measurement) and prints the whole
// estimate to `out`. dirs[k]: run k's folder (its checkpoint, if any, says how
// far it got). jobs: runs meant to train at once (ablate --plan --jobs; 1 for
// ablate's own one after the other), which divides the wall time. 0 or the
// error of a config's data (then nothing is printed).
int estimate_plan(Estimate *e, const Config *cfgs, const char *const *dirs, const int *todo, size_t n, int jobs,
                  FILE *out);

// The overall progress line before run k: runs done, time spent, and the time
// left (the estimate of the runs still to do, scaled by how the finished ones
// compared with their estimate), with the clock time it should end.
void estimate_progress(const Estimate *e, size_t k, FILE *out);

// "1 h 05 min", "12 min", "45 s"
void estimate_format(char *buf, size_t cap, double seconds);

void estimate_free(Estimate *e);
