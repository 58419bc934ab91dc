// test_inspect_defaults.c — end to end: what `lmtrain inspect` runs by
// default. The float16 loss study (the slowest analysis: a long stream read
// twice, token by token) is opt-in: skipped by default, saying so and how to
// run it, with no fp16_loss.csv written, and --help says it is off by
// default; --fp16-tokens N runs it. The drift study runs 10 000 tokens by
// default (its largest row). The horizon chart of a decay run has integer
// head ticks, a y axis from 0 and a black block_size line.
#include <math.h>

#include "../test.h"
#include "e2e.h"

static char run[512];

static void train_tiny(void) {
    char corpus[512];
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(run, sizeof run, "run");
    write_corpus(corpus, 40000);
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[run]\nname = tiny\nthreads = 1\n[data]\npath = %s\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\npos = none\n"
             "[attention]\nkind = linear_decay\n"
             "[train]\nsteps = 4\nbatch_size = 2\nwarmup = 1\neval_every = 4\neval_batches = 1\n"
             "checkpoint_every = 4\n", corpus);
    CHECK(train_from_text(run, ini, NULL) == 0);
}

static void test_fp16_loss_study_is_opt_in(void) {
    train_tiny();
    char *argv[] = {"inspect", "--run", run, "--stretch", "200", NULL};
    CHECK(run_lmtrain(argv) == 0);
    char path[600];
    snprintf(path, sizeof path, "%s/inspect/report.txt", run);
    char *rep = read_all(path, NULL);
    CHECK(rep != NULL);
    if (!rep) return;
    const char *s5 = strstr(rep, "== 5. float16 state");
    CHECK(s5 && strstr(s5, "skipped: --fp16-tokens 0") && strstr(s5, "--fp16-tokens 100000 runs it"));
    snprintf(path, sizeof path, "%s/inspect/fp16_loss.csv", run);
    CHECK(!file_exists(path));
    // the drift study: 10 000 generated tokens, its last row
    const char *s4 = strstr(rep, "== 4. float16 state drift ==");
    CHECK(s4 && strstr(s4, "10000 tokens generated") && strstr(s4, "\n     10000 "));
    free(rep);
    // the horizon chart: heads counted in integers, tokens from 0, block_size in black
    snprintf(path, sizeof path, "%s/inspect/lambda_horizon.svg", run);
    char *svg = read_all(path, NULL);
    CHECK(svg != NULL);
    if (svg) {
        size_t labels = 0;
        for (const char *p = strstr(svg, "\" y=\"463\" text-anchor=\"middle\">"); p;
             p = strstr(p + 1, "\" y=\"463\" text-anchor=\"middle\">")) {
            const char *v = strchr(p + 1, '>') + 1, *end = strchr(v, '<'), *dot = strchr(v, '.');
            CHECK(!dot || dot > end);
            labels++;
        }
        CHECK(labels >= 2);
        CHECK(strstr(svg, "text-anchor=\"end\">0</text>") != NULL);
        CHECK(strstr(svg, "#F0E442") == NULL && strstr(svg, "block_size (window)") != NULL);
        free(svg);
    }
    // opted in: the study runs and writes its table
    char *opt[] = {"inspect", "--run", run, "--stretch", "200", "--drift-tokens", "0", "--fp16-tokens", "300", NULL};
    CHECK(run_lmtrain(opt) == 0);
    snprintf(path, sizeof path, "%s/inspect/fp16_loss.csv", run);
    CHECK(file_exists(path));
}

static void test_help_says_off_by_default(void) {
    char *argv[] = {"inspect", "--help", NULL};
    CHECK(run_lmtrain(argv) == 0);
    const char *line = strstr(e2e_out, "--fp16-tokens N");
    CHECK(line && strstr(line, "off by default") && strstr(line, "(default: 0: skipped)"));
}

int main(void) {
    (void)metrics_without_timing, (void)same_params;
    e2e_setup();
    TEST(test_fp16_loss_study_is_opt_in);
    TEST(test_help_says_off_by_default);
    e2e_teardown();
    return test_summary();
}
