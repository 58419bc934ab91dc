// svg_heatmap.h — matrices as SVG heatmaps, side by side (inspect's pictures of
// a fast-weight state and of attention matrices).
//
// Each panel is one matrix drawn as a square of cells, row 0 at the top,
// column 0 at the left, with its own symmetric colour scale: blue for −s,
// white for 0, red for +s, s = the largest |value| in that panel or the
// panel's own scale (values beyond it saturate; the bar then reads "≥ s"). NaN cells are grey. Panels sit in one row under
// the title; an optional note line goes below them. Self-contained SVG (no
// ids, no gradients), so several can be inlined into one HTML page.
#pragma once
#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *label;  // above the panel
    size_t rows, cols;
    const double *v;    // (rows, cols)
    double scale;       // |v| >= scale is full colour; 0: the panel's max |v|
} SvgHeatPanel;

typedef struct {
    const char *title, *note;           // note may be NULL
    const char *row_label, *col_label;  // axis captions shared by the panels (may be NULL)
    int panel_px;                       // side of each panel in pixels (e.g. 220)
} SvgHeatmap;

void svg_heatmaps_fprint(FILE *out, const SvgHeatmap *h, const SvgHeatPanel *p, size_t n);
// 0, or ERR_RUNTIME naming path (written atomically)
int svg_heatmaps(const char *path, const SvgHeatmap *h, const SvgHeatPanel *p, size_t n);
