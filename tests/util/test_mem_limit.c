// test_mem_limit.c — the memory limit read from fake cgroup hierarchies (v2
// and v1, a limit on the process's own cgroup or on a parent, "max" and v1's
// "unlimited"), and memory_limit_bytes taking the lower of RAM and cgroup
// through the two test-only variables.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test.h"
#include "util/mem_limit.h"

static char root[256];

static void put(const char *rel, const char *text) {
    char path[512], dir[600];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", path);
    if (system(dir) != 0) return;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static double limit_of(const char *proc_text, char *from, size_t cap) {
    put("proc_cgroup", proc_text);
    char proc[512];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", root);
    return cgroup_memory_limit(proc, root, from, cap);
}

static void test_v2(void) {
    char from[1400] = "";
    put("a/b/memory.max", "max\n");
    CHECK(limit_of("0::/a/b\n", from, sizeof from) == 0);  // no limit anywhere up the tree
    put("a/memory.max", "2147483648\n");                      // a parent's limit binds the child
    CHECK(limit_of("0::/a/b\n", from, sizeof from) == 2147483648.0);
    CHECK(strstr(from, "a/memory.max") != NULL);
    put("a/b/memory.max", "1073741824\n");  // the lower of the two
    CHECK(limit_of("0::/a/b\n", from, sizeof from) == 1073741824.0);
    CHECK(strstr(from, "a/b/memory.max") != NULL);
    put("memory.max", "536870912\n");  // the root's own file counts as well
    CHECK(limit_of("0::/a/b\n", from, sizeof from) == 536870912.0);
    CHECK(limit_of("0::/\n", from, sizeof from) == 536870912.0);
}

static void test_v1(void) {
    char from[1400] = "";
    put("memory.max", "max\n");  // test_v2's root limit off: the v2 line below must not win
    put("memory/x/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "unlimited"
    CHECK(limit_of("4:memory:/x\n1:cpu:/\n", from, sizeof from) == 0);
    put("memory/x/y/memory.limit_in_bytes", "3221225472\n");
    CHECK(limit_of("9:pids:/\n4:cpu,memory:/x/y\n0::/\n", from, sizeof from) == 3221225472.0);
    CHECK(strstr(from, "memory/x/y/memory.limit_in_bytes") != NULL);
    CHECK(limit_of("4:cpu:/x/y\n", from, sizeof from) == 0);  // no memory controller named: no limit
}

static void test_missing_files(void) {
    char from[1400] = "";
    CHECK(cgroup_memory_limit("/nonexistent/cgroup", root, from, sizeof from) == 0);
    put("proc_cgroup", "garbage without colons\n");
    char proc[512];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", root);
    CHECK(cgroup_memory_limit(proc, root, from, sizeof from) == 0);
}

static void test_lower_of_ram_and_cgroup(void) {
    char from[1400], proc[512];
    snprintf(proc, sizeof proc, "%s/proc_cgroup", root);
    put("proc_cgroup", "0::/small\n");
    put("small/memory.max", "1048576\n");
    put("memory.max", "max\n");
    setenv("LMTRAIN_CGROUP_ROOT", root, 1);
    setenv("LMTRAIN_PROC_CGROUP", proc, 1);
    CHECK(memory_limit_bytes(from, sizeof from) == 1048576.0);
    CHECK(strstr(from, "cgroup") && strstr(from, "small/memory.max"));
    put("small/memory.max", "max\n");  // no cgroup limit: the machine's RAM
    double ram = memory_limit_bytes(from, sizeof from);
    CHECK(ram > 1048576.0 && strstr(from, "RAM"));
    unsetenv("LMTRAIN_CGROUP_ROOT");
    unsetenv("LMTRAIN_PROC_CGROUP");
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/lmtrain-cgroup-XXXXXX");
    if (!mkdtemp(root)) return 1;
    TEST(test_v2);
    TEST(test_v1);
    TEST(test_missing_files);
    TEST(test_lower_of_ram_and_cgroup);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", root);
    return test_summary();
}
