// run_folder.h — who may write a run folder, and when (README "Run folders").
//
//   one writer   training, resume and ablate hold DIR/.lmtrain.lock (dir_lock.h)
//                until they return; a second writer is refused at once, exit 1,
//                with the holder's pid.
//   no overwrite a folder that holds a run (any of its files) is trained into
//                only with --resume (continue it) or --overwrite (discard it);
//                otherwise exit 2 naming both.
//   no damage    run_folder_check changes nothing; every refusal a run can meet
//                is made before run_folder_claim creates, truncates, renames or
//                deletes anything in the folder.
#pragma once
#include "util/dir_lock.h"

typedef enum {
    TRAIN_NEW = 0,        // the folder must not hold a run
    TRAIN_RESUME = 1,     // continue the run in the folder
    TRAIN_OVERWRITE = 2,  // discard the run in the folder, if any, and start over
} TrainMode;

// The files a training run writes; any of them present means "holds a run".
extern const char *const RUN_FILES[];

// May `dir` be trained into in `mode`? Reads only. 0, ERR_USAGE (a run is
// there and mode is TRAIN_NEW) or ERR_RUNTIME (locked by another writer, not a
// folder, a run file that is not a regular file, nothing to resume).
int run_folder_check(const char *dir, TrainMode mode);

// Creates the folder (mkdir -p), takes its lock, checks again (another writer
// may have come between), removes temporary files left by killed writers
// and, for TRAIN_OVERWRITE, the old run's files. On error nothing else was done
// and the lock is not held.
int run_folder_claim(DirLock *lock, const char *dir, TrainMode mode);

// Removes the temporary files (NAME.tmp-PID-N) that writers which no longer
// run left in the run folder `dir` and in dir/eval (a kill mid-write); returns
// how many. Call with the run's lock held.
int run_folder_remove_stale(const char *dir);
