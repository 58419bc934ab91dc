// svg.h — a small, dependency-free SVG line chart (loss curves, bench plots).
//
// 800x500, "nice" 1-2-5 ticks (integers only on an axis that counts, SvgStyle), (decades on log axes), grid, tick and axis
// labels, title, legend, one colour per series from the Okabe-Ito
// colour-blind-safe palette, optional dashes (val vs train). Viewable in any
// browser. The file is written atomically (see util/atomic_file.h).
//
// Missing points: a point whose x or y is NaN or infinite (or <= 0 on a log
// axis) is skipped and the line joins the points on either side, so a val
// series that only has values at eval steps (NaN elsewhere) draws as one line.
// Series with few points also get a dot at every point, so a single point shows.
#pragma once
#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *label;    // legend text; NULL gives "series N"
    const double *x, *y;  // (n,) each
    size_t n;
    int dashed;           // 0 solid (e.g. train), 1 dashed (e.g. val), 2 dotted
    int color;            // 0: palette colour by series index; k >= 1: palette colour k
                          // (so a run's train and val curves can share a colour)
} SvgSeries;

typedef struct {
    const char *title, *xlabel, *ylabel;  // any may be NULL
    int logx, logy;
} SvgChart;

// 0, or ERR_RUNTIME with a message naming `path`.
int svg_line_chart(const char *path, const SvgChart *c, const SvgSeries *s, size_t n);
// Text escaped for XML (& < > " '), invalid UTF-8 replaced, cut with an
// ellipsis after max_chars characters. For other SVG writers.
void svg_put_text(FILE *out, const char *s, size_t max_chars);
// Palette colour k >= 1 (as SvgSeries.color), "#rrggbb": for other SVG writers.
const char *svg_palette(int k);
// The same document written to a stream (for embedding or tests).
void svg_line_chart_fprint(FILE *out, const SvgChart *c, const SvgSeries *s, size_t n);

// Extras for charts that compare noisy runs:
typedef struct {
    const double *lo, *hi;  // (n,) of its series, or NULL: a band from lo to hi (e.g. min-max
                            // over seeds) filled translucent in the series colour under its line
} SvgBand;
typedef struct {
    double xmin, xmax, ymin, ymax;  // fixed limits where min < max (a zoom); lines and bands
                                    // are then clipped to the plot area. 0, 0: fit the data.
} SvgLimits;
// svg_line_chart with bands (NULL or one per series) and limits (NULL: fit).
int svg_band_chart(const char *path, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                   const SvgBand *bands, size_t n);
void svg_band_chart_fprint(FILE *out, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                           const SvgBand *bands, size_t n);

// What a chart can say besides its lines (all optional: {0} is the plain chart):
typedef struct {
    int xint, yint;          // 1: the axis counts things (layers, heads): ticks only at integers
    int yzero;               // 1: a linear y axis starts (or ends) at 0, so a narrow spread reads true
    const char *mark_label;  // non-NULL: a dashed vertical line at x = mark_x labelled with this
    double mark_x;           // text (e.g. the training window's edge); the x axis reaches it
    const int *marker;       // (n,) or NULL: SVG_MARK_* drawn at every point of that series and in
                             // its legend row (tells apart lines drawn on top of each other)
    const int *end_mark;     // (n,) or NULL: 1 = a cross at the series' last drawn point and "×" in
                             // its legend (a line that stops there: a float16 state overflowed)
} SvgStyle;
enum { SVG_MARK_NONE, SVG_MARK_CIRCLE, SVG_MARK_SQUARE, SVG_MARK_TRIANGLE, SVG_MARK_DIAMOND };
// svg_band_chart with a style (NULL: none).
int svg_styled_chart(const char *path, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                     const SvgBand *bands, size_t n, const SvgStyle *st);
void svg_styled_chart_fprint(FILE *out, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                             const SvgBand *bands, size_t n, const SvgStyle *st);
