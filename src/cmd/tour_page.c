// tour_page.c — `lmtrain tour`'s page: plain HTML, the charts inline (their
// ids made unique, no namespace URL), no script, no font, nothing fetched.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/tour.h"

static const char *STYLE =
    "body{font-family:sans-serif;max-width:900px;margin:2em auto;padding:0 1em;line-height:1.45;color:#222}"
    "h2{margin-top:2.2em;border-bottom:1px solid #ddd}p.claim{font-size:1.1em}"
    "pre{background:#f5f5f5;padding:8px;overflow-x:auto;white-space:pre-wrap}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}"
    "p.see{background:#eef6ee;padding:6px 10px}p.fail{background:#fbeaea;padding:6px 10px}";

void tour_put_html(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static const char SVG_NS[] = " xmlns=\"http://www.w3.org/2000/svg\"";

// An SVG document inline, its ids ("id=", "url(#") prefixed so two charts' clip paths never meet.
void tour_put_svg(Tour *t, const char *doc) {
    int k = t->figures++;
    fputs("<figure>", t->page);
    for (const char *p = doc; *p;) {
        if (!strncmp(p, "id=\"", 4)) {
            fprintf(t->page, "id=\"t%d-", k);
            p += 4;
        } else if (!strncmp(p, "url(#", 5)) {
            fprintf(t->page, "url(#t%d-", k);
            p += 5;
        } else if (!strncmp(p, "<?xml", 5)) {
            const char *e = strstr(p, "?>");
            p = e ? e + 2 : p + strlen(p);
        } else if (!strncmp(p, SVG_NS, strlen(SVG_NS))) {  // HTML needs no namespace: the page names no URL
            p += strlen(SVG_NS);
        } else {
            fputc(*p++, t->page);
        }
    }
    fputs("</figure>\n", t->page);
}

// The SVG file at DIR/rel inline, or a line saying it is missing.
void tour_put_svg_file(Tour *t, const char *rel) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", t->dir, rel);
    char *doc = tour_slurp(path);
    if (doc && strstr(doc, "<svg")) tour_put_svg(t, doc);
    else fprintf(t->page, "<p class=\"fail\">missing picture: %s (see logs/)</p>\n", rel), t->failed++;
    free(doc);
}

// A chart made here, inline.
void tour_put_chart(Tour *t, const SvgChart *c, const SvgSeries *s, size_t n, const SvgStyle *st) {
    char *buf = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&buf, &size);
    if (!m) {
        fprintf(stderr, "lmtrain: out of memory\n");
        exit(1);
    }
    svg_styled_chart_fprint(m, c, NULL, s, NULL, n, st);
    fclose(m);
    tour_put_svg(t, buf);
    free(buf);
}

void tour_section(Tour *t, const char *id, const char *title, const char *claim) {
    fprintf(t->page, "<h2 id=\"%s\">", id);
    tour_put_html(t->page, title);
    fputs("</h2>\n<p class=\"claim\">", t->page);
    tour_put_html(t->page, claim);
    fputs("</p>\n", t->page);
}

void tour_command(Tour *t, char *const argv[], int status) {
    char cmd[2000];
    tour_command_text(cmd, sizeof cmd, argv);
    fputs("<pre>$ ", t->page);
    tour_put_html(t->page, cmd);
    fputs("</pre>\n", t->page);
    if (status != 0) fprintf(t->page, "<p class=\"fail\">this command exited with status %d (its output is in logs/)</p>\n", status), t->failed++;
}

void tour_see(Tour *t, const char *fmt, ...) {
    char buf[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fputs("<p class=\"see\">What to see: ", t->page);
    tour_put_html(t->page, buf);
    fputs("</p>\n", t->page);
}


void tour_page_begin(Tour *t) {
    fprintf(t->page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<title>lmtrain tour: linear attention, measured</title><style>%s</style></head><body>\n", STYLE);
}
