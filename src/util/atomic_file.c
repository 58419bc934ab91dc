// atomic_file.c — temporary file + fsync + rename, with every step checked.
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

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

int atomic_write_chunks(const char *path, const AtomicChunk *chunks, size_t n) {
    size_t len = strlen(path);
    char *tmp = xmalloc(len + 5);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        int rc = io_error(path, "cannot create temporary file", errno);
        free(tmp);
        return rc;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (chunks[i].bytes > 0 && write_all(fd, chunks[i].data, chunks[i].bytes) != 0)
            rc = io_error(path, "write failed", errno);
    if (rc == 0 && fsync(fd) != 0) rc = io_error(path, "fsync failed", errno);
    // close() can report a deferred write error (NFS, some FUSE file systems)
    if (close(fd) != 0 && rc == 0) rc = io_error(path, "close failed", errno);
    if (rc == 0 && rename(tmp, path) != 0) rc = io_error(path, "cannot rename temporary file over it", errno);
    if (rc != 0) {
        unlink(tmp);  // best effort; the previous `path` was never touched
        free(tmp);
        return rc;
    }
    free(tmp);
    return fsync_parent_dir(path);
}

int atomic_open(AtomicFile *a, const char *path) {
    memset(a, 0, sizeof *a);
    a->f = open_memstream(&a->buf, &a->size);
    if (!a->f) return io_error(path, "cannot open an in-memory buffer", errno);
    a->path = xstrdup(path);
    return 0;
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
