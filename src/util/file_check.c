// file_check.c — see file_check.h.
#include "file_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

const char *file_kind(mode_t mode) {
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "a special file";
}

static int not_regular(const char *path, const char *what, mode_t mode) {
    return err_set(ERR_RUNTIME, "cannot open %s %s: it is %s; lmtrain reads only regular files", what, path,
                   file_kind(mode));
}

int open_regular(const char *path, const char *what, size_t max_bytes, int *fd, size_t *size) {
    *fd = -1;
    struct stat st;
    if (stat(path, &st) != 0) return err_set(ERR_RUNTIME, "cannot open %s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return not_regular(path, what, st.st_mode);
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) return err_set(ERR_RUNTIME, "cannot open %s %s: %s", what, path, strerror(errno));
    int rc = 0;
    if (fstat(f, &st) != 0) rc = err_set(ERR_RUNTIME, "cannot stat %s %s: %s", what, path, strerror(errno));
    else if (!S_ISREG(st.st_mode)) rc = not_regular(path, what, st.st_mode);
    if (rc) {
        close(f);
        return rc;
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    if (st.st_size < 0 || (max_bytes && (uintmax_t)st.st_size > (uintmax_t)max_bytes)) {
        close(f);
        return err_set(ERR_RUNTIME, "%s %s is %jd bytes; lmtrain reads at most %zu bytes here", what, path,
                       (intmax_t)st.st_size, max_bytes);
    }
    *fd = f;
    *size = (size_t)st.st_size;
    return 0;
}

int read_regular(const char *path, const char *what, size_t max_bytes, char **buf, size_t *len) {
    int fd;
    size_t size;
    *buf = NULL;
    *len = 0;
    int rc = open_regular(path, what, max_bytes, &fd, &size);
    if (rc) return rc;
    // Read up to one byte past the stat size: a file that grew since is
    // caught (and still bounded) rather than read without end.
    char *b = xmalloc(size + 2);
    size_t n = 0;
    while (n < size + 1) {
        ssize_t r = read(fd, b + n, size + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = err_set(ERR_RUNTIME, "error reading %s: %s (%s)", path, strerror(errno), what);
            break;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (!rc && n > size) rc = err_set(ERR_RUNTIME, "%s %s grew while being read", what, path);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = 0;
    *buf = b;
    *len = n;
    return 0;
}

int check_replaceable(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        return err_set(ERR_RUNTIME, "%s: %s", path, strerror(errno));
    }
    if (S_ISREG(st.st_mode)) return 0;
    return err_set(ERR_RUNTIME, "%s is %s; lmtrain only replaces regular files (remove it or choose "
                                "another path)", path, file_kind(st.st_mode));
}

int open_regular_output(const char *path, int truncate, int *fd) {
    *fd = -1;
    int rc = check_replaceable(path);
    if (rc) return rc;
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int f = open(path, flags | (truncate ? O_TRUNC : O_APPEND), 0666);
    if (f < 0) return err_set(ERR_RUNTIME, "cannot open %s for writing: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(f);
        return err_set(ERR_RUNTIME, "%s is not a regular file; lmtrain only writes regular files", path);
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    return 0;
}

FILE *fopen_regular(const char *path) {
    int fd;
    size_t size;
    int saved = errno;
    struct stat st;
    if (stat(path, &st) != 0) return NULL;  // errno from stat (ENOENT ...)
    if (!S_ISREG(st.st_mode) || open_regular(path, "file", 0, &fd, &size) != 0) {
        errno = S_ISREG(st.st_mode) ? EIO : EINVAL;
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) close(fd);
    else errno = saved;
    return f;
}
