// test_special_files.c — inputs and outputs that are not regular files, and
// outputs that cannot be written (src/util/file_check.h).
//   inputs   a config, corpus or checkpoint that is a FIFO (no writer: opening
//            or reading it would block for ever), a socket or a device is
//            refused at once, exit 1 or 2, naming what it is;
//   outputs  export --out never replaces a FIFO or a device, and replaces a
//            regular file only if it is an earlier export or with --force;
//   stdout   eval, inspect and export exit 1 when stdout is /dev/full.
// Every command runs under a watchdog: one that blocks fails the case (exit
// 124) instead of hanging the test.
#include <sys/socket.h>
#include <sys/un.h>

#include "e2e/e2e.h"
#include "test.h"

static char corpus[512], cfg_path[512], run_dir[512];

// Runs lmtrain with stdout to `out_path` (NULL: the log), killing it after
// `seconds`; returns its exit status (124 if it had to be killed).
static int run_watched(char *const argv[], const char *out_path, double seconds) {
    char log[600];
    tpath(log, sizeof log, "watched.log");
    char *args[32];
    int n = 0;
    args[n++] = (char *)lmtrain_bin();
    for (int i = 0; argv[i] && n < 31; i++) args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int out = out_path ? open(out_path, O_WRONLY) : fd;
        dup2(out, 1);
        dup2(fd, 2);
        execv(args[0], args);
        _exit(127);
    }
    int st = 0;
    for (int waited = 0; waited < (int)(seconds * 100); waited++) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            slurp_into(log, e2e_out, sizeof e2e_out);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        sleep_us(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    slurp_into(log, e2e_out, sizeof e2e_out);
    return 124;
}

static int has(const char *needle) {
    int ok = strstr(e2e_out, needle) != NULL;
    if (!ok) fprintf(stderr, "  output lacks \"%s\":\n%s\n", needle, e2e_out);
    return ok;
}

static void write_config(const char *path, const char *kind) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nname = special\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\n[attention]\nkind = %s\n"
             "[train]\nsteps = 4\nbatch_size = 2\nwarmup = 1\neval_every = 2\neval_batches = 1\n"
             "log_every = 1\ncheckpoint_every = 2\n",
             corpus, kind);
    write_text(path, text);
}

static void test_special_inputs_refused_at_once(void) {
    char fifo[512], sock[100], out[512], setp[700];
    tpath(fifo, sizeof fifo, "fifo");
    snprintf(sock, sizeof sock, "%.80s/sock", e2e_dir);  // a socket path must fit in sun_path
    tpath(out, sizeof out, "never");
    CHECK(mkfifo(fifo, 0644) == 0);
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, sock, strlen(sock) + 1);
    CHECK(sfd >= 0 && bind(sfd, (struct sockaddr *)&addr, sizeof addr) == 0);
    const char *specials[] = {fifo, sock, "/dev/zero", "/dev/null"};
    const char *kinds[] = {"a FIFO", "a socket", "a character device", "a character device"};
    for (int i = 0; i < 4; i++) {
        // as the config
        char *a1[] = {"--config", (char *)specials[i], "--out", out, NULL};
        CHECK(run_watched(a1, NULL, 20) == 2);
        CHECK(has(kinds[i]));
        // as the corpus
        snprintf(setp, sizeof setp, "data.path=%s", specials[i]);
        char *a2[] = {"--config", cfg_path, "--out", out, "--set", setp, NULL};
        CHECK(run_watched(a2, NULL, 20) == 1);
        CHECK(has(kinds[i]));
        CHECK(!file_exists(out));
    }
    // as the checkpoint of eval, sample, export and --resume
    char ck[600], saved[600];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", run_dir);
    snprintf(saved, sizeof saved, "%s/checkpoint.saved", e2e_dir);
    CHECK(rename(ck, saved) == 0);
    CHECK(mkfifo(ck, 0644) == 0);
    char *cmds[][8] = {
        {"eval", "--run", run_dir, NULL},
        {"sample", "--run", run_dir, "--tokens", "5", NULL},
        {"export", "--run", run_dir, "--out", out, NULL},
        {"--config", cfg_path, "--out", run_dir, "--resume", NULL},
    };
    for (int i = 0; i < 4; i++) {
        int rc = run_watched(cmds[i], NULL, 20);
        CHECK(rc == 1 || rc == 2);
        CHECK(rc != 124);
        CHECK(has("FIFO"));
    }
    unlink(ck);
    CHECK(rename(saved, ck) == 0);
    if (sfd >= 0) close(sfd);
    unlink(sock);
    unlink(fifo);
}

static void test_export_never_replaces_what_it_should_not(void) {
    char target[512], fifo[512];
    struct stat st;
    // a device: refused, and still a device
    char *a1[] = {"export", "--run", run_dir, "--out", "/dev/null", "--force", NULL};
    CHECK(run_watched(a1, NULL, 20) == 1);
    CHECK(has("a character device"));
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    // a FIFO: refused, still a FIFO, never opened (no reader: an open would block)
    tpath(fifo, sizeof fifo, "out.fifo");
    CHECK(mkfifo(fifo, 0644) == 0);
    char *a2[] = {"export", "--run", run_dir, "--out", fifo, "--force", NULL};
    CHECK(run_watched(a2, NULL, 20) == 1);
    CHECK(has("a FIFO"));
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(fifo);
    // someone's regular file: refused without --force, unchanged; replaced with it
    tpath(target, sizeof target, "notes.txt");
    write_text(target, "precious notes\n");
    char *a3[] = {"export", "--run", run_dir, "--out", target, NULL};
    CHECK(run_watched(a3, NULL, 20) == 2);
    CHECK(has("--force"));
    char *t = read_all(target, NULL);
    CHECK(t && !strcmp(t, "precious notes\n"));
    free(t);
    char *a4[] = {"export", "--run", run_dir, "--out", target, "--force", NULL};
    CHECK(run_watched(a4, NULL, 20) == 0);
    // now an earlier export: replaced without --force
    CHECK(run_watched(a3, NULL, 20) == 0);
    // a folder
    char *a5[] = {"export", "--run", run_dir, "--out", e2e_dir, "--force", NULL};
    CHECK(run_watched(a5, NULL, 20) == 1);
    CHECK(has("a folder"));
}

// eval, inspect, export, sample and --help/--version report a stdout that cannot take their
// output: exit 1 with the reason, not a silent 0.
static void test_full_stdout_is_exit_1(void) {
    if (access("/dev/full", W_OK) != 0) {
        SKIP("dev-full", "no writable /dev/full");
        return;
    }
    char out[600];
    snprintf(out, sizeof out, "%s/again.safetensors", e2e_dir);
    char *cmds[][8] = {
        {"eval", "--run", run_dir, NULL},
        {"inspect", "--run", run_dir, NULL},
        {"export", "--run", run_dir, "--out", out, NULL},
        {"sample", "--run", run_dir, "--tokens", "5", NULL},
        {"--help", NULL},  // the help and the version are output too
        {"--version", NULL},
        {"sample", "--help", NULL},
    };
    for (int i = 0; i < 7; i++) {
        int rc = run_watched(cmds[i], "/dev/full", 60);
        CHECK(rc == 1);
        CHECK(has("stdout"));
        if (rc != 1) fprintf(stderr, "  %s > /dev/full: exit %d\n%s\n", cmds[i][0], rc, e2e_out);
    }
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "special.ini");
    tpath(run_dir, sizeof run_dir, "run");
    write_corpus(corpus, 4000);
    write_config(cfg_path, "linear_decay");
    char *train[] = {"--config", cfg_path, "--out", run_dir, NULL};
    int rc = run_lmtrain(train);
    if (rc) fprintf(stderr, "training the test run failed (exit %d):\n%s\n", rc, e2e_out);
    TEST(test_special_inputs_refused_at_once);
    TEST(test_export_never_replaces_what_it_should_not);
    TEST(test_full_stdout_is_exit_1);
    e2e_teardown();
    return rc ? 1 : test_summary();
}
