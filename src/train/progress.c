// progress.c — the progress line and plain progress logs.
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

// fflush after each message, so a closed stdout is seen at once and never again written
static void flush(Progress *p) {
    if (p->err) return;
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) p->err = errno ? errno : EIO;
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_start(Progress *p, const Config *c, size_t params, long first_step) {
    p->tty = isatty(STDOUT_FILENO);
    p->steps = c->steps;
    p->every = c->steps / 20 > c->log_every ? c->steps / 20 : c->log_every;
    p->first_step = first_step;
    p->last_draw = 0;
    p->start_elapsed = -1;
    p->name = c->name;
    p->err = 0;
    printf("%s: %s attention, %zu parameters, %d steps of %d x %d tokens%s\n", c->name, c->kind, params,
           c->steps, c->batch_size, c->block_size, first_step ? " (resumed)" : "");
    flush(p);
}

static void fmt_eta(char *buf, size_t cap, double s) {
    if (!(s >= 0) || s > 1e7) snprintf(buf, cap, "?");
    else if (s >= 3600) snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    else snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
}

void progress_step(Progress *p, long step, double loss, unsigned long long tokens, double elapsed_s) {
    (void)tokens;
    if (p->err) return;
    if (p->start_elapsed < 0) p->start_elapsed = elapsed_s;
    double done_here = (double)(step - p->first_step);
    double rate = elapsed_s > p->start_elapsed ? done_here / (elapsed_s - p->start_elapsed) : 0;
    double tok_s = rate * (double)tokens / (double)(step ? step : 1);
    char eta[32];
    fmt_eta(eta, sizeof eta, rate > 0 ? (double)(p->steps - step) / rate : -1);
    if (p->tty) {
        double t = wall();
        if (t - p->last_draw < 0.1 && step != p->steps) return;
        p->last_draw = t;
        int width = 24, filled = (int)((double)width * (double)step / (double)p->steps);
        char bar[32];
        for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
        bar[width] = 0;
        printf("\r[%s] step %ld/%ld | loss %.4f | %.0f tok/s | ETA %s   ", bar, step, p->steps, loss,
               tok_s, eta);
        flush(p);
    } else if (step % p->every == 0) {
        printf("step %ld/%ld | loss %.4f | %.0f tok/s | ETA %s\n", step, p->steps, loss, tok_s, eta);
        flush(p);
    }
}

void progress_eval(Progress *p, long step, double val_loss, double val_acc) {
    if (p->err) return;
    if (p->tty) printf("\r\033[K");
    if (isnan(val_acc)) printf("step %ld: val loss %.4f\n", step, val_loss);
    else printf("step %ld: val loss %.4f, val acc %.3f\n", step, val_loss, val_acc);
    flush(p);
}

void progress_done(Progress *p) {
    if (p->err) return;
    if (p->tty) printf("\r\033[K");
    flush(p);
}
