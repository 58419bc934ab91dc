// test_svg_heatmap.c — heatmap panels: one cell per matrix entry at the right
// place, the colour scale (the largest |value| is full red or full blue, zero is
// white, NaN grey), escaped text, and nothing non-finite in the document.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "format/svg_heatmap.h"

static char *render(const SvgHeatmap *h, const SvgHeatPanel *p, size_t n) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) exit(1);
    svg_heatmaps_fprint(f, h, p, n);
    fclose(f);
    return buf;
}

static size_t count(const char *s, const char *sub) {
    size_t n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

// the fill of the cell drawn at (x, y), or NULL
static const char *fill_at(const char *s, double x, double y, char out[8]) {
    char want[64];
    snprintf(want, sizeof want, "<rect x=\"%.2f\" y=\"%.2f\"", x, y);
    const char *p = strstr(s, want);
    if (!p || !(p = strstr(p, "fill=\""))) return NULL;
    memcpy(out, p + 6, 7);
    out[7] = 0;
    return out;
}

static void test_cells_and_colours(void) {
    // 2 x 3: the max |value| is -4 (full blue), 4 nowhere, 0 white, NaN grey
    double v[6] = {0, 2, -4, NAN, 1, -1};
    SvgHeatPanel p = {"S at <16>", 2, 3, v, 0};
    SvgHeatmap h = {"a & b", NULL, "key i", "value j", 300};
    char *s = render(&h, &p, 1);
    CHECK(count(s, "<rect") == 1 + 6 + 1 + 21);  // background, cells, frame, colour bar
    CHECK(strstr(s, "S at &lt;16&gt;") && strstr(s, "a &amp; b"));
    CHECK(!strstr(s, "nan") && !strstr(s, "inf"));
    char c[8];
    // panel origin (50, 56), cells 100 x 150 px
    CHECK(fill_at(s, 50, 56, c) && !strcmp(c, "#ffffff"));   // 0
    CHECK(fill_at(s, 250, 56, c) && !strcmp(c, "#2166ac"));  // -4: -max
    CHECK(fill_at(s, 50, 206, c) && !strcmp(c, "#bbbbbb"));  // NaN
    // 2 = max/2: halfway from white to #b2182b: 255 + (178 - 255)/2 = 216.5 -> d9, 139.5 -> 8c, 149 -> 95
    CHECK(fill_at(s, 150, 56, c) && !strcmp(c, "#d98c95"));
    CHECK(strstr(s, "&#8722;4</text>") && strstr(s, "+4</text>"));
    free(s);
}

static void test_panels_side_by_side(void) {
    double a[4] = {1, 0, 0, 1}, b[1] = {0};
    SvgHeatPanel p[2] = {{"a", 2, 2, a, 0}, {"b", 1, 1, b, 0}};
    SvgHeatmap h = {NULL, "note", NULL, NULL, 100};
    char *s = render(&h, p, 2);
    char c[8];
    CHECK(fill_at(s, 190, 56, c) && !strcmp(c, "#ffffff"));  // second panel at 50 + 100 + 40, all-zero: white
    CHECK(fill_at(s, 100, 106, c) && !strcmp(c, "#b2182b"));  // a[1][1] = +max
    CHECK(strstr(s, ">note</text>") != NULL);
    free(s);
}

// a panel scale below max |v|: beyond it the colour saturates and the bar says so
static void test_scale_saturates(void) {
    double v[2] = {4, 1};
    SvgHeatPanel p = {NULL, 1, 2, v, 2};
    SvgHeatmap h = {NULL, NULL, NULL, NULL, 100};
    char *s = render(&h, &p, 1);
    char c[8];
    CHECK(fill_at(s, 50, 56, c) && !strcmp(c, "#b2182b"));   // 4 >= 2: full red
    CHECK(fill_at(s, 100, 56, c) && !strcmp(c, "#d98c95"));  // 1 = scale/2
    CHECK(strstr(s, "&#8805;+2</text>") != NULL);
    free(s);
}

int main(void) {
    TEST(test_scale_saturates);
    TEST(test_cells_and_colours);
    TEST(test_panels_side_by_side);
    return test_summary();
}
