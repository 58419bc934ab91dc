// test_regressions.c — replays every stored hostile input through the fuzz
// targets (tests/fuzz/fuzz_targets.h), so what the fuzzers once found, and
// the hand-made edge cases beside it, stay fixed in `make test`:
//
//   tests/regress/config/*       INI text + --set parts (fuzz_config format)
//   tests/regress/checkpoint/*   checkpoint files (fuzz_checkpoint format)
//   tests/fuzz/corpus_*/*        the committed seed corpora
//
// A crash, a sanitizer report (SAN=1) or a broken invariant (fuzz_fail
// aborts) ends the program, which tests/run.sh counts as a failure. Files
// named reject_* must also be refused with a message, accept_* accepted
// (what each one holds: tests/regress/README.md).
#include <dirent.h>
#include <limits.h>

#include "../test.h"
#include "fuzz/fuzz_targets.h"

// The repo root relative to the working directory, from this file's path
// (`make test` compiles it as tests/regress/test_regressions.c from the root).
static void source_dir(char *buf, size_t cap, const char *rel) {
    const char *me = __FILE__;
    const char *cut = strstr(me, "tests/regress/");
    size_t n = cut ? (size_t)(cut - me) : 0;
    snprintf(buf, cap, "%.*s%s", (int)n, me, rel);
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (len == cap) b = realloc(b, cap *= 2);
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    *n = len;
    return b;
}

typedef void (*Replay)(const char *path, const char *name, const unsigned char *data, size_t n);

// Calls fn on every regular file of dir (sorted, so failures read the same
// every run); returns how many.
static int for_each_file(const char *rel, Replay fn) {
    char dir[PATH_MAX], path[PATH_MAX + 256];
    source_dir(dir, sizeof dir, rel);
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort), count = 0;
    if (n < 0) {
        fprintf(stderr, "  cannot read %s\n", dir);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        if (name[0] != '.' && strcmp(name, "README.md") != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, name);
            size_t len = 0;
            unsigned char *data = slurp(path, &len);
            if (data) {
                fn(path, name, data, len);
                count++;
            }
            free(data);
        }
        free(list[i]);
    }
    free(list);
    return count;
}

static int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

// ---------------------------------------------------------------------------
// config

// The verdict the trainer would reach: INI text, then each --set, then validate.
static int config_verdict(const unsigned char *data, size_t n) {
    char *buf = malloc(n + 1);
    memcpy(buf, data, n);
    buf[n] = 0;
    size_t n0 = strlen(buf);
    Config c;
    config_defaults(&c);
    int rc = config_load_text(&c, buf, n0, "regress.ini");
    for (size_t at = n0 + 1; rc == 0 && at <= n; at += strlen(buf + at) + 1) rc = config_set(&c, buf + at);
    if (rc == 0) rc = config_validate(&c, "regress.ini");
    free(buf);
    return rc;
}

static void replay_config(const char *path, const char *name, const unsigned char *data, size_t n) {
    fuzz_config_one(data, n);
    if (!starts_with(name, "reject_") && !starts_with(name, "accept_")) return;
    err_clear();
    int rc = config_verdict(data, n);
    int want_reject = starts_with(name, "reject_");
    int ok = want_reject ? rc != 0 && err_msg()[0] : rc == 0;
    CHECK(ok);
    if (!ok) fprintf(stderr, "  %s: exit %d, message \"%s\"\n", path, rc, err_msg());
}

// ---------------------------------------------------------------------------
// checkpoint

static void replay_checkpoint(const char *path, const char *name, const unsigned char *data, size_t n) {
    fuzz_checkpoint_one(data, n);
    if (!starts_with(name, "reject_") && !starts_with(name, "accept_")) return;
    // As stored (no checksum repair): what --resume and sample would see.
    // Rejected = the stored config is refused, or the weights do not load
    // into a model built from the reference config.
    err_clear();
    Config c;
    int rc = checkpoint_read_config(path, &c);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", err_msg());
    if (rc == 0) {
        Config ref;
        config_defaults(&ref);
        config_load_text(&ref, FUZZ_REF_CONFIG, sizeof FUZZ_REF_CONFIG - 1, "ref.ini");
        Model m;
        AdamW o;
        TrainState s;
        model_build(&m, &ref, FUZZ_REF_V);
        adamw_init(&o, &m);
        rc = checkpoint_load(path, &m, &o, &s);
        snprintf(msg, sizeof msg, "%s", err_msg());
        adamw_free(&o);
        model_free(&m);
    }
    int want_reject = starts_with(name, "reject_");
    // a refusal names the file
    int ok = want_reject ? rc != 0 && strstr(msg, name) != NULL : rc == 0;
    CHECK(ok);
    if (!ok) fprintf(stderr, "  %s: rc %d, message \"%s\"\n", path, rc, msg);
}

static void test_config_regressions(void) {
    int n = for_each_file("tests/regress/config", replay_config);
    CHECK(n >= 40);  // the folder is there and was read
}

static void test_checkpoint_regressions(void) {
    int n = for_each_file("tests/regress/checkpoint", replay_checkpoint);
    CHECK(n >= 25);
}

static void test_seed_corpora(void) {
    CHECK(for_each_file("tests/fuzz/corpus_config", replay_config) >= 5);
    CHECK(for_each_file("tests/fuzz/corpus_checkpoint", replay_checkpoint) >= 5);
}

int main(void) {
    TEST(test_config_regressions);
    TEST(test_checkpoint_regressions);
    TEST(test_seed_corpora);
    return test_summary();
}
