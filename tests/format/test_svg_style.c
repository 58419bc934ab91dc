// test_svg_style.c — what SvgStyle adds to a chart, checked by value in the
// SVG text: integer ticks on an axis that counts, a y axis from 0, the
// labelled vertical marker (a training window's edge), per-series marker
// shapes (lines drawn on top of each other stay visible), the cross where a
// series stops (a float16 state's overflow), and a long title kept inside
// the image.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "format/svg.h"
#include "format/svg_read.h"

enum { W = 800, PLOT_B = 444 };  // svg.c's canvas width and plot bottom (x tick labels at PLOT_B + 19)

static char *render(const SvgChart *c, const SvgSeries *s, size_t n, const SvgStyle *st) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) exit(1);
    svg_styled_chart_fprint(f, c, NULL, s, NULL, n, st);
    fclose(f);
    return buf;
}

// The labels of the x axis (y = PLOT_B + 19) or the y axis (text-anchor="end"
// at x = 68), as numbers; returns how many.
static size_t tick_labels(const char *doc, int y_axis, double *v, size_t cap) {
    char want[64];
    if (y_axis) snprintf(want, sizeof want, "<text x=\"68\" y=\"");
    else snprintf(want, sizeof want, "\" y=\"%d\" text-anchor=\"middle\">", PLOT_B + 19);
    size_t n = 0;
    for (const char *p = doc; (p = strstr(p, want)) && n < cap; p += strlen(want)) {
        const char *gt = strchr(p, '>');
        if (!gt) break;
        if (y_axis && !strstr(p, "text-anchor=\"end\"")) continue;
        v[n++] = strtod(gt + 1, NULL);
    }
    return n;
}

static void test_integer_ticks(void) {
    double x[4] = {0, 1, 2, 3}, y[4] = {40, 41, 44, 42}, v[64];
    SvgSeries s = {"horizon", x, y, 4, 0, 0};
    SvgChart c = {"t", "layer", "tokens", 0, 0};
    char *plain = render(&c, &s, 1, NULL);
    size_t n = tick_labels(plain, 0, v, 64), fractional = 0;
    for (size_t i = 0; i < n; i++) fractional += v[i] != floor(v[i]);
    CHECK(fractional > 0);  // the plain chart puts ticks at 0.5, 1.5, ...: what the style is for
    free(plain);
    SvgStyle st = {.xint = 1};
    char *doc = render(&c, &s, 1, &st);
    n = tick_labels(doc, 0, v, 64);
    CHECK(n >= 4);
    for (size_t i = 0; i < n; i++) CHECK(v[i] == floor(v[i]));
    free(doc);
}

static void test_y_from_zero(void) {
    double x[4] = {0, 1, 2, 3}, y[4] = {40, 41, 44, 42}, v[64];
    SvgSeries s = {"horizon", x, y, 4, 0, 0};
    SvgChart c = {"t", "layer", "tokens", 0, 0};
    SvgStyle st = {.yzero = 1};
    char *doc = render(&c, &s, 1, &st);
    size_t n = tick_labels(doc, 1, v, 64);
    CHECK(n >= 3);
    double lo = INFINITY;
    for (size_t i = 0; i < n; i++) lo = fmin(lo, v[i]);
    CHECK(lo == 0);
    // the 0 label sits on the plot's bottom edge (+4: the label's baseline offset)
    char bottom[64];
    snprintf(bottom, sizeof bottom, "<text x=\"68\" y=\"%.2f\" text-anchor=\"end\">0<", PLOT_B + 4.0);
    CHECK(strstr(doc, bottom) != NULL);
    free(doc);
}

static void test_vertical_marker(void) {
    double x[3] = {0, 10, 20}, y[3] = {3, 2, 1};
    SvgSeries s = {"loss", x, y, 3, 0, 0};
    SvgChart c = {"t", "position", "loss", 0, 0};
    char *plain = render(&c, &s, 1, NULL);
    CHECK(strstr(plain, "x-mark") == NULL);
    free(plain);
    SvgStyle st = {.mark_label = "trained on 64", .mark_x = 64};  // beyond the data: the axis reaches it
    char *doc = render(&c, &s, 1, &st);
    const char *m = strstr(doc, "class=\"x-mark\" data-x=\"64\"");
    CHECK(m != NULL);
    CHECK(strstr(doc, ">trained on 64</text>") != NULL);
    double v[64];
    size_t n = tick_labels(doc, 0, v, 64);
    CHECK(n > 0 && v[n - 1] >= 60);
    if (m) {
        double x1 = strtod(strstr(m, "x1=\"") + 4, NULL);
        CHECK(x1 > 76 && x1 < W - 200);  // inside the plot area, left of the legend
    }
    free(doc);
}

static void test_markers_tell_overlapping_lines_apart(void) {
    double x[3] = {16, 64, 256}, y[3] = {100, 100, 100};
    SvgSeries s[2] = {{"linear_decay", x, y, 3, 0, 0}, {"linear", x, y, 3, 1, 0}};
    SvgChart c = {"t", "tokens", "bytes", 1, 1};
    int marker[2] = {SVG_MARK_CIRCLE, SVG_MARK_SQUARE};
    SvgStyle st = {.marker = marker};
    char *doc = render(&c, s, 2, &st);
    // a square (1.7 x 4 wide) at each of the 3 points and one in the legend row
    CHECK(svg_count(doc, "width=\"6.8\" height=\"6.8\"") == 4);
    free(doc);
}

static void test_end_mark_where_the_series_stops(void) {
    double x[6] = {1, 10, 100, 1000, 10000, 100000}, y[6] = {1e-4, 1e-3, 1e-2, 0.2, NAN, NAN};
    SvgSeries s = {"z layer 0", x, y, 6, 0, 0};
    SvgChart c = {"t", "tokens", "relative error", 1, 1};
    int end[1] = {1};
    SvgStyle st = {.end_mark = end};
    char *doc = render(&c, &s, 1, &st);
    CHECK(svg_count(doc, "class=\"end-mark\"") == 1);
    CHECK(strstr(doc, "class=\"end-mark\" data-x=\"1000\"") != NULL);
    CHECK(strstr(doc, "z layer 0 &#215;</text>") != NULL);
    free(doc);
}

static void test_long_title_inside_the_image(void) {
    char title[200];
    memset(title, 'W', 150);
    title[150] = 0;
    double x[2] = {0, 1}, y[2] = {0, 1};
    SvgSeries s = {"s", x, y, 2, 0, 0};
    SvgChart c = {title, "x", "y", 0, 0};
    char *doc = render(&c, &s, 1, NULL);
    const char *t = strstr(doc, "font-weight=\"bold\">");
    CHECK(t != NULL);
    if (t) {
        const char *open = t;
        while (open > doc && strncmp(open, "<text", 5)) open--;
        double x0 = strtod(strstr(open, "x=\"") + 3, NULL), fs = strtod(strstr(open, "font-size=\"") + 11, NULL);
        const char *end = strstr(t, "</text>");
        size_t chars = 0;
        for (const char *p = t + strlen("font-weight=\"bold\">"); p < end; p++, chars++)
            if (*p == '&') p = strchr(p, ';');  // an entity is one character
        // the text, centred on x0, at most 0.6 x font size per character, within the 800-wide image
        CHECK(x0 == W / 2);
        CHECK(0.6 * fs * (double)chars / 2 <= W / 2.0 - 10);
    }
    free(doc);
}

int main(void) {
    TEST(test_integer_ticks);
    TEST(test_y_from_zero);
    TEST(test_vertical_marker);
    TEST(test_markers_tell_overlapping_lines_apart);
    TEST(test_end_mark_where_the_series_stops);
    TEST(test_long_title_inside_the_image);
    return test_summary();
}
