// json.h — JSON string literals: writing any bytes as one (reading one back is
// tests/format/json_read.h, test-only).
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
