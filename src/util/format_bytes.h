// format_bytes.h — byte counts for people.
#pragma once
#include <stddef.h>

// Formats bytes as "512 B" / "12.0 KiB" / "3.5 MiB" / "1.25 GiB" into buf.
void format_bytes(char *buf, size_t cap, double bytes);
