// test_atomic_file.c — text and chunked atomic writes: exact content, no
// temporary left behind, and a failed write leaves the previous file intact.
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "temp_files.h"
#include "test.h"
#include "util/atomic_file.h"
#include "util/err.h"

static char g_dir[64];

static void tpath(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", g_dir, name); }

static char *slurp(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 1 << 16, len = 0, r;
    char *b = xmalloc(cap + 1);
    while ((r = fread(b + len, 1, cap - len, fp)) > 0) {
        len += r;
        if (len == cap) b = xrealloc(b, (cap *= 2) + 1);
    }
    fclose(fp);
    b[len] = 0;
    *n = len;
    return b;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int file_is(const char *path, const char *want) {
    size_t n;
    char *got = slurp(path, &n);
    int ok = got && n == strlen(want) && memcmp(got, want, n) == 0;
    free(got);
    return ok;
}

static void test_text_commit_and_overwrite(void) {
    char path[256], tmp[300];
    tpath(path, sizeof path, "metrics.csv");

    AtomicFile a;
    CHECK(atomic_open(&a, path) == 0);
    fprintf(a.f, "step,loss\n");
    for (int i = 0; i < 3; i++) fprintf(a.f, "%d,%.2f\n", i, 4.0 - i);
    CHECK(!file_exists(path));  // nothing on disk before the commit
    CHECK(atomic_commit(&a) == 0);
    CHECK(a.f == NULL && a.path == NULL);
    CHECK(file_is(path, "step,loss\n0,4.00\n1,3.00\n2,2.00\n"));
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);

    // a stale, longer temporary from an earlier crash (its writer, pid
    // 999999999, is long gone) does not leak into the result
    snprintf(tmp, sizeof tmp, "%s.tmp-999999999-0", path);
    FILE *fp = fopen(tmp, "w");
    CHECK(fp != NULL);
    if (fp) {
        fputs("stale stale stale stale stale stale stale stale\n", fp);
        fclose(fp);
    }
    CHECK(atomic_open(&a, path) == 0);
    fputs("new\n", a.f);
    CHECK(atomic_commit(&a) == 0);
    CHECK(file_is(path, "new\n"));
    CHECK(file_exists(tmp));  // not ours: only atomic_remove_stale, under the folder's lock, removes it
    // a live writer's temporary (our parent's pid) is never removed
    char live[300];
    snprintf(live, sizeof live, "%s.tmp-%ld-7", path, (long)getppid());
    fp = fopen(live, "w");
    if (fp) fclose(fp);
    CHECK(atomic_remove_stale(g_dir) == 1);
    CHECK(!file_exists(tmp) && file_exists(live));
    unlink(live);
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);

    // empty content makes an empty file
    CHECK(atomic_open(&a, path) == 0);
    CHECK(atomic_commit(&a) == 0);
    CHECK(file_is(path, ""));
    unlink(path);
}

static void test_abort_touches_nothing(void) {
    char path[256];
    tpath(path, sizeof path, "keep.txt");
    AtomicFile a;
    CHECK(atomic_open(&a, path) == 0);
    fputs("old\n", a.f);
    CHECK(atomic_commit(&a) == 0);
    CHECK(atomic_open(&a, path) == 0);
    fputs("half-written\n", a.f);
    atomic_abort(&a);
    CHECK(a.f == NULL);
    CHECK(file_is(path, "old\n"));
    atomic_abort(&a);  // harmless on a released struct
    unlink(path);
}

static void test_large_text(void) {
    char path[256];
    tpath(path, sizeof path, "large.txt");
    AtomicFile a;
    CHECK(atomic_open(&a, path) == 0);
    for (int i = 0; i < 100000; i++) fprintf(a.f, "%d\n", i);
    CHECK(atomic_commit(&a) == 0);
    size_t n;
    char *got = slurp(path, &n);
    // 10 one-digit + 90 two-digit + 900 three + 9000 four + 90000 five, plus newlines
    size_t want = 10 * 2 + 90 * 3 + 900 * 4 + 9000 * 5 + 90000 * 6;
    CHECK(got && n == want);
    CHECK(got && strncmp(got + n - 6, "99999\n", 6) == 0);
    free(got);
    unlink(path);
}

static void test_chunks(void) {
    char path[256];
    tpath(path, sizeof path, "chunks.bin");
    AtomicChunk c[] = {{"ab", 2}, {NULL, 0}, {"cde", 3}, {"", 0}, {"f", 1}};
    CHECK(atomic_write_chunks(path, c, 5) == 0);
    CHECK(file_is(path, "abcdef"));
    CHECK(atomic_write_chunks(path, NULL, 0) == 0);
    CHECK(file_is(path, ""));
    unlink(path);
}

static void test_missing_directory(void) {
    AtomicFile a;
    const char *path = "/nonexistent_dir_for_lmtrain_test/report.md";
    CHECK(atomic_open(&a, path) == 0);  // nothing touches the disk yet
    fputs("x", a.f);
    CHECK(atomic_commit(&a) == ERR_RUNTIME);
    CHECK(strstr(err_msg(), "/nonexistent_dir_for_lmtrain_test/report.md: cannot create temporary file: ") != NULL);
    CHECK(strstr(err_msg(), strerror(ENOENT)) != NULL);
}

// Both entry points, past RLIMIT_FSIZE in a child: ERR_RUNTIME, a message
// naming the file and the cause, the old file unchanged, no temporary left.
static void test_file_size_limit_keeps_old_file(void) {
    char path[256];
    tpath(path, sizeof path, "summary.txt");
    AtomicFile a;
    CHECK(atomic_open(&a, path) == 0);
    fputs("previous summary\n", a.f);
    CHECK(atomic_commit(&a) == 0);

    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(10);
        for (int mode = 0; mode < 2; mode++) {
            int rc;
            if (mode == 0) {
                AtomicFile t;
                if (atomic_open(&t, path) != 0) _exit(11);
                for (int i = 0; i < 10000; i++) fprintf(t.f, "line %d\n", i);
                rc = atomic_commit(&t);
            } else {
                static char big[100000];
                AtomicChunk c[2] = {{"head", 4}, {big, sizeof big}};
                rc = atomic_write_chunks(path, c, 2);
            }
            if (rc != ERR_RUNTIME) _exit(12);
            if (!strstr(err_msg(), path)) _exit(13);
            if (!strstr(err_msg(), "disk full or file size limit")) _exit(14);
            if (!strstr(err_msg(), strerror(EFBIG))) _exit(15);
            if (count_temp_files(g_dir, NULL, 0) != 0) _exit(16);
        }
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) fprintf(stderr, "  child failed check %d\n", WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(file_is(path, "previous summary\n"));
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);
    unlink(path);
}

// Two processes replacing one file at once, neither taking any lock (as two
// writers that bypass a run folder's lock would): every version a reader sees
// under the final name is one writer's complete file, never a mix or a
// truncation, and no temporary file is left. (With one fixed temporary name
// both writers truncate and write the same file, and torn versions appear.)
static void test_concurrent_writers_never_tear(void) {
    char path[256];
    tpath(path, sizeof path, "checkpoint.bin");
    enum { ROUNDS = 150, NA = 60000, NB = 25000 };
    fflush(NULL);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            size_t n = k ? NB : NA;
            char *buf = malloc(n);
            memset(buf, k ? 'b' : 'a', n);
            AtomicChunk c[2] = {{buf, n / 2}, {buf + n / 2, n - n / 2}};
            for (int r = 0; r < ROUNDS; r++)
                if (atomic_write_chunks(path, c, 2) != 0) _exit(20);
            _exit(0);
        }
    }
    int torn = 0, seen = 0, alive = 2;
    while (alive > 0) {
        size_t n = 0;
        char *got = slurp(path, &n);
        if (got) {
            seen++;
            char want = n == NA ? 'a' : n == NB ? 'b' : 0;
            int ok = want != 0;
            for (size_t i = 0; ok && i < n; i++) ok = got[i] == want;
            torn += !ok;
            free(got);
        }
        alive = 0;
        for (int k = 0; k < 2; k++) {
            int st;
            if (kids[k] > 0 && waitpid(kids[k], &st, WNOHANG) == 0) alive++;
            else if (kids[k] > 0) {
                CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
                kids[k] = -1;
            }
        }
    }
    CHECK(seen > 0);
    CHECK(torn == 0);
    if (torn) fprintf(stderr, "  %d of %d reads saw a torn file\n", torn, seen);
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);
    unlink(path);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/test_atomic_file.XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    TEST(test_text_commit_and_overwrite);
    TEST(test_abort_touches_nothing);
    TEST(test_large_text);
    TEST(test_chunks);
    TEST(test_missing_directory);
    TEST(test_file_size_limit_keeps_old_file);
    TEST(test_concurrent_writers_never_tear);
    if (rmdir(g_dir) != 0) fprintf(stderr, "note: could not remove %s: %s\n", g_dir, strerror(errno));
    return test_summary();
}
