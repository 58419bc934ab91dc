// test_install.c — `make install` into a temporary DESTDIR, then the
// installed lmtrain run from another folder: `--config linear_decay.ini` (a
// bare name, no configs/ there) finds the shipped config, and a name that is
// nowhere says where it looked. Run from the source tree (as make test does),
// with make on the PATH.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "e2e.h"

static char g_elsewhere[600];

static int in_elsewhere(void *ctx) {
    (void)ctx;
    return chdir(g_elsewhere);
}

// runs the installed binary `bin` with argv from g_elsewhere; its exit status
static int run_installed(const char *bin, char *const argv[]) {
    char log[600];
    tpath(log, sizeof log, "installed.log");
    const char *was = getenv("LMTRAIN");
    char *keep = was ? strdup(was) : NULL;
    setenv("LMTRAIN", bin, 1);
    int rc = wait_status(spawn_lmtrain_with(argv, log, in_elsewhere, NULL));
    if (keep) setenv("LMTRAIN", keep, 1), free(keep);
    else unsetenv("LMTRAIN");
    slurp_into(log, e2e_out, sizeof e2e_out);
    return rc;
}

static void test_installed_finds_shipped_configs(void) {
    if (access("Makefile", R_OK) != 0 || access("configs/linear_decay.ini", R_OK) != 0) {
        SKIP("source-tree", "not run from the source tree (no Makefile, configs/)");
        return;
    }
    char stage[600], cmd[2048], bin[700], shipped[700], corpus[600], out[600];
    tpath(stage, sizeof stage, "stage");
    tpath(g_elsewhere, sizeof g_elsewhere, "elsewhere");
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(out, sizeof out, "elsewhere/run");
    write_corpus(corpus, 20000);
    // the make of `make test` passes its jobserver through MAKEFLAGS: not for this one
    snprintf(cmd, sizeof cmd,
             "env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s install DESTDIR='%s' PREFIX=/usr/local > '%s/make.log' 2>&1 "
             "&& mkdir '%s'",
             stage, e2e_dir, g_elsewhere);
    CHECK(system(cmd) == 0);
    snprintf(bin, sizeof bin, "%s/usr/local/bin/lmtrain", stage);
    snprintf(shipped, sizeof shipped, "%s/usr/local/share/lmtrain/configs/linear_decay.ini", stage);
    CHECK(access(bin, X_OK) == 0);
    CHECK(access(shipped, R_OK) == 0);
    if (t_case_failed) return;
    char dp[700];
    snprintf(dp, sizeof dp, "data.path=%s", corpus);
    char *train[] = {"train", "--config", "linear_decay.ini", "--set", dp, "--set", "train.steps=2",
                     "--set", "train.eval_every=2", "--set", "train.eval_batches=1", "--out", out, NULL};
    CHECK(run_installed(bin, train) == 0);
    char cfg[700];
    snprintf(cfg, sizeof cfg, "%s/config.ini", out);
    CHECK(file_exists(cfg));
    char *bare[] = {"train", "--config", "linear_decay", "--set", dp, "--set", "train.steps=1", "--out", out,
                    "--overwrite", NULL};
    CHECK(run_installed(bin, bare) == 0);  // NAME without .ini too
    char *missing[] = {"train", "--config", "no_such_config.ini", NULL};
    CHECK(run_installed(bin, missing) == 2);
    CHECK(strstr(e2e_out, "not found") != NULL && strstr(e2e_out, "share/lmtrain/configs") != NULL);
    if (t_case_failed) fprintf(stderr, "%s\n", e2e_out);
}

int main(void) {
    e2e_setup();
    TEST(test_installed_finds_shipped_configs);
    e2e_teardown();
    return test_summary();
}
