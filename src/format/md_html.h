// md_html.h — the Markdown that lmtrain writes (report.md), as HTML.
//
// A small subset, the one report_md.c produces: "#".."###" headings, pipe
// tables (a header row, an alignment row of ---, ---: or :---:, body rows),
// "- " list items, blank-line separated paragraphs, and inline `code`,
// **strong** and *emphasis*. Everything else is text: HTML special characters
// are escaped, so no markup from the input passes through. Writes an HTML
// fragment (no <html> or <body>).
#pragma once
#include <stdio.h>

void md_to_html(const char *md, FILE *out);
