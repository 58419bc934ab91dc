// report.h — rendering an Ablation (results.h): report.md and the curves.
// Renderers only read the model; they compute nothing a reader could not
// check against the per-run table the report itself prints.
#pragma once
#include <stdio.h>

#include "experiment/results.h"

// The Markdown report to a stream.
void report_markdown(const Ablation *a, FILE *f);
// DIR/report.md, DIR/curves.svg (full range), DIR/curves_zoom.svg (the
// validation loss over the second half of training, where kinds differ) and
// DIR/curves_diff.svg (each kind's val loss minus the baseline's, seed by
// seed). 0 or ERR_RUNTIME.
int report_write(const Ablation *a, const char *dir);

// The y-range and the first step of the zoomed chart: the band of every
// group's validation curve from half-way on, with a small margin.
void report_zoom_range(const Ablation *a, double *x0, double *ylo, double *yhi);
