// atomic_file.c — temporary file + fsync + rename, with every step checked.
#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "err.h"
#include "file_check.h"
#include "pause.h"

// The temporary file being written right now, so that a signal handler that
// exits at once can remove it (atomic_signal_cleanup). Only one thread writes
// files, one at a time.
static char g_live_tmp[4352];
static volatile sig_atomic_t g_live;

void atomic_signal_cleanup(void) {
    if (g_live) unlink(g_live_tmp);  // async-signal-safe
}

// strerror plus a hint for the errors a user can act on
static int io_error(const char *path, const char *what, int e) {
    int full = e == ENOSPC || e == EFBIG;
#ifdef EDQUOT
    full = full || e == EDQUOT;
#endif
    return err_set(ERR_RUNTIME, "%s: %s: %s%s", path, what, strerror(e),
                   full ? " (disk full or file size limit)" : "");
}

// write() until done: it may write less than asked (signals, pipes, near-full disks)
static int write_all(int fd, const void *data, size_t bytes) {
    const char *p = data;
    while (bytes > 0) {
        ssize_t w = write(fd, p, bytes);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (w == 0) {  // should not happen for regular files; do not spin
            errno = EIO;
            return -1;
        }
        p += w;
        bytes -= (size_t)w;
    }
    return 0;
}

// The rename is only durable once the directory entry is on disk.
static int fsync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash) {
        dir = xstrdup(".");
    } else if (slash == path) {
        dir = xstrdup("/");
    } else {
        size_t n = (size_t)(slash - path);
        dir = xmalloc(n + 1);
        memcpy(dir, path, n);
        dir[n] = 0;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = 0;
    if (fd < 0) {
        rc = io_error(path, "renamed, but cannot open its directory to sync it", errno);
    } else {
        // Some file systems cannot fsync a directory (EINVAL); nothing more to do there.
        if (fsync(fd) != 0 && errno != EINVAL)
            rc = io_error(path, "renamed, but syncing its directory failed", errno);
        close(fd);
    }
    free(dir);
    return rc;
}

// PATH.tmp-PID-N: unique per process and call, so two writers (even one that
// ignores the run folder's lock) never write into the same temporary file,
// and a rename only ever publishes a file one writer completed.
static int create_temp(const char *path, char *tmp, size_t cap) {
    static unsigned counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        int n = snprintf(tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        // published before the file exists: a handler may unlink a name not yet created, never miss one
        if ((size_t)n < sizeof g_live_tmp) {
            memcpy(g_live_tmp, tmp, (size_t)n + 1);
            g_live = 1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) {
            if (fd < 0) g_live = 0;
            return fd;
        }
        g_live = 0;
    }
    errno = EEXIST;
    return -1;
}

int atomic_write_chunks(const char *path, const AtomicChunk *chunks, size_t n) {
    // Never rename over a FIFO, socket, device, folder or symbolic link.
    int rc = check_replaceable(path);
    if (rc) return rc;
    size_t cap = strlen(path) + 64;
    char *tmp = xmalloc(cap);
    int fd = create_temp(path, tmp, cap);
    if (fd < 0) {
        rc = io_error(path, "cannot create temporary file", errno);
        free(tmp);
        return rc;
    }
    size_t total = 0, written = 0;
    for (size_t i = 0; i < n; i++) total += chunks[i].bytes;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int paused = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (chunks[i].bytes > 0 && write_all(fd, chunks[i].data, chunks[i].bytes) != 0)
            rc = io_error(path, "write failed", errno);
        written += chunks[i].bytes;
        if (!paused && 2 * written >= total) {  // tests stop here, mid-write (pause.h)
            pause_point("write", base);
            paused = 1;
        }
    }
    if (rc == 0 && fsync(fd) != 0) rc = io_error(path, "fsync failed", errno);
    // close() can report a deferred write error (NFS, some FUSE file systems)
    if (close(fd) != 0 && rc == 0) rc = io_error(path, "close failed", errno);
    if (rc == 0 && rename(tmp, path) != 0) rc = io_error(path, "cannot rename temporary file over it", errno);
    if (rc != 0) unlink(tmp);  // best effort; the previous `path` was never touched
    g_live = 0;
    free(tmp);
    return rc ? rc : fsync_parent_dir(path);
}

// NAME.tmp-PID-N with PID not a running process: left by a writer that was
// killed. Returns 1 and the pid if `name` has that form.
static int stale_temp_pid(const char *name, long *pid) {
    const char *t = strstr(name, ".tmp-");
    if (!t) return 0;
    char *end;
    long p = strtol(t + 5, &end, 10);
    if (end == t + 5 || *end != '-' || p <= 0) return 0;
    const char *q = end + 1;
    if (!*q) return 0;
    while (*q >= '0' && *q <= '9') q++;
    if (*q) return 0;
    *pid = p;
    return 1;
}

int atomic_remove_stale(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        if (!stale_temp_pid(e->d_name, &pid)) continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;  // alive
        char path[4352];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) continue;
        removed += unlink(path) == 0;
    }
    closedir(d);
    return removed;
}

int atomic_open(AtomicFile *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->f = open_memstream(&a->buf, &a->size);
    if (!a->f) return io_error(path, "cannot open an in-memory buffer", errno);
    a->path = xstrdup(path);
    return 0;
}

int atomic_open_in(AtomicFile *a, const char *dir, const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return atomic_open(a, path);
}

int atomic_commit(AtomicFile *a) {
    if (!a->f) return err_set(ERR_RUNTIME, "%s: atomic_commit on a file that is not open", a->path ? a->path : "?");
    int bad = ferror(a->f);
    int closed = fclose(a->f) == 0;  // finalises buf/size
    a->f = NULL;
    int rc;
    if (bad || !closed) {
        // memstream only fails when it cannot grow its buffer
        rc = err_set(ERR_RUNTIME, "%s: out of memory while formatting the file", a->path);
    } else {
        AtomicChunk c = {a->buf, a->size};
        rc = atomic_write_chunks(a->path, &c, 1);
    }
    free(a->buf);
    free(a->path);
    memset(a, 0, sizeof *a);
    return rc;
}

void atomic_abort(AtomicFile *a) {
    if (a->f) fclose(a->f);
    free(a->buf);
    free(a->path);
    memset(a, 0, sizeof *a);
}
