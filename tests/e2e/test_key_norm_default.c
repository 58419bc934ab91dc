// test_key_norm_default.c — delta's default key normalisation (L2 keys, identity
// φ) through real run folders: what a run records, and what an older run that
// was trained before [attention] key_norm existed (so with sum-normalised keys)
// reads as.
//
// A run's config.ini and its checkpoint record every key with its effective
// value, so a run replays the same whatever the defaults become. A record
// older than the key lacks it; such a run trained with the sum norm and must
// load as sum (config_defaults_record), never as today's default: the model
// would be built with other math around the same weights, silently.
#include <string.h>

#include "../test.h"
#include "cmd/run_load.h"
#include "config/config.h"
#include "e2e.h"
#include "train/checkpoint.h"
#include "util/binfile.h"
#include "util/err.h"

static char corpus[512];

// Trains a two-step delta run into the run folder `dir` from a config whose [attention] is
// `attention` (lines after "kind = delta"), with the options `extra` (up to
// eight, NULL-terminated) after the others. lmtrain's exit status.
static int train_delta(const char *dir, const char *attention, char *const *extra) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 8\n"
             "[attention]\nkind = delta\nchunk = 3\n%s"
             "[train]\nsteps = 2\nbatch_size = 2\nwarmup = 0\neval_every = 1\neval_batches = 1\n"
             "checkpoint_every = 1\n",
             corpus, attention);
    return train_from_text(dir, text, extra);
}

// 1 if `text` has the line "KEY<spaces>= VALUE" (config_write's layout).
static int has_line(const char *text, const char *key, const char *value) {
    char want[128];
    snprintf(want, sizeof want, "\n%-16s = %s\n", key, value);
    return strstr(text, want) != NULL;
}

// A run of delta with nothing said about keys records l2 and identity, and
// its config.ini reads back as the same configuration (as a config a person
// passes with --config, and as a record).
static void test_run_records_the_effective_values(void) {
    char dir[600], path[700];
    tpath(dir, sizeof dir, "new");
    CHECK(train_delta(dir, "", NULL) == 0);
    snprintf(path, sizeof path, "%s/config.ini", dir);
    size_t n = 0;
    char *text = read_all(path, &n);
    CHECK(text && has_line(text, "key_norm", "l2") && has_line(text, "feature_map", "identity"));
    LoadedRun r;
    CHECK(run_load(&r, dir) == 0);
    CHECK(r.cfg.key_norm == KEYNORM_L2 && r.cfg.feature_map == FMAP_IDENTITY);
    Config as_user, as_record;
    config_defaults(&as_user);
    config_defaults_record(&as_record);
    CHECK(text && config_load_text(&as_user, text, n, "config.ini") == 0);
    CHECK(text && config_load_text(&as_record, text, n, "config.ini") == 0);
    CHECK(config_diff(&as_user, &r.cfg, NULL, 0, 0) == 0);
    CHECK(config_diff(&as_record, &r.cfg, NULL, 0, 0) == 0);
    run_unload(&r);
    free(text);
}

// Rewrites dir/checkpoint.bin with its configuration as a checkpoint written
// before key_norm existed: the same sections, the key_norm line gone.
static void make_old_style_checkpoint(const char *dir) {
    char path[700];
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    char *cfg = checkpoint_config_text(path);
    CHECK(cfg && strstr(cfg, "key_norm") && strstr(cfg, "feature_map      = elu1"));
    free(cfg);
    CHECK(checkpoint_drop_config_key(path, "key_norm") == 0);
    cfg = checkpoint_config_text(path);
    CHECK(cfg && !strstr(cfg, "key_norm"));
    free(cfg);
}

// A delta run trained with sum-normalised elu+1 keys, whose checkpoint (as one
// written before the key existed) does not name key_norm: it loads as sum, a
// --resume with the sum configuration continues it, and one with today's
// default delta is refused naming key_norm.
static void test_old_run_keeps_sum(void) {
    char dir[600], ckpt[700];
    tpath(dir, sizeof dir, "old");
    CHECK(train_delta(dir, "key_norm = sum\n", NULL) == 0);
    snprintf(ckpt, sizeof ckpt, "%s/checkpoint.bin", dir);
    make_old_style_checkpoint(dir);

    Config c;
    CHECK(checkpoint_read_config(ckpt, &c) == 0);
    CHECK(strcmp(c.kind, "delta") == 0 && c.key_norm == KEYNORM_SUM && c.feature_map == FMAP_ELU1);
    LoadedRun r;
    CHECK(run_load(&r, dir) == 0);
    CHECK(r.cfg.key_norm == KEYNORM_SUM && r.cfg.feature_map == FMAP_ELU1);
    run_unload(&r);
    // The same text read as a config a person wrote follows today's default:
    // the record reading above is what keeps the old run's math.
    BinFile f;
    CHECK(binfile_read(ckpt, &f) == 0);
    size_t n = 0;
    const char *text = binfile_find(&f, "config", &n);
    Config fresh;
    config_defaults(&fresh);
    CHECK(text && config_load_text(&fresh, text, n, "old [config]") == 0);
    CHECK(fresh.key_norm == KEYNORM_L2 && fresh.feature_map == FMAP_ELU1);
    binfile_free(&f);

    // --resume: the model keys must match the checkpoint's
    char *resume[] = {"--resume", "--set", "train.steps=3", NULL};
    CHECK(train_delta(dir, "", resume) == ERR_USAGE);
    CHECK(strstr(e2e_out, "attention.key_norm") != NULL);
    int rc = train_delta(dir, "key_norm = sum\n", resume);
    if (rc) fprintf(stderr, "  %s\n", e2e_out);
    CHECK(rc == 0);
}

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 4000);
    TEST(test_run_records_the_effective_values);
    TEST(test_old_run_keeps_sum);
    e2e_teardown();
    return test_summary();
}
