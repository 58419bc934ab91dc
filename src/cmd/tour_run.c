// tour_run.c — `lmtrain tour`'s children: each measurement is a real lmtrain
// command run as a child process of this same binary (/proc/self/exe), its
// stdout and stderr in DIR/logs/; and reading back the files they wrote.
#define _XOPEN_SOURCE 700  // nftw
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/tour.h"

int tour_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

// The command line as the reader would type it ("lmtrain ..."), for the page.
void tour_command_text(char *buf, size_t cap, char *const argv[]) {
    size_t n = (size_t)snprintf(buf, cap, "lmtrain");
    for (int i = 0; argv[i] && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, " %s", argv[i]);
}

// Runs `lmtrain ARGV...` (this binary) with stdout and stderr in DIR/logs/NAME.out
// and .err; returns its exit status (128 + signal if killed, -1 if it did not start).
int tour_run_child(Tour *t, const char *name, char *const argv[]) {
    char out[4300], err[4300], cmd[2000];
    snprintf(out, sizeof out, "%s/logs/%s.out", t->dir, name);
    snprintf(err, sizeof err, "%s/logs/%s.err", t->dir, name);
    tour_command_text(cmd, sizeof cmd, argv);
    fprintf(stderr, "tour: [%d/%d] %s\n", ++t->steps_done, TOUR_STEPS, cmd);
    char *full[64];
    int n = 0;
    full[n++] = "lmtrain";
    for (int i = 0; argv[i] && n < 63; i++) full[n++] = argv[i];
    full[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, STDOUT_FILENO) < 0 || dup2(fe, STDERR_FILENO) < 0) _exit(127);
        execv("/proc/self/exe", full);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT;  // stop at the first that cannot go
}

// For --fresh: a folder the tour made (DIR/frontier), depth first, links not followed.
void tour_remove_tree(const char *path) {
    if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
        fprintf(stderr, "tour: warning: could not remove %s (%s); its ablation continues instead\n", path,
                strerror(errno));
}

// A file's whole text (NULL if it cannot be read); the caller frees it.
char *tour_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    char chunk[8192];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + n, chunk, got);
        n += got;
    }
    fclose(f);
    if (!buf) buf = calloc(1, 1);
    else buf[n] = 0;
    return buf;
}

// The numeric column `col` (from 0) of the CSV file's data rows whose text
// columns match: want[c] non-NULL means column c must equal it. Up to cap values.
size_t tour_csv_column(const char *path, size_t col, const char *const want[8], double *v, size_t cap) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024];
    size_t n = 0;
    if (!fgets(line, sizeof line, f)) line[0] = 0;  // the header
    while (n < cap && fgets(line, sizeof line, f)) {
        char *cell[16];
        size_t k = 0;
        for (char *p = line; k < 16;) {
            cell[k++] = p;
            char *c = strpbrk(p, ",\n");
            if (!c) break;
            int end = *c == '\n';
            *c = 0;
            if (end) break;
            p = c + 1;
        }
        int ok = col < k;
        for (size_t c = 0; c < 8 && ok; c++)
            if (want && want[c] && (c >= k || strcmp(cell[c], want[c]))) ok = 0;
        if (ok) v[n++] = cell[col][0] ? strtod(cell[col], NULL) : NAN;
    }
    fclose(f);
    return n;
}


void tour_arg(Argv *a, const char *fmt, ...) {
    if (a->n >= MAX_ARGS - 1) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
    va_end(ap);
    a->v[a->n] = a->store[a->n];
    a->v[++a->n] = NULL;
}

