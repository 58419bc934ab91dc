// json_read.h — reading back a JSON string literal as format/json.h writes
// it. Test-only: linked into the tests, not the binary.
#pragma once
#include <stddef.h>

// Reads the JSON string literal starting at *p (which must be '"'), not going
// past end. On success *out gets the decoded UTF-8 bytes, malloc'd and
// NUL-terminated (the text itself may hold NULs: use *len), and *p points just
// past the closing quote. Rejects raw control characters, unknown escapes,
// bad \u digits and unpaired surrogates: ERR_RUNTIME after err_set with the
// reason and the offending position relative to `base`.
int json_read_string(const char **p, const char *end, const char *base, char **out, size_t *len);
