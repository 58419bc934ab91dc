// svg.c — the line chart described in svg.h.
#include "svg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"
#include "util/err.h"

// ---------------------------------------------------------------------------
// geometry and style

enum { W = 800, H = 500 };
enum { PLOT_L = 76, PLOT_T = 44, PLOT_B = H - 56 };  // plot area; right edge depends on the legend
enum { LEGEND_W = 200, LEGEND_ROW = 20, LEGEND_CHARS = 21 };  // 21 chars of 12px sans fit the box
enum { MARKER_MAX_POINTS = 40 };  // series with at most this many points get dots

// Okabe & Ito (2008), ordered so the first colours contrast best on white;
// the yellow is last because it is faint on a white background.
static const char *const PALETTE[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000", "#F0E442"};
enum { PALETTE_N = sizeof PALETTE / sizeof PALETTE[0] };

// A title is sized so its width, at most GLYPH_WIDTH x font size per character
// (bold sans-serif averages ~0.55), stays TITLE_MARGIN inside the image;
// below TITLE_MIN_PX it is cut instead (with an ellipsis).
enum { GLYPH_WIDTH_TENTHS = 6, TITLE_MARGIN = 12, TITLE_MIN_PX = 11 };
enum { TITLE_MAX_CHARS = (W - 2 * TITLE_MARGIN) * 10 / (GLYPH_WIDTH_TENTHS * TITLE_MIN_PX) - 1 };

// Values beyond this are treated as missing: keeps every range computation
// (hi - lo, lo - pad, rounding to a tick) finite.
static const double VALUE_LIMIT = 1e300;

// ---------------------------------------------------------------------------
// text: XML-escaped, valid UTF-8, no control characters, length-capped

// Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid (overlong,
// surrogate, beyond U+10FFFF, truncated).
static size_t utf8_len(const unsigned char *s) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c == 0xE0) n = 3, lo = 0xA0;
    else if (c == 0xED) n = 3, hi = 0x9F;  // no UTF-16 surrogates
    else if (c >= 0xE1 && c <= 0xEF) n = 3;
    else if (c == 0xF0) n = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 4;
    else if (c == 0xF4) n = 4, hi = 0x8F;
    else return 0;
    if (s[1] < lo || s[1] > hi) return 0;  // also stops at the terminating NUL
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    // U+FFFE and U+FFFF are not XML characters
    if (n == 3 && c == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF)) return 0;
    return n;
}

// characters (UTF-8 sequences; a bad byte counts as one) of s
static size_t text_chars(const char *s) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
        size_t k = utf8_len(p);
        p += k ? k : 1;
    }
    return n;
}

// Writes s as XML character data, at most max_chars characters (then "…").
void svg_put_text(FILE *out, const char *s, size_t max_chars) {
    const unsigned char *p = (const unsigned char *)s;
    for (size_t chars = 0; *p; chars++) {
        if (chars == max_chars) {
            fputs("&#8230;", out);
            return;
        }
        size_t n = utf8_len(p);
        if (n == 0) {
            fputs("&#65533;", out);  // replacement character for a bad byte
            p++;
        } else if (n > 1) {
            fwrite(p, 1, n, out);
            p += n;
        } else {
            switch (*p) {
            case '&': fputs("&amp;", out); break;
            case '<': fputs("&lt;", out); break;
            case '>': fputs("&gt;", out); break;
            case '"': fputs("&quot;", out); break;
            case '\'': fputs("&#39;", out); break;
            default: fputc(*p < 0x20 || *p == 0x7F ? ' ' : *p, out);  // control chars are not allowed in XML
            }
            p++;
        }
    }
}

// ---------------------------------------------------------------------------
// axes
//
// Limits are the data range plus a small margin (no point sits on the frame);
// ticks are the "nice" values inside the limits. A log axis labels decades
// when it spans several, 1-2-5 or 1..9 times a power of ten when it spans
// about one, and falls back to linear 1-2-5 steps on a very narrow range.

typedef enum { TICKS_LINEAR, TICKS_DECADES, TICKS_MANTISSAS } TickScheme;

typedef struct {
    int log;
    double lo, hi;  // limits in plot space: the value, or log10 of it on a log axis
    TickScheme scheme;
    double step;    // TICKS_LINEAR: spacing of values; TICKS_DECADES: label every `step` decades
    int mantissas;  // TICKS_MANTISSAS: bit m set = label m × 10^k
    int decimals;   // TICKS_LINEAR labels: digits after the point, or -1 for %g ...
    int prec;       // ... with this precision
    int power;      // log labels written as 10^k (some labelled k is far from 0)
} Axis;

static int usable(double v, int log) { return isfinite(v) && fabs(v) <= VALUE_LIMIT && (!log || v > 0); }

static double to_plot(const Axis *a, double v) { return a->log ? log10(v) : v; }

// 1, 2 or 5 times a power of ten, close to raw
static double nice_step(double raw) {
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    return (f < 1.5 ? 1.0 : f < 3.0 ? 2.0 : f < 7.0 ? 5.0 : 10.0) * mag;
}

// Linear ticks at multiples of a nice step over the values [vlo, vhi]
// (integer: a step of at least 1, so an axis of layers has no tick at 1.5).
static void linear_scheme(Axis *a, double vlo, double vhi, int integer) {
    double step = nice_step((vhi - vlo) / 6);
    if (integer && step < 1) step = 1;
    a->scheme = TICKS_LINEAR;
    a->step = step;
    double mag = fmax(fabs(vlo), fabs(vhi));
    if (mag >= 1e7 || step < 1e-5) {
        a->decimals = -1;
        int p = (int)(floor(log10(mag)) - floor(log10(step))) + 1;
        a->prec = p < 1 ? 1 : p > 17 ? 17 : p;
    } else {
        a->decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        a->prec = 0;
    }
}

// labelled mantissa ticks m × 10^k inside the limits
static int count_mantissas(const Axis *a, int mask) {
    int count = 0;
    for (int k = (int)floor(a->lo); k <= (int)floor(a->hi); k++)
        for (int m = 1; m <= 9; m++) {
            double at = k + log10((double)m);
            count += (mask >> m & 1) && at >= a->lo && at <= a->hi;
        }
    return count;
}

// Fits the axis to data in [lo, hi] (plot space); lo > hi means no data.
// integer: linear ticks at integers only; from_zero: a linear axis whose data
// are all >= 0 (or all <= 0) starts (ends) exactly at 0.
static void axis_fit(Axis *a, int log, double lo, double hi, int integer, int from_zero) {
    memset(a, 0, sizeof *a);
    a->log = log;
    // no data: 0..1, or 1..10 on a log axis (callers pass only usable values,
    // |v| <= VALUE_LIMIT, so lo and hi are otherwise finite and the loops below bounded)
    if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) lo = 0, hi = 1;
    if (from_zero && !log) lo = fmin(lo, 0), hi = fmax(hi, 0);
    const double data_lo = lo, data_hi = hi;
    double mag = fmax(fabs(lo), fabs(hi));
    if (hi - lo <= mag * 1e-9 || hi - lo < 1e-200) {
        // one value (or values equal to print precision): a window around it
        double mid = 0.5 * (lo + hi);
        double pad = log ? 0.5 : fabs(mid) < 1e-200 ? 1.0 : 0.1 * fabs(mid);
        lo = mid - pad;
        hi = mid + pad;
    } else {
        double pad = 0.03 * (hi - lo);
        lo -= pad;
        hi += pad;
    }
    if (from_zero && !log) lo = data_lo == 0 ? 0 : lo, hi = data_hi == 0 ? 0 : hi;
    a->lo = lo;
    a->hi = hi;
    if (!log) {
        linear_scheme(a, lo, hi, integer);
        return;
    }
    static const int MASK_125 = 1 << 1 | 1 << 2 | 1 << 5, MASK_ALL = 0x3FE;
    if (hi - lo >= 2.5) {
        a->scheme = TICKS_DECADES;
        a->step = ceil((hi - lo) / 8);
    } else if (count_mantissas(a, MASK_125) >= 3) {
        a->scheme = TICKS_MANTISSAS, a->mantissas = MASK_125;
    } else if (count_mantissas(a, MASK_ALL) >= 3) {
        a->scheme = TICKS_MANTISSAS, a->mantissas = MASK_ALL;
    } else {
        linear_scheme(a, pow(10.0, lo), pow(10.0, hi), integer);
        return;
    }
    a->power = floor(lo) < -4 || ceil(hi) > 5;
}

// position in [0, 1] along the axis
static double axis_frac(const Axis *a, double plot_v) { return (plot_v - a->lo) / (a->hi - a->lo); }

typedef struct {
    double at;  // plot space
    double v;   // TICKS_LINEAR: the value
    int k, m;   // log: m × 10^k
    int label, major;
} Tick;

enum { MAX_TICKS = 256 };

static size_t axis_ticks(const Axis *a, Tick *t) {
    size_t n = 0;
    if (a->scheme == TICKS_LINEAR) {
        double vlo = a->log ? pow(10.0, a->lo) : a->lo, vhi = a->log ? pow(10.0, a->hi) : a->hi;
        double first = ceil(vlo / a->step);
        for (double i = first; i * a->step <= vhi && n < MAX_TICKS; i++) {
            double v = i * a->step;
            if (v == 0) v = 0;  // no "-0.0"
            t[n++] = (Tick){.at = a->log ? log10(v) : v, .v = v, .label = 1, .major = 1};
        }
        return n;
    }
    int minors = a->scheme == TICKS_MANTISSAS || a->hi - a->lo <= 6;
    for (int k = (int)floor(a->lo); k <= (int)floor(a->hi) && n < MAX_TICKS; k++) {
        for (int m = 1; m <= 9 && n < MAX_TICKS; m++) {
            double at = k + log10((double)m);
            if (at < a->lo || at > a->hi || (m > 1 && !minors)) continue;
            int label = a->scheme == TICKS_DECADES ? m == 1 && abs(k) % (int)a->step == 0 : (a->mantissas >> m & 1);
            t[n++] = (Tick){.at = at, .k = k, .m = m, .label = label, .major = m == 1};
        }
    }
    return n;
}

static void put_tick_label(FILE *out, const Axis *a, const Tick *t) {
    if (a->scheme == TICKS_LINEAR) {
        if (a->decimals >= 0) fprintf(out, "%.*f", a->decimals, t->v);
        else fprintf(out, "%.*g", a->prec, t->v);
        return;
    }
    if (!a->power) {  // plain numbers: 0.002, 50, 10000
        fprintf(out, "%.*f", t->k < 0 ? -t->k : 0, t->m * pow(10.0, t->k));
        return;
    }
    if (t->m != 1) fprintf(out, "%d&#215;", t->m);
    // superscript exponent; "−" is U+2212, the typographic minus
    fprintf(out, "10<tspan dy=\"-6\" font-size=\"9\">%s%d</tspan>", t->k < 0 ? "&#8722;" : "", abs(t->k));
}

// ---------------------------------------------------------------------------
// the chart

// one SVG_MARK_* shape centred on (x, y), r its half-size, in the enclosing fill
static void put_marker(FILE *out, int shape, double x, double y, double r) {
    switch (shape) {
    case SVG_MARK_SQUARE:
        fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.1f\" height=\"%.1f\"/>", x - r * 0.85, y - r * 0.85,
                1.7 * r, 1.7 * r);
        break;
    case SVG_MARK_TRIANGLE:
        fprintf(out, "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"/>", x, y - r * 1.1, x + r, y + r * 0.8, x - r,
                y + r * 0.8);
        break;
    case SVG_MARK_DIAMOND:
        fprintf(out, "<path d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"/>", x, y - r * 1.2, x + r, y, x,
                y + r * 1.2, x - r, y);
        break;
    default: fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"/>", x, y, r * 0.8);
    }
}

// the stroke-dasharray attribute for SvgSeries.dashed: 0 solid, 1 dashed, 2 dotted
static const char *dash_attr(int dashed) {
    return dashed == 1 ? " stroke-dasharray=\"7 4\"" : dashed == 2 ? " stroke-dasharray=\"2 3\"" : "";
}

const char *svg_palette(int k) { return PALETTE[(size_t)(k > 0 ? k - 1 : 0) % PALETTE_N]; }

static const char *series_color(const SvgSeries *s, size_t i) {
    size_t k = s->color > 0 ? (size_t)(s->color - 1) : i;
    return PALETTE[k % PALETTE_N];
}

void svg_styled_chart_fprint(FILE *out, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                             const SvgBand *bands, size_t n, const SvgStyle *st) {
    static const SvgLimits FIT = {0, 0, 0, 0};
    static const SvgStyle PLAIN = {0};
    if (!lim) lim = &FIT;
    if (!st) st = &PLAIN;
    // ranges over the usable points only (bands included)
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t drawable = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s[i].n; j++) {
            const SvgBand *b = bands && bands[i].lo && bands[i].hi ? &bands[i] : NULL;
            double x = s[i].x[j], ys[3] = {s[i].y[j], b ? b->lo[j] : NAN, b ? b->hi[j] : NAN};
            if (!usable(x, c->logx)) continue;
            for (int k = 0; k < 3; k++) {
                if (!usable(ys[k], c->logy)) continue;
                double px = c->logx ? log10(x) : x, py = c->logy ? log10(ys[k]) : ys[k];
                xlo = fmin(xlo, px), xhi = fmax(xhi, px);
                ylo = fmin(ylo, py), yhi = fmax(yhi, py);
                drawable += k == 0;
            }
        }
    int fixed_x = lim->xmin < lim->xmax && usable(lim->xmin, c->logx) && usable(lim->xmax, c->logx);
    int fixed_y = lim->ymin < lim->ymax && usable(lim->ymin, c->logy) && usable(lim->ymax, c->logy);
    if (fixed_x) xlo = c->logx ? log10(lim->xmin) : lim->xmin, xhi = c->logx ? log10(lim->xmax) : lim->xmax;
    if (fixed_y) ylo = c->logy ? log10(lim->ymin) : lim->ymin, yhi = c->logy ? log10(lim->ymax) : lim->ymax;
    Axis ax, ay;
    if (st->mark_label && usable(st->mark_x, c->logx) && !fixed_x) {  // the marker is inside the plot
        double mx = c->logx ? log10(st->mark_x) : st->mark_x;
        xlo = fmin(xlo, mx), xhi = fmax(xhi, mx);
    }
    axis_fit(&ax, c->logx, xlo, xhi, st->xint, 0);
    axis_fit(&ay, c->logy, ylo, yhi, st->yint, st->yzero && !fixed_y);

    const int legend = n > 0;
    const double L = PLOT_L, T = PLOT_T, B = PLOT_B, R = legend ? W - LEGEND_W - 12 : W - 24;
#define PX(v) (L + axis_frac(&ax, to_plot(&ax, (v))) * (R - L))
#define PY(v) (B - axis_frac(&ay, to_plot(&ay, (v))) * (B - T))

    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H, W, H);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    if (c->title) {  // centred on the image, in a size that keeps it inside the image
        size_t chars = text_chars(c->title);
        double fs = chars ? (W - 2 * TITLE_MARGIN) * 10.0 / (GLYPH_WIDTH_TENTHS * (double)chars) : 16;
        fs = fs > 16 ? 16 : fs < TITLE_MIN_PX ? TITLE_MIN_PX : floor(fs * 10) / 10;
        fprintf(out, "<text x=\"%d\" y=\"26\" text-anchor=\"middle\" font-size=\"%.1f\" font-weight=\"bold\">",
                W / 2, fs);
        svg_put_text(out, c->title, TITLE_MAX_CHARS);
        fputs("</text>\n", out);
    }

    // grid and ticks
    Tick tx[MAX_TICKS], ty[MAX_TICKS];
    size_t ntx = axis_ticks(&ax, tx), nty = axis_ticks(&ay, ty);
    fputs("<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n", out);
    for (size_t i = 0; i < ntx; i++) {
        double x = L + axis_frac(&ax, tx[i].at) * (R - L);
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\"%s/>\n", x, T, x, B,
                tx[i].major ? "" : " stroke=\"#f3f3f3\"");
    }
    for (size_t i = 0; i < nty; i++) {
        double y = B - axis_frac(&ay, ty[i].at) * (B - T);
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\"%s/>\n", L, y, R, y,
                ty[i].major ? "" : " stroke=\"#f3f3f3\"");
    }
    fputs("</g>\n<g stroke=\"#333\" stroke-width=\"1\">\n", out);
    for (size_t i = 0; i < ntx; i++) {
        double x = L + axis_frac(&ax, tx[i].at) * (R - L);
        fprintf(out, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\"/>\n", x, B, x, B + (tx[i].major ? 5 : 3));
    }
    for (size_t i = 0; i < nty; i++) {
        double y = B - axis_frac(&ay, ty[i].at) * (B - T);
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.2f\" x2=\"%.0f\" y2=\"%.2f\"/>\n", L - (ty[i].major ? 5 : 3), y, L, y);
    }
    fputs("</g>\n", out);
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#333\"/>\n", L,
            T, R - L, B - T);
    fputs("<g fill=\"#333\">\n", out);
    for (size_t i = 0; i < ntx; i++) {
        if (!tx[i].label) continue;
        fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" text-anchor=\"middle\">", L + axis_frac(&ax, tx[i].at) * (R - L),
                B + 19);
        put_tick_label(out, &ax, &tx[i]);
        fputs("</text>\n", out);
    }
    for (size_t i = 0; i < nty; i++) {
        if (!ty[i].label) continue;
        // +4: centres 12px digits on the tick (dominant-baseline is not universally supported)
        fprintf(out, "<text x=\"%.0f\" y=\"%.2f\" text-anchor=\"end\">", L - 8,
                B - axis_frac(&ay, ty[i].at) * (B - T) + 4);
        put_tick_label(out, &ay, &ty[i]);
        fputs("</text>\n", out);
    }
    fputs("</g>\n", out);
    if (c->xlabel) {
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", (L + R) / 2, H - 14);
        svg_put_text(out, c->xlabel, 90);
        fputs("</text>\n", out);
    }
    if (c->ylabel) {
        fprintf(out, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">", (T + B) / 2);
        svg_put_text(out, c->ylabel, 60);
        fputs("</text>\n", out);
    }
    if (drawable == 0) {
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n",
                (L + R) / 2, (T + B) / 2);
    }

    // A zoom clips what lies outside the plot area.
    if (fixed_x || fixed_y)
        fprintf(out, "<clipPath id=\"plot-area\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>"
                     "</clipPath>\n<g clip-path=\"url(#plot-area)\">\n", L, T, R - L, B - T);
    // bands first, under every line: upper edge left to right, lower edge back
    for (size_t i = 0; bands && i < n; i++) {
        const SvgSeries *si = &s[i];
        const double *lo = bands[i].lo, *hi = bands[i].hi;
        if (!lo || !hi) continue;
        size_t pts = 0;
        for (size_t j = 0; j < si->n; j++) pts += usable(si->x[j], c->logx) && usable(lo[j], c->logy) && usable(hi[j], c->logy);
        if (pts < 2) continue;
        fprintf(out, "<path fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" d=\"", series_color(si, i));
        size_t k = 0;
        for (size_t j = 0; j < si->n; j++)
            if (usable(si->x[j], c->logx) && usable(lo[j], c->logy) && usable(hi[j], c->logy))
                fprintf(out, "%s%.2f %.2f", k++ == 0 ? "M" : " L", PX(si->x[j]), PY(hi[j]));
        for (size_t j = si->n; j-- > 0;)
            if (usable(si->x[j], c->logx) && usable(lo[j], c->logy) && usable(hi[j], c->logy))
                fprintf(out, " L%.2f %.2f", PX(si->x[j]), PY(lo[j]));
        fputs(" Z\"/>\n", out);
    }
    // series: missing points are skipped and the line joins their neighbours
    for (size_t i = 0; i < n; i++) {
        const SvgSeries *si = &s[i];
        const char *col = series_color(si, i);
        size_t pts = 0;
        for (size_t j = 0; j < si->n; j++) pts += usable(si->x[j], c->logx) && usable(si->y[j], c->logy);
        if (pts == 0) continue;
        if (pts > 1) {
            fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" stroke-linejoin=\"round\"%s d=\"", col,
                    dash_attr(si->dashed));
            size_t k = 0;
            for (size_t j = 0; j < si->n; j++) {
                if (!usable(si->x[j], c->logx) || !usable(si->y[j], c->logy)) continue;
                fprintf(out, "%s%.2f %.2f", k++ == 0 ? "M" : (k % 8 == 1 ? "\nL" : " L"), PX(si->x[j]), PY(si->y[j]));
            }
            fputs("\"/>\n", out);
        }
        int marker = st->marker ? st->marker[i] : SVG_MARK_NONE;
        if (marker || pts <= MARKER_MAX_POINTS) {
            fprintf(out, "<g fill=\"%s\">", col);
            for (size_t j = 0; j < si->n; j++) {
                if (!usable(si->x[j], c->logx) || !usable(si->y[j], c->logy)) continue;
                if (marker) put_marker(out, marker, PX(si->x[j]), PY(si->y[j]), 4);
                else
                    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%s\"/>", PX(si->x[j]), PY(si->y[j]),
                            pts == 1 ? "3.5" : "2.5");
            }
            fputs("</g>\n", out);
        }
        if (st->end_mark && st->end_mark[i]) {  // a cross where the line stops; data-x: the value, for readers and tests
            size_t last = si->n;
            for (size_t j = si->n; j-- > 0 && last == si->n;)
                if (usable(si->x[j], c->logx) && usable(si->y[j], c->logy)) last = j;
            double ex = PX(si->x[last]), ey = PY(si->y[last]);
            fprintf(out, "<path class=\"end-mark\" data-x=\"%.17g\" stroke=\"%s\" stroke-width=\"2.5\" "
                         "d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\"/>\n",
                    si->x[last], col, ex - 6, ey - 6, ex + 6, ey + 6, ex - 6, ey + 6, ex + 6, ey - 6);
        }
    }
    if (st->mark_label && usable(st->mark_x, c->logx)) {  // the vertical marker, over the lines, labelled
        double mx = PX(st->mark_x);
        if (mx >= L - 0.5 && mx <= R + 0.5) {
            fprintf(out, "<line class=\"x-mark\" data-x=\"%.17g\" x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" "
                         "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\n",
                    st->mark_x, mx, T, mx, B);
            int right = mx < (L + R) / 2;  // the label on the side with room
            fprintf(out, "<text x=\"%.2f\" y=\"%.0f\" text-anchor=\"%s\" fill=\"#000\">", mx + (right ? 5 : -5),
                    T + 16, right ? "start" : "end");
            svg_put_text(out, st->mark_label, 40);
            fputs("</text>\n", out);
        }
    }

    if (fixed_x || fixed_y) fputs("</g>\n", out);

    // legend, right of the plot; rows that do not fit are summarised
    if (legend) {
        size_t fit = (size_t)((B - T - 12) / LEGEND_ROW), rows = n <= fit ? n : fit - 1;
        double lx = R + 14, ly = T;
        double box_h = (double)(rows + (rows < n)) * LEGEND_ROW + 10;
        fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" fill=\"white\" stroke=\"#ccc\"/>\n",
                lx - 6, ly, LEGEND_W - 4, box_h);
        // labels are capped in characters, but wide glyphs could still overflow: clip to the box
        fprintf(out, "<clipPath id=\"legend-box\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%.0f\"/></clipPath>\n"
                "<g clip-path=\"url(#legend-box)\">\n", lx - 6, ly, LEGEND_W - 8, box_h);
        for (size_t i = 0; i < rows; i++) {
            double y = ly + 15 + (double)i * LEGEND_ROW;
            fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2.2\"%s/>", lx,
                    y, lx + 24, y, series_color(&s[i], i), dash_attr(s[i].dashed));
            int marker = st->marker ? st->marker[i] : SVG_MARK_NONE, end = st->end_mark && st->end_mark[i];
            if (marker) {
                fprintf(out, "<g fill=\"%s\">", series_color(&s[i], i));
                put_marker(out, marker, lx + 12, y, 4);
                fputs("</g>", out);
            }
            fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">", lx + 30, y + 4);
            if (s[i].label) svg_put_text(out, s[i].label, LEGEND_CHARS - (end ? 2 : 0));
            else fprintf(out, "series %zu", i + 1);
            if (end) fputs(" &#215;", out);
            fputs("</text>\n", out);
        }
        if (rows < n)
            fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#666\">+%zu more</text>\n", lx,
                    ly + 19 + (double)rows * LEGEND_ROW, n - rows);
        fputs("</g>\n", out);
    }
    fputs("</svg>\n", out);
#undef PX
#undef PY
}

void svg_band_chart_fprint(FILE *out, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                           const SvgBand *bands, size_t n) {
    svg_styled_chart_fprint(out, c, lim, s, bands, n, NULL);
}

void svg_line_chart_fprint(FILE *out, const SvgChart *c, const SvgSeries *s, size_t n) {
    svg_band_chart_fprint(out, c, NULL, s, NULL, n);
}

int svg_styled_chart(const char *path, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                     const SvgBand *bands, size_t n, const SvgStyle *st) {
    AtomicFile a;
    if (atomic_open(&a, path)) return ERR_RUNTIME;
    svg_styled_chart_fprint(a.f, c, lim, s, bands, n, st);
    return atomic_commit(&a);
}

int svg_band_chart(const char *path, const SvgChart *c, const SvgLimits *lim, const SvgSeries *s,
                   const SvgBand *bands, size_t n) {
    return svg_styled_chart(path, c, lim, s, bands, n, NULL);
}

int svg_line_chart(const char *path, const SvgChart *c, const SvgSeries *s, size_t n) {
    return svg_band_chart(path, c, NULL, s, NULL, n);
}
