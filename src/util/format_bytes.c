// format_bytes.c — byte counts for people.
#include "format_bytes.h"

#include <stdio.h>

void format_bytes(char *buf, size_t cap, double b) {
    if (b < 1024) snprintf(buf, cap, "%.0f B", b);
    else if (b < 1048576) snprintf(buf, cap, "%.1f KiB", b / 1024);
    else if (b < 1073741824) snprintf(buf, cap, "%.1f MiB", b / 1048576);
    else snprintf(buf, cap, "%.2f GiB", b / 1073741824);
}
