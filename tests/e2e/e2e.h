// e2e.h — helpers for end-to-end tests that run the lmtrain binary.
// `make test` passes the binary's path in $LMTRAIN.
#pragma once
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/binfile.h"

static char e2e_dir[256];    // a fresh temporary folder per test program
static char e2e_out[65536];  // stdout + stderr of the last run

static inline const char *lmtrain_bin(void) {
    const char *b = getenv("LMTRAIN");
    return b && *b ? b : "./lmtrain";
}

static inline void e2e_setup(void) {
    snprintf(e2e_dir, sizeof e2e_dir, "/tmp/lmtrain-e2e-XXXXXX");
    if (!mkdtemp(e2e_dir)) {
        perror("mkdtemp");
        exit(1);
    }
}

static inline void e2e_teardown(void) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", e2e_dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", e2e_dir);
}

// Path inside the test folder.
static inline const char *tpath(char *buf, size_t cap, const char *rel) {
    snprintf(buf, cap, "%s/%s", e2e_dir, rel);
    return buf;
}

static inline void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

// A small deterministic corpus with enough structure to learn.
static inline void write_corpus(const char *path, size_t bytes) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    static const char *words[] = {"the ", "cat ", "sat ", "on ", "a ", "mat. ", "And ", "dog ", "ran.\n"};
    unsigned s = 12345;
    size_t n = 0;
    while (n < bytes) {
        s = s * 1103515245u + 12345u;
        const char *w = words[(s >> 16) % 9];
        fputs(w, f);
        n += strlen(w);
    }
    fclose(f);
}

// Starts lmtrain with argv (NULL-terminated, without the program name),
// output to a file; returns the pid. `setup`, if not NULL, runs in the child
// just before exec (resource limits, dropping privileges); a nonzero return
// ends the child with status 126.
static inline pid_t spawn_lmtrain_with(char *const argv[], const char *log, int (*setup)(void *),
                                       void *ctx) {
    char *args[64];
    int n = 0;
    args[n++] = (char *)lmtrain_bin();
    for (int i = 0; argv[i] && n < 63; i++) args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (setup && setup(ctx) != 0) _exit(126);
        execv(args[0], args);
        _exit(127);
    }
    return pid;
}

static inline pid_t spawn_lmtrain(char *const argv[], const char *log) {
    return spawn_lmtrain_with(argv, log, NULL, NULL);
}

// Weights and AdamW moments of two checkpoints are bit-identical (the config
// and wall-clock fields in them may differ).
static inline int same_params(const char *a, const char *b) {
    BinFile x, y;
    if (binfile_read(a, &x)) return 0;
    if (binfile_read(b, &y)) {
        binfile_free(&x);
        return 0;
    }
    int same = 1;
    const char *secs[] = {"params", "adam_m", "adam_v"};
    for (int i = 0; i < 3; i++) {
        size_t nx = 0, ny = 0;
        const void *px = binfile_find(&x, secs[i], &nx), *py = binfile_find(&y, secs[i], &ny);
        same = same && px && py && nx == ny && memcmp(px, py, nx) == 0;
    }
    binfile_free(&x);
    binfile_free(&y);
    return same;
}

// ---- records older than a config key -----------------------------------------
// Removes the line that sets KEY ("\nKEY<spaces>= ...") from NUL-terminated
// text, in place; 1 if it was there.
static inline int drop_config_key(char *text, const char *key) {
    size_t k = strlen(key);
    for (char *line = strchr(text, '\n'); line; line = strchr(line + 1, '\n')) {
        const char *after = line + 1 + k;
        if (strncmp(line + 1, key, k) != 0) continue;
        after += strspn(after, " ");
        if (*after != '=') continue;
        char *end = strchr(line + 1, '\n');
        if (!end) end = line + strlen(line);
        memmove(line, end, strlen(end) + 1);
        return 1;
    }
    return 0;
}

// The [config] section of a checkpoint, malloc'd and NUL-terminated; NULL if
// the file or the section is missing.
static inline char *checkpoint_config_text(const char *path) {
    BinFile f;
    if (binfile_read(path, &f)) return NULL;
    size_t n = 0;
    const char *cfg = binfile_find(&f, "config", &n);
    char *text = cfg ? calloc(1, n + 1) : NULL;
    if (text) memcpy(text, cfg, n);
    binfile_free(&f);
    return text;
}

// Rewrites the checkpoint at `path` as one written before KEY existed: the
// same sections, the KEY line gone from its configuration. 0 on success, -1
// if the file, its config section or the line is missing, or the write fails.
static inline int checkpoint_drop_config_key(const char *path, const char *key) {
    BinFile f;
    if (binfile_read(path, &f)) return -1;
    BinSection sec[8];
    char *cfg = NULL;
    int rc = f.n <= 8 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < f.n; i++) {
        sec[i] = (BinSection){f.sec[i].name, (char *)f.buf + f.sec[i].off, f.sec[i].bytes};
        if (strcmp(f.sec[i].name, "config") != 0) continue;
        cfg = calloc(1, f.sec[i].bytes + 1);
        memcpy(cfg, sec[i].data, f.sec[i].bytes);
        if (!drop_config_key(cfg, key)) rc = -1;
        sec[i].data = cfg;
        sec[i].bytes = strlen(cfg);
    }
    if (rc == 0 && (!cfg || binfile_write_atomic(path, f.version, sec, f.n) != 0)) rc = -1;
    binfile_free(&f);
    free(cfg);
    return rc;
}

// usleep is not in POSIX 2008, which is what the build asks for
static inline void sleep_us(double us) {
    if (us <= 0) return;
    struct timespec ts = {(time_t)(us / 1e6), (long)(fmod(us, 1e6) * 1e3)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static inline int wait_status(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + WTERMSIG(st);  // killed by a signal: never an acceptable outcome
}

static inline void slurp_into(const char *path, char *buf, size_t cap) {
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
}

// Runs lmtrain to completion with the given args; returns its exit status
// and leaves its combined output in e2e_out.
static inline int run_lmtrain(char *const argv[]) {
    char log[512];
    tpath(log, sizeof log, "last.log");
    int rc = wait_status(spawn_lmtrain(argv, log));
    slurp_into(log, e2e_out, sizeof e2e_out);
    return rc;
}

// Writes the config text `ini` to DIR.ini and runs `lmtrain --config DIR.ini
// --out DIR EXTRA...`, `extra` NULL-terminated (at most 8) or NULL: the set-up
// of a test run. lmtrain's exit status; its output is in e2e_out.
static inline int train_from_text(const char *dir, const char *ini, char *const *extra) {
    char cfg[600];
    snprintf(cfg, sizeof cfg, "%s.ini", dir);
    write_text(cfg, ini);
    char *argv[13] = {"--config", cfg, "--out", (char *)dir};
    for (int i = 0; extra && extra[i] && i < 8; i++) argv[4 + i] = extra[i];
    return run_lmtrain(argv);
}

static inline int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0;
}

// Reads a whole file into a malloc'd buffer (NUL-terminated); *n gets the size.
static inline char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)sz + 1);
    size_t got = fread(b, 1, (size_t)sz, f);
    b[got] = 0;
    fclose(f);
    if (n) *n = got;
    return b;
}

// The value of column `col` (0-based) of the CSV line starting at `line`, as a
// number (NAN if empty or absent).
static inline double csv_field(const char *line, int col) {
    const char *p = line;
    for (int c = 0; c < col; c++) {
        p = strpbrk(p, ",\n");
        if (!p || *p == '\n') return NAN;
        p++;
    }
    if (*p == ',' || *p == '\n' || !*p) return NAN;
    return strtod(p, NULL);
}

// The index of the column `name` in a CSV text's header line, or -1.
static inline int csv_column(const char *text, const char *name) {
    int i = 0;
    for (const char *p = text; *p && *p != '\n'; i++) {
        size_t n = strcspn(p, ",\n");
        if (n == strlen(name) && !strncmp(p, name, n)) return i;
        p += n;
        if (*p == ',') p++;
    }
    return -1;
}

// metrics.csv with the timing columns (tokens_per_s, elapsed_s, cpu_s)
// blanked: everything else must be bit-identical between equivalent runs.
static inline char *metrics_without_timing(const char *path) {
    char *text = read_all(path, NULL);
    if (!text) return NULL;
    // find the column indices from the header
    int c_tps = -1, c_el = -1, c_cpu = -1, col = 0;
    for (char *p = text; *p && *p != '\n'; p++) {
        if (p == text || p[-1] == ',') {
            if (!strncmp(p, "tokens_per_s,", 13) || !strncmp(p, "tokens_per_s\n", 13)) c_tps = col;
            if (!strncmp(p, "elapsed_s,", 10) || !strncmp(p, "elapsed_s\n", 10)) c_el = col;
            if (!strncmp(p, "cpu_s,", 6) || !strncmp(p, "cpu_s\n", 6)) c_cpu = col;
        }
        if (*p == ',') col++;
    }
    char *out = malloc(strlen(text) + 1), *o = out;
    col = 0;
    for (char *p = text; *p; p++) {
        if (*p == '\n') {
            col = 0;
            *o++ = *p;
            continue;
        }
        if (*p == ',') {
            col++;
            *o++ = *p;
            continue;
        }
        if (col != c_tps && col != c_el && col != c_cpu) *o++ = *p;
    }
    *o = 0;
    free(text);
    return out;
}

// ---- pause points (src/util/pause.h) ----------------------------------------
// Starts lmtrain with LMTRAIN_PAUSE_AT=points and waits until it stops itself
// at one of them (SIGSTOP). Returns the pid of the stopped process, or -1 if
// it exited first (its wait_status in *status). The caller then acts at that
// exact moment and lets it go on with pause_resume (or kills it).
static inline pid_t spawn_paused(char *const argv[], const char *log, const char *points, int *status) {
    setenv("LMTRAIN_PAUSE_AT", points, 1);
    pid_t pid = spawn_lmtrain(argv, log);
    unsetenv("LMTRAIN_PAUSE_AT");
    int st = 0;
    while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    if (WIFSTOPPED(st)) return pid;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return -1;
}

// Sends `sig` (0: none) to a process stopped at a pause point, then SIGCONT:
// the signal is handled the moment it runs again.
static inline void pause_resume(pid_t pid, int sig) {
    if (sig) kill(pid, sig);
    kill(pid, SIGCONT);
}

// Waits for the next stop (another pause point) or the exit of a process
// that was resumed; 1 if it stopped, 0 if it exited (status in *status).
static inline int wait_stop_or_exit(pid_t pid, int *status) {
    int st = 0;
    while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR) {
    }
    if (WIFSTOPPED(st)) return 1;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return 0;
}

// Temporary files (NAME.tmp-PID-N) in `dir`, space-separated into buf; how many.
#include "temp_files.h"
static inline int temp_files(const char *dir, char *buf, size_t cap) { return count_temp_files(dir, buf, cap); }

// A digest of every file under `dir` (names, sizes, contents; sorted), to
// show that a refused command changed nothing. Returns a malloc'd string.
static inline char *folder_digest(const char *dir) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' 2>/dev/null && find . -print | LC_ALL=C sort | while read -r f; do "
             "if [ -f \"$f\" ]; then echo \"$f $(cksum < \"$f\")\"; else echo \"$f $(stat -c %%F \"$f\")\"; fi; "
             "done | cksum",
             dir);
    FILE *p = popen(cmd, "r");
    char line[256] = "";
    if (p) {
        if (!fgets(line, sizeof line, p)) line[0] = 0;
        pclose(p);
    }
    return strdup(line);
}
