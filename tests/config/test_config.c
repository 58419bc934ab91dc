// test_config.c — the INI tokenizer, config loading, --set, validation,
// writing (round trip) and diffing (SPEC §3).
//
// INI inputs are written to mkstemp files in /tmp and removed after use. The
// configs/*.ini test reads the repo's files, so it runs from the repo root
// (as `make test` does).
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attention/attention.h"
#include "config/config.h"
#include "config/ini.h"
#include "test.h"
#include "util/err.h"

// ---------------------------------------------------------------------------
// Helpers

static char g_path[64];  // path of the last temp file written

static void write_tmp(const char *text) {
    strcpy(g_path, "/tmp/lmtrain_cfg_XXXXXX");
    int fd = mkstemp(g_path);
    if (fd < 0) {
        fprintf(stderr, "mkstemp: %s\n", strerror(errno));
        exit(1);
    }
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

// Writes text to a fresh temp file, loads it on top of *c, removes the file.
// g_path keeps the file's name for message checks.
static int load_text(Config *c, const char *text) {
    write_tmp(text);
    err_clear();
    int rc = config_load(c, g_path);
    unlink(g_path);
    return rc;
}

static int msg_has(const char *sub) {
    if (strstr(err_msg(), sub)) return 1;
    fprintf(stderr, "    message: %s\n    missing: %s\n", err_msg(), sub);
    return 0;
}

// The message names the temp file and the line: "PATH:LINE:".
static int msg_at_line(int line) {
    char want[96];
    snprintf(want, sizeof want, "%s:%d: ", g_path, line);
    if (strncmp(err_msg(), want, strlen(want)) == 0) return 1;
    fprintf(stderr, "    message: %s\n    want prefix: %s\n", err_msg(), want);
    return 0;
}

// Loads text onto defaults and expects a usage error at `line` whose message
// contains every substring given (NULL-terminated).
static void expect_load_error(const char *text, int line, ...) {
    Config c;
    config_defaults(&c);
    Config before = c;
    int rc = load_text(&c, text);
    CHECK(rc == ERR_USAGE);
    CHECK(msg_at_line(line));
    va_list ap;
    va_start(ap, line);
    for (const char *s; (s = va_arg(ap, const char *));) CHECK(msg_has(s));
    va_end(ap);
    // A failed load leaves the config as it was.
    CHECK(config_diff(&c, &before, NULL, 0, 0) == 0);
}

// config_set on defaults; expects a usage error containing the substrings.
static void expect_set_error(const char *assignment, ...) {
    Config c;
    config_defaults(&c);
    Config before = c;
    err_clear();
    CHECK(config_set(&c, assignment) == ERR_USAGE);
    char prefix[256];
    snprintf(prefix, sizeof prefix, "--set %s: ", assignment);
    CHECK(msg_has(prefix));
    CHECK(strncmp(err_msg(), "--set ", 6) == 0);
    va_list ap;
    va_start(ap, assignment);
    for (const char *s; (s = va_arg(ap, const char *));) CHECK(msg_has(s));
    va_end(ap);
    CHECK(config_diff(&c, &before, NULL, 0, 0) == 0);
}

// A valid text-task config to validate (defaults + a corpus path).
static void valid_config(Config *c) {
    config_defaults(c);
    strcpy(c->name, "t");
    strcpy(c->path, "data/x.txt");
}

static void expect_invalid(const Config *c, const char *sub1, const char *sub2) {
    err_clear();
    CHECK(config_validate(c, "cfg/x.ini") == ERR_USAGE);
    CHECK(msg_has("cfg/x.ini: "));
    CHECK(msg_has(sub1));
    if (sub2) CHECK(msg_has(sub2));
}

// config_write into a malloc'd string.
static char *write_to_string(const Config *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(config_write(c, f) == 0);
    fclose(f);
    return buf;
}

// ---------------------------------------------------------------------------
// Tokenizer

static void test_ini_lines(void) {
    struct {
        const char *in;
        IniKind kind;
        const char *a, *b;  // section, or key and value
    } cases[] = {
        {"", INI_BLANK, NULL, NULL},
        {"   \t ", INI_BLANK, NULL, NULL},
        {"# comment = x", INI_BLANK, NULL, NULL},
        {"  ; comment", INI_BLANK, NULL, NULL},
        {"[model]", INI_SECTION, "model", NULL},
        {"  [ attention ]  # trailing", INI_SECTION, "attention", NULL},
        {"lr=1e-3", INI_PAIR, "lr", "1e-3"},
        {"  lr   =   1e-3   ", INI_PAIR, "lr", "1e-3"},
        {"lr = 1e-3 # the peak", INI_PAIR, "lr", "1e-3"},
        {"lr = 1e-3\t; the peak", INI_PAIR, "lr", "1e-3"},
        {"name = run#2", INI_PAIR, "name", "run#2"},
        {"name = a;b", INI_PAIR, "name", "a;b"},
        {"path =", INI_PAIR, "path", ""},
        {"path = # nothing", INI_PAIR, "path", ""},
        {"path = \"a # b ; c\" # real comment", INI_PAIR, "path", "a # b ; c"},
        {"path = \"  padded  \"", INI_PAIR, "path", "  padded  "},
        {"path = \"q\\\"x\\\\y\\z\"", INI_PAIR, "path", "q\"x\\y\\z"},
        {"path = \"\"", INI_PAIR, "path", ""},
        {"path = a \"b\"", INI_PAIR, "path", "a \"b\""},
        {"k = a = b", INI_PAIR, "k", "a = b"},
        {"just words", INI_ERROR, NULL, NULL},
        {"= 3", INI_ERROR, NULL, NULL},
        {"[model", INI_ERROR, NULL, NULL},
        {"[model] x", INI_ERROR, NULL, NULL},
        {"[  ]", INI_ERROR, NULL, NULL},
        {"path = \"open", INI_ERROR, NULL, NULL},
        {"path = \"a\" b", INI_ERROR, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[128];
        strcpy(line, cases[i].in);
        IniLine l = {0};
        IniKind k = ini_parse_line(line, &l);
        if (k != cases[i].kind) fprintf(stderr, "    line: %s\n", cases[i].in);
        CHECK(k == cases[i].kind);
        CHECK(l.kind == k);
        if (k == INI_SECTION) CHECK(strcmp(l.section, cases[i].a) == 0);
        if (k == INI_PAIR && k == cases[i].kind) {
            CHECK(strcmp(l.key, cases[i].a) == 0);
            if (strcmp(l.value, cases[i].b) != 0)
                fprintf(stderr, "    line: %s -> value [%s]\n", cases[i].in, l.value);
            CHECK(strcmp(l.value, cases[i].b) == 0);
        }
        if (k == INI_ERROR) CHECK(l.error && l.error[0]);
    }
}

static void test_ini_reader_lines(void) {
    // BOM, CRLF, blank and comment lines: line numbers still count them.
    write_tmp("\xEF\xBB\xBF[run]\r\n\r\n# c\r\nname = x\r\n\n  [train]\nlr = 2");
    FILE *f = fopen(g_path, "r");
    CHECK(f != NULL);
    IniReader r;
    IniLine l;
    ini_open(&r, f);
    CHECK(ini_next(&r, &l) == INI_SECTION && l.line == 1 && strcmp(l.section, "run") == 0);
    CHECK(ini_next(&r, &l) == INI_PAIR && l.line == 4 && strcmp(l.value, "x") == 0);
    CHECK(ini_next(&r, &l) == INI_SECTION && l.line == 6 && strcmp(l.section, "train") == 0);
    CHECK(ini_next(&r, &l) == INI_PAIR && l.line == 7 && strcmp(l.key, "lr") == 0 &&
          strcmp(l.value, "2") == 0);
    CHECK(ini_next(&r, &l) == INI_END);
    CHECK(!ferror(f));
    ini_close(&r);
    fclose(f);
    unlink(g_path);
}

// ---------------------------------------------------------------------------
// Defaults and loading

static void test_defaults(void) {
    Config c;
    memset(&c, 0xAB, sizeof c);
    config_defaults(&c);
    CHECK(c.name[0] == 0);
    CHECK(strcmp(c.out_dir, "runs") == 0);
    CHECK(c.seed == 1337);
    CHECK(c.threads == 0);
    CHECK(c.task == TASK_TEXT);
    CHECK(c.path[0] == 0);
    CHECK(c.val_fraction == 0.1);
    CHECK(c.vocab == 64 && c.pairs == 8 && c.val_examples == 1000);
    CHECK(c.layers == 4 && c.heads == 4 && c.d_model == 128 && c.ffn_mult == 4);
    CHECK(c.block_size == 64 && c.pos == POS_LEARNED);
    CHECK(strcmp(c.kind, "softmax") == 0);
    CHECK(c.feature_map == FMAP_ELU1);
    CHECK(c.eps == 1e-6);
    CHECK(c.normalize == 1);
    CHECK(c.n_decay_init == 1 && c.decay_init[0] == 0.99);
    CHECK(c.decay_learnable == 1 && c.chunk == 64 && c.state_init == STATE_ZERO);
    CHECK(c.output_norm == 0 && c.key_shift == 0);
    CHECK(c.steps == 2000 && c.batch_size == 12);
    CHECK(c.lr == 1e-3 && c.min_lr == 1e-4 && c.warmup == 100);
    CHECK(c.weight_decay == 0.1 && c.beta1 == 0.9 && c.beta2 == 0.99 && c.grad_clip == 1.0);
    CHECK(c.eval_every == 250 && c.eval_batches == 20 && c.log_every == 10);
    CHECK(c.checkpoint_every == 500);
    // Defaults are not a complete config: a text task needs a path.
    strcpy(c.name, "x");
    err_clear();
    CHECK(config_validate(&c, "x.ini") == ERR_USAGE);
    CHECK(msg_has("path"));
    strcpy(c.path, "data/x.txt");
    CHECK(config_validate(&c, "x.ini") == 0);
}

static void test_load_every_key(void) {
    Config c;
    config_defaults(&c);
    int rc = load_text(&c,
                       "; every key, none at its default\n"
                       "[run]\n"
                       "name = my run#1   # a comment\n"
                       "out_dir = \"out # dir\"\n"
                       "seed = 18446744073709551615\n"
                       "threads = 2\n"
                       "[data]\n"
                       "task = recall\n"
                       "path = \"some path\"\n"
                       "val_fraction = 0.25\n"
                       "vocab = 32\n"
                       "pairs = 4\n"
                       "val_examples = 77\n"
                       "[model]\n"
                       "layers = 2\n"
                       "heads = 2\n"
                       "d_model = 64\n"
                       "ffn_mult = 0\n"
                       "block_size = 128\n"
                       "pos = none\n"
                       "[attention]\n"
                       "kind = linear_decay\n"
                       "feature_map = relu\n"
                       "eps = 1e-5\n"
                       "normalize = no\n"
                       "decay_init = 0.9, 0.999\n"
                       "decay_learnable = off\n"
                       "chunk = 16\n"
                       "state_init = identity\n"
                       "output_norm = yes\n"
                       "key_shift = 1\n"
                       "[train]\n"
                       "steps = 10\n"
                       "batch_size = 3\n"
                       "lr = 3e-4\n"
                       "min_lr = 0\n"
                       "warmup = 0\n"
                       "weight_decay = 0\n"
                       "beta1 = 0.8\n"
                       "beta2 = 0.95\n"
                       "grad_clip = 0\n"
                       "eval_every = 5\n"
                       "eval_batches = 2\n"
                       "log_every = 1\n"
                       "checkpoint_every = 7\n");
    if (rc) fprintf(stderr, "    %s\n", err_msg());
    CHECK(rc == 0);
    CHECK(strcmp(c.name, "my run#1") == 0);
    CHECK(strcmp(c.out_dir, "out # dir") == 0);
    CHECK(c.seed == ULLONG_MAX);
    CHECK(c.threads == 2);
    CHECK(c.task == TASK_RECALL);
    CHECK(strcmp(c.path, "some path") == 0);
    CHECK(c.val_fraction == 0.25 && c.vocab == 32 && c.pairs == 4 && c.val_examples == 77);
    CHECK(c.layers == 2 && c.heads == 2 && c.d_model == 64 && c.ffn_mult == 0);
    CHECK(c.block_size == 128 && c.pos == POS_NONE);
    CHECK(strcmp(c.kind, "linear_decay") == 0);
    CHECK(c.feature_map == FMAP_RELU && c.eps == 1e-5 && c.normalize == 0);
    CHECK(c.n_decay_init == 2 && c.decay_init[0] == 0.9 && c.decay_init[1] == 0.999);
    CHECK(c.decay_learnable == 0 && c.chunk == 16 && c.state_init == STATE_IDENTITY);
    CHECK(c.output_norm == 1 && c.key_shift == 1);
    CHECK(c.steps == 10 && c.batch_size == 3 && c.lr == 3e-4 && c.min_lr == 0 && c.warmup == 0);
    CHECK(c.weight_decay == 0 && c.beta1 == 0.8 && c.beta2 == 0.95 && c.grad_clip == 0);
    CHECK(c.eval_every == 5 && c.eval_batches == 2 && c.log_every == 1 && c.checkpoint_every == 7);
    err_clear();
    int vrc = config_validate(&c, g_path);
    if (vrc) fprintf(stderr, "    %s\n", err_msg());
    CHECK(vrc == 0);
}

static void test_load_partial_keeps_rest(void) {
    // A file sets only what it names; the rest keeps what c held.
    Config c;
    config_defaults(&c);
    c.steps = 42;
    CHECK(load_text(&c, "[model]\nlayers = 6\n[model]\nheads = 8\n") == 0);
    CHECK(c.layers == 6 && c.heads == 8 && c.steps == 42 && c.d_model == 128);
}

static void test_bools_and_enums(void) {
    const char *yes[] = {"true", "1", "yes", "on", "TRUE", "Yes"};
    const char *no[] = {"false", "0", "no", "off", "False", "OFF"};
    for (size_t i = 0; i < 6; i++) {
        Config c;
        char text[64];
        config_defaults(&c);
        c.normalize = 0;
        snprintf(text, sizeof text, "[attention]\nnormalize = %s\n", yes[i]);
        CHECK(load_text(&c, text) == 0 && c.normalize == 1);
        snprintf(text, sizeof text, "[attention]\nnormalize = %s\n", no[i]);
        CHECK(load_text(&c, text) == 0 && c.normalize == 0);
    }
    Config c;
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\nfeature_map = identity\nstate_init = zero\n") == 0);
    CHECK(c.feature_map == FMAP_IDENTITY && c.state_init == STATE_ZERO);
    CHECK(load_text(&c, "[model]\npos = learned\n[data]\ntask = text\n") == 0);
    CHECK(c.pos == POS_LEARNED && c.task == TASK_TEXT);
}

static void test_name_from_file(void) {
    char dir[] = "/tmp/lmtrain_cfgdir_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/linear_decay.ini", dir);
    FILE *f = fopen(path, "w");
    fputs("[model]\nlayers = 2\n", f);
    fclose(f);
    Config c;
    config_defaults(&c);
    strcpy(c.name, "stale");
    CHECK(config_load(&c, path) == 0);
    CHECK(strcmp(c.name, "linear_decay") == 0);
    // An explicit [run] name wins.
    f = fopen(path, "w");
    fputs("[run]\nname = custom\n", f);
    fclose(f);
    CHECK(config_load(&c, path) == 0);
    CHECK(strcmp(c.name, "custom") == 0);
    unlink(path);
    // Opening a directory is a usage error, not a crash or a runtime error.
    err_clear();
    CHECK(config_load(&c, dir) == ERR_USAGE);
    CHECK(msg_has("cannot open config"));
    rmdir(dir);
    // mkstemp names have no ".ini": the whole base name is used.
    config_defaults(&c);
    CHECK(load_text(&c, "[run]\nseed = 1\n") == 0);
    CHECK(strcmp(c.name, strrchr(g_path, '/') + 1) == 0);
}

static void test_missing_file(void) {
    Config c;
    config_defaults(&c);
    err_clear();
    CHECK(config_load(&c, "/tmp/lmtrain_no_such_dir/none.ini") == ERR_USAGE);
    CHECK(msg_has("cannot open config /tmp/lmtrain_no_such_dir/none.ini: "));
    CHECK(msg_has(strerror(ENOENT)));
}


// config_load_text: the checkpoint's copy of the configuration, from memory.
static void test_load_text(void) {
    // n bytes, not NUL-terminated: the text after n must not be read.
    const char *buf = "[train]\nlr = 2e-3\n[model]\nlayers = 3\nXXXX garbage";
    size_t n = strlen(buf) - strlen("XXXX garbage");
    Config c;
    config_defaults(&c);
    err_clear();
    int rc = config_load_text(&c, buf, n, "ck.bin [config]");
    if (rc) fprintf(stderr, "    %s\n", err_msg());
    CHECK(rc == 0);
    CHECK(c.lr == 2e-3 && c.layers == 3);
    // Errors name the origin and the line.
    config_defaults(&c);
    err_clear();
    CHECK(config_load_text(&c, buf, strlen(buf), "ck.bin [config]") == ERR_USAGE);
    CHECK(msg_has("ck.bin [config]:5: "));
    CHECK(msg_has("expected \"key = value\""));
    const char *dup = "[train]\nlr = 1\nlr = 2\n";
    CHECK(config_load_text(&c, dup, strlen(dup), "o") == ERR_USAGE);
    CHECK(msg_has("o:3: [train] duplicate key \"lr\" (first set at line 2)"));
    // Empty text changes nothing but the name.
    config_defaults(&c);
    CHECK(config_load_text(&c, "", 0, "dir/empty.ini") == 0);
    CHECK(strcmp(c.name, "empty") == 0 && c.layers == 4);
    // What config_write produced loads back equal.
    valid_config(&c);
    CHECK(config_set(&c, "attention.decay_init=0.5,0.6,0.7,0.8") == 0);
    char *text = write_to_string(&c);
    Config d;
    config_defaults(&d);
    CHECK(config_load_text(&d, text, strlen(text), "mem") == 0);
    CHECK(config_diff(&c, &d, NULL, 0, 0) == 0);
    free(text);
}

// ---------------------------------------------------------------------------
// Load errors: each names file:line, the section/key, and what was expected

static void test_error_bad_number(void) {
    expect_load_error("# x\n[train]\nsteps = 5\nlr = 1e-3x\n", 4, "[train] lr: expected a number, got \"1e-3x\"",
                      NULL);
    expect_load_error("[train]\nlr = nan\n", 2, "[train] lr", "\"nan\"", NULL);
    expect_load_error("[train]\nlr = inf\n", 2, "[train] lr", "\"inf\"", NULL);
    expect_load_error("[train]\nlr = -inf\n", 2, "[train] lr", NULL);
    expect_load_error("[train]\nlr =\n", 2, "[train] lr: expected a number, got \"\"", NULL);
    expect_load_error("[train]\nlr = 1e999\n", 2, "[train] lr: 1e999 is out of range", NULL);
    expect_load_error("[train]\nlr = \" 1e-3\"\n", 2, "[train] lr", NULL);
}

static void test_error_bad_integer(void) {
    expect_load_error("[model]\nlayers = 12abc\n", 2, "[model] layers: expected an integer, got \"12abc\"", NULL);
    expect_load_error("[model]\nlayers = 1.5\n", 2, "[model] layers: expected an integer", NULL);
    expect_load_error("[train]\nsteps = 1e3\n", 2, "[train] steps: expected an integer", NULL);
    expect_load_error("[train]\nsteps = 0x10\n", 2, "[train] steps: expected an integer", NULL);
    expect_load_error("[train]\nsteps = 99999999999999999999\n", 2,
                      "[train] steps: 99999999999999999999 is out of range", NULL);
    expect_load_error("[train]\nsteps = 3000000000\n", 2, "[train] steps: 3000000000 is out of range",
                      "(expected 1..2147483647)", NULL);
    expect_load_error("[run]\nseed = -1\n", 2, "[run] seed: expected a non-negative integer", NULL);
    expect_load_error("[run]\nseed = 18446744073709551616\n", 2, "[run] seed: 18446744073709551616 is out of range",
                      NULL);
    expect_load_error("[run]\nthreads = -1\n", 2, "[run] threads: -1 is out of range (expected 0..1024)", NULL);
}

static void test_error_out_of_range(void) {
    expect_load_error("[run]\nname = x\n[model]\nheads = 0\n", 4, "[model] heads: 0 is out of range (expected 1..64)",
                      NULL);
    expect_load_error("[model]\nheads = 65\n", 2, "[model] heads: 65 is out of range (expected 1..64)", NULL);
    expect_load_error("[train]\nbeta1 = 1\n", 2, "[train] beta1: 1 is out of range (expected 0 <= beta1 < 1)", NULL);
    expect_load_error("[train]\nlr = 0\n", 2, "[train] lr: 0 is out of range (expected lr > 0)", NULL);
    expect_load_error("[train]\nmin_lr = -1e-5\n", 2, "[train] min_lr: -1e-5 is out of range (expected min_lr >= 0)",
                      NULL);
    expect_load_error("[data]\nval_fraction = 1\n", 2, "[data] val_fraction: 1 is out of range", NULL);
    expect_load_error("[data]\nvocab = 300\n", 2, "[data] vocab: 300 is out of range (expected 4..256)", NULL);
    expect_load_error("[attention]\neps = 0\n", 2, "[attention] eps: 0 is out of range", NULL);
    expect_load_error("[attention]\nchunk = 0\n", 2, "[attention] chunk: 0 is out of range", NULL);
    expect_load_error("[model]\nffn_mult = -1\n", 2, "[model] ffn_mult: -1 is out of range (expected 0..64)", NULL);
}

static void test_error_bool_enum_string(void) {
    expect_load_error("[attention]\nnormalize = maybe\n", 2, "[attention] normalize: expected true or false",
                      "\"maybe\"", NULL);
    expect_load_error("[data]\ntask = txt\n", 2, "[data] task: expected one of text, recall; got \"txt\"", NULL);
    expect_load_error("[model]\npos = rope\n", 2, "[model] pos: expected one of learned, none", NULL);
    expect_load_error("[attention]\nfeature_map = elu\n", 2,
                      "[attention] feature_map: expected one of elu1, relu, identity", NULL);
    expect_load_error("[attention]\nstate_init = ones\n", 2, "[attention] state_init: expected one of zero, identity",
                      NULL);
    char text[400] = "[attention]\nkind = ";
    memset(text + strlen(text), 'k', 40);
    strcat(text, "\n");
    expect_load_error(text, 2, "[attention] kind: too long (40 characters, at most 31)", NULL);
    expect_load_error("[run]\nname = a/b\n", 2, "[run] name: must not contain '/'", NULL);
    expect_load_error("[run]\nname = \"\"\n", 2, "[run] name: must not be empty", NULL);
    expect_load_error("[run]\nname = ..\n", 2, "[run] name", NULL);
    expect_load_error("[run]\nout_dir =\n", 2, "[run] out_dir: must not be empty", NULL);
    expect_load_error("[attention]\nkind = \n", 2, "[attention] kind: must not be empty", NULL);
    expect_load_error("[data]\npath = \"a\tb\"\n", 2, "[data] path: contains a control character", NULL);
}

static void test_error_unknown_section(void) {
    expect_load_error("[run]\nseed = 1\n[modle]\nlayers = 2\n", 3,
                      "unknown section [modle] (expected one of: run, data, model, attention, train)", NULL);
    expect_load_error("[Model]\n", 1, "unknown section [Model]", NULL);
}

static void test_error_unknown_key(void) {
    expect_load_error("[model]\n\n\nlayer = 4\n", 4, "[model] unknown key \"layer\" (did you mean \"layers\"?)", NULL);
    expect_load_error("[model]\nd_modle = 4\n", 2, "[model] unknown key \"d_modle\" (did you mean \"d_model\"?)",
                      NULL);
    expect_load_error("[train]\nbatchsize = 4\n", 2, "did you mean \"batch_size\"?", NULL);
    // A key from another section says where it belongs.
    expect_load_error("[model]\nlr = 1e-3\n", 2, "[model] unknown key \"lr\" (it belongs in [train])", NULL);
    // Nothing close: list the section's keys instead of a silly guess.
    expect_load_error("[model]\nwibble = 4\n", 2, "[model] unknown key \"wibble\"",
                      "expected one of: layers, heads, d_model, ffn_mult, block_size, pos", NULL);
}

static void test_error_duplicate_key(void) {
    expect_load_error("[run]\nseed = 1\n\n[train]\nsteps = 3\n\n\nlr = 1e-3\n\n[model]\nlayers = 2\n[train]\nlr = 2e-3\n",
                      13, "[train] duplicate key \"lr\" (first set at line 8)", NULL);
    // The same key in different sections is not a duplicate (there is none
    // today, but a key set in two files is fine: duplicates are per file).
    Config c;
    config_defaults(&c);
    CHECK(load_text(&c, "[train]\nlr = 1e-3\n") == 0);
    CHECK(load_text(&c, "[train]\nlr = 2e-3\n") == 0);
    CHECK(c.lr == 2e-3);
}

static void test_error_key_outside_section(void) {
    expect_load_error("# header\n\n; more\n\nlr = 1e-3\n[train]\n", 5, "key outside any section", NULL);
}

static void test_error_malformed_lines(void) {
    expect_load_error("[train]\nlr 1e-3\n", 2, "expected \"key = value\"", NULL);
    expect_load_error("[train\n", 1, "missing ']'", NULL);
    expect_load_error("[train] lr = 1\n", 1, "unexpected text after ']'", NULL);
    expect_load_error("[run]\nname = \"abc\n", 2, "unterminated quoted string", NULL);
    expect_load_error("[run]\nname = \"abc\" def\n", 2, "after the closing quote", NULL);
    expect_load_error("[run]\n = x\n", 2, "missing key", NULL);
    // An embedded NUL cannot silently cut a line short.
    write_tmp("");
    FILE *f = fopen(g_path, "w");
    fwrite("[run]\nname = a\0b\n", 1, 17, f);
    fclose(f);
    Config c;
    config_defaults(&c);
    err_clear();
    CHECK(config_load(&c, g_path) == ERR_USAGE);
    CHECK(msg_at_line(2));
    CHECK(msg_has("NUL"));
    unlink(g_path);
}

// ---------------------------------------------------------------------------
// decay_init

static void test_decay_init(void) {
    Config c;
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\ndecay_init = 0.5,0.9 , 0.99,\t0.999\n") == 0);
    CHECK(c.n_decay_init == 4);
    CHECK(c.decay_init[0] == 0.5 && c.decay_init[1] == 0.9 && c.decay_init[2] == 0.99 && c.decay_init[3] == 0.999);
    strcpy(c.path, "p");
    CHECK(config_validate(&c, "x") == 0);  // 4 values, 4 heads
    // Back to one value for all heads.
    CHECK(config_set(&c, "attention.decay_init=0.7") == 0);
    CHECK(c.n_decay_init == 1 && c.decay_init[0] == 0.7 && c.decay_init[1] == 0);

    expect_load_error("[attention]\ndecay_init = 0.9, 1.0\n", 2,
                      "[attention] decay_init: 1.0 is out of range (expected 0 < decay_init < 1)", NULL);
    expect_load_error("[attention]\ndecay_init = 0\n", 2, "[attention] decay_init: 0 is out of range", NULL);
    expect_load_error("[attention]\ndecay_init = 0.9,,0.8\n", 2, "[attention] decay_init: expected a number", NULL);
    expect_load_error("[attention]\ndecay_init = 0.9,\n", 2, "[attention] decay_init: expected a number", NULL);
    expect_load_error("[attention]\ndecay_init = 0.9 0.8\n", 2, "[attention] decay_init: expected a number", NULL);
    // 65 values: more than heads can ever be.
    char text[1024] = "[attention]\ndecay_init = 0.5";
    for (int i = 1; i < 65; i++) strcat(text, ",0.5");
    strcat(text, "\n");
    expect_load_error(text, 2, "[attention] decay_init: more than 64 values", NULL);
    // 64 values are fine (with 64 heads).
    text[strlen(text) - 5] = '\n';
    text[strlen(text) - 4] = 0;
    config_defaults(&c);
    CHECK(load_text(&c, text) == 0);
    CHECK(c.n_decay_init == 64);

    // Count must be 1 or heads.
    valid_config(&c);
    CHECK(config_set(&c, "attention.decay_init=0.9,0.99,0.999") == 0);
    expect_invalid(&c, "decay_init has 3 values but heads is 4", NULL);
    CHECK(config_set(&c, "model.heads=3") == 0);
    CHECK(config_set(&c, "model.d_model=129") == 0);
    CHECK(config_validate(&c, "x") == 0);
}

// ---------------------------------------------------------------------------
// --set

static void test_set(void) {
    Config c;
    config_defaults(&c);
    CHECK(config_set(&c, "train.lr=3e-4") == 0 && c.lr == 3e-4);
    CHECK(config_set(&c, " model.layers = 6 ") == 0 && c.layers == 6);
    CHECK(config_set(&c, "attention.kind=linear") == 0 && strcmp(c.kind, "linear") == 0);
    CHECK(config_set(&c, "run.name=a#b ;c") == 0 && strcmp(c.name, "a#b ;c") == 0);  // no comments in --set
    CHECK(config_set(&c, "data.path=\"x y\"") == 0 && strcmp(c.path, "x y") == 0);
    CHECK(config_set(&c, "data.path=a=b") == 0 && strcmp(c.path, "a=b") == 0);
    CHECK(config_set(&c, "attention.normalize=off") == 0 && c.normalize == 0);
    CHECK(config_set(&c, "run.seed=7") == 0 && c.seed == 7);

    // --set applied after the file overrides it.
    config_defaults(&c);
    CHECK(load_text(&c, "[train]\nlr = 1e-3\nsteps = 5\n") == 0);
    CHECK(config_set(&c, "train.lr=5e-4") == 0);
    CHECK(c.lr == 5e-4 && c.steps == 5);
    // and may be given twice: the last one wins.
    CHECK(config_set(&c, "train.lr=6e-4") == 0 && c.lr == 6e-4);
}

static void test_set_errors(void) {
    expect_set_error("train.lr=1e-3x", "[train] lr: expected a number, got \"1e-3x\"", NULL);
    expect_set_error("model.heads=0", "[model] heads: 0 is out of range (expected 1..64)", NULL);
    expect_set_error("modle.layers=2", "unknown section [modle] (expected one of: run, data, model, attention, train)",
                     NULL);
    expect_set_error("model.layer=2", "[model] unknown key \"layer\" (did you mean \"layers\"?)", NULL);
    expect_set_error("model.lr=2", "(it belongs in [train])", NULL);
    expect_set_error("lr=1e-3", "expected section.key=value", NULL);
    expect_set_error("train.lr", "expected section.key=value", NULL);
    expect_set_error("train.lr=", "[train] lr: expected a number, got \"\"", NULL);
    expect_set_error("data.task=both", "[data] task: expected one of text, recall", NULL);
    expect_set_error("run.name=\"open", "unterminated quoted string", NULL);
    expect_set_error("attention.decay_init=0.9,1.5", "[attention] decay_init: 1.5 is out of range", NULL);
}

// ---------------------------------------------------------------------------
// Cross-field validation

static void test_validate(void) {
    Config c;
    valid_config(&c);
    CHECK(config_validate(&c, "x") == 0);

    valid_config(&c);
    c.d_model = 130;
    expect_invalid(&c, "[model] d_model 130 is not divisible by heads 4", NULL);

    valid_config(&c);
    c.path[0] = 0;
    expect_invalid(&c, "[data] path", "task = text");

    valid_config(&c);
    c.min_lr = 2e-3;
    expect_invalid(&c, "[train] min_lr", "larger than lr");
    c.min_lr = c.lr;  // equal is fine: a constant schedule
    CHECK(config_validate(&c, "x") == 0);

    valid_config(&c);
    strcpy(c.kind, "sofmax");
    expect_invalid(&c, "[attention] kind: unknown attention kind \"sofmax\"", "softmax, linear, linear_decay");

    valid_config(&c);
    c.name[0] = 0;
    expect_invalid(&c, "[run] name: must not be empty", NULL);

    // Fields set in code are range-checked too.
    valid_config(&c);
    c.heads = 0;
    expect_invalid(&c, "[model] heads: 0 is out of range (expected 1..64)", NULL);
    valid_config(&c);
    c.beta2 = 1.0;
    expect_invalid(&c, "[train] beta2: 1 is out of range", NULL);
    valid_config(&c);
    c.normalize = 2;
    expect_invalid(&c, "[attention] normalize", NULL);
    valid_config(&c);
    c.pos = (PosKind)7;
    expect_invalid(&c, "[model] pos", NULL);
    valid_config(&c);
    c.n_decay_init = 0;
    expect_invalid(&c, "[attention] decay_init", NULL);
    valid_config(&c);
    c.decay_init[0] = 1.0;
    expect_invalid(&c, "[attention] decay_init: 1 is out of range", NULL);
    valid_config(&c);
    c.eps = 1e-300;  // > 0 but 0 as a float32
    expect_invalid(&c, "[attention] eps", "float32");

    // NULL origin still gives a readable message.
    valid_config(&c);
    c.d_model = 130;
    err_clear();
    CHECK(config_validate(&c, NULL) == ERR_USAGE);
    CHECK(msg_has("d_model 130"));
}

static void test_validate_recall(void) {
    Config c;
    valid_config(&c);
    c.task = TASK_RECALL;
    c.path[0] = 0;  // recall needs no file
    CHECK(config_validate(&c, "x") == 0);

    c.pairs = 17;  // 4*17 = 68 > block_size 64
    expect_invalid(&c, "pairs 17", "4*pairs <= block_size");
    c.pairs = 16;
    CHECK(config_validate(&c, "x") == 0);

    valid_config(&c);
    c.task = TASK_RECALL;
    c.vocab = 32;
    c.pairs = 16;  // keys are 1..15: only 15 distinct
    expect_invalid(&c, "[data] pairs 16", "pairs <= vocab/2 - 1");
    c.pairs = 15;
    CHECK(config_validate(&c, "x") == 0);

    valid_config(&c);
    c.task = TASK_RECALL;
    c.vocab = 33;
    c.pairs = 4;
    expect_invalid(&c, "[data] vocab 33 must be even", NULL);
    c.vocab = 2;
    expect_invalid(&c, "[data] vocab: 2 is out of range (expected 4..256)", NULL);
    c.vocab = 4;
    c.pairs = 1;
    CHECK(config_validate(&c, "x") == 0);
    // A text task does not care about odd recall settings it never reads.
    valid_config(&c);
    c.pairs = 100;
    CHECK(config_validate(&c, "x") == 0);
}

static void test_validate_absurd_sizes(void) {
    Config c;
    valid_config(&c);
    c.layers = 1024;
    c.d_model = 65536;
    c.heads = 64;
    expect_invalid(&c, "[model] too large", "limit 2^40");

    valid_config(&c);
    c.batch_size = 1 << 20;
    c.block_size = 1 << 20;
    expect_invalid(&c, "too large", "activations");

    // the kind's own work buffers (AttnKind.work_floats): a chunk of 1 makes
    // the chunkwise kind save a (dh, dh + 1) state per position
    valid_config(&c);
    strcpy(c.kind, "linear");
    c.d_model = 8192;
    c.heads = 1;
    c.layers = 16;
    c.ffn_mult = 0;
    c.block_size = 4096;
    c.batch_size = 1;
    c.chunk = 1;
    expect_invalid(&c, "[attention] chunk 1", "per-chunk state");
    c.chunk = 4096;  // one chunk: linear saves one state per slab, fine
    err_clear();
    CHECK(config_validate(&c, "cfg/x.ini") == 0);
    // delta below dh 64 recomputes a whole chunk's states in its scratch
    // (chunk x dh x dh): one chunk of a million positions is refused, which
    // the old one-state-per-chunk estimate accepted
    valid_config(&c);
    strcpy(c.kind, "delta");
    c.d_model = 1008;
    c.heads = 16;  // dh 63
    c.layers = 32;
    c.ffn_mult = 0;
    c.block_size = 1 << 20;
    c.batch_size = 1;
    c.chunk = 1 << 20;
    expect_invalid(&c, "[attention] chunk 1048576", "delta kind's work buffers");
    c.chunk = 1024;  // near sqrt(T): (T/chunk + chunk) dh^2 is small
    err_clear();
    CHECK(config_validate(&c, "cfg/x.ini") == 0);
    // softmax does not read the chunk: nothing chunk-sized to refuse
    strcpy(c.kind, "softmax");
    c.chunk = 1;
    err_clear();
    CHECK(config_validate(&c, "cfg/x.ini") == 0);

    // Big but sane passes.
    valid_config(&c);
    c.block_size = 16384;
    c.d_model = 1024;
    c.heads = 16;
    c.layers = 24;
    CHECK(config_validate(&c, "x") == 0);
}

// ---------------------------------------------------------------------------
// Writing and diffing

// key_norm and decay: the keys only some kinds read, and the older spelling
// decay_learnable of decay = fixed | learned
static void test_key_norm_and_decay(void) {
    Config c;
    valid_config(&c);
    CHECK(c.key_norm == KEYNORM_SUM && c.decay == DECAY_LEARNED);
    // l2 is the delta kind's; other kinds are refused with the reason
    CHECK(config_set(&c, "attention.key_norm=l2") == 0 && c.key_norm == KEYNORM_L2);
    expect_invalid(&c, "[attention] key_norm = l2 applies only to kind = delta", NULL);
    CHECK(config_set(&c, "attention.kind=delta") == 0);
    CHECK(config_validate(&c, "x") == 0);
    CHECK(config_set(&c, "attention.normalize=false") == 0);
    expect_invalid(&c, "key_norm = l2", "normalize = false");
    expect_set_error("attention.key_norm=l1", "[attention] key_norm: expected one of sum, l2", NULL);

    // decay = data needs a kind with a decay
    valid_config(&c);
    CHECK(config_set(&c, "attention.decay=data") == 0 && c.decay == DECAY_DATA && c.decay_learnable);
    expect_invalid(&c, "decay = data needs a kind with an input-dependent decay", "softmax");
    CHECK(config_set(&c, "attention.kind=linear") == 0);
    expect_invalid(&c, "decay = data needs a kind with an input-dependent decay", "linear");
    for (int i = 0; attn_kinds[i]; i++) {  // accepted exactly where a kind implements it
        CHECK(config_set(&c, "attention.kind=softmax") == 0);
        snprintf(c.kind, sizeof c.kind, "%s", attn_kinds[i]->name);
        CHECK((config_validate(&c, "x") == 0) == (attn_kinds[i]->data_decay == 1));
    }
    CHECK(config_set(&c, "attention.kind=delta") == 0);

    // decay_learnable = false is decay = fixed; a later layer's key wins, but not over decay = data:
    // that is no learned decay to switch off, and it became fixed decay without a word (issue 33)
    CHECK(config_set(&c, "attention.decay_learnable=false") == ERR_USAGE && c.decay == DECAY_DATA);
    CHECK(msg_has("decay_learnable = false") && msg_has("decay = data") && msg_has("decay = fixed"));
    CHECK(config_set(&c, "attention.decay=learned") == 0);
    CHECK(config_set(&c, "attention.decay_learnable=false") == 0 && c.decay == DECAY_FIXED);
    CHECK(config_set(&c, "attention.decay_learnable=true") == 0 && c.decay == DECAY_LEARNED);
    CHECK(config_set(&c, "attention.decay=fixed") == 0 && c.decay_learnable == 0);
    CHECK(config_set(&c, "attention.decay=data") == 0 && c.decay_learnable == 1);
    CHECK(config_set(&c, "attention.decay_learnable=true") == 0 && c.decay == DECAY_DATA);
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\ndecay_learnable = false\n") == 0 && c.decay == DECAY_FIXED);
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\ndecay = fixed\ndecay_learnable = false\n") == 0);
    CHECK(c.decay == DECAY_FIXED && !c.decay_learnable);
    // both in one file, disagreeing: refused, and c is unchanged
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\ndecay = data\ndecay_learnable = false\n") == ERR_USAGE);
    CHECK(msg_has("decay = data contradicts decay_learnable = false"));
    CHECK(c.decay == DECAY_LEARNED && c.decay_learnable);
    config_defaults(&c);
    CHECK(load_text(&c, "[attention]\ndecay_learnable = true\ndecay = fixed\n") == ERR_USAGE);
    // set in code, disagreeing: refused by validate
    valid_config(&c);
    c.decay_learnable = 0;
    expect_invalid(&c, "decay = learned contradicts decay_learnable = false", NULL);
}

// identity φ with normalize = true is refused with the reason wherever the
// kind divides by a sum of φ values, and allowed by the override the message names
static void test_identity_normalize(void) {
    Config c;
    const char *kinds[] = {"linear", "linear_decay", "delta"};
    for (int i = 0; i < 3; i++) {
        valid_config(&c);
        snprintf(c.kind, sizeof c.kind, "%s", kinds[i]);
        CHECK(config_set(&c, "attention.key_norm=sum") == 0);  // (delta's default is l2)
        CHECK(config_set(&c, "attention.feature_map=identity") == 0);
        expect_invalid(&c, "feature_map = identity with normalize = true", "allow_identity_normalize = true");
        CHECK(config_set(&c, "attention.allow_identity_normalize=true") == 0);
        CHECK(config_validate(&c, "x") == 0);
        CHECK(config_set(&c, "attention.allow_identity_normalize=false") == 0);
        CHECK(config_set(&c, "attention.normalize=false") == 0);
        CHECK(config_validate(&c, "x") == 0);
    }
    // relu and elu1 are >= 0; softmax has no φ; delta's L2 keys divide by a norm
    valid_config(&c);
    CHECK(config_set(&c, "attention.kind=linear") == 0 && config_set(&c, "attention.feature_map=relu") == 0);
    CHECK(config_validate(&c, "x") == 0);
    valid_config(&c);
    CHECK(config_set(&c, "attention.kind=softmax") == 0 && config_set(&c, "attention.feature_map=identity") == 0);
    CHECK(config_validate(&c, "x") == 0);
    CHECK(config_set(&c, "attention.kind=delta") == 0 && config_set(&c, "attention.key_norm=l2") == 0);
    CHECK(config_validate(&c, "x") == 0);
}

// key_norm and feature_map default to what the kind says (attention.h:
// attn_default_key_norm, attn_default_feature_map) unless given: delta l2 and
// identity φ, the other kinds sum and elu1; a later layer's kind or normalize
// moves a default that was not given, never a given value.
static void test_kind_defaults(void) {
    Config c;
    valid_config(&c);
    CHECK(load_text(&c, "[attention]\nkind = delta\n") == 0);
    CHECK(c.key_norm == KEYNORM_L2 && c.feature_map == FMAP_IDENTITY);
    CHECK(config_validate(&c, "x") == 0);
    // given keys are kept: explicit elu1 with l2 (measured worse, but legal), explicit sum
    valid_config(&c);
    CHECK(load_text(&c, "[attention]\nkind = delta\nfeature_map = elu1\n") == 0);
    CHECK(c.key_norm == KEYNORM_L2 && c.feature_map == FMAP_ELU1);
    CHECK(config_validate(&c, "x") == 0);
    valid_config(&c);
    CHECK(load_text(&c, "[attention]\nkind = delta\nkey_norm = sum\n") == 0);
    CHECK(c.key_norm == KEYNORM_SUM && c.feature_map == FMAP_ELU1);
    valid_config(&c);
    CHECK(load_text(&c, "[attention]\nkind = delta\nkey_norm = l2\nfeature_map = relu\n") == 0);
    CHECK(c.key_norm == KEYNORM_L2 && c.feature_map == FMAP_RELU);
    // the other kinds keep sum and elu1, whatever kind came before
    const char *others[] = {"softmax", "linear", "linear_decay"};
    for (int i = 0; i < 3; i++) {
        char text[128];
        valid_config(&c);
        CHECK(config_set(&c, "attention.kind=delta") == 0 && c.key_norm == KEYNORM_L2);
        snprintf(text, sizeof text, "[attention]\nkind = %s\n", others[i]);
        CHECK(load_text(&c, text) == 0);
        CHECK(c.key_norm == KEYNORM_SUM && c.feature_map == FMAP_ELU1);
        CHECK(config_validate(&c, "x") == 0);
    }
    // layers: the file's kind, then --set; normalize = false has no l2 (sum, elu1)
    valid_config(&c);
    CHECK(load_text(&c, "[attention]\nkind = linear\n") == 0 && c.key_norm == KEYNORM_SUM);
    CHECK(config_set(&c, "attention.kind=delta") == 0);
    CHECK(c.key_norm == KEYNORM_L2 && c.feature_map == FMAP_IDENTITY);
    CHECK(config_set(&c, "attention.normalize=false") == 0);
    CHECK(c.key_norm == KEYNORM_SUM && c.feature_map == FMAP_ELU1);
    CHECK(config_validate(&c, "x") == 0);
    CHECK(config_set(&c, "attention.normalize=true") == 0 && c.key_norm == KEYNORM_L2);
    CHECK(config_set(&c, "attention.feature_map=elu1") == 0);
    CHECK(config_set(&c, "attention.kind=linear") == 0);  // key_norm follows, feature_map was given
    CHECK(c.key_norm == KEYNORM_SUM && c.feature_map == FMAP_ELU1);
    CHECK(config_set(&c, "attention.key_norm=l2") == 0 && config_set(&c, "attention.kind=delta") == 0);
    CHECK(config_set(&c, "attention.kind=linear") == 0 && c.key_norm == KEYNORM_L2);  // given: refused, not moved
    expect_invalid(&c, "[attention] key_norm = l2 applies only to kind = delta", NULL);

    // what config_write records is the effective value, and reads back the same as
    // a person's config and as a run's record
    valid_config(&c);
    CHECK(config_set(&c, "attention.kind=delta") == 0);
    char *text = write_to_string(&c);
    CHECK(strstr(text, "\nkey_norm         = l2\n") && strstr(text, "\nfeature_map      = identity\n"));
    Config d, r;
    config_defaults(&d);
    config_defaults_record(&r);
    CHECK(config_load_text(&d, text, strlen(text), "mem") == 0 && config_diff(&c, &d, NULL, 0, 0) == 0);
    CHECK(config_load_text(&r, text, strlen(text), "mem") == 0 && config_diff(&c, &r, NULL, 0, 0) == 0);
    free(text);
    // a record older than key_norm (delta, elu1, no key_norm line) is what it
    // trained with: sum; the same text as a person's config follows the kind
    const char *old = "[attention]\nkind = delta\nfeature_map = elu1\n";
    config_defaults_record(&r);
    CHECK(config_load_text(&r, old, strlen(old), "old") == 0);
    CHECK(r.key_norm == KEYNORM_SUM && r.feature_map == FMAP_ELU1);
    config_defaults(&d);
    CHECK(config_load_text(&d, old, strlen(old), "old") == 0);
    CHECK(d.key_norm == KEYNORM_L2 && d.feature_map == FMAP_ELU1);
}

static void test_round_trip(void) {
    Config a;
    config_defaults(&a);
    const char *sets[] = {
        "run.name=round trip",      "run.out_dir=\" spaced # dir \\\\ \\\"quoted\\\" \"",
        "run.seed=18446744073709551615", "run.threads=3",
        "data.task=recall",         "data.path=;semi",
        "data.val_fraction=0.30000000000000004", "data.vocab=128",
        "data.pairs=12",            "data.val_examples=321",
        "model.layers=3",           "model.heads=4",
        "model.d_model=96",         "model.ffn_mult=2",
        "model.block_size=96",      "model.pos=none",
        "attention.kind=linear_decay", "attention.feature_map=identity",
        "attention.eps=1.2345678901234567e-7", "attention.normalize=false",
        "attention.decay_init=0.1, 0.5, 0.9, 0.99999999999999989", "attention.decay_learnable=no",
        "attention.key_norm=sum",
        "attention.chunk=32",       "attention.state_init=identity",
        "attention.output_norm=on", "attention.key_shift=true",
        "train.steps=123",          "train.batch_size=5",
        "train.lr=0.1",             "train.min_lr=1e-5",
        "train.warmup=7",           "train.weight_decay=0",
        "train.beta1=0.85",         "train.beta2=0.999",
        "train.grad_clip=0.5",      "train.eval_every=11",
        "train.eval_batches=3",     "train.log_every=2",
        "train.checkpoint_every=50",
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        int rc = config_set(&a, sets[i]);
        if (rc) fprintf(stderr, "    %s\n", err_msg());
        CHECK(rc == 0);
    }
    CHECK(config_validate(&a, "x") == 0);
    CHECK(strcmp(a.out_dir, " spaced # dir \\ \"quoted\" ") == 0);

    char *text = write_to_string(&a);
    // Readable: every section, and values as a person would write them.
    CHECK(strstr(text, "[run]\n") && strstr(text, "[data]\n") && strstr(text, "[model]\n") &&
          strstr(text, "[attention]\n") && strstr(text, "[train]\n"));
    CHECK(strstr(text, "\nlr               = 0.1\n") != NULL);
    CHECK(strstr(text, "\nmin_lr           = 1e-05\n") != NULL);
    CHECK(strstr(text, "\nnormalize        = false\n") != NULL);
    CHECK(strstr(text, "\npos              = none\n") != NULL);
    CHECK(strstr(text, "\ndecay_init       = 0.1, 0.5, 0.9, 0.9999999999999999\n") != NULL);
    CHECK(strstr(text, "\nseed             = 18446744073709551615\n") != NULL);

    Config b;
    config_defaults(&b);
    int rc = load_text(&b, text);
    if (rc) fprintf(stderr, "    %s\n%s", err_msg(), text);
    CHECK(rc == 0);
    char diff[512];
    CHECK(config_diff(&a, &b, diff, sizeof diff, 0) == 0);
    CHECK(diff[0] == 0);
    // Field by field for the ones most likely to go wrong.
    CHECK(strcmp(b.name, "round trip") == 0);
    CHECK(strcmp(b.out_dir, a.out_dir) == 0);
    CHECK(strcmp(b.path, ";semi") == 0);
    CHECK(b.val_fraction == a.val_fraction && b.val_fraction != 0.3);
    CHECK(b.eps == a.eps && b.seed == a.seed);
    CHECK(b.n_decay_init == 4);
    for (int h = 0; h < 4; h++) CHECK(b.decay_init[h] == a.decay_init[h]);
    // Writing again gives the same text.
    char *text2 = write_to_string(&b);
    CHECK(strcmp(text, text2) == 0);
    free(text);
    free(text2);

    // Defaults (with the empty path) round-trip too.
    config_defaults(&a);
    strcpy(a.name, "d");
    text = write_to_string(&a);
    CHECK(strstr(text, "\npath             = \"\"\n") != NULL);
    CHECK(strstr(text, "\ndecay_init       = 0.99\n") != NULL);
    config_defaults(&b);
    b.layers = 9;
    CHECK(load_text(&b, text) == 0);
    CHECK(config_diff(&a, &b, NULL, 0, 0) == 0);
    free(text);
}

static void test_write_error(void) {
    // A stream that cannot be written to reports ERR_RUNTIME.
    FILE *f = fopen("/dev/full", "w");
    if (!f) return;  // no /dev/full here: nothing to test against
    Config c;
    config_defaults(&c);
    err_clear();
    CHECK(config_write(&c, f) == ERR_RUNTIME);
    fclose(f);
}

static void test_diff(void) {
    Config a, b;
    valid_config(&a);
    b = a;
    char buf[256];
    CHECK(config_diff(&a, &b, buf, sizeof buf, 0) == 0 && buf[0] == 0);

    // Schedule and bookkeeping keys are not model keys.
    b.steps = 5000;
    b.lr = 3e-4;
    b.eval_every = 1;
    b.threads = 2;
    strcpy(b.name, "other");
    strcpy(b.out_dir, "elsewhere");
    b.grad_clip = 0;
    CHECK(config_diff(&a, &b, buf, sizeof buf, 1) == 0 && buf[0] == 0);
    CHECK(config_diff(&a, &b, buf, sizeof buf, 0) == 7);
    CHECK(strcmp(buf, "run.name, run.out_dir, run.threads, train.steps, train.lr, train.grad_clip, "
                      "train.eval_every") == 0);

    // Model keys: [data], [model], [attention], run.seed, train.batch_size.
    b = a;
    b.heads = 8;
    strcpy(b.kind, "linear");
    b.seed = 1;
    b.batch_size = 1;
    strcpy(b.path, "other.txt");
    b.key_shift = 1;
    CHECK(config_diff(&a, &b, buf, sizeof buf, 1) == 6);
    CHECK(strcmp(buf, "run.seed, data.path, model.heads, attention.kind, attention.key_shift, train.batch_size") ==
          0);

    // decay_init compares per head: one value equals the same value per head.
    b = a;
    CHECK(config_set(&b, "attention.decay_init=0.99,0.99,0.99,0.99") == 0);
    CHECK(config_diff(&a, &b, buf, sizeof buf, 1) == 0);
    CHECK(config_set(&b, "attention.decay_init=0.99,0.99,0.9,0.99") == 0);
    CHECK(config_diff(&a, &b, buf, sizeof buf, 1) == 1 && strcmp(buf, "attention.decay_init") == 0);

    // A small buffer is cut short but stays terminated; the count is whole.
    b = a;
    b.layers = 2;
    b.heads = 2;
    b.d_model = 64;
    char small[12];
    memset(small, 'Z', sizeof small);
    CHECK(config_diff(&a, &b, small, sizeof small, 0) == 3);
    CHECK(memchr(small, 0, sizeof small) != NULL);
    CHECK(strncmp(small, "model.layer", 11) == 0);
    CHECK(config_diff(&a, &b, NULL, 0, 0) == 3);
}

// The ablation configs: valid, the agreed settings, and identical except for
// [attention] kind and [run] name.
static void test_repo_configs(void) {
    const char *kinds[] = {"softmax", "linear", "linear_decay"};
    Config c[3];
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "configs/%s.ini", kinds[i]);
        config_defaults(&c[i]);
        err_clear();
        int rc = config_load(&c[i], path);
        if (rc) fprintf(stderr, "    %s (run from the repo root)\n", err_msg());
        CHECK(rc == 0);
        CHECK(config_validate(&c[i], path) == 0);
        CHECK(strcmp(c[i].name, kinds[i]) == 0);
        CHECK(strcmp(c[i].kind, kinds[i]) == 0);
    }
    char buf[256];
    CHECK(config_diff(&c[0], &c[1], buf, sizeof buf, 0) == 2 && strcmp(buf, "run.name, attention.kind") == 0);
    CHECK(config_diff(&c[0], &c[2], buf, sizeof buf, 0) == 2 && strcmp(buf, "run.name, attention.kind") == 0);
    const Config *s = &c[0];
    CHECK(s->task == TASK_TEXT && strcmp(s->path, "data/tinyshakespeare.txt") == 0);
    CHECK(s->layers == 4 && s->heads == 4 && s->d_model == 128 && s->ffn_mult == 4 && s->block_size == 64);
    CHECK(s->pos == POS_LEARNED && s->feature_map == FMAP_ELU1 && s->normalize == 1);
    CHECK(s->n_decay_init == 1 && s->decay_init[0] == 0.99 && s->chunk == 64);
    CHECK(s->steps == 2000 && s->batch_size == 12 && s->lr == 1e-3 && s->min_lr == 1e-4 && s->warmup == 100);
    CHECK(s->weight_decay == 0.1 && s->beta1 == 0.9 && s->beta2 == 0.99 && s->grad_clip == 1.0);
    CHECK(s->eval_every == 250 && s->eval_batches == 20 && s->log_every == 10 && s->checkpoint_every == 500);
}

// The recall configs `make recall` sweeps (docs/recall.md): valid, the shared
// settings, and identical to recall_linear except [run] name and [attention]
// keys, so the kinds are compared on the same task, model and schedule. Each
// sweep's overrides make a valid config too (head size 8 and 32; 2 and 16
// pairs, 16 filling block 64).
static void test_recall_configs(void) {
    const char *names[] = {"linear", "softmax", "linear_decay", "delta", "delta_sum", "linear_decay_data",
                           "delta_data"};
    const int n = (int)(sizeof names / sizeof names[0]);
    Config base;
    for (int i = 0; i < n; i++) {
        char path[64], want[64];
        snprintf(path, sizeof path, "configs/recall_%s.ini", names[i]);
        snprintf(want, sizeof want, "recall_%s", names[i]);
        Config c;
        config_defaults(&c);
        err_clear();
        int rc = config_load(&c, path);
        if (rc) fprintf(stderr, "    %s (run from the repo root)\n", err_msg());
        CHECK(rc == 0);
        CHECK(config_validate(&c, path) == 0);
        CHECK(strcmp(c.name, want) == 0);
        if (i == 0) {
            base = c;
            CHECK(c.task == TASK_RECALL && c.vocab == 64 && c.pairs == 8 && c.val_examples == 1000);
            CHECK(c.layers == 2 && c.heads == 4 && c.d_model == 64 && c.ffn_mult == 0 && c.block_size == 64);
            CHECK(c.key_shift == 1 && c.steps == 1500 && c.batch_size == 32 && c.lr == 3e-3);
            const char *sweeps[][3] = {{"model.d_model=32", "", ""},
                                       {"model.d_model=128", "", ""},
                                       {"data.pairs=16", "", ""},
                                       {"data.pairs=2", "", ""}};
            for (int k = 0; k < 4; k++) {
                Config v = c;
                for (int j = 0; j < 3; j++)
                    if (*sweeps[k][j]) CHECK(config_set(&v, sweeps[k][j]) == 0);
                CHECK(config_validate(&v, sweeps[k][0]) == 0);
            }
            continue;
        }
        char buf[512];
        int nd = config_diff(&base, &c, buf, sizeof buf, 0);
        CHECK(nd >= 2 && nd < 10);
        // every differing key is run.name or an [attention] key
        for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
            int ok = !strcmp(tok, "run.name") || !strncmp(tok, "attention.", 10);
            if (!ok) fprintf(stderr, "    %s differs from recall_linear in %s\n", want, tok);
            CHECK(ok);
        }
    }
}

static int msg_lacks(const char *sub) { return strstr(err_msg(), sub) == NULL; }

// Every mistake at once: bad lines of the file, then bad --set options; and a
// cross-field problem is blamed on the --set that caused it, not the file.
static void test_all_errors_at_once_and_set_blame(void) {
    write_tmp("[model]\nlayers = 0\nfoo = 1\n[train]\nlr = 1\nlr = 2\nwarmup = abc\n[nope]\nx = 1\n");
    const char *sets[] = {"train.steps=0", "model.bogus=1", "train.warmup=5"};
    Config c;
    config_defaults(&c);
    err_clear();
    CHECK(config_load_all(&c, g_path, sets, 3) == ERR_USAGE);
    CHECK(msg_has("7 errors:"));
    CHECK(msg_has(":2: [model] layers") && msg_has(":3: [model] unknown key \"foo\""));
    CHECK(msg_has(":6: [train] duplicate key") && msg_has(":7: [train] warmup") && msg_has(":8: unknown section"));
    CHECK(msg_has("--set train.steps=0: ") && msg_has("--set model.bogus=1: "));
    CHECK(msg_lacks("x = 1") && msg_lacks("outside any section"));  // keys of an unknown section: not blamed twice
    // cross-field checks: each problem blamed where its value came from
    write_tmp("[data]\npath = x.txt\n[model]\nd_model = 128\nheads = 4\n[train]\nlr = 1e-3\n");
    const char *sets2[] = {"model.heads=3", "train.min_lr = 1"};
    config_defaults(&c);
    CHECK(config_load_all(&c, g_path, sets2, 2) == ERR_USAGE);
    CHECK(msg_has("2 errors:"));
    CHECK(msg_has("--set model.heads=3: [model] d_model 128 is not divisible by heads 3"));
    CHECK(msg_has("--set train.min_lr = 1: [train] min_lr 1 is larger than lr"));
    // a --set that does not parse does not hide a cross-field problem of another one
    const char *sets3[] = {"model.heads=3", "train.lr=abc", "model.layers=0"};
    config_defaults(&c);
    CHECK(config_load_all(&c, g_path, sets3, 3) == ERR_USAGE);
    CHECK(msg_has("3 errors:") && msg_has("--set train.lr=abc") && msg_has("--set model.layers=0"));
    CHECK(msg_has("--set model.heads=3: [model] d_model 128 is not divisible by heads 3"));
    // the same problem from the file alone is the file's
    write_tmp("[data]\npath = x.txt\n[model]\nd_model = 128\nheads = 3\n");
    config_defaults(&c);
    CHECK(config_load_all(&c, g_path, NULL, 0) == ERR_USAGE);
    CHECK(msg_has(g_path) && msg_has("not divisible") && msg_lacks("--set"));
    // more than 20: the first 20 listed, the rest counted
    char text[4096] = "[model]\n";
    for (int i = 0; i < 25; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "bad%d = 1\n", i);
    write_tmp(text);
    config_defaults(&c);
    CHECK(config_load_all(&c, g_path, NULL, 0) == ERR_USAGE);
    CHECK(msg_has("25 errors:") && msg_has("bad19") && msg_lacks("bad20") && msg_has("and 5 more"));
}

// A config's name from the README's table given as a kind: the message says
// which keys it stands for.
static void test_composite_kind_names(void) {
    const struct { const char *set, *says; } cases[] = {
        {"attention.kind=delta_data", "kind = delta with decay = data"},
        {"attention.kind=linear_decay_data", "kind = linear_decay with decay = data"},
        {"attention.kind=delta_sum", "kind = delta with key_norm = sum"},
        {"attention.kind=nopos_softmax", "kind = softmax with pos = none"},
        {"attention.kind=nopos_delta_sum", "kind = delta with pos = none, key_norm = sum"},
        {"attention.kind=recall_linear", "kind = linear with task = recall"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Config c;
        valid_config(&c);
        err_clear();
        CHECK(config_set(&c, cases[i].set) == 0);
        CHECK(config_validate(&c, "x") == ERR_USAGE);
        CHECK(msg_has("unknown attention kind") && msg_has(cases[i].says) && msg_has("--config"));
        if (!msg_has(cases[i].says)) fprintf(stderr, "  %s: %s\n", cases[i].set, err_msg());
    }
    Config c;  // a plain unknown name gets the list, no composite hint
    valid_config(&c);
    CHECK(config_set(&c, "attention.kind=deltaa") == 0 && config_validate(&c, "x") == ERR_USAGE);
    CHECK(msg_has("expected one of") && msg_lacks(" with "));
}

int main(void) {
    TEST(test_composite_kind_names);
    TEST(test_all_errors_at_once_and_set_blame);
    TEST(test_ini_lines);
    TEST(test_ini_reader_lines);
    TEST(test_defaults);
    TEST(test_load_every_key);
    TEST(test_load_partial_keeps_rest);
    TEST(test_bools_and_enums);
    TEST(test_name_from_file);
    TEST(test_missing_file);
    TEST(test_load_text);
    TEST(test_error_bad_number);
    TEST(test_error_bad_integer);
    TEST(test_error_out_of_range);
    TEST(test_error_bool_enum_string);
    TEST(test_error_unknown_section);
    TEST(test_error_unknown_key);
    TEST(test_error_duplicate_key);
    TEST(test_error_key_outside_section);
    TEST(test_error_malformed_lines);
    TEST(test_decay_init);
    TEST(test_set);
    TEST(test_set_errors);
    TEST(test_validate);
    TEST(test_validate_recall);
    TEST(test_validate_absurd_sizes);
    TEST(test_key_norm_and_decay);
    TEST(test_identity_normalize);
    TEST(test_kind_defaults);
    TEST(test_round_trip);
    TEST(test_write_error);
    TEST(test_diff);
    TEST(test_repo_configs);
    TEST(test_recall_configs);
    return test_summary();
}
