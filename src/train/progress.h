// progress.h — what a person watching the terminal sees during training.
// On a terminal: one line redrawn in place (step, loss, tokens/s, ETA).
// Otherwise (a log file, CI): plain lines at evaluations and every ~5 %.
#pragma once
#include <stddef.h>

#include "config/config.h"

typedef struct {
    int tty;
    long steps, every, first_step;
    double last_draw, start_elapsed;
    const char *name;
} Progress;

void progress_start(Progress *p, const Config *c, size_t params, long first_step);
void progress_step(Progress *p, long step, double loss, unsigned long long tokens, double elapsed_s);
void progress_eval(Progress *p, long step, double val_loss, double val_acc);
void progress_done(Progress *p);
