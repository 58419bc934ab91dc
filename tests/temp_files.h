// temp_files.h — counts the temporary files an atomic write leaves (or does
// not leave) in a folder: any name containing ".tmp" (util/atomic_file.c
// names them PATH.tmp-PID-N, unique per writer, so no fixed name to look for).
#pragma once
#include <dirent.h>
#include <stdio.h>
#include <string.h>

// How many; their names, space-separated, into buf (if not NULL).
static inline int count_temp_files(const char *dir, char *buf, size_t cap) {
    int n = 0;
    size_t len = 0;
    if (buf && cap) buf[0] = 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp")) {
            n++;
            if (buf && len + strlen(e->d_name) + 2 < cap)
                len += (size_t)snprintf(buf + len, cap - len, "%s ", e->d_name);
        }
    closedir(d);
    return n;
}
