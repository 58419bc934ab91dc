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
// seed), and DIR/report.html (all of it on one page). 0 or ERR_RUNTIME.
int report_write(const Ablation *a, const char *dir);

// One of the two loss charts as an SVG document: the full range, or (zoom)
// the validation loss over the second half.
void report_curves_fprint(const Ablation *a, FILE *out, int zoom);
// The paired chart: each kind's val loss minus the baseline's with the same
// seed, per step (mean, min-max band over seeds); the baseline is the 0 line.
// Needs at least two groups in the main comparison.
void report_diff_curves_fprint(const Ablation *a, FILE *out);
// Recall runs: validation accuracy against step per kind of the main
// comparison (mean, min-max band over seeds); only when report_has_acc_curves.
int report_has_acc_curves(const Ablation *a);
void report_acc_curves_fprint(const Ablation *a, FILE *out);
// Recall with a sweep: final validation accuracy against the swept value (read
// as a number) per config (mean, min-max band over seeds); only when
// report_has_acc_sweep (some cell's value is a number).
int report_has_acc_sweep(const Ablation *a);
void report_acc_sweep_fprint(const Ablation *a, FILE *out);

// report.html: a self-contained page (inline SVG and CSS; no script, font or
// image fetched from anywhere) with every table of report.md, the loss curves
// zoomed and full, the paired difference to the baseline (two kinds or more),
// recall accuracy against step and against a swept value (recall runs), and
// where the runs have them the whole-split loss by
// position, λ horizons per layer against block_size, and inference memory
// against length.
void report_html(const Ablation *a, FILE *f);

// The y-range and the first step of the zoomed chart: the band of every
// group's validation curve from half-way on, with a small margin.
void report_zoom_range(const Ablation *a, double *x0, double *ylo, double *yhi);
