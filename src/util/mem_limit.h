// mem_limit.h — how much memory this process may use: the machine's RAM, or
// less when its cgroup (v2 memory.max, v1 memory.limit_in_bytes) says so. A
// container with 2 GiB on a 64 GiB machine is killed by the kernel at 2 GiB,
// so a check against physical RAM alone lets a hopeless allocation start.
#pragma once
#include <stddef.h>

// The limit in bytes (0 if nothing could be read); `from` gets what set it,
// for messages: "the machine's RAM" or "the cgroup limit (PATH)".
//
// For tests: LMTRAIN_CGROUP_ROOT replaces /sys/fs/cgroup and LMTRAIN_PROC_CGROUP
// replaces /proc/self/cgroup (a fake hierarchy with a small limit).
double memory_limit_bytes(char *from, size_t cap);

// The lowest limit set for the cgroup named in the file `proc_cgroup` (lines
// "0::/a/b" for v2, "N:memory:/a/b" or "N:cpu,memory:/a/b" for v1) in the
// hierarchy at `root`: every folder from the cgroup's up to root is read
// (a parent's limit binds its children too). 0 if none is set ("max", or v1's
// "unlimited" near 2^63); else the limit, and `from` the file it came from.
double cgroup_memory_limit(const char *proc_cgroup, const char *root, char *from, size_t cap);
