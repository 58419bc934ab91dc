// test_run_folder.c — one writer per run folder, no silent overwrite, and
// every refusal before anything in the folder changes (src/train/run_folder.h).
// The moments that matter (a writer holding the lock, a save in progress) are
// reached with pause points (src/util/pause.h), not with timing.
#include <signal.h>
#include <sys/resource.h>

#include "e2e/e2e.h"
#include "test.h"

static char corpus[512], cfg_path[512];

static void write_config_named(const char *path, const char *name, int steps) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nname = %s\nseed = 5\nthreads = 1\n"
             "[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[attention]\nkind = softmax\n"
             "[train]\nsteps = %d\nbatch_size = 4\nwarmup = 2\neval_every = 5\n"
             "eval_batches = 2\nlog_every = 1\ncheckpoint_every = 5\n",
             name, corpus, steps);
    write_text(path, text);
}

static void write_config(const char *path, int steps) { write_config_named(path, "folder", steps); }

static void dir_path(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", e2e_dir, name); }

// lmtrain --config cfg --out dir [extra...]
static int train(const char *dir, const char *a, const char *b, const char *c) {
    char *argv[] = {"--config", cfg_path, "--out", (char *)dir, (char *)a, (char *)b, (char *)c, NULL};
    return run_lmtrain(argv);
}

static int has(const char *needle) {
    int ok = strstr(e2e_out, needle) != NULL;
    if (!ok) fprintf(stderr, "  output lacks \"%s\":\n%s\n", needle, e2e_out);
    return ok;
}

// ---------------------------------------------------------------------------

// Re-running a finished run's command without --resume is refused (exit 2)
// with both ways forward, and changes nothing; --overwrite starts over.
static void test_no_silent_overwrite(void) {
    char dir[512];
    dir_path(dir, sizeof dir, "finished");
    write_config(cfg_path, 12);
    CHECK(train(dir, NULL, NULL, NULL) == 0);
    char *before = folder_digest(dir);
    write_config(cfg_path, 30);
    CHECK(train(dir, NULL, NULL, NULL) == 2);
    CHECK(has("already holds a run") && has("--resume") && has("--overwrite"));
    char *after = folder_digest(dir);
    CHECK(strcmp(before, after) == 0);
    free(after);
    CHECK(train(dir, "--resume", "--overwrite", NULL) == 2);  // the two contradict each other
    // --overwrite: a fresh run from step 0, the old one's files gone
    write_config(cfg_path, 7);
    CHECK(train(dir, "--overwrite", NULL, NULL) == 0);
    char p[700];
    snprintf(p, sizeof p, "%s/summary.txt", dir);
    char *sum = read_all(p, NULL);
    CHECK(sum && strstr(sum, "steps             7\n"));
    free(sum);
    free(before);
}

// A second writer, while the first holds the lock (paused right after taking
// it), is refused at once: exit 1, the holder's pid in the message, the folder
// unchanged. This holds for a plain run, a resume, an --overwrite and an
// ablate whose run lands in the same folder.
static void test_second_writer_refused(void) {
    char dir[512], log[600], p[700];
    dir_path(dir, sizeof dir, "abl/locked/seed5");  // where `ablate --out E2E/abl` trains a config named "locked"
    snprintf(log, sizeof log, "%s/holder.log", e2e_dir);
    write_config(cfg_path, 10);
    CHECK(train(dir, NULL, NULL, NULL) == 0);
    write_config(cfg_path, 20);
    char *argv[] = {"--config", cfg_path, "--out", dir, "--resume", NULL};
    int st = 0;
    pid_t holder = spawn_paused(argv, log, "lock", &st);
    CHECK(holder > 0);
    if (holder <= 0) return;
    char *before = folder_digest(dir), pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)holder);
    const char *modes[][2] = {{NULL, NULL}, {"--resume", NULL}, {"--overwrite", NULL}};
    for (int i = 0; i < 3; i++) {
        CHECK(train(dir, modes[i][0], NULL, NULL) == 1);
        CHECK(has(pid) && has("another lmtrain"));
    }
    // the same folder under another name (a symbolic link, a path with "/./"): the lock is the file's, not the name's
    char alias[600], dotted[700];
    snprintf(alias, sizeof alias, "%s/alias", e2e_dir);
    CHECK(symlink(dir, alias) == 0);
    CHECK(train(alias, "--resume", NULL, NULL) == 1);
    CHECK(has(pid));
    snprintf(dotted, sizeof dotted, "%s/abl/./locked/seed5/", e2e_dir);
    CHECK(train(dotted, "--resume", NULL, NULL) == 1);
    CHECK(has(pid));
    unlink(alias);
    // an ablation whose first run is named "locked" lands in the same folder
    char a1[600], a2[600], out[600];
    snprintf(a1, sizeof a1, "%s/locked.ini", e2e_dir);
    snprintf(a2, sizeof a2, "%s/other.ini", e2e_dir);
    snprintf(out, sizeof out, "%s/abl", e2e_dir);
    write_config_named(a1, "locked", 3);
    write_config_named(a2, "other", 3);
    char *ab[] = {"ablate", a1, a2, "--out", out, "--resume", NULL};
    CHECK(run_lmtrain(ab) == 1);
    CHECK(has(pid));
    char *after = folder_digest(dir);
    CHECK(strcmp(before, after) == 0);
    free(after);
    free(before);
    // the holder is unharmed and finishes
    pause_resume(holder, 0);
    CHECK(wait_status(holder) == 0);
    snprintf(p, sizeof p, "%s/summary.txt", dir);
    CHECK(file_exists(p));
}

// Two ablations into one folder at once: the second is refused (the folder
// lock of the ablation itself), naming the first's pid.
static void test_two_ablations_refused(void) {
    char out[512], log[600], a[600], b[600];
    dir_path(out, sizeof out, "ablation");
    snprintf(log, sizeof log, "%s/ablate1.log", e2e_dir);
    snprintf(a, sizeof a, "%s/a.ini", e2e_dir);
    snprintf(b, sizeof b, "%s/b.ini", e2e_dir);
    write_config_named(a, "a", 3);
    write_config_named(b, "b", 3);
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    int st = 0;
    pid_t first = spawn_paused(argv, log, "lock", &st);  // paused holding out/ and out/a/
    CHECK(first > 0);
    if (first <= 0) return;
    char pid[32];
    snprintf(pid, sizeof pid, "pid %ld", (long)first);
    CHECK(run_lmtrain(argv) == 1);
    CHECK(has(pid));
    pause_resume(first, 0);
    CHECK(wait_status(first) == 0);
}

// Ctrl-C during the whole-split evaluation ablate runs after each training:
// it stops within a batch (pause point after the first), says how to
// continue, exit 130; the run is trained but not evaluated, and --resume
// evaluates it and finishes the rest.
static void test_ablate_stops_during_whole_split_eval(void) {
    char out[512], log[600], a[600], b[600], p[700];
    dir_path(out, sizeof out, "abl_eval");
    snprintf(log, sizeof log, "%s/ablate_eval.log", e2e_dir);
    snprintf(a, sizeof a, "%s/ea.ini", e2e_dir);
    snprintf(b, sizeof b, "%s/eb.ini", e2e_dir);
    write_config_named(a, "ea", 3);
    write_config_named(b, "eb", 3);
    char *argv[] = {"ablate", a, b, "--out", out, NULL};
    int st = 0;
    pid_t pid = spawn_paused(argv, log, "eval_split", &st);
    CHECK(pid > 0);
    if (pid <= 0) return;
    pause_resume(pid, SIGINT);
    CHECK(wait_status(pid) == 130);
    slurp_into(log, e2e_out, sizeof e2e_out);
    CHECK(has("whole-split evaluation") && has("--resume"));
    snprintf(p, sizeof p, "%s/ea/seed5/summary.txt", out);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/ea/seed5/eval/summary.txt", out);
    CHECK(!file_exists(p));
    snprintf(p, sizeof p, "%s/eb/seed5", out);
    CHECK(!file_exists(p));
    char *again[] = {"ablate", a, b, "--out", out, "--resume", NULL};
    CHECK(run_lmtrain(again) == 0);
    snprintf(p, sizeof p, "%s/ea/seed5/eval/summary.txt", out);
    CHECK(file_exists(p));
    snprintf(p, sizeof p, "%s/report.md", out);
    CHECK(file_exists(p));
}

// Every refusal leaves the folder byte for byte as it was: bad config, config
// that differs from the checkpoint's, corrupt checkpoint, changed data, a
// model too large for memory, missing metrics, a held lock.
static void test_refusals_change_nothing(void) {
    char dir[512], p[700], saved[700], log[600];
    dir_path(dir, sizeof dir, "refusals");
    write_config(cfg_path, 10);
    CHECK(train(dir, NULL, NULL, NULL) == 0);
    char *base = folder_digest(dir);
    struct {
        const char *what, *a, *b;
        int want;
        const char *needle;
    } cases[] = {
        {"bad config", "--set", "train.lr=-1", 2, "train.lr"},
        {"model keys differ", "--set", "model.d_model=32", 2, "model.d_model"},
        {"memory estimate", "--set", "train.batch_size=1048576", 2, "memory"},
        {"other corpus", "--set", "data.val_fraction=0.3", 2, "data.val_fraction"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = train(dir, "--resume", cases[i].a, cases[i].b);
        CHECK(rc == cases[i].want);
        CHECK(has(cases[i].needle));
        char *d = folder_digest(dir);
        CHECK(strcmp(d, base) == 0);
        if (rc != cases[i].want || strcmp(d, base)) fprintf(stderr, "  case: %s (exit %d)\n", cases[i].what, rc);
        free(d);
    }
    // the corpus changed under the run (same size and vocabulary: only the content hash tells)
    snprintf(saved, sizeof saved, "%s/corpus.saved", e2e_dir);
    char *text = read_all(corpus, NULL);
    write_text(saved, text);
    size_t n = strlen(text);
    for (size_t i = 0; i + 1 < n / 2; i++) {  // swap the halves' bytes: same bytes, other order
        char t = text[i];
        text[i] = text[n - 1 - i];
        text[n - 1 - i] = t;
    }
    write_text(corpus, text);
    CHECK(train(dir, "--resume", NULL, NULL) == 1);
    CHECK(has("same size") && has("other content"));
    char *d = folder_digest(dir);
    CHECK(strcmp(d, base) == 0);
    free(d);
    write_text(corpus, "short corpus, other size, and long enough for block 16 .........................\n");
    CHECK(train(dir, "--resume", NULL, NULL) != 0);
    d = folder_digest(dir);
    CHECK(strcmp(d, base) == 0);
    free(d);
    char *orig = read_all(saved, NULL);
    write_text(corpus, orig);
    free(orig);
    free(text);
    // a corrupt checkpoint (one flipped byte), then a missing metrics.csv
    snprintf(p, sizeof p, "%s/checkpoint.bin", dir);
    size_t nb = 0;
    char *ck = read_all(p, &nb);
    ck[nb / 2] ^= 1;
    FILE *f = fopen(p, "wb");
    fwrite(ck, 1, nb, f);
    fclose(f);
    char *corrupt = folder_digest(dir);
    CHECK(train(dir, "--resume", NULL, NULL) == 1);
    CHECK(has("corrupted"));
    d = folder_digest(dir);
    CHECK(strcmp(d, corrupt) == 0);
    free(d);
    free(corrupt);
    ck[nb / 2] ^= 1;
    f = fopen(p, "wb");
    fwrite(ck, 1, nb, f);
    fclose(f);
    free(ck);
    snprintf(p, sizeof p, "%s/metrics.csv", dir);
    snprintf(saved, sizeof saved, "%s/metrics.saved", e2e_dir);
    rename(p, saved);
    char *nometrics = folder_digest(dir);
    CHECK(train(dir, "--resume", NULL, NULL) == 1);
    CHECK(has("metrics.csv is missing"));
    d = folder_digest(dir);
    CHECK(strcmp(d, nometrics) == 0);  // summary.txt in particular is still there
    free(d);
    free(nometrics);
    rename(saved, p);
    d = folder_digest(dir);
    CHECK(strcmp(d, base) == 0);
    free(d);
    // a held lock: the holder is paused right after taking it, so the folder is still as it was
    snprintf(log, sizeof log, "%s/refusal_holder.log", e2e_dir);
    write_config(cfg_path, 15);
    char *argv[] = {"--config", cfg_path, "--out", dir, "--resume", NULL};
    int st = 0;
    pid_t holder = spawn_paused(argv, log, "lock", &st);
    CHECK(holder > 0);
    if (holder > 0) {
        char *held = folder_digest(dir);
        CHECK(train(dir, "--resume", NULL, NULL) == 1);
        d = folder_digest(dir);
        CHECK(strcmp(d, held) == 0);
        free(d);
        free(held);
        pause_resume(holder, 0);
        CHECK(wait_status(holder) == 0);
    }
    free(base);
}

// Run files that are not regular files are refused, never replaced or opened.
static void test_special_run_files(void) {
    char dir[512], p[700];
    dir_path(dir, sizeof dir, "special");
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/metrics.csv", dir);
    CHECK(mkfifo(p, 0644) == 0);
    write_config(cfg_path, 3);
    CHECK(train(dir, "--overwrite", NULL, NULL) == 1);  // would block on the FIFO if opened
    CHECK(has("a FIFO"));
    struct stat st;
    CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(p);
    snprintf(p, sizeof p, "%s/checkpoint.bin", dir);
    CHECK(symlink("/dev/null", p) == 0);
    CHECK(train(dir, "--overwrite", NULL, NULL) == 1);
    CHECK(has("symbolic link"));
    CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(p);
    // --out that is a FIFO itself
    snprintf(p, sizeof p, "%s/outfifo", e2e_dir);
    CHECK(mkfifo(p, 0644) == 0);
    CHECK(train(p, NULL, NULL, NULL) == 1);
    CHECK(has("not a folder"));
    unlink(p);
}

// A writer that ignores the lock (here: two processes writing the same file
// through atomic_write at once, as two old lmtrain versions would) cannot
// publish a torn file: every version seen under the final name is complete.
// The writers are two lmtrain exports of different runs into one path.
static void test_lock_bypassing_writers_never_tear(void) {
    char a[512], b[512], out[600];
    dir_path(a, sizeof a, "ex_a");
    dir_path(b, sizeof b, "ex_b");
    write_config(cfg_path, 2);
    CHECK(train(a, NULL, NULL, NULL) == 0);
    char *argv_b[] = {"--config", cfg_path, "--out", b, "--set", "run.seed=6", NULL};
    CHECK(run_lmtrain(argv_b) == 0);
    snprintf(out, sizeof out, "%s/shared.safetensors", e2e_dir);
    size_t sizes[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        char *ex[] = {"export", "--run", k ? b : a, "--out", out, "--force", NULL};
        CHECK(run_lmtrain(ex) == 0);
        size_t n = 0;
        free(read_all(out, &n));
        sizes[k] = n;
    }
    int torn = 0;
    for (int round = 0; round < 20; round++) {
        char l1[600], l2[600];
        snprintf(l1, sizeof l1, "%s/w1.log", e2e_dir);
        snprintf(l2, sizeof l2, "%s/w2.log", e2e_dir);
        char *e1[] = {"export", "--run", a, "--out", out, "--force", NULL};
        char *e2[] = {"export", "--run", b, "--out", out, "--force", NULL};
        pid_t p1 = spawn_lmtrain(e1, l1), p2 = spawn_lmtrain(e2, l2);
        int r1 = wait_status(p1), r2 = wait_status(p2);
        CHECK(r1 == 0 && r2 == 0);
        size_t n = 0;
        free(read_all(out, &n));
        torn += n != sizes[0] && n != sizes[1];
    }
    CHECK(torn == 0);
    char tmps[512];
    CHECK(temp_files(e2e_dir, tmps, sizeof tmps) == 0);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "folder.ini");
    write_corpus(corpus, 6000);
    TEST(test_no_silent_overwrite);
    TEST(test_second_writer_refused);
    TEST(test_two_ablations_refused);
    TEST(test_ablate_stops_during_whole_split_eval);
    TEST(test_refusals_change_nothing);
    TEST(test_special_run_files);
    TEST(test_lock_bypassing_writers_never_tear);
    e2e_teardown();
    return test_summary();
}
