// test_help.c — every subcommand explains itself: `lmtrain CMD --help` exits 0
// with its usage and every option with its default (or "required"), and the
// top-level help lists every command. The commands come from the same table
// main() dispatches from, so a new command is covered without editing this.
#include <string.h>

#include "../test.h"
#include "cmd/commands.h"
#include "e2e.h"

static size_t count(const char *s, const char *what) {
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

// Options are the lines "  --name ..." of the options list, --help excluded.
static size_t option_lines(const char *s) {
    size_t n = 0;
    for (const char *p = strstr(s, "\n  --"); p; p = strstr(p + 1, "\n  --"))
        if (strncmp(p, "\n  --help ", 10) != 0) n++;
    return n;
}

// A default that is a number of 10 digits or more, or negative: a sentinel
// (SIZE_MAX, UINT32_MAX, -1) standing for something the help should say in words.
static int raw_sentinel(const char *s) {
    for (const char *p = strstr(s, "(default: "); p; p = strstr(p + 1, "(default: ")) {
        const char *v = p + strlen("(default: ");
        if (*v == '-') return 1;
        size_t digits = strspn(v, "0123456789");
        if (digits >= 10) return 1;
    }
    return 0;
}

static void test_every_command_help(void) {
    int n = 0;
    for (const Command *c = commands; c->name; c++, n++) {
        char *argv[] = {(char *)c->name, "--help", NULL};
        int rc = run_lmtrain(argv);
        CHECK(rc == 0);
        char want[64];
        snprintf(want, sizeof want, "usage: lmtrain %s", c->name);
        CHECK(strncmp(e2e_out, want, strlen(want)) == 0);
        CHECK(strstr(e2e_out, "  --help ") != NULL);
        // each option states its default, or that it is required
        size_t opts = option_lines(e2e_out);
        CHECK(count(e2e_out, "(default: ") + count(e2e_out, "(required)") == opts);
        // ... in words a user can read: no sentinel printed raw (inspect's
        // --layer once showed SIZE_MAX, 18446744073709551615, for "the last")
        CHECK(!raw_sentinel(e2e_out));
        if (raw_sentinel(e2e_out)) fprintf(stderr, "  %s --help shows a raw sentinel default\n", c->name);
        // -h is the same, and --help wins wherever it stands
        char *argv2[] = {(char *)c->name, "--bogus-before", "-h", NULL};
        CHECK(run_lmtrain(argv2) == 0 && strncmp(e2e_out, want, strlen(want)) == 0);
        if (rc) fprintf(stderr, "  %s --help: %s\n", c->name, e2e_out);
    }
    CHECK(n >= 8);
}

static void test_defaults_shown(void) {
    char *argv[] = {"sample", "--help", NULL};
    CHECK(run_lmtrain(argv) == 0);
    CHECK(strstr(e2e_out, "--tokens N") && strstr(e2e_out, "(default: 500)"));
    CHECK(strstr(e2e_out, "(default: 1337)") && strstr(e2e_out, "--run DIR"));
    // defaults, not the values given before --help
    char *argv2[] = {"sample", "--tokens", "7", "--help", NULL};
    CHECK(run_lmtrain(argv2) == 0 && strstr(e2e_out, "(default: 500)") && !strstr(e2e_out, "(default: 7)"));
    // a value that is the text "--help" is a value
    char *argv3[] = {"sample", "--prompt", "--help", NULL};
    CHECK(run_lmtrain(argv3) == 2 && strstr(e2e_out, "missing --run"));
}

static void test_top_level_help(void) {
    char *argv[] = {"--help", NULL};
    CHECK(run_lmtrain(argv) == 0);
    for (const Command *c = commands; c->name; c++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %s ", c->name);
        CHECK(strstr(e2e_out, line) != NULL);
    }
    // `lmtrain --config X --help` is train's help
    char *argv2[] = {"--config", "x", "--help", NULL};
    CHECK(run_lmtrain(argv2) == 0 && strstr(e2e_out, "usage: lmtrain train"));
}

static void test_key_equals_value(void) {
    // the same usage errors through both spellings: the value reaches the parser
    char *a[] = {"sample", "--run=/no/such/run", "--tokens=12x", NULL};
    CHECK(run_lmtrain(a) == 2 && strstr(e2e_out, "--tokens") && strstr(e2e_out, "'12x'"));
    char *b[] = {"sample", "--run=/no/such/run", "--tokens=12", NULL};
    CHECK(run_lmtrain(b) == 1 && strstr(e2e_out, "/no/such/run"));
    char *c[] = {"--config=/no/such.ini", NULL};
    CHECK(run_lmtrain(c) == 2 && strstr(e2e_out, "/no/such.ini"));
    char *d[] = {"--config", "/no/such.ini", "--resume=yes", NULL};
    CHECK(run_lmtrain(d) == 2 && strstr(e2e_out, "--resume takes no value"));
}

int main(void) {
    e2e_setup();
    TEST(test_every_command_help);
    TEST(test_defaults_shown);
    TEST(test_top_level_help);
    TEST(test_key_equals_value);
    e2e_teardown();
    return test_summary();
}
