// svg_scatter.h — a scatter chart of points with error bars (one SVG document):
// each point has a spread in x and y (e.g. min–max over seeds) drawn as bars,
// a short tag beside it, and points of one colour are joined in order (one
// series, e.g. one kind across context lengths). An optional note is set in
// the lower-left corner with a shaded corner, to mark "cheaper and better".
// 800x500, linear axes fitted to the bars.
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "format/svg.h"

typedef struct {
    double x, y;          // the point (NaN: left out)
    double xlo, xhi;      // its bars (NaN: none)
    double ylo, yhi;
    int color;            // palette colour k >= 1; points of one colour are joined in array order
    const char *tag;      // text beside the point, or NULL
} SvgPoint;

typedef struct {
    const char *label;
    int color;
} SvgLegendEntry;

void svg_scatter_fprint(FILE *out, const SvgChart *c, const SvgPoint *p, size_t n, const SvgLegendEntry *legend,
                        size_t n_legend, const char *corner_note);
