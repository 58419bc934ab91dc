// md_html.c — see md_html.h. Line by line: a block (table, list, paragraph)
// stays open while its lines continue and is closed by any other line.
#include "format/md_html.h"

#include <string.h>

typedef enum { NONE, PARA, LIST, TABLE } Block;

static void put_escaped(FILE *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(s[i], out);
        }
    }
}

// inline markup: `code`, **strong**, *em*; an unmatched marker is plain text
static void put_inline(FILE *out, const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        const char *tag = NULL;
        size_t mlen = 0;
        if (s[i] == '`') tag = "code", mlen = 1;
        else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') tag = "strong", mlen = 2;
        else if (s[i] == '*') tag = "em", mlen = 1;
        if (tag) {
            const char *mark = mlen == 2 ? "**" : s[i] == '`' ? "`" : "*";
            size_t j = i + mlen, end = 0;
            // emphasis opens before a non-space and closes after one ("5 * 3" is text)
            int emph = s[i] == '*';
            if (!emph || (j < n && s[j] != ' '))
                for (; j + mlen <= n; j++)
                    if (!strncmp(s + j, mark, mlen) && (!emph || s[j - 1] != ' ')) {
                        end = j;
                        break;
                    }
            if (end > i + mlen) {
                fprintf(out, "<%s>", tag);
                if (s[i] == '`') put_escaped(out, s + i + mlen, end - i - mlen);
                else put_inline(out, s + i + mlen, end - i - mlen);
                fprintf(out, "</%s>", tag);
                i = end + mlen;
                continue;
            }
        }
        put_escaped(out, s + i, 1);
        i++;
    }
}

static size_t trim(const char **s, size_t n) {
    while (n && (**s == ' ' || **s == '\t')) (*s)++, n--;
    while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t' || (*s)[n - 1] == '\r')) n--;
    return n;
}

// the cells of a pipe-table row "| a | b |": calls put for each
typedef struct {
    char align[64];  // 'l', 'r', 'c' per column (from the alignment row)
    int cols;
} Table;

static int is_align_row(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strchr("|-: \t", s[i])) return 0;
    return memchr(s, '-', n) != NULL;
}

static void read_align(Table *t, const char *s, size_t n) {
    t->cols = 0;
    size_t i = s[0] == '|' ? 1 : 0;
    while (i < n && t->cols < 64) {
        size_t j = i;
        while (j < n && s[j] != '|') j++;
        const char *c = s + i;
        size_t len = trim(&c, j - i);
        if (len) t->align[t->cols++] = c[len - 1] == ':' ? (c[0] == ':' ? 'c' : 'r') : 'l';
        i = j + 1;
    }
}

static void table_row(FILE *out, const Table *t, const char *s, size_t n, const char *cell) {
    fputs("<tr>", out);
    size_t i = s[0] == '|' ? 1 : 0;
    if (n && s[n - 1] == '|') n--;
    for (int col = 0; i <= n; col++) {
        size_t j = i;
        while (j < n && s[j] != '|') j++;
        const char *c = s + i;
        size_t len = trim(&c, j - i);
        char al = col < t->cols ? t->align[col] : 'l';
        fprintf(out, "<%s%s>", cell, al == 'r' ? " class=\"r\"" : al == 'c' ? " class=\"c\"" : "");
        put_inline(out, c, len);
        fprintf(out, "</%s>", cell);
        i = j + 1;
        if (j >= n) break;
    }
    fputs("</tr>\n", out);
}

static void close_block(FILE *out, Block *b) {
    if (*b == PARA) fputs("</p>\n", out);
    else if (*b == LIST) fputs("</ul>\n", out);
    else if (*b == TABLE) fputs("</tbody></table>\n", out);
    *b = NONE;
}

void md_to_html(const char *md, FILE *out) {
    Block b = NONE;
    Table t = {{0}, 0};
    const char *p = md;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *line = p;
        size_t len = trim(&line, n);
        const char *next = nl ? nl + 1 : p + n;
        if (len == 0) {
            close_block(out, &b);
        } else if (line[0] == '#') {
            close_block(out, &b);
            int level = 0;
            while (level < (int)len && line[level] == '#') level++;
            const char *h = line + level;
            size_t hl = trim(&h, len - (size_t)level);
            if (level > 6) level = 6;
            fprintf(out, "<h%d>", level);
            put_inline(out, h, hl);
            fprintf(out, "</h%d>\n", level);
        } else if (line[0] == '|') {
            if (b != TABLE) {
                // a header row needs the alignment row right under it
                const char *al = next;
                const char *anl = strchr(al, '\n');
                size_t an = anl ? (size_t)(anl - al) : strlen(al);
                size_t atl = trim(&al, an);
                close_block(out, &b);
                if (atl && is_align_row(al, atl)) {
                    read_align(&t, al, atl);
                    fputs("<table>\n<thead>", out);
                    table_row(out, &t, line, len, "th");
                    fputs("</thead><tbody>\n", out);
                    b = TABLE;
                    next = anl ? anl + 1 : al + an;
                } else {  // a lone row: text
                    fputs("<p>", out);
                    put_inline(out, line, len);
                    b = PARA;
                }
            } else {
                table_row(out, &t, line, len, "td");
            }
        } else if (len >= 2 && line[0] == '-' && line[1] == ' ') {
            if (b != LIST) {
                close_block(out, &b);
                fputs("<ul>\n", out);
                b = LIST;
            }
            fputs("<li>", out);
            put_inline(out, line + 2, len - 2);
            fputs("</li>\n", out);
        } else {
            if (b != PARA) {
                close_block(out, &b);
                fputs("<p>", out);
                b = PARA;
            } else {
                fputc('\n', out);
            }
            put_inline(out, line, len);
        }
        p = next;
    }
    close_block(out, &b);
}
