// test_hardening.c — hostile inputs and hostile moments, through the real
// binary ($LMTRAIN): SIGKILL at random moments while checkpoints are written,
// a file-size limit (full disk), bad data files, impossible configs, corrupted
// and truncated checkpoints, --resume with a different config, SIGTERM, and
// signals during evaluation and during checkpoint writes.
//
// What every case demands: a documented exit status (0, 1, 2, or 130/143 for a
// signal the program caught), a message naming the file or key, never death by
// a signal, and no damage to what was there before (the last complete
// checkpoint always loads and continues bit-identically).
#include <sys/resource.h>
#include <time.h>

#include "../test.h"
#include "e2e.h"
#include "train/checkpoint.h"
#include "util/binfile.h"
#include "util/err.h"

static char corpus[512], cfg_path[512], ref_dir[512];

// ---------------------------------------------------------------------------
// helpers

// A tiny model whose checkpoints are big enough (~300 KB) that writing one
// takes a noticeable share of each step, and checkpoint_every = 1 so a write
// is almost always in flight or about to be.
#define KILL_STEPS 40
static void write_config(const char *path) {
    char text[4096];
    snprintf(text, sizeof text,
             "[run]\nname = hard\nout_dir = %s/runs\nseed = 11\nthreads = 1\n"
             "[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 32\nffn_mult = 4\nblock_size = 16\n"
             "[attention]\nkind = linear_decay\nchunk = 5\n"
             "[train]\nsteps = %d\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 10\n"
             "eval_batches = 2\nlog_every = 5\ncheckpoint_every = 1\n",
             e2e_dir, corpus, KILL_STEPS);
    write_text(path, text);
}

// Exit status of a child, or -SIG if a signal killed it (which no case accepts
// except the SIGKILLs this file sends itself).
static int wait_exit(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return -WTERMSIG(st);
}

typedef struct {
    rlim_t fsize;     // RLIMIT_FSIZE for the child (0 = leave as is)
    int as_nobody;    // drop root to uid/gid 65534 before exec (for EACCES tests)
} SpawnOpts;

// Per-child limits, applied between fork and exec.
static int apply_spawn_opts(void *ctx) {
    const SpawnOpts *o = ctx;
    if (o->fsize) {
        struct rlimit rl = {o->fsize, o->fsize};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 1;
    }
    if (o->as_nobody && (setgid(65534) != 0 || setuid(65534) != 0)) return 1;
    return 0;
}

// spawn_lmtrain with per-child limits; output goes to `log`.
static pid_t spawn_ex(char *const argv[], const char *log, SpawnOpts o) {
    return spawn_lmtrain_with(argv, log, apply_spawn_opts, &o);
}

static int run_ex(char *const argv[], SpawnOpts o) {
    char log[512];
    tpath(log, sizeof log, "last.log");
    int rc = wait_exit(spawn_ex(argv, log, o));
    slurp_into(log, e2e_out, sizeof e2e_out);
    return rc;
}

static int run_quiet(char *const argv[]) { return run_ex(argv, (SpawnOpts){0, 0}); }

// The step stored in a checkpoint, after validating it the way --resume does
// (container checksums, version, stored config); -1 if missing, -2 if invalid.
static long checkpoint_step(const char *path) {
    if (!file_exists(path)) return -1;
    Config c;
    BinFile f;
    if (checkpoint_read_config(path, &c) != 0 || binfile_read(path, &f) != 0) {
        fprintf(stderr, "  %s\n", err_msg());
        return -2;
    }
    size_t bytes = 0;
    const unsigned char *st = binfile_find(&f, "state", &bytes);  // the step is its first field
    long step = -2;
    if (st && bytes >= 8) {
        uint64_t v = 0;
        for (int b = 0; b < 8; b++) v |= (uint64_t)st[b] << (8 * b);
        step = (long)v;
    }
    binfile_free(&f);
    return step;
}

// The run in `dir` ended exactly like the uninterrupted reference run:
// every metrics row but the wall-clock columns, and the final weights.
static int same_as_reference(const char *dir) {
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/metrics.csv", ref_dir);
    snprintf(b, sizeof b, "%s/metrics.csv", dir);
    char *x = metrics_without_timing(a), *y = metrics_without_timing(b);
    int same = x && y && strcmp(x, y) == 0;
    if (!same) fprintf(stderr, "  metrics differ:\n--- reference\n%s--- %s\n%s", x ? x : "(none)", dir, y ? y : "(none)");
    free(x);
    free(y);
    snprintf(a, sizeof a, "%s/checkpoint.bin", ref_dir);
    snprintf(b, sizeof b, "%s/checkpoint.bin", dir);
    return same && same_params(a, b);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// xorshift: the test's own random moments, reproducible from the seed printed
static unsigned long long g_rng = 0x9E3779B97F4A7C15ull;
static unsigned long long rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static double rnd_unit(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

// Trains the reference to the end in one go (and measures how long a run takes).
static double g_ref_seconds;
static void run_reference(void) {
    write_config(cfg_path);
    char *argv[] = {"--config", cfg_path, "--out", ref_dir, NULL};
    double t0 = now_s();
    int rc = run_quiet(argv);
    g_ref_seconds = now_s() - t0;
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
}

// --resume to the end (a fresh start if there is no checkpoint yet).
static int finish_run(const char *dir) {
    char ck[600];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    int resume = file_exists(ck);
    char *argv[] = {"--config", cfg_path, "--out", (char *)dir, resume ? "--resume" : NULL, NULL};
    int rc = run_quiet(argv);
    if (rc) fprintf(stderr, "  finishing %s: exit %d\n%s\n", dir, rc, e2e_out);
    return rc;
}

// ---------------------------------------------------------------------------
// 1. SIGKILL at many random moments while checkpoints are written

// One run folder, killed again and again: each attempt resumes from whatever
// the previous kill left and is SIGKILLed. Two kinds of moment, in turn:
//   0  (two attempts in three) inside a checkpoint write, deterministically: the trainer stops itself
//      halfway through writing the temporary file of its K-th checkpoint
//      (LMTRAIN_PAUSE_AT=write@checkpoint.bin:K, K random), and is killed there;
//   1  after a random delay, wherever the run happens to be.
// After every kill the checkpoint, if any, must validate and must not be
// older than the one before (nothing complete is lost); the half-written
// temporary file a mid-write kill leaves is removed by the next run. Finally
// the run is resumed to the end and must equal the uninterrupted reference.
static void test_sigkill_during_checkpoint_writes(void) {
    enum { KILLS = 16 };
    char dir[512], ck[600], log[600], tmps[1024];
    snprintf(dir, sizeof dir, "%s/killed", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    snprintf(log, sizeof log, "%s/kill.log", e2e_dir);
    write_config(cfg_path);
    double window = g_ref_seconds / KILLS;
    long last = -1;
    int mid_write = 0, finished_early = 0, killed = 0, stale_removed = 0;
    char trail[1024] = "";  // the checkpoint step after each kill, for the log
    size_t tl = 0;
    for (int i = 0; i < KILLS && !finished_early; i++) {
        int resume = file_exists(ck), mode = i % 3 == 2, stale = temp_files(dir, tmps, sizeof tmps);
        char *argv[] = {"--config", cfg_path, "--out", dir, resume ? "--resume" : NULL, NULL};
        pid_t pid;
        int rc = -1;
        if (mode == 0) {
            char point[64];
            long left = KILL_STEPS - (last > 0 ? last : 0);
            snprintf(point, sizeof point, "write@checkpoint.bin:%ld", 1 + (long)(rnd() % (left > 1 ? left - 1 : 1)));
            int st = 0;
            pid = spawn_paused(argv, log, point, &st);
            if (pid < 0) {
                rc = st;
            } else {
                // stopped with its temporary file half written; the previous
                // kill's leftover (if any) was removed when it took the lock
                CHECK(temp_files(dir, tmps, sizeof tmps) == 1);
                stale_removed += stale > 0;
                mid_write++;
            }
        } else {
            pid = spawn_ex(argv, log, (SpawnOpts){0, 0});
            sleep_us(rnd_unit() * window * 1e6);
        }
        if (pid > 0) {
            kill(pid, SIGKILL);
            rc = wait_exit(pid);
        }
        if (rc == -SIGKILL) {
            killed++;
        } else {
            slurp_into(log, e2e_out, sizeof e2e_out);
            CHECK(rc == 0);  // beat the kill to the end: only a clean finish is acceptable
            if (rc != 0) fprintf(stderr, "  attempt %d: exit %d\n%s\n", i, rc, e2e_out);
            finished_early = 1;
        }
        long step = checkpoint_step(ck);
        CHECK(step != -2);    // never a damaged checkpoint
        CHECK(step >= last);  // never an older one than before
        if (step == -2 || step < last)
            fprintf(stderr, "  after kill %d: checkpoint step %ld (was %ld)\n", i, step, last);
        if (step > last) last = step;
        if (tl < sizeof trail - 16) tl += (size_t)snprintf(trail + tl, sizeof trail - tl, " %ld", step);
    }
    printf("  SIGKILL: %d kills, %d inside a checkpoint write, %d leftovers cleared; checkpoint step after each:%s\n",
           killed, mid_write, stale_removed, trail);
    CHECK(mid_write > 0);
    CHECK(stale_removed > 0);
    CHECK(finish_run(dir) == 0);
    CHECK(temp_files(dir, tmps, sizeof tmps) == 0);  // the killed writers' leftovers are gone
    CHECK(checkpoint_step(ck) == KILL_STEPS);
    CHECK(same_as_reference(dir));
}

// ---------------------------------------------------------------------------
// 2. Full disk: a file-size limit makes the checkpoint write fail

static int files_equal(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *x = read_all(a, &na), *y = read_all(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static void copy_file(const char *from, const char *to) {
    size_t n = 0;
    char *b = read_all(from, &n);
    FILE *f = fopen(to, "wb");
    if (b && f) fwrite(b, 1, n, f);
    if (f) fclose(f);
    free(b);
}

static void test_full_disk_keeps_previous_checkpoint(void) {
    char dir[512], ck[600], keep[600], p[700];
    snprintf(dir, sizeof dir, "%s/fulldisk", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    snprintf(keep, sizeof keep, "%s/fulldisk_before.bin", e2e_dir);
    write_config(cfg_path);
    // a finished 10-step run to continue from
    char *first[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=10", NULL};
    CHECK(run_quiet(first) == 0);
    CHECK(checkpoint_step(ck) == 10);
    copy_file(ck, keep);
    struct stat st;
    CHECK(stat(ck, &st) == 0);

    // Continue under a limit half the checkpoint's size: config.ini and
    // metrics.csv fit, the next checkpoint does not. SIGXFSZ keeps its default
    // action in the child, so this also checks that lmtrain ignores it.
    rlim_t limit = (rlim_t)st.st_size / 2;
    char *more[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=20", "--resume", NULL};
    int rc = run_ex(more, (SpawnOpts){limit, 0});
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
    CHECK(strstr(e2e_out, "disk full or file size limit") != NULL);
    if (rc != 1 || !strstr(e2e_out, "file size limit")) fprintf(stderr, "  exit %d:\n%s\n", rc, e2e_out);
    CHECK(files_equal(ck, keep));  // the previous checkpoint, byte for byte
    snprintf(p, sizeof p, "%s.tmp", ck);
    CHECK(!file_exists(p));        // no half-written temporary left behind
    snprintf(p, sizeof p, "%s/summary.txt", dir);
    CHECK(!file_exists(p));        // and the run does not look finished

    // With room again it continues from step 10 as if nothing had happened.
    char *again[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=20", "--resume", NULL};
    CHECK(run_quiet(again) == 0);
    CHECK(checkpoint_step(ck) == 20);

    // A fresh run that cannot write its first checkpoint: exit 1, no checkpoint.
    snprintf(dir, sizeof dir, "%s/fulldisk_fresh", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    char *fresh[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=3", NULL};
    rc = run_ex(fresh, (SpawnOpts){limit, 0});
    CHECK(rc == 1);
    CHECK(strstr(e2e_out, "file size limit") != NULL);
    CHECK(!file_exists(ck));
    snprintf(p, sizeof p, "%s/summary.txt", dir);
    CHECK(!file_exists(p));
}

// ---------------------------------------------------------------------------
// 3. Bad data files

// Trains on `data` (plus one optional --set); expects exit `want` and
// `needle` in the message, and (for failures) no run folder at all.
static void expect_data(const char *what, const char *data, const char *set, int want, const char *needle) {
    char dir[512], setp[1200];
    snprintf(dir, sizeof dir, "%s/data_%s", e2e_dir, what);
    snprintf(setp, sizeof setp, "data.path=%s", data);
    char *argv[] = {"--config", cfg_path, "--out", dir, "--set", setp, "--set", "train.steps=2",
                    (char *)(set ? "--set" : NULL), (char *)set, NULL};
    int rc = run_quiet(argv);
    int ok = rc == want && (!needle || strstr(e2e_out, needle));
    CHECK(rc == want);
    if (needle) CHECK(strstr(e2e_out, needle) != NULL);
    if (want != 0) CHECK(!file_exists(dir));  // nothing that could pass for a run
    if (!ok) fprintf(stderr, "  data case %s: exit %d, want %d with \"%s\":\n%s\n", what, rc, want,
                     needle ? needle : "", e2e_out);
}

static void write_bytes(const char *path, const unsigned char *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(b, 1, n, f);
    fclose(f);
}

static void test_bad_data_files(void) {
    char p[700], q[512];
    write_config(cfg_path);

    tpath(p, sizeof p, "empty.txt");
    write_text(p, "");
    expect_data("empty", p, NULL, 1, "is empty");

    // shorter than block_size + 1 (16 + 1)
    tpath(p, sizeof p, "short.txt");
    write_text(p, "to be or not");
    expect_data("short", p, NULL, 1, "too few for block_size 16");

    // long enough overall, but val_fraction leaves the validation split short
    tpath(p, sizeof p, "smallval.txt");
    write_corpus(p, 400);
    expect_data("smallval", p, "data.val_fraction=0.02", 1, "validation split");
    // ... or the training split
    expect_data("smalltrain", p, "data.val_fraction=0.98", 1, "training split");

    // exactly enough: 2 x (block_size + 1) bytes split in halves trains
    tpath(p, sizeof p, "edge.txt");
    write_text(p, "abcdefghijklmnopqrstuvwxyzABCDEFGH");  // 34 bytes
    expect_data("edge", p, "data.val_fraction=0.5", 0, NULL);

    // one distinct byte: a vocabulary of 1 is degenerate but valid
    tpath(p, sizeof p, "onebyte.txt");
    unsigned char same[300];
    memset(same, 'a', sizeof same);
    write_bytes(p, same, sizeof same);
    expect_data("onebyte", p, NULL, 0, NULL);

    // Binary input (every byte value, NUL and 0xFF included) is data to a
    // byte-level model (data.h): it trains, it is not a crash.
    tpath(p, sizeof p, "binary.bin");
    unsigned char bin[4096];
    for (size_t i = 0; i < sizeof bin; i++) bin[i] = (unsigned char)(rnd() >> 24);
    write_bytes(p, bin, sizeof bin);
    expect_data("binary", p, NULL, 0, NULL);

    // a directory instead of a file
    tpath(p, sizeof p, "adir");
    mkdir(p, 0755);
    expect_data("dir", p, NULL, 1, "is a directory");

    // a path through a regular file, a dangling symlink
    tpath(q, sizeof q, "empty.txt/x");
    expect_data("notdir", q, NULL, 1, "Not a directory");
    tpath(p, sizeof p, "dangling");
    tpath(q, sizeof q, "no-such-file");
    if (symlink(q, p) == 0) expect_data("dangling", p, NULL, 1, "No such file");

    // a file that opens but cannot be read (I/O error on the first read)
    expect_data("eio", "/proc/self/mem", NULL, 1, "error reading /proc/self/mem");

    // An unreadable file. root reads anything, so as root the child drops to
    // nobody, for which the folder and config are made accessible.
    char open_dir[512];
    tpath(open_dir, sizeof open_dir, "open");
    mkdir(open_dir, 0777);
    chmod(open_dir, 0777);
    chmod(e2e_dir, 0755);
    snprintf(p, sizeof p, "%s/secret.txt", open_dir);
    write_corpus(p, 2000);
    chmod(p, 0000);
    int root = geteuid() == 0;
    chmod(cfg_path, 0644);
    char dir[700], setp[800], log[700];
    snprintf(dir, sizeof dir, "%s/unreadable_run", open_dir);
    snprintf(setp, sizeof setp, "data.path=%s", p);
    snprintf(log, sizeof log, "%s/unreadable.log", open_dir);
    char *argv[] = {"--config", cfg_path, "--out", dir, "--set", setp, NULL};
    pid_t pid = spawn_ex(argv, log, (SpawnOpts){0, root});
    int rc = wait_exit(pid);
    slurp_into(log, e2e_out, sizeof e2e_out);
    if (rc == 126 || rc == 127) {
        printf("  note: could not run lmtrain as nobody (exit %d); unreadable-file case not run\n", rc);
    } else {
        CHECK(rc == 1);
        CHECK(strstr(e2e_out, "Permission denied") != NULL && strstr(e2e_out, "secret.txt") != NULL);
        CHECK(!file_exists(dir));
        if (rc != 1) fprintf(stderr, "  unreadable: exit %d\n%s\n", rc, e2e_out);
    }
    chmod(p, 0644);
    chmod(e2e_dir, 0700);
}

// ---------------------------------------------------------------------------
// 4. Impossible configs

static void test_impossible_configs(void) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/impossible", e2e_dir);
    write_config(cfg_path);
    // refused by validation: parameters alone exceed any machine
    char *huge[] = {"--config", cfg_path, "--out", dir, "--set", "model.d_model=65536", "--set",
                    "model.layers=1024", NULL};
    CHECK(run_quiet(huge) == 2);
    CHECK(strstr(e2e_out, "too large") != NULL);
    CHECK(!file_exists(dir));

    // Valid on paper, but about 4 TiB of activations: refused before anything
    // is allocated, with the estimate (an attempt to allocate would end in
    // "out of memory allocating", exit 1, or be killed).
    char *big[] = {"--config", cfg_path, "--out", dir, "--set", "train.batch_size=1048576", "--set",
                   "model.block_size=512", "--set", "model.d_model=16", NULL};
    int rc = run_quiet(big);
    CHECK(rc == 2);
    CHECK(strstr(e2e_out, "GiB of memory") != NULL && strstr(e2e_out, "batch_size") != NULL);
    CHECK(!file_exists(dir));
    if (rc != 2) fprintf(stderr, "  big batch: exit %d\n%s\n", rc, e2e_out);

    // The recall task's validation set: 2^24 sequences of 2^16 tokens is 1 TiB.
    char *recall[] = {"--config", cfg_path, "--out", dir, "--set", "data.task=recall", "--set",
                      "data.val_examples=16777216", "--set", "model.block_size=65536", NULL};
    rc = run_quiet(recall);
    CHECK(rc == 1 || rc == 2);
    CHECK(strstr(e2e_out, "memory") != NULL);
    CHECK(!file_exists(dir));
    if (rc != 1 && rc != 2) fprintf(stderr, "  recall val set: exit %d\n%s\n", rc, e2e_out);
}

// ---------------------------------------------------------------------------
// 5. Corrupted and truncated checkpoints

static void test_damaged_checkpoints(void) {
    char dir[512], ck[600], good[600];
    snprintf(dir, sizeof dir, "%s/damaged", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    snprintf(good, sizeof good, "%s/damaged_good.bin", e2e_dir);
    write_config(cfg_path);
    char *first[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=3", NULL};
    CHECK(run_quiet(first) == 0);
    copy_file(ck, good);
    size_t n = 0;
    unsigned char *b = (unsigned char *)read_all(good, &n);
    CHECK(b && n > 4096);
    if (!b || n <= 4096) return;
    char *resume[] = {"--config", cfg_path, "--out", dir, "--resume", NULL};

    // truncated at every interesting length: empty, inside the magic, the
    // header, the section table, the padding, the data, one byte short
    size_t cuts[] = {0, 1, 7, 8, 20, 31, 32, 100, 120, 500, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_bytes(ck, b, cuts[i]);
        int rc = run_quiet(resume);
        CHECK(rc == 1);
        CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
        if (rc != 1) fprintf(stderr, "  truncated to %zu: exit %d\n%s\n", cuts[i], rc, e2e_out);
    }
    // one flipped bit anywhere: magic, versions, size, count, header crc,
    // table, padding, data, last byte
    size_t flips[] = {0, 9, 13, 17, 25, 29, 40, 100, 118, 130, n / 3, n / 2, n - 1};
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        b[flips[i]] ^= 0x10;
        write_bytes(ck, b, n);
        b[flips[i]] ^= 0x10;
        int rc = run_quiet(resume);
        CHECK(rc == 1);
        CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
        if (rc != 1) fprintf(stderr, "  bit flip at %zu: exit %d\n%s\n", flips[i], rc, e2e_out);
    }
    // a trailing byte; garbage of the right size; a text file
    unsigned char *longer = malloc(n + 1);
    memcpy(longer, b, n);
    longer[n] = 0;
    write_bytes(ck, longer, n + 1);
    CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "trailing") != NULL);
    for (size_t i = 0; i < n; i++) longer[i] = (unsigned char)rnd();
    write_bytes(ck, longer, n);
    CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "not an lmtrain checkpoint") != NULL);
    free(longer);
    write_text(ck, "step,loss\n1,2.5\n");
    CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "checkpoint.bin") != NULL);
    // a directory, a device, nothing at all
    unlink(ck);
    CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "checkpoint.bin") != NULL);
    mkdir(ck, 0755);
    CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "only replaces regular files") != NULL);
    rmdir(ck);
    if (symlink("/dev/zero", ck) == 0) {
        CHECK(run_quiet(resume) == 1 && strstr(e2e_out, "only replaces regular files") != NULL);
        unlink(ck);
    }
    // The good file again: every failed attempt above changed nothing else,
    // and the run continues.
    write_bytes(ck, b, n);
    char *more[] = {"--config", cfg_path, "--out", dir, "--resume", "--set", "train.steps=5", NULL};
    CHECK(run_quiet(more) == 0);
    CHECK(checkpoint_step(ck) == 5);
    free(b);
}

// ---------------------------------------------------------------------------
// 6. --resume with a different config

static void test_resume_mismatch_names_keys(void) {
    char dir[512], corpus2[512];
    snprintf(dir, sizeof dir, "%s/mismatch", e2e_dir);
    write_config(cfg_path);
    char *first[] = {"--config", cfg_path, "--out", dir, "--set", "train.steps=4", NULL};
    CHECK(run_quiet(first) == 0);

    // keys that change the model or the data: refused, each one named
    char *bad[] = {"--config", cfg_path, "--out", dir, "--resume", "--set", "model.layers=3", "--set",
                   "attention.kind=linear", "--set", "run.seed=8", "--set", "data.val_fraction=0.3", "--set",
                   "train.batch_size=8", "--set", "train.steps=6", NULL};
    int rc = run_quiet(bad);
    CHECK(rc == 2);
    const char *named[] = {"model.layers", "attention.kind", "run.seed", "data.val_fraction",
                           "train.batch_size"};
    for (int i = 0; i < 5; i++) CHECK(strstr(e2e_out, named[i]) != NULL);
    CHECK(strstr(e2e_out, "train.steps") == NULL);  // allowed, so not in the refusal
    if (rc != 2) fprintf(stderr, "  mismatch: exit %d\n%s\n", rc, e2e_out);

    // keys that may change: accepted, and stated
    char *ok[] = {"--config", cfg_path, "--out", dir, "--resume", "--set", "train.steps=6", "--set",
                  "train.eval_every=3", "--set", "train.lr=1e-3", "--set", "run.threads=2", NULL};
    rc = run_quiet(ok);
    CHECK(rc == 0);
    CHECK(strstr(e2e_out, "resuming with changed settings") != NULL);
    CHECK(strstr(e2e_out, "train.steps") != NULL && strstr(e2e_out, "train.eval_every") != NULL &&
          strstr(e2e_out, "train.lr") != NULL);
    if (rc != 0) fprintf(stderr, "  allowed change: exit %d\n%s\n", rc, e2e_out);

    // the same path, but the file now holds other bytes: a different vocabulary
    tpath(corpus2, sizeof corpus2, "corpus2.txt");
    write_corpus(corpus2, 20000);
    FILE *f = fopen(corpus2, "a");
    if (f) {
        fputs("XYZ~{}|\n", f);
        fclose(f);
    }
    char setp[600];
    snprintf(setp, sizeof setp, "data.path=%s", corpus2);
    char *moved[] = {"--config", cfg_path, "--out", dir, "--resume", "--set", setp, NULL};
    CHECK(run_quiet(moved) == 2);
    CHECK(strstr(e2e_out, "data.path") != NULL);
    // swap the contents in place (same path): caught by the vocabulary fingerprint
    char saved[600];
    snprintf(saved, sizeof saved, "%s.saved", corpus);
    copy_file(corpus, saved);
    copy_file(corpus2, corpus);
    char *swapped[] = {"--config", cfg_path, "--out", dir, "--resume", "--set", "train.steps=8", NULL};
    CHECK(run_quiet(swapped) == 1);
    CHECK(strstr(e2e_out, "vocabulary") != NULL);
    copy_file(saved, corpus);

    // --resume where there is nothing to resume
    char none[512];
    snprintf(none, sizeof none, "%s/never_ran", e2e_dir);
    char *nothing[] = {"--config", cfg_path, "--out", none, "--resume", NULL};
    CHECK(run_quiet(nothing) == 1);
    CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
}

// ---------------------------------------------------------------------------
// 7. Signals

// Each stop signal, delivered right after step 7 (a pause point): the run
// saves, names the signal, exits 128 + signal, leaves no temporary file and
// no summary.txt, and continues bit-identically.
static void test_stop_signals_save_and_resume(void) {
    const int sigs[] = {SIGTERM, SIGHUP, SIGINT, SIGXCPU, SIGUSR1, SIGUSR2};
    const char *names[] = {"SIGTERM", "SIGHUP", "SIGINT", "SIGXCPU", "SIGUSR1", "SIGUSR2"};
    for (int i = 0; i < 6; i++) {
        char dir[512], ck[600], log[600], p[600], tmps[512];
        snprintf(dir, sizeof dir, "%s/signal_%d", e2e_dir, sigs[i]);
        snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
        snprintf(log, sizeof log, "%s/signal.log", e2e_dir);
        write_config(cfg_path);
        char *argv[] = {"--config", cfg_path, "--out", dir, NULL};
        int st = 0, rc = -1;
        pid_t pid = spawn_paused(argv, log, "step:7", &st);
        CHECK(pid > 0);
        if (pid < 0) continue;
        pause_resume(pid, sigs[i]);
        rc = wait_exit(pid);
        slurp_into(log, e2e_out, sizeof e2e_out);
        CHECK(rc == 128 + sigs[i]);
        CHECK(strstr(e2e_out, names[i]) != NULL && strstr(e2e_out, "--resume") != NULL);
        if (rc != 128 + sigs[i]) fprintf(stderr, "  %s: exit %d\n%s\n", names[i], rc, e2e_out);
        snprintf(p, sizeof p, "%s/summary.txt", dir);
        CHECK(!file_exists(p));
        CHECK(checkpoint_step(ck) == 7);
        CHECK(temp_files(dir, tmps, sizeof tmps) == 0);
        CHECK(finish_run(dir) == 0);
        CHECK(same_as_reference(dir));
    }
}

// A closed stdout (`lmtrain ... | head -1`): the first write after the reader
// is gone fails with EPIPE (SIGPIPE is ignored), the run saves and stops with
// 141 and says so on stderr; resuming ends like the reference.
static void test_closed_stdout_saves(void) {
    char dir[512], ck[600], log[600];
    snprintf(dir, sizeof dir, "%s/epipe", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    snprintf(log, sizeof log, "%s/epipe.log", e2e_dir);
    write_config(cfg_path);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(fds[0]);
        close(fds[1]);
        close(fd);
        execl(lmtrain_bin(), lmtrain_bin(), "--config", cfg_path, "--out", dir, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);  // the first byte of output, as `head -c1` would
    close(fds[0]);                    // ... and the reader is gone
    int rc = wait_exit(pid);
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(rc == 141);
    CHECK(strstr(e2e_out, "Broken pipe") != NULL && strstr(e2e_out, "checkpoint saved") != NULL);
    if (rc != 141) fprintf(stderr, "  closed stdout: exit %d\n%s\n", rc, e2e_out);
    CHECK(checkpoint_step(ck) >= 1);
    CHECK(finish_run(dir) == 0);
    CHECK(same_as_reference(dir));
}

// The second Ctrl-C arrives while the save the first one asked for is being
// written (pause points: after step 12, then halfway through that save's
// temporary file). The process exits 130 at once; the temporary file is
// removed; the previous checkpoint (step 11) is intact; resuming from it ends
// like the reference. Then the same with an earlier checkpoint absent (the
// first save of a run): no checkpoint, no temporary file.
static void test_second_sigint_mid_checkpoint(void) {
    char dir[512], ck[600], log[600], tmps[512];
    snprintf(dir, sizeof dir, "%s/double", e2e_dir);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
    snprintf(log, sizeof log, "%s/double.log", e2e_dir);
    write_config(cfg_path);
    char *argv[] = {"--config", cfg_path, "--out", dir, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "step:12,write@checkpoint.bin:12", &st);
    CHECK(pid > 0);
    if (pid < 0) return;
    pause_resume(pid, SIGINT);  // the first: save after step 12 and stop
    CHECK(wait_stop_or_exit(pid, &st) == 1);  // now inside that save
    CHECK(temp_files(dir, tmps, sizeof tmps) == 1);
    pause_resume(pid, SIGINT);  // the second: go now
    int rc = wait_exit(pid);
    CHECK(rc == 130);
    CHECK(temp_files(dir, tmps, sizeof tmps) == 0);
    if (tmps[0]) fprintf(stderr, "  left behind: %s\n", tmps);
    CHECK(checkpoint_step(ck) == 11);
    CHECK(finish_run(dir) == 0);
    CHECK(same_as_reference(dir));

    // checkpoint_every 1000: the interrupted save is the run's first
    char dir2[512], ck2[600];
    snprintf(dir2, sizeof dir2, "%s/double_first", e2e_dir);
    snprintf(ck2, sizeof ck2, "%s/checkpoint.bin", dir2);
    char *argv2[] = {"--config", cfg_path, "--out", dir2, "--set", "train.checkpoint_every=1000", NULL};
    pid = spawn_paused(argv2, log, "step:3,write@checkpoint.bin", &st);
    CHECK(pid > 0);
    if (pid < 0) return;
    pause_resume(pid, SIGINT);
    CHECK(wait_stop_or_exit(pid, &st) == 1);
    pause_resume(pid, SIGINT);
    CHECK(wait_exit(pid) == 130);
    CHECK(!file_exists(ck2));
    CHECK(temp_files(dir2, tmps, sizeof tmps) == 0);
}

// Signals during evaluation. eval_batches is huge (100 000 batches: minutes),
// and the process stops itself after the first batch of the step-0
// evaluation (pause point "eval"); a SIGINT there must end the evaluation at
// once: the step-0 row then has no validation loss, which shows it was
// abandoned rather than waited for (had it finished, the test would also take
// minutes, not fail silently: the empty cell is checked).
//   one SIGINT:  the evaluation is abandoned, one step runs, the checkpoint is
//                saved, exit 130; resuming gives the reference weights.
//   two SIGINTs: the second (right after step 1, before its save) exits at
//                once: no checkpoint, no temporary file.
static void test_signals_mid_eval(void) {
    for (int twice = 0; twice < 2; twice++) {
        char dir[512], m[600], ck[600], log[600], p[600], tmps[512];
        snprintf(dir, sizeof dir, "%s/eval_%d", e2e_dir, twice);
        snprintf(m, sizeof m, "%s/metrics.csv", dir);
        snprintf(ck, sizeof ck, "%s/checkpoint.bin", dir);
        snprintf(log, sizeof log, "%s/eval.log", e2e_dir);
        write_config(cfg_path);
        char *argv[] = {"--config", cfg_path, "--out", dir, "--set", "train.eval_batches=100000", NULL};
        int st = 0, rc = -1;
        pid_t pid = spawn_paused(argv, log, twice ? "eval,step:1" : "eval", &st);
        CHECK(pid > 0);
        if (pid < 0) continue;
        pause_resume(pid, SIGINT);
        if (twice) {
            CHECK(wait_stop_or_exit(pid, &st) == 1);
            pause_resume(pid, SIGINT);
        }
        rc = wait_exit(pid);
        slurp_into(log, e2e_out, sizeof e2e_out);
        CHECK(rc == 130);
        char *rows = read_all(m, NULL);  // header, then "0,0,,,,..." : no val_loss in row 0
        CHECK(rows && strstr(rows, "\n0,0,,,,") != NULL);
        if (rows && !strstr(rows, "\n0,0,,,,")) fprintf(stderr, "  metrics:\n%s\n", rows);
        free(rows);
        snprintf(p, sizeof p, "%s/summary.txt", dir);
        CHECK(!file_exists(p));
        CHECK(temp_files(dir, tmps, sizeof tmps) == 0);
        if (rc != 130) fprintf(stderr, "  %s SIGINT mid-eval: exit %d\n%s\n", twice ? "two" : "one", rc, e2e_out);
        if (!twice) {
            CHECK(checkpoint_step(ck) == 1);
            CHECK(strstr(e2e_out, "checkpoint saved") != NULL);
            // eval_batches may change on resume; the weights do not depend on it
            char *rest[] = {"--config", cfg_path, "--out", dir, "--resume", NULL};
            CHECK(run_quiet(rest) == 0);
            CHECK(strstr(e2e_out, "train.eval_batches") != NULL);
            char a[600];
            snprintf(a, sizeof a, "%s/checkpoint.bin", ref_dir);
            CHECK(same_params(ck, a));
        } else {
            CHECK(!file_exists(ck));
            char *rest[] = {"--config", cfg_path, "--out", dir, "--resume", NULL};
            CHECK(run_quiet(rest) == 1);  // nothing to resume, and it says so
            CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
        }
    }
}

// The test folder goes on tmpfs when there is one: SIGKILL, rename and
// RLIMIT_FSIZE behave the same there, and checkpoint_every = 1 with an fsync
// per checkpoint on a slow disk would make this file take minutes.
static void setup_dir(void) {
    if (access("/dev/shm", W_OK) == 0) {
        snprintf(e2e_dir, sizeof e2e_dir, "/dev/shm/lmtrain-hard-XXXXXX");
        if (mkdtemp(e2e_dir)) return;
    }
    e2e_setup();
}

int main(void) {
    setup_dir();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "hard.ini");
    tpath(ref_dir, sizeof ref_dir, "reference");
    write_corpus(corpus, 20000);
    TEST(run_reference);
    TEST(test_sigkill_during_checkpoint_writes);
    TEST(test_full_disk_keeps_previous_checkpoint);
    TEST(test_bad_data_files);
    TEST(test_impossible_configs);
    TEST(test_damaged_checkpoints);
    TEST(test_resume_mismatch_names_keys);
    TEST(test_stop_signals_save_and_resume);
    TEST(test_closed_stdout_saves);
    TEST(test_second_sigint_mid_checkpoint);
    TEST(test_signals_mid_eval);
    e2e_teardown();
    return test_summary();
}
