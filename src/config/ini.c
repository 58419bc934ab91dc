// ini.c — the INI tokenizer (syntax in ini.h).
#include "ini.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int is_space(char ch) { return isspace((unsigned char)ch) != 0; }

static char *skip_space(char *s) {
    while (is_space(*s)) s++;
    return s;
}

static void trim_right(char *s) {
    size_t n = strlen(s);
    while (n > 0 && is_space(s[n - 1])) s[--n] = 0;
}

static int is_comment_start(char ch) { return ch == '#' || ch == ';'; }

const char *ini_parse_value(char *s, int allow_comment, char **out) {
    s = skip_space(s);
    if (*s == '"') {
        // Unescape in place: the write pointer never passes the read pointer.
        char *rd = s + 1, *wr = s;
        for (;;) {
            if (*rd == 0) return "unterminated quoted string";
            if (*rd == '"') break;
            if (*rd == '\\' && (rd[1] == '"' || rd[1] == '\\')) rd++;
            *wr++ = *rd++;
        }
        char *after = skip_space(rd + 1);
        if (*after && !(allow_comment && is_comment_start(*after)))
            return "unexpected text after the closing quote";
        *wr = 0;
        *out = s;
        return NULL;
    }
    if (allow_comment) {
        // A comment starts at '#' or ';' that opens the value or follows
        // whitespace; inside a word ("run#2") it is part of the value.
        for (char *p = s; *p; p++)
            if (is_comment_start(*p) && (p == s || is_space(p[-1]))) {
                *p = 0;
                break;
            }
    }
    trim_right(s);
    *out = s;
    return NULL;
}

IniKind ini_parse_line(char *line, IniLine *out) {
    int lineno = out->line;
    memset(out, 0, sizeof *out);
    out->line = lineno;
    char *s = skip_space(line);
    if (*s == 0 || is_comment_start(*s)) return out->kind = INI_BLANK;

    if (*s == '[') {
        char *close = strchr(s, ']');
        if (!close) {
            out->error = "missing ']' after the section name";
            return out->kind = INI_ERROR;
        }
        *close = 0;
        char *rest = skip_space(close + 1);
        if (*rest && !is_comment_start(*rest)) {
            out->error = "unexpected text after ']'";
            return out->kind = INI_ERROR;
        }
        char *name = skip_space(s + 1);
        trim_right(name);
        if (*name == 0) {
            out->error = "empty section name";
            return out->kind = INI_ERROR;
        }
        out->section = name;
        return out->kind = INI_SECTION;
    }

    char *eq = strchr(s, '=');
    if (!eq) {
        out->error = "expected \"key = value\", \"[section]\" or a comment";
        return out->kind = INI_ERROR;
    }
    *eq = 0;
    trim_right(s);
    if (*s == 0) {
        out->error = "missing key before '='";
        return out->kind = INI_ERROR;
    }
    char *value;
    const char *why = ini_parse_value(eq + 1, 1, &value);
    if (why) {
        out->error = why;
        return out->kind = INI_ERROR;
    }
    out->key = s;
    out->value = value;
    return out->kind = INI_PAIR;
}

void ini_open(IniReader *r, FILE *f) {
    r->f = f;
    r->buf = NULL;
    r->cap = 0;
    r->line = 0;
}

void ini_close(IniReader *r) {
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

IniKind ini_next(IniReader *r, IniLine *out) {
    for (;;) {
        ssize_t got = getline(&r->buf, &r->cap, r->f);
        if (got < 0) {
            memset(out, 0, sizeof *out);
            out->line = r->line;
            return out->kind = INI_END;
        }
        r->line++;
        size_t n = (size_t)got;
        while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r')) r->buf[--n] = 0;
        char *s = r->buf;
        if (r->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
            s += 3;
            n -= 3;
        }
        out->line = r->line;
        if (strlen(s) != n) {
            memset(out, 0, sizeof *out);
            out->line = r->line;
            out->error = "line contains a NUL byte";
            return out->kind = INI_ERROR;
        }
        IniKind k = ini_parse_line(s, out);
        if (k != INI_BLANK) return k;
    }
}
