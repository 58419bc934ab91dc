// json.c — JSON string literals: an ASCII-only writer.
#include "format/json.h"

#include <stdint.h>

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
