// test_args.c — the shared option parser (src/cmd/args.c): both value
// spellings, flags, repeats, positionals, ranges, required options, and every
// usage error naming the command and the option.
#include <string.h>

#include "../test.h"
#include "cmd/args.h"
#include "util/err.h"

typedef struct {
    const char *run, *list[4], *pos[3];
    size_t tokens;
    double temp;
    uint64_t seed;
    int flag;
    ArgList sets, files;
} Opts;

static int parse(Opts *o, char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    memset(o, 0, sizeof *o);
    o->tokens = 500;
    o->temp = 1.0;
    o->seed = 1337;
    o->sets = (ArgList){o->list, 4, 0};
    o->files = (ArgList){o->pos, 3, 0};
    const ArgOpt opts[] = {
        {"--run", ARG_STRING, &o->run, "DIR", .help = "run", .required = 1},
        {"--tokens", ARG_SIZE, &o->tokens, "N", .help = "tokens", .lo = 0, .hi = 1000},
        {"--temperature", ARG_DOUBLE, &o->temp, "T", .help = "temp", .lo = 0, .hi = 10},
        {"--seed", ARG_U64, &o->seed, "S", .help = "seed"},
        {"--quick", ARG_FLAG, &o->flag, NULL, .help = "flag"},
        {"--set", ARG_REPEAT, &o->sets, "K=V", .help = "set"},
    };
    const ArgSpec spec = {"demo", "--run DIR", "A demo.", ARGS_TABLE(opts), .positional = &o->files,
                          .positional_help = "FILE"};
    return args_parse(&spec, argc, argv);
}

#define ARGV(...) ((char *[]){"demo", __VA_ARGS__, NULL})

static void test_both_spellings(void) {
    Opts a, b;
    CHECK(parse(&a, ARGV("--run", "r", "--tokens", "12", "--temperature", "0.5", "--seed", "7")) == 0);
    CHECK(parse(&b, ARGV("--run=r", "--tokens=12", "--temperature=0.5", "--seed=7")) == 0);
    CHECK(a.tokens == 12 && b.tokens == 12 && a.temp == 0.5 && b.temp == 0.5 && a.seed == 7 && b.seed == 7);
    CHECK(!strcmp(a.run, "r") && !strcmp(b.run, "r"));
    // only the first '=' splits: the value may hold more
    CHECK(parse(&a, ARGV("--run=a=b", "--set=model.x=3")) == 0 && !strcmp(a.run, "a=b") &&
          a.sets.n == 1 && !strcmp(a.list[0], "model.x=3"));
    // an empty value is a value (and strict parsers refuse it)
    CHECK(parse(&a, ARGV("--run=")) == 0 && !strcmp(a.run, ""));
    CHECK(parse(&a, ARGV("--run", "r", "--tokens=")) == ERR_USAGE);
}

static void test_defaults_kept(void) {
    Opts a;
    CHECK(parse(&a, ARGV("--run", "r")) == 0);
    CHECK(a.tokens == 500 && a.temp == 1.0 && a.seed == 1337 && a.flag == 0 && a.sets.n == 0 && a.files.n == 0);
}

static void test_flags_repeats_positionals(void) {
    Opts a;
    CHECK(parse(&a, ARGV("x.ini", "--run", "r", "--set", "a=1", "y.ini", "--quick", "--set", "b=2")) == 0);
    CHECK(a.flag == 1 && a.sets.n == 2 && !strcmp(a.list[0], "a=1") && !strcmp(a.list[1], "b=2"));
    CHECK(a.files.n == 2 && !strcmp(a.pos[0], "x.ini") && !strcmp(a.pos[1], "y.ini"));
    CHECK(parse(&a, ARGV("--run", "r", "--set", "1", "--set", "2", "--set", "3", "--set", "4")) == 0);
    CHECK(parse(&a, ARGV("--run", "r", "--set", "1", "--set", "2", "--set", "3", "--set", "4", "--set", "5")) ==
          ERR_USAGE);
    CHECK(strstr(err_msg(), "demo") && strstr(err_msg(), "at most 4"));
    CHECK(parse(&a, ARGV("--run", "r", "a", "b", "c", "d")) == ERR_USAGE && strstr(err_msg(), "unexpected argument 'd'"));
}

static void test_errors(void) {
    Opts a;
    struct {
        char **argv;
        const char *says;
    } bad[] = {
        {ARGV("--tokens", "5"), "missing --run"},
        {ARGV("--run"), "--run needs a value"},
        {ARGV("--run", "r", "--bogus"), "unknown option '--bogus'"},
        {ARGV("--run", "r", "--bogus=1"), "unknown option '--bogus=1'"},
        {ARGV("--run", "r", "--tok", "5"), "unknown option '--tok'"},
        {ARGV("--run", "r", "--tokens", "12x"), "'12x'"},
        {ARGV("--run", "r", "--tokens", "-1"), "'-1'"},
        {ARGV("--run", "r", "--tokens", " 5"), "' 5'"},
        {ARGV("--run", "r", "--tokens", "1001"), "[0, 1000]"},
        {ARGV("--run", "r", "--temperature", "nan"), "--temperature"},
        {ARGV("--run", "r", "--temperature", "11"), "[0, 10]"},
        {ARGV("--run", "r", "--seed", "18446744073709551616"), "--seed"},
        {ARGV("--run", "r", "--quick=1"), "--quick takes no value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err_clear();
        int rc = parse(&a, bad[i].argv);
        CHECK(rc == ERR_USAGE);
        CHECK(strstr(err_msg(), "demo:") != NULL);
        CHECK(strstr(err_msg(), bad[i].says) != NULL);
        if (!strstr(err_msg(), bad[i].says)) fprintf(stderr, "  case %zu: %s\n", i, err_msg());
    }
    // the largest values are accepted
    CHECK(parse(&a, ARGV("--run", "r", "--tokens", "1000", "--seed", "18446744073709551615")) == 0);
    CHECK(a.tokens == 1000 && a.seed == UINT64_MAX);
}

static void test_no_positionals(void) {
    const char *run = NULL;
    const ArgOpt opts[] = {{"--run", ARG_STRING, &run, "DIR", .help = "run"}};
    const ArgSpec spec = {"solo", "", "Solo.", ARGS_TABLE(opts)};
    char *argv[] = {"solo", "stray", NULL};
    CHECK(args_parse(&spec, 2, argv) == ERR_USAGE && strstr(err_msg(), "unexpected argument 'stray'"));
}

static void test_help(void) {
    Opts a;
    // --help anywhere (not as a value) wins over errors after it and shows the defaults
    FILE *saved = stdout;
    char *buf = NULL;
    size_t len = 0;
    stdout = open_memstream(&buf, &len);
    int rc = parse(&a, ARGV("--tokens", "9", "--help", "--bogus"));
    fclose(stdout);
    stdout = saved;
    CHECK(rc == ARGS_HELP && args_status(rc) == 0);
    CHECK(buf && strstr(buf, "usage: lmtrain demo --run DIR"));
    CHECK(buf && strstr(buf, "--tokens N") && strstr(buf, "(default: 500)") && strstr(buf, "(default: 1337)"));
    CHECK(buf && strstr(buf, "(required)") && strstr(buf, "(default: off)") && strstr(buf, "repeatable"));
    free(buf);
    CHECK(args_status(ERR_USAGE) == ERR_USAGE && args_status(0) == 0);
    // "--run --help": --help is the run folder's name, not a request for help
    CHECK(parse(&a, ARGV("--run", "--help")) == 0 && !strcmp(a.run, "--help"));
}

// A sentinel default (outside the accepted range) is never printed raw: the
// table must give .shown_default, and with it the help shows those words.
static void test_sentinel_default(void) {
    size_t layer = SIZE_MAX;
    double lr = -1;
    ArgOpt opts[] = {
        {"--layer", ARG_SIZE, &layer, "L", .help = "layer", .lo = 0, .hi = 64},
        {"--lr", ARG_DOUBLE, &lr, "X", .help = "lr", .lo = 0, .hi = 1, .shown_default = "the config's"},
    };
    const ArgSpec spec = {"demo", "", "A demo.", ARGS_TABLE(opts)};
    char *argv[] = {"demo", "--help", NULL};
    err_clear();
    CHECK(args_parse(&spec, 2, argv) == ERR_USAGE && strstr(err_msg(), "--layer") &&
          strstr(err_msg(), "shown_default"));
    char *plain[] = {"demo", NULL};
    CHECK(args_parse(&spec, 1, plain) == ERR_USAGE);  // refused whether or not --help is asked
    opts[0].shown_default = "the last";
    FILE *saved = stdout;
    char *buf = NULL;
    size_t len = 0;
    stdout = open_memstream(&buf, &len);
    int rc = args_parse(&spec, 2, argv);
    fclose(stdout);
    stdout = saved;
    CHECK(rc == ARGS_HELP && buf && strstr(buf, "(default: the last)") && strstr(buf, "(default: the config's)"));
    CHECK(buf && !strstr(buf, "18446744073709551615") && !strstr(buf, "-1)"));
    free(buf);
    // a default inside the range needs no words
    layer = 64;
    opts[0].shown_default = NULL;
    CHECK(args_parse(&spec, 1, plain) == 0 && layer == 64);
}

// An unknown option near one in the table (a typo, a missing letter, a swap)
// names it; one far from all of them gets no guess.
static void test_did_you_mean(void) {
    Opts a;
    const struct { char **argv; const char *says; } near[] = {
        {ARGV("--run", "r", "--token", "5"), "did you mean '--tokens'?"},
        {ARGV("--run", "r", "--tmeperature=2"), "did you mean '--temperature'?"},
        {ARGV("--run", "r", "--sed", "3"), "did you mean '--seed'?"},
        {ARGV("--rnu", "r"), "did you mean '--run'?"},
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        err_clear();
        CHECK(parse(&a, near[i].argv) == ERR_USAGE);
        CHECK(strstr(err_msg(), "unknown option") && strstr(err_msg(), near[i].says));
        if (!strstr(err_msg(), near[i].says)) fprintf(stderr, "  case %zu: %s\n", i, err_msg());
    }
    err_clear();
    CHECK(parse(&a, ARGV("--run", "r", "--zzzzzzzz")) == ERR_USAGE);
    CHECK(strstr(err_msg(), "unknown option '--zzzzzzzz'") && !strstr(err_msg(), "did you mean"));
}

int main(void) {
    TEST(test_both_spellings);
    TEST(test_defaults_kept);
    TEST(test_flags_repeats_positionals);
    TEST(test_errors);
    TEST(test_no_positionals);
    TEST(test_help);
    TEST(test_sentinel_default);
    TEST(test_did_you_mean);
    return test_summary();
}
