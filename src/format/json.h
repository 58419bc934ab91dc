// json.h — JSON string literals: writing any bytes as one, and reading one back.
//
// The writer emits pure ASCII, so a header built from it is valid UTF-8 JSON
// whatever the input bytes were (a corpus path in Latin-1, a vocabulary byte
// 0xFF, a NUL):
//   "  \  and the C0 controls  ->  \"  \\  \b \f \n \r \t, else \u00XX
//   DEL (0x7F)                 ->  \u007f
//   a valid UTF-8 sequence     ->  \uXXXX (a surrogate pair above U+FFFF)
//   any other byte >= 0x80     ->  \u00XX, i.e. read as Latin-1
// So a valid UTF-8 string (ASCII included) reads back byte for byte; a byte
// that is not part of valid UTF-8 reads back as the UTF-8 of U+0080..U+00FF
// (JSON strings hold text, not bytes: no escape can mean "raw byte 0xE9").
#pragma once
#include <stddef.h>
#include <stdio.h>

// Writes the n bytes of s as a JSON string literal, quotes included.
void json_write_string(FILE *f, const char *s, size_t n);

// Reads the JSON string literal starting at *p (which must be '"'), not going
// past end. On success *out gets the decoded UTF-8 bytes, malloc'd and
// NUL-terminated (the text itself may hold NULs: use *len), and *p points just
// past the closing quote. Rejects raw control characters, unknown escapes,
// bad \u digits and unpaired surrogates: ERR_RUNTIME after err_set with the
// reason and the offending position relative to `base`.
int json_read_string(const char **p, const char *end, const char *base, char **out, size_t *len);
