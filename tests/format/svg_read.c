// svg_read.c — see svg_read.h.
#include "svg_read.h"

#include <string.h>

size_t svg_count(const char *doc, const char *needle) {
    size_t k = 0, len = strlen(needle);
    for (const char *p = doc; len && (p = strstr(p, needle)); p += len) k++;
    return k;
}
