// run_folder.c — see run_folder.h.
#include "run_folder.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "train/train.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/file_check.h"

const char *const RUN_FILES[] = {"checkpoint.bin", "metrics.csv", "config.ini", "summary.txt", "curves.svg", NULL};

// Files that belong to an old run and go with it on --overwrite (besides RUN_FILES).
static const char *const DERIVED_FILES[] = {"model.safetensors", NULL};

static int present(const char *dir, const char *name, struct stat *st) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, st) == 0;
}

int run_folder_check(const char *dir, TrainMode mode) {
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno != ENOENT) return err_set(ERR_RUNTIME, "run folder %s: %s", dir, strerror(errno));
        if (mode == TRAIN_RESUME)
            return err_set(ERR_RUNTIME, "--resume: %s does not exist, so there is no checkpoint.bin to "
                                        "resume from (leave out --resume to start the run)", dir);
        return 0;
    }
    if (!S_ISDIR(st.st_mode) && !(S_ISLNK(st.st_mode) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
        return err_set(ERR_RUNTIME, "%s exists and is %s, not a folder", dir, file_kind(st.st_mode));
    long holder = dir_lock_holder(dir);
    if (holder) return dir_lock_busy(dir, "train into", holder);
    char found[256] = "";
    size_t len = 0;
    for (int i = 0; RUN_FILES[i]; i++) {
        if (!present(dir, RUN_FILES[i], &st)) continue;
        if (!S_ISREG(st.st_mode))
            return err_set(ERR_RUNTIME, "%s/%s is %s; lmtrain only replaces regular files (remove it, or "
                                        "choose another --out)", dir, RUN_FILES[i], file_kind(st.st_mode));
        len += (size_t)snprintf(found + len, sizeof found - len, "%s%s", len ? ", " : "", RUN_FILES[i]);
        if (len >= sizeof found) len = sizeof found - 1;
    }
    if (mode == TRAIN_NEW && len)
        return err_set(ERR_USAGE, "%s already holds a run (%s). To continue it, add --resume; to discard it and "
                                  "start over, add --overwrite (or choose another --out)", dir, found);
    if (mode == TRAIN_RESUME) {
        if (!present(dir, "checkpoint.bin", &st))
            return err_set(ERR_RUNTIME, "--resume: %s holds no checkpoint.bin to resume from (leave out "
                                        "--resume to start the run, with --overwrite if the folder holds one)",
                           dir);
        if (!present(dir, "metrics.csv", &st))
            return err_set(ERR_RUNTIME, "--resume: %s/metrics.csv is missing, so the run's log cannot be "
                                        "continued; restore it, or start over with --overwrite", dir);
    }
    return 0;
}

int run_folder_remove_stale(const char *dir) {
    char eval[4300];
    snprintf(eval, sizeof eval, "%s/eval", dir);
    return atomic_remove_stale(dir) + atomic_remove_stale(eval);
}

int run_folder_claim(DirLock *lock, const char *dir, TrainMode mode) {
    lock->fd = -1;
    int rc = make_dirs(dir);
    if (rc) return rc;
    if ((rc = dir_lock_take(lock, dir, "train into"))) return rc;
    // Between run_folder_check and the lock another writer may have started
    // and finished: the same answers again, now that nobody else can write.
    if ((rc = run_folder_check(dir, mode))) {
        dir_lock_release(lock);
        return rc;
    }
    run_folder_remove_stale(dir);
    if (mode == TRAIN_OVERWRITE) {
        char path[4300];
        for (int k = 0; k < 2; k++)
            for (const char *const *f = k ? DERIVED_FILES : RUN_FILES; *f; f++) {
                snprintf(path, sizeof path, "%s/%s", dir, *f);
                if (unlink(path) != 0 && errno != ENOENT) {
                    rc = err_set(ERR_RUNTIME, "--overwrite: cannot remove %s: %s", path, strerror(errno));
                    dir_lock_release(lock);
                    return rc;
                }
            }
    }
    return 0;
}
