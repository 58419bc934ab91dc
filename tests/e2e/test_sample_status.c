// test_sample_status.c — end to end: what `lmtrain sample` prints around its
// text. The status lines start on a line of their own after generated text
// that does not end with a line break (stdout to a file, not a terminal: a
// line break on stderr, so stdout keeps exactly the text), and when a
// pos = learned run rebuilds its context the status says in one line how
// often and why.
#include "../test.h"
#include "e2e.h"

static void test_text_ends_with_a_newline_and_rebuilds_are_explained(void) {
    char corpus[512], run[512];
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(run, sizeof run, "run");
    write_corpus(corpus, 40000);
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[run]\nname = tiny\nthreads = 1\n[data]\npath = %s\n"
             "[model]\nlayers = 1\nheads = 2\nd_model = 16\nblock_size = 16\npos = learned\n"
             "[attention]\nkind = linear_decay\n"
             "[train]\nsteps = 4\nbatch_size = 2\nwarmup = 1\neval_every = 4\neval_batches = 1\n"
             "checkpoint_every = 4\n", corpus);
    CHECK(train_from_text(run, ini, NULL) == 0);
    // 40 tokens from a 3-token prompt ("the" is in write_corpus's text) in windows of 16: rebuilt at 16, 24, 32 and 40 tokens
    char *argv[] = {"sample", "--run", run, "--prompt", "the", "--tokens", "40", "--seed", "3", NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    const char *status = strstr(e2e_out, "sample: 40 tokens generated");
    CHECK(status != NULL && status > e2e_out);
    if (status && status > e2e_out) CHECK(status[-1] == '\n');
    const char *why = strstr(e2e_out, "sample: the context was rebuilt ");
    CHECK(why != NULL);
    if (why) {
        const char *eol = strchr(why, '\n');
        size_t n = 0;
        CHECK(sscanf(why, "sample: the context was rebuilt %zu times", &n) == 1 && n >= 1);
        // the reason, on the same line
        const char *reason = strstr(why, "learned positions 0..15 only (pos = learned)");
        CHECK(reason != NULL && eol && reason < eol);
    }
}

int main(void) {
    (void)metrics_without_timing, (void)same_params;
    e2e_setup();
    TEST(test_text_ends_with_a_newline_and_rebuilds_are_explained);
    e2e_teardown();
    return test_summary();
}
