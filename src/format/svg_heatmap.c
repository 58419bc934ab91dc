// svg_heatmap.c — see svg_heatmap.h.
#include "format/svg_heatmap.h"

#include <math.h>

#include "format/svg.h"
#include "util/atomic_file.h"
#include "util/err.h"

enum { MARGIN = 50, GAP = 40, TOP = 56, BAR_STEPS = 21 };

// t in [-1, 1] -> blue (#2166ac) .. white .. red (#b2182b)
static void color(char buf[8], double t) {
    if (isnan(t)) {
        snprintf(buf, 8, "#bbbbbb");
        return;
    }
    t = t < -1 ? -1 : t > 1 ? 1 : t;
    double r = 255, g = 255, b = 255, a = fabs(t);
    if (t > 0) r += a * (0xb2 - 255), g += a * (0x18 - 255), b += a * (0x2b - 255);
    else r += a * (0x21 - 255), g += a * (0x66 - 255), b += a * (0xac - 255);
    snprintf(buf, 8, "#%02x%02x%02x", (int)lround(r), (int)lround(g), (int)lround(b));
}

static double panel_max(const SvgHeatPanel *p) {
    double mx = 0;
    for (size_t i = 0; i < p->rows * p->cols; i++)
        if (fabs(p->v[i]) > mx) mx = fabs(p->v[i]);  // NaN compares false: skipped
    return mx;
}

void svg_heatmaps_fprint(FILE *out, const SvgHeatmap *h, const SvgHeatPanel *p, size_t n) {
    double px = h->panel_px > 0 ? h->panel_px : 220;
    double width = 2 * MARGIN + (double)n * px + (double)(n ? n - 1 : 0) * GAP;
    if (width < 500) width = 500;
    double height = TOP + px + 70 + (h->note ? 20 : 0);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
            width, height, width, height, width, height);
    if (h->title) {
        fprintf(out, "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
                width / 2);
        svg_put_text(out, h->title, 120);
        fputs("</text>\n", out);
    }
    for (size_t k = 0; k < n; k++) {
        const SvgHeatPanel *q = &p[k];
        double x0 = MARGIN + (double)k * (px + GAP), y0 = TOP;
        double cw = q->cols ? px / (double)q->cols : px, ch = q->rows ? px / (double)q->rows : px;
        double mx = q->scale > 0 ? q->scale : panel_max(q);
        const char *clip = q->scale > 0 && panel_max(q) > q->scale ? "&#8805;" : "";
        if (q->label) {
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x0 + px / 2, y0 - 8);
            svg_put_text(out, q->label, 40);
            fputs("</text>\n", out);
        }
        fputs("<g shape-rendering=\"crispEdges\">\n", out);
        for (size_t i = 0; i < q->rows; i++)
            for (size_t j = 0; j < q->cols; j++) {
                char c[8];
                double v = q->v[i * q->cols + j];
                color(c, mx > 0 ? v / mx : (isnan(v) ? NAN : 0));
                // a hair wider than the cell so that no background shows between cells
                fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>\n",
                        x0 + (double)j * cw, y0 + (double)i * ch, cw + 0.3, ch + 0.3, c);
            }
        fputs("</g>\n", out);
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n", x0,
                y0, px, px);
        // the colour bar: -max .. 0 .. +max
        double bw = px * 0.6 / BAR_STEPS, bx = x0 + px * 0.2, by = y0 + px + 10;
        for (int s = 0; s < BAR_STEPS; s++) {
            char c[8];
            color(c, -1 + 2.0 * s / (BAR_STEPS - 1));
            fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"8\" fill=\"%s\"/>", bx + s * bw, by,
                    bw + 0.3, c);
        }
        fprintf(out, "\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"10\">&#8722;%.3g</text>", bx - 3,
                by + 8, mx);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%s+%.3g</text>\n", bx + px * 0.6 + 3, by + 8, clip,
                mx);
    }
    double cap_y = TOP + px + 38;
    if (h->row_label || h->col_label) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\">", width / 2, cap_y);
        if (h->row_label) {
            fputs("rows: ", out);
            svg_put_text(out, h->row_label, 60);
        }
        if (h->row_label && h->col_label) fputs(" · ", out);
        if (h->col_label) {
            fputs("columns: ", out);
            svg_put_text(out, h->col_label, 60);
        }
        fputs("</text>\n", out);
    }
    if (h->note) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#444\" font-size=\"11\">", width / 2,
                cap_y + 20);
        svg_put_text(out, h->note, 160);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
}

int svg_heatmaps(const char *path, const SvgHeatmap *h, const SvgHeatPanel *p, size_t n) {
    AtomicFile a;
    if (atomic_open(&a, path)) return ERR_RUNTIME;
    svg_heatmaps_fprint(a.f, h, p, n);
    return atomic_commit(&a);
}
