// svg_scatter.c — points with error bars, joined per colour (svg_scatter.h).
#include "format/svg_scatter.h"

#include <math.h>

enum { W = 800, H = 500, ML = 70, MR = 170, MT = 40, MB = 55 };

// A 1-2-5 tick step giving about `want` ticks over span.
static double tick_step(double span, int want) {
    double raw = span / want, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void widen(double *lo, double *hi, double v) {
    if (!isfinite(v)) return;
    if (v < *lo) *lo = v;
    if (v > *hi) *hi = v;
}

void svg_scatter_fprint(FILE *out, const SvgChart *c, const SvgPoint *p, size_t n, const SvgLegendEntry *legend,
                        size_t n_legend, const char *corner_note) {
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p[i].x) || !isfinite(p[i].y)) continue;
        widen(&x0, &x1, p[i].x), widen(&x0, &x1, p[i].xlo), widen(&x0, &x1, p[i].xhi);
        widen(&y0, &y1, p[i].y), widen(&y0, &y1, p[i].ylo), widen(&y0, &y1, p[i].yhi);
    }
    if (!(x0 <= x1)) x0 = 0, x1 = 1;
    if (!(y0 <= y1)) y0 = 0, y1 = 1;
    double px = 0.08 * (x1 - x0) + 1e-9, py = 0.08 * (y1 - y0) + 1e-9;
    x0 -= px, x1 += px, y0 -= py, y1 += py;
    double sx = (W - ML - MR) / (x1 - x0), sy = (H - MT - MB) / (y1 - y0);
#define X(v) (ML + ((v) - x0) * sx)
#define Y(v) (H - MB - ((v) - y0) * sy)
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                 "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H, W, H, W, H);
    if (corner_note) {  // the lower-left corner: less compute and lower loss
        fprintf(out, "<path d=\"M%d %d L%d %d L%d %d Z\" fill=\"#009E73\" fill-opacity=\"0.10\"/>\n", ML, H - MB,
                ML + (W - ML - MR) / 3, H - MB, ML, H - MB - (H - MT - MB) / 3);
        fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"#006048\">", ML + 8, H - MB - 8);
        svg_put_text(out, corner_note, 60);
        fputs("</text>\n", out);
    }
    // grid and ticks
    double tx = tick_step(x1 - x0, 6), ty = tick_step(y1 - y0, 6);
    for (double v = ceil(x0 / tx) * tx; v <= x1; v += tx)
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>"
                     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
                X(v), MT, X(v), H - MB, X(v), H - MB + 16, fabs(v) < tx * 1e-6 ? 0 : v);
    for (double v = ceil(y0 / ty) * ty; v <= y1; v += ty)
        fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                ML, Y(v), W - MR, Y(v), ML - 6, Y(v) + 4, fabs(v) < ty * 1e-6 ? 0 : v);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    if (c && c->title) {
        fprintf(out, "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">",
                (W - MR + ML) / 2);
        svg_put_text(out, c->title, 100);
        fputs("</text>\n", out);
    }
    if (c && c->xlabel) {
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (W - MR + ML) / 2, H - 14);
        svg_put_text(out, c->xlabel, 100);
        fputs("</text>\n", out);
    }
    if (c && c->ylabel) {
        fprintf(out, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">", (H - MB + MT) / 2);
        svg_put_text(out, c->ylabel, 80);
        fputs("</text>\n", out);
    }
    // each colour's points joined in order, then bars, dots and tags
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p[i].x) || !isfinite(p[i].y)) continue;
        for (size_t j = i + 1; j < n; j++) {
            if (p[j].color != p[i].color || !isfinite(p[j].x) || !isfinite(p[j].y)) continue;
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.5\"/>\n",
                    X(p[i].x), Y(p[i].y), X(p[j].x), Y(p[j].y), svg_palette(p[i].color));
            break;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const SvgPoint *q = &p[i];
        if (!isfinite(q->x) || !isfinite(q->y)) continue;
        const char *col = svg_palette(q->color);
        if (isfinite(q->xlo) && isfinite(q->xhi))
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", X(q->xlo), Y(q->y),
                    X(q->xhi), Y(q->y), col);
        if (isfinite(q->ylo) && isfinite(q->yhi))
            fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", X(q->x), Y(q->ylo),
                    X(q->x), Y(q->yhi), col);
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", X(q->x), Y(q->y), col);
        if (q->tag) {
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">", X(q->x) + 6, Y(q->y) - 6, col);
            svg_put_text(out, q->tag, 20);
            fputs("</text>\n", out);
        }
    }
    for (size_t i = 0; i < n_legend; i++) {
        int y = MT + 10 + 20 * (int)i;
        fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">", W - MR + 16, y,
                svg_palette(legend[i].color), W - MR + 26, y + 4);
        svg_put_text(out, legend[i].label, 22);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
#undef X
#undef Y
}
