// report_html.c — report.html from an Ablation: one page a browser opens with
// no network. The tables are report.md's own text (report_markdown, converted
// by format/md_html), so the page and report.md can never disagree; the charts
// are inline SVG. Each chart's ids get a prefix of their own, so that the
// clip paths of several charts on one page do not collide.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/report.h"
#include "experiment/report_compute.h"
#include "experiment/report_extras.h"
#include "format/md_html.h"
#include "format/svg.h"
#include "train/summary.h"
#include "util/err.h"

static const char CSS[] =
    "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}"
    "table{border-collapse:collapse;margin:1em 0;font-size:14px}"
    "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}"
    "th{background:#f3f3f3}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}td.c,th.c{text-align:center}"
    "code{background:#f5f5f5;padding:0 3px}"
    "figure{margin:1.5em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}"
    "figcaption{color:#555;font-size:14px}";

// The SVG document `doc` into the page, its ids ("id=\"x\"", "url(#x)") prefixed with c<k>-.
static void inline_svg(FILE *f, const char *doc, int k) {
    for (const char *p = doc; *p;) {
        if (!strncmp(p, "id=\"", 4)) {
            fprintf(f, "id=\"c%d-", k);
            p += 4;
        } else if (!strncmp(p, "url(#", 5)) {
            fprintf(f, "url(#c%d-", k);
            p += 5;
        } else if (!strncmp(p, "<?xml", 5)) {  // an XML declaration has no place inside HTML
            const char *e = strstr(p, "?>");
            p = e ? e + 2 : p + strlen(p);
        } else {
            fputc(*p++, f);
        }
    }
}

typedef struct {
    char *buf;
    size_t size;
    FILE *f;
} Mem;

static FILE *mem_open(Mem *m) {
    m->buf = NULL;
    m->size = 0;
    m->f = open_memstream(&m->buf, &m->size);
    if (!m->f) {
        fprintf(stderr, "lmtrain: out of memory\n");
        exit(1);
    }
    return m->f;
}

// closes the stream, puts the figure with its caption, frees
static void figure(FILE *f, Mem *m, int *k, const char *caption) {
    fclose(m->f);
    fputs("<figure>\n", f);
    inline_svg(f, m->buf, (*k)++);
    fprintf(f, "<figcaption>%s</figcaption>\n</figure>\n", caption);
    free(m->buf);
}

static void loss_by_position(FILE *f, const Ablation *a, const GroupExtras *e, int *k) {
    SvgSeries *s = xcalloc(a->n_main + 1, sizeof *s);
    double **x = xcalloc(a->n_main + 1, sizeof *x);
    size_t ns = 0;
    for (size_t g = 0; g < a->n_main; g++) {
        if (!e[g].n_pos) continue;
        x[ns] = xcalloc(e[g].n_pos, sizeof(double));
        for (size_t i = 0; i < e[g].n_pos; i++) x[ns][i] = (double)i;
        s[ns] = (SvgSeries){.label = a->group[g].label, .x = x[ns], .y = e[g].loss, .n = e[g].n_pos,
                            .color = (int)g + 1};
        ns++;
    }
    fputs("<h2>Loss by position in the window</h2>\n", f);
    if (!ns) {
        fputs("<p>Not available: no run has <code>eval/loss_by_position.csv</code> (run <code>lmtrain eval</code>).</p>\n", f);
    } else {
        Mem m;
        SvgChart c = {"Whole-split validation loss at each position of the window (mean over seeds)",
                      "position in the window (tokens seen - 1)", "loss (nats/token)", 0, 0};
        svg_line_chart_fprint(mem_open(&m), &c, s, ns);
        figure(f, &m, k, "Position t has seen t + 1 tokens: where the curves part is where context starts to matter.");
    }
    for (size_t i = 0; i < ns; i++) free(x[i]);
    free(x);
    free(s);
}

static void horizons(FILE *f, const Ablation *a, const GroupExtras *e, int *k) {
    SvgSeries *s = xcalloc(a->n_main + 2, sizeof *s);
    double **x = xcalloc(a->n_main + 2, sizeof *x), **y = xcalloc(a->n_main + 2, sizeof *y);
    size_t ns = 0, Lmax = 0;
    for (size_t g = 0; g < a->n_main; g++) {
        size_t L = e[g].n_layers;
        if (!L) continue;
        x[ns] = xcalloc(L, sizeof(double));
        y[ns] = xcalloc(L, sizeof(double));
        for (size_t l = 0; l < L; l++) {
            x[ns][l] = (double)l;
            y[ns][l] = 1.0 / (1.0 - e[g].lambda[l]);
        }
        s[ns] = (SvgSeries){.label = a->group[g].label, .x = x[ns], .y = y[ns], .n = L, .color = (int)g + 1};
        Lmax = L > Lmax ? L : Lmax;
        ns++;
    }
    fputs("<h2>Memory horizon of the learned decay</h2>\n", f);
    if (!ns) {
        fputs("<p>Not available: no kind in this ablation has a decay λ.</p>\n", f);
    } else {
        x[ns] = xcalloc(Lmax, sizeof(double));
        y[ns] = xcalloc(Lmax, sizeof(double));
        for (size_t l = 0; l < Lmax; l++) x[ns][l] = (double)l, y[ns][l] = (double)a->block_size;
        // black, not the palette's pale yellow: the line the horizons are read against
        s[ns] = (SvgSeries){.label = "block_size (window)", .x = x[ns], .y = y[ns], .n = Lmax, .dashed = 1,
                            .color = 7};
        ns++;
        Mem m;
        // linear from 0: a log axis fitted to 40-44 would make a 10 % spread fill the chart
        SvgChart c = {"Horizon 1/(1 - λ) of each layer's mean λ at the end of training", "layer", "tokens", 0, 0};
        SvgStyle st = {.xint = 1, .yzero = 1};
        svg_styled_chart_fprint(mem_open(&m), &c, NULL, s, NULL, ns, &st);
        figure(f, &m, k, "A token n steps back is weighted λ^n: the horizon is where that falls to 1/e. "
                         "The dashed black line is the training window (block_size); the y axis starts at 0.");
    }
    for (size_t i = 0; i < ns; i++) free(x[i]), free(y[i]);
    free(x);
    free(y);
    free(s);
}

static void memory(FILE *f, const Ablation *a, int *k) {
    const size_t lens[] = REPORT_LENGTHS;
    double x[REPORT_N_LENGTHS];
    double *y = xcalloc(a->n_main * REPORT_N_LENGTHS + 1, sizeof(double));
    SvgSeries *s = xcalloc(a->n_main + 1, sizeof *s);
    int *marker = xcalloc(a->n_main + 1, sizeof(int));
    size_t ns = 0;
    for (int i = 0; i < REPORT_N_LENGTHS; i++) x[i] = (double)lens[i];
    for (size_t g = 0; g < a->n_main; g++) {
        if (!a->group[g].n_finished) continue;
        for (int i = 0; i < REPORT_N_LENGTHS; i++) y[ns * REPORT_N_LENGTHS + i] = (double)a->group[g].mem[i];
        // kinds with the same state (linear, linear_decay) draw one line over another: a dash
        // pattern and a marker shape each keep every kind visible
        s[ns] = (SvgSeries){.label = a->group[g].label, .x = x, .y = y + ns * REPORT_N_LENGTHS,
                            .n = REPORT_N_LENGTHS, .dashed = (int)(ns % 3), .color = (int)g + 1};
        marker[ns] = SVG_MARK_CIRCLE + (int)(ns % 4);
        ns++;
    }
    fputs("<h2>Inference memory against length</h2>\n", f);
    Mem m;
    SvgChart c = {"Inference memory per sequence, all layers", "sequence length (tokens)", "bytes", 1, 1};
    SvgStyle st = {.marker = marker};
    svg_styled_chart_fprint(mem_open(&m), &c, NULL, s, NULL, ns, &st);
    figure(f, &m, k, "The KV cache grows with every token; a fast-weight state has one size at any length. "
                     "Kinds with the same memory share a line: each has its own marker and dash.");
    free(marker);
    free(y);
    free(s);
}

void report_html(const Ablation *a, FILE *f) {
    Mem md;
    report_markdown(a, mem_open(&md));
    fclose(md.f);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>Ablation report</title>\n<style>%s</style>\n</head>\n<body>\n", CSS);
    md_to_html(md.buf, f);
    free(md.buf);
    int k = 0;
    fputs("<h2>Loss curves</h2>\n", f);
    Mem m;
    report_curves_fprint(a, mem_open(&m), 1);
    figure(f, &m, &k, "Validation loss over the second half of training, scaled to where the kinds differ "
                      "(mean over seeds, min–max band).");
    report_curves_fprint(a, mem_open(&m), 0);
    figure(f, &m, &k, "The whole run: train (dashed) and validation (solid) loss.");
    if (a->n_main > 1) {
        report_diff_curves_fprint(a, mem_open(&m));
        figure(f, &m, &k, "Each kind's validation loss minus the baseline's with the same seed (mean, min–max "
                          "band over seeds): the seed-to-seed offset both share cancels; below 0 is better.");
    }
    if (report_has_compute(a)) {
        report_compute_curves_fprint(a, mem_open(&m));
        figure(f, &m, &k, "Validation loss against the training CPU-seconds each kind spent (mean over seeds, "
                          "min–max band): the kinds at equal compute rather than equal steps.");
    }
    if (report_has_acc_curves(a)) {
        fputs("<h2>Recall accuracy</h2>\n", f);
        report_acc_curves_fprint(a, mem_open(&m));
        figure(f, &m, &k, "Validation accuracy on the recall task (mean over seeds, min–max band).");
    }
    if (report_has_acc_sweep(a)) {
        report_acc_sweep_fprint(a, mem_open(&m));
        figure(f, &m, &k, "Final validation accuracy at each value of the sweep (mean over seeds, min–max band).");
    }
    GroupExtras *e = report_extras_load(a);
    loss_by_position(f, a, e, &k);
    horizons(f, a, e, &k);
    memory(f, a, &k);
    report_extras_free(e, a->n_group);
    fputs("</body>\n</html>\n", f);
}
