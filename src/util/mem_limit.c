// mem_limit.c — see mem_limit.h.
#include "mem_limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A limit file's value: bytes, or 0 for "max", unreadable or absurd (v1 writes
// 2^63 rounded down to a page for "no limit").
static double read_limit(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[64] = "";
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    if (!ok || !strncmp(buf, "max", 3)) return 0;
    char *end;
    double v = strtod(buf, &end);
    return end == buf || v <= 0 || v >= 4.0e18 ? 0 : v;
}

// The lowest limit in root/rel/file and each parent folder of rel up to root.
static double lowest_up_to_root(const char *root, const char *rel, const char *file, char *from, size_t cap) {
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s%s", root, rel);
    size_t root_len = strlen(root);
    double best = 0;
    for (;;) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        double v = read_limit(path);
        if (v > 0 && (best == 0 || v < best)) {
            best = v;
            snprintf(from, cap, "the cgroup limit (%s)", path);
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < root_len) break;
        *slash = 0;  // the parent; the root itself last
    }
    return best;
}

double cgroup_memory_limit(const char *proc_cgroup, const char *root, char *from, size_t cap) {
    FILE *f = fopen(proc_cgroup, "r");
    if (!f) return 0;
    char line[512], sub[600];
    double best = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = 0;  // line: the hierarchy's number
        const char *controllers = c1 + 1, *rel = c2 + 1;
        if (!strcmp(rel, "/")) rel = "";
        double v = 0;
        char here[1200];
        if (!strcmp(line, "0") && !controllers[0]) {  // v2: one unified hierarchy
            v = lowest_up_to_root(root, rel, "memory.max", here, sizeof here);
        } else {  // v1: the memory controller's own hierarchy
            int memory = 0;
            for (const char *p = controllers; *p;) {
                size_t n = strcspn(p, ",");
                if (n == 6 && !strncmp(p, "memory", 6)) memory = 1;
                p += n + (p[n] == ',');
            }
            if (!memory) continue;
            snprintf(sub, sizeof sub, "%s/memory", root);
            v = lowest_up_to_root(sub, rel, "memory.limit_in_bytes", here, sizeof here);
        }
        if (v > 0 && (best == 0 || v < best)) {
            best = v;
            snprintf(from, cap, "%s", here);
        }
    }
    fclose(f);
    return best;
}

double memory_limit_bytes(char *from, size_t cap) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && psize > 0 ? (double)pages * (double)psize : 0;
    snprintf(from, cap, "the machine's RAM");
    const char *root = getenv("LMTRAIN_CGROUP_ROOT"), *proc = getenv("LMTRAIN_PROC_CGROUP");
    char src[1300];
    double cg = cgroup_memory_limit(proc && *proc ? proc : "/proc/self/cgroup",
                                    root && *root ? root : "/sys/fs/cgroup", src, sizeof src);
    if (cg > 0 && (have == 0 || cg < have)) {
        snprintf(from, cap, "%s", src);
        return cg;
    }
    return have;
}
