// dir_lock.c — see dir_lock.h.
#include "dir_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "file_check.h"

// The lock files this process holds (by device and inode), so that a probe
// never opens and closes one of them: that close would drop the lock.
#define HELD_MAX 8
static struct {
    dev_t dev;
    ino_t ino;
    int used;
} g_held[HELD_MAX];

static int held_here(const struct stat *st) {
    for (int i = 0; i < HELD_MAX; i++)
        if (g_held[i].used && g_held[i].dev == st->st_dev && g_held[i].ino == st->st_ino) return 1;
    return 0;
}

static void lock_path(char *buf, size_t cap, const char *dir) { snprintf(buf, cap, "%s/%s", dir, DIR_LOCK_FILE); }

// The pid of a conflicting lock on fd, 0 if none.
static long conflicting_pid(int fd) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_GETLK, &fl) != 0 || fl.l_type == F_UNLCK) return 0;
    return fl.l_pid > 0 ? (long)fl.l_pid : -1;  // -1: locked, holder unknown (e.g. a remote host)
}

long dir_lock_holder(const char *dir) {
    char path[4200];
    lock_path(path, sizeof path, dir);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || held_here(&st)) return 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    long pid = conflicting_pid(fd);
    close(fd);
    return pid;
}

int dir_lock_busy(const char *dir, const char *what, long pid) {
    char who[64];
    if (pid > 0) snprintf(who, sizeof who, "pid %ld", pid);
    else snprintf(who, sizeof who, "a process on another host");
    return err_set(ERR_RUNTIME, "cannot %s %s: another lmtrain (%s) is writing to it; wait for it to finish or "
                                "stop it (kill -INT %s saves a checkpoint) and try again",
                   what, dir, who, pid > 0 ? who + 4 : "it");
}

int dir_lock_take(DirLock *l, const char *dir, const char *what) {
    l->fd = -1;
    lock_path(l->path, sizeof l->path, dir);
    struct stat st;
    if (lstat(l->path, &st) == 0 && held_here(&st)) return 0;  // already ours (nested use)
    int rc = check_replaceable(l->path);
    if (rc) return rc;
    int fd = open(l->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) return err_set(ERR_RUNTIME, "cannot create lock file %s: %s", l->path, strerror(errno));
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int e = errno;
        long pid = e == EACCES || e == EAGAIN ? conflicting_pid(fd) : 0;
        close(fd);
        if (e == EACCES || e == EAGAIN) return dir_lock_busy(dir, what, pid ? pid : -1);
        return err_set(ERR_RUNTIME, "cannot lock %s: %s", l->path, strerror(e));
    }
    if (fstat(fd, &st) == 0)
        for (int i = 0; i < HELD_MAX; i++)
            if (!g_held[i].used) {
                g_held[i].dev = st.st_dev;
                g_held[i].ino = st.st_ino;
                g_held[i].used = 1;
                break;
            }
    l->fd = fd;
    return 0;
}

void dir_lock_release(DirLock *l) {
    if (l->fd < 0) return;
    struct stat st;
    if (fstat(l->fd, &st) == 0)
        for (int i = 0; i < HELD_MAX; i++)
            if (g_held[i].used && g_held[i].dev == st.st_dev && g_held[i].ino == st.st_ino) g_held[i].used = 0;
    close(l->fd);  // releases the lock
    l->fd = -1;
}
