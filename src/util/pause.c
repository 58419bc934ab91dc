// pause.c — see pause.h.
#include "pause.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAUSE_MAX 8

typedef struct {
    char name[64], arg[192];
    long at;    // pause on this hit (1-based)
    long hits;  // matching hits so far
} Point;

static Point g_points[PAUSE_MAX];
static int g_n = -1;  // -1: the variable has not been read yet

static void parse(void) {
    g_n = 0;
    const char *env = getenv("LMTRAIN_PAUSE_AT");
    if (!env) return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", env);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok && g_n < PAUSE_MAX; tok = strtok_r(NULL, ",", &save)) {
        Point *p = &g_points[g_n];
        memset(p, 0, sizeof *p);
        p->at = 1;
        char *colon = strrchr(tok, ':');
        if (colon) {
            p->at = atol(colon + 1);
            *colon = 0;
        }
        char *at = strchr(tok, '@');
        if (at) {
            snprintf(p->arg, sizeof p->arg, "%s", at + 1);
            *at = 0;
        }
        snprintf(p->name, sizeof p->name, "%s", tok);
        if (p->at >= 1) g_n++;
    }
}

void pause_point(const char *name, const char *arg) {
    if (g_n < 0) parse();
    for (int i = 0; i < g_n; i++) {
        Point *p = &g_points[i];
        if (strcmp(p->name, name) != 0) continue;
        if (p->arg[0] && (!arg || strcmp(p->arg, arg) != 0)) continue;
        if (++p->hits != p->at) continue;
        fprintf(stderr, "lmtrain: paused at %s%s%s (pid %ld)\n", name, arg ? "@" : "", arg ? arg : "",
                (long)getpid());
        fflush(stderr);
        raise(SIGSTOP);
    }
}
