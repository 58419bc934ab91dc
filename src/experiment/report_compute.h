// report_compute.h — the compute sections of report.md / report.html
// (experiment/compute.h computes; these render): validation loss against
// training CPU-seconds per kind, the CPU-seconds each kind needs to reach
// chosen loss levels with paired ratios to the baseline, which kind gets
// there first, and each run's budget and where it stopped.
#pragma once
#include <stdio.h>

#include "experiment/results.h"

// The Markdown sections (a note saying why when the runs have no cpu_s).
void report_compute_markdown(const Ablation *a, FILE *f);
// 1 if some finished run has CPU-seconds to chart.
int report_has_compute(const Ablation *a);
// The chart: val loss against training CPU-seconds per kind (mean over seeds, min–max band).
void report_compute_curves_fprint(const Ablation *a, FILE *out);
// DIR/curves_cpu.svg when report_has_compute. 0 or ERR_RUNTIME.
int report_compute_write(const Ablation *a, const char *dir);
