// json_read.c — reading a JSON string literal back, strictly. Test-only: it
// checks what format/json.c writes and backs the test safetensors reader.
#include "format/json_read.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/err.h"

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
