// svg_read.h — reading back what format/svg.h writes, for the tests that
// check a chart by value. Test-only: linked into the tests, not the binary.
#pragma once
#include <stddef.h>

// How many times needle occurs in doc (non-overlapping).
size_t svg_count(const char *doc, const char *needle);
