// json.c — JSON string literals: an ASCII-only writer and a strict reader.
#include "tools/json.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/err.h"

// ============================================================================
// Writing
// ============================================================================

// The code point of the valid (shortest-form, non-surrogate, <= U+10FFFF)
// UTF-8 sequence at s[0..n), with its length in *len; 0 in *len if the bytes
// there are not one (RFC 3629, table 3-7 of the Unicode standard).
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *len) {
    *len = 0;
    unsigned char b = s[0];
    size_t need;
    uint32_t cp;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b >= 0xC2 && b <= 0xDF) need = 1, cp = b & 0x1Fu;
    else if (b >= 0xE0 && b <= 0xEF) {
        need = 2, cp = b & 0x0Fu;
        if (b == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
        if (b == 0xED) hi = 0x9F;  // no UTF-16 surrogates U+D800..U+DFFF
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3, cp = b & 0x07u;
        if (b == 0xF0) lo = 0x90;  // no overlong 4-byte forms
        if (b == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else return 0;  // ASCII is handled by the caller; 0x80..0xC1, 0xF5..0xFF never start one
    if (n < need + 1 || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    *len = need + 1;
    return cp;
}

void json_write_string(FILE *f, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c >= 0x20 && c < 0x7F) {
            if (c == '"' || c == '\\') fputc('\\', f);
            fputc(c, f);
            i++;
            continue;
        }
        if (c < 0x80) {
            switch (c) {
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            case '\n': fputs("\\n", f); break;
            case '\r': fputs("\\r", f); break;
            case '\t': fputs("\\t", f); break;
            default: fprintf(f, "\\u%04x", c);  // other controls and DEL
            }
            i++;
            continue;
        }
        size_t len;
        uint32_t cp = utf8_next(u + i, n - i, &len);
        if (!len) {  // not UTF-8: the byte as the Latin-1 character of that value
            fprintf(f, "\\u%04x", c);
            i++;
        } else if (cp < 0x10000) {
            fprintf(f, "\\u%04x", (unsigned)cp);
            i += len;
        } else {  // UTF-16 surrogate pair
            uint32_t v = cp - 0x10000;
            fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xD800 + (v >> 10)), (unsigned)(0xDC00 + (v & 0x3FF)));
            i += len;
        }
    }
    fputc('"', f);
}

// ============================================================================
// Reading
// ============================================================================

static int hex4(const char *p, const char *end, uint32_t *v) {
    if (end - p < 4) return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        uint32_t d;
        if (c >= '0' && c <= '9') d = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (uint32_t)(c - 'A' + 10);
        else return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

static size_t utf8_put(char *o, uint32_t cp) {
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int json_read_string(const char **p, const char *end, const char *base, char **out, size_t *len) {
    const char *s = *p;
    if (s >= end || *s != '"') return err_set(ERR_RUNTIME, "expected a string at byte %td", s - base);
    // find the closing quote first, so the output buffer is sized by the literal
    const char *q = s + 1;
    while (q < end && *q != '"') {
        if (*q != '\\') q++;
        else if (end - q >= 2) q += 2;  // the escaped character cannot close the literal
        else q = end;
    }
    if (q >= end) return err_set(ERR_RUNTIME, "unterminated string starting at byte %td", s - base);
    // every escape decodes to no more bytes than it takes, so q - s bytes suffice
    char *o = xmalloc((size_t)(q - s) + 1);
    size_t n = 0;
    const char *why = NULL;
    const char *r = s + 1;
    while (r < q && !why) {
        unsigned char c = (unsigned char)*r;
        if (c < 0x20) {
            why = "raw control character in string";
            break;
        }
        if (c != '\\') {
            o[n++] = (char)c;  // raw non-ASCII bytes are copied as they are
            r++;
            continue;
        }
        char e = r[1];  // r + 1 < q: a backslash never ends the literal
        r += 2;
        switch (e) {
        case '"': o[n++] = '"'; break;
        case '\\': o[n++] = '\\'; break;
        case '/': o[n++] = '/'; break;
        case 'b': o[n++] = '\b'; break;
        case 'f': o[n++] = '\f'; break;
        case 'n': o[n++] = '\n'; break;
        case 'r': o[n++] = '\r'; break;
        case 't': o[n++] = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (hex4(r, q, &cp)) {
                why = "bad \\u escape";
                break;
            }
            r += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                why = "unpaired low surrogate";
                break;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (q - r < 6 || r[0] != '\\' || r[1] != 'u' || hex4(r + 2, q, &lo) || lo < 0xDC00 ||
                    lo > 0xDFFF) {
                    why = "unpaired high surrogate";
                    break;
                }
                r += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            n += utf8_put(o + n, cp);
            break;
        }
        default: why = "unknown escape";
        }
    }
    if (why) {
        free(o);
        return err_set(ERR_RUNTIME, "%s at byte %td", why, r - base);
    }
    o[n] = 0;
    *out = o;
    *len = n;
    *p = q + 1;
    return 0;
}
