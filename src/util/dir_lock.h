// dir_lock.h — one writer per folder: an exclusive POSIX record lock (fcntl
// F_SETLK) on DIR/.lmtrain.lock, held until released or the process exits.
//
// fcntl locks are released by the kernel when the holder dies however it dies
// (SIGKILL included), so a crashed writer never leaves a folder locked; and
// F_GETLK tells a refused writer the holder's pid. Caveat of fcntl locks: a
// process drops its lock when it closes *any* descriptor of the lock file, so
// this module never opens a lock file the process already holds.
#pragma once

typedef struct {
    int fd;  // -1 when not held
    char path[4200];
} DirLock;

#define DIR_LOCK_FILE ".lmtrain.lock"

// Pid of another process holding DIR's lock, 0 if none holds it (or there is
// no lock file). Creates nothing and changes nothing.
long dir_lock_holder(const char *dir);

// Takes DIR's lock without waiting, creating the lock file if needed (DIR
// must exist). 0, or ERR_RUNTIME "DIR is in use: another lmtrain (pid N) ...".
// `what` says what the caller was about to do ("train into", "ablate into").
int dir_lock_take(DirLock *l, const char *dir, const char *what);
// The refusal dir_lock_take gives when `pid` (from dir_lock_holder) holds it.
int dir_lock_busy(const char *dir, const char *what, long pid);
// Safe on a lock that is not held.
void dir_lock_release(DirLock *l);
