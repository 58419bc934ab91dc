// test_precision_record.c — [train] precision is recorded like every other
// key (fp32 too), and a run folder written before that (no precision line in
// config.ini nor in its checkpoint) is the fp32 run it was: it loads as fp32,
// and samples, evaluates and resumes exactly as the same run recorded today.
//
// The old-style folder is made from a new one by deleting the line, so the two
// hold the same weights, moments and RNG state: any difference in what they
// produce comes from how the missing key is read.
#include <string.h>

#include "../test.h"
#include "cmd/run_load.h"
#include "config/config.h"
#include "e2e.h"
#include "train/checkpoint.h"

static char corpus[512];

// Trains (or with --resume continues) a small softmax run into `dir` up to
// `steps`. lmtrain's exit status.
static int train(const char *dir, const char *steps, int resume) {
    char text[1024], set[64];
    snprintf(text, sizeof text,
             "[run]\nseed = 5\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 8\n"
             "[attention]\nkind = softmax\n"
             "[train]\nbatch_size = 2\nwarmup = 0\neval_every = 2\neval_batches = 1\n"
             "checkpoint_every = 2\n",
             corpus);
    snprintf(set, sizeof set, "train.steps=%s", steps);
    char *extra[] = {"--set", set, resume ? "--resume" : NULL, NULL};
    int rc = train_from_text(dir, text, extra);
    if (rc) fprintf(stderr, "  %s\n", e2e_out);
    return rc;
}

static int has_precision_line(const char *text, const char *value) {
    char want[64];
    snprintf(want, sizeof want, "\nprecision        = %s\n", value);
    return text && strstr(text, want) != NULL;
}

// What `lmtrain CMD --run dir ...` prints, malloc'd (NULL if it failed).
static char *output_of(char *const argv[]) {
    return run_lmtrain(argv) == 0 ? strdup(e2e_out) : NULL;
}

// The text `lmtrain sample` writes to stdout (its stderr reports timings),
// malloc'd; NULL if it failed.
static char *sample_text(const char *dir) {
    char out[700], cmd[2048];
    snprintf(out, sizeof out, "%s.sample", dir);
    snprintf(cmd, sizeof cmd, "'%s' sample --run '%s' --tokens 80 --seed 9 > '%s' 2>/dev/null", lmtrain_bin(),
             dir, out);
    return system(cmd) == 0 ? read_all(out, NULL) : NULL;
}

static void test_fp32_is_recorded(void) {
    char dir[600], path[700];
    tpath(dir, sizeof dir, "recorded");
    CHECK(train(dir, "2", 0) == 0);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    char *ini = read_all(path, NULL);
    CHECK(has_precision_line(ini, "fp32"));
    free(ini);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    char *ck = checkpoint_config_text(path);
    CHECK(has_precision_line(ck, "fp32"));
    free(ck);
}

static void test_old_folder_is_fp32(void) {
    char now[600], old[600], path[700], cmd[1400];
    tpath(now, sizeof now, "now");
    tpath(old, sizeof old, "old");
    CHECK(train(now, "2", 0) == 0);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", now, old);
    CHECK(system(cmd) == 0);
    // old: the folder as versions that wrote precision only for bf16 left it
    snprintf(path, sizeof path, "%s/checkpoint.bin", old);
    CHECK(checkpoint_drop_config_key(path, "precision") == 0);
    char *ck = checkpoint_config_text(path);
    CHECK(ck && !strstr(ck, "precision"));
    free(ck);
    snprintf(path, sizeof path, "%s/config.ini", old);
    char *ini = read_all(path, NULL);
    CHECK(ini && drop_config_key(ini, "precision") && !strstr(ini, "precision"));
    if (ini) write_text(path, ini);
    free(ini);

    LoadedRun r;
    CHECK(run_load(&r, old) == 0);
    CHECK(r.cfg.precision == PRECISION_FP32);
    run_unload(&r);
    Config c;
    snprintf(path, sizeof path, "%s/checkpoint.bin", old);
    CHECK(checkpoint_read_config(path, &c) == 0 && c.precision == PRECISION_FP32);

    // sample and eval: the same text and the same numbers
    char *a = sample_text(now), *b = sample_text(old);
    CHECK(a && b && strlen(a) >= 80 && strcmp(a, b) == 0);
    free(a);
    free(b);
    char *e_now[] = {"eval", "--run", now, NULL};
    char *e_old[] = {"eval", "--run", old, NULL};
    a = output_of(e_now);
    b = output_of(e_old);
    // the lines between the first ("run  DIR ...") and the files written (DIR/eval/...)
    char *na = a ? strchr(a, '\n') : NULL, *nb = b ? strchr(b, '\n') : NULL;
    char *ea = na ? strstr(na, "\nloss by position:") : NULL, *eb = nb ? strstr(nb, "\nloss by position:") : NULL;
    if (ea) *ea = 0;
    if (eb) *eb = 0;
    CHECK(ea && eb && strstr(na, "val loss") && strcmp(na, nb) == 0);
    free(a);
    free(b);

    // --resume: the same weights, moments and metrics, bit for bit
    CHECK(train(now, "4", 1) == 0);
    CHECK(train(old, "4", 1) == 0);
    char pa[700], pb[700];
    snprintf(pa, sizeof pa, "%s/checkpoint.bin", now);
    snprintf(pb, sizeof pb, "%s/checkpoint.bin", old);
    CHECK(same_params(pa, pb));
    snprintf(pa, sizeof pa, "%s/metrics.csv", now);
    snprintf(pb, sizeof pb, "%s/metrics.csv", old);
    char *ma = metrics_without_timing(pa), *mb = metrics_without_timing(pb);
    CHECK(ma && mb && strstr(ma, "\n4,") && strcmp(ma, mb) == 0);
    free(ma);
    free(mb);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 4000);
    TEST(test_fp32_is_recorded);
    TEST(test_old_folder_is_fp32);
    e2e_teardown();
    return test_summary();
}
