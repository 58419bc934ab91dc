// metrics_check.h — does a run's metrics.csv still hold every row its
// checkpoint says was logged? A file cut short (a crash of the disk, a copy
// stopped halfway, an edit) would otherwise let `--resume` continue after the
// gap and lose those rows for good.
#pragma once

// The step of the last row a run had logged when it was at `step`: rows are
// written at step 0 and at every step that is a multiple of log_every or
// eval_every, and at the last step (`steps`), as train.c's loop does.
long metrics_last_logged_step(long step, int log_every, int eval_every, long steps);

// 0 if the complete rows of the metrics.csv at `path` reach step `want` (the
// step column, found by its header name, of the last complete row is >= want);
// else ERR_RUNTIME naming the file, the step it ends at and `ckpt_step`, then
// what a cut-short file would do to the caller (`harm`: "resuming would lose
// those rows from the log for good") and what to do (`remedy`).
int metrics_check_reaches(const char *path, long want, long ckpt_step, const char *harm, const char *remedy);
