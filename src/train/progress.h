// progress.h — what a person watching the terminal sees during training.
// On a terminal: one line redrawn in place (step, loss, tokens/s, ETA).
// Otherwise (a log file, CI): plain lines at evaluations and every ~5 %.
// A write to stdout that fails (EPIPE after `| head`, EIO after a hangup,
// ENOSPC) is remembered in `err` and stdout is not written again; the
// training loop then saves a checkpoint and stops (train.c).
#pragma once
#include <stddef.h>

#include "config/config.h"

typedef struct {
    int tty;
    long steps, every, first_step;
    double last_draw, start_elapsed;
    const char *name;
    int err;  // errno of the first failed write to stdout, 0 if none
} Progress;

void progress_start(Progress *p, const Config *c, size_t params, long first_step);
void progress_step(Progress *p, long step, double loss, unsigned long long tokens, double elapsed_s);
void progress_eval(Progress *p, long step, double val_loss, double val_acc);
void progress_done(Progress *p);
