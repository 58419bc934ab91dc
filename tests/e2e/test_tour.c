// test_tour.c — end to end: `lmtrain tour --quick` through the real binary.
// The page has the ten sections in the article's order, each with the exact
// command, at least one inline picture and its "what to see" sentence; the
// page names no network address and runs no script; the refusal section
// quotes the real command's stderr and exit status 2 (and that run wrote
// nothing); the training-edge marker is on the eval --length chart; a second
// tour reuses the finished runs (and resumes one stopped part-way) and
// rebuilds the page.
#include "../test.h"
#include "e2e.h"

static const char *const SECTIONS[] = {"write", "capacity", "horizon", "cost", "forms",
                                       "phi", "fp16", "recall", "window", "trade"};
enum { N_SECTIONS = sizeof SECTIONS / sizeof SECTIONS[0] };

static char out[512], corpus[512];

// The trade's sentence, rebuilt from a run's metrics.csv (its first nine columns are fixed: val_loss 5th,
// ..., cpu_s 9th): "softmax C CPU-seconds" and "loss of L" from its last evaluated row.
static void last_eval(const char *kind, char *cpu, char *loss, size_t n) {
    char path[700];
    snprintf(path, sizeof path, "%s/frontier/%s/seed1337/metrics.csv", out, kind);
    char *text = read_all(path, NULL);
    cpu[0] = loss[0] = 0;
    if (!text) return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[9] = {0};
        int k = 0;
        for (char *p = line; k < 9; k++) {  // fields may be empty: split by hand
            f[k] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = 0, p = c + 1;
        }
        if (k >= 8 && f[4][0] && f[0][0] >= '0' && f[0][0] <= '9')
            snprintf(cpu, n, "%.1f", atof(f[8])), snprintf(loss, n, "%.3f", atof(f[4]));
    }
    free(text);
}

static int run_tour(void) {
    char *argv[] = {"tour", "--quick", "--out", out, "--data", corpus, NULL};
    return run_lmtrain(argv);
}

static void test_tour_page(void) {
    tpath(out, sizeof out, "tour");
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 60000);
    int rc = run_tour();
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    char path[600];
    snprintf(path, sizeof path, "%s/index.html", out);
    size_t n = 0;
    char *page = read_all(path, &n);
    CHECK(page != NULL);
    if (!page) return;
    // every section, in order, with its command, a picture and what to see
    const char *prev = page;
    for (int i = 0; i < N_SECTIONS; i++) {
        char h2[64];
        snprintf(h2, sizeof h2, "<h2 id=\"%s\">", SECTIONS[i]);
        const char *at = strstr(page, h2);
        CHECK(at != NULL && at >= prev);
        if (!at) continue;
        const char *end = strstr(at + 1, "<h2 ");
        if (!end) end = page + n;
        size_t len = (size_t)(end - at);
        char *sec = strndup(at, len);
        if (!strstr(sec, "<svg") || !strstr(sec, "</svg>")) fprintf(stderr, "section %s: no picture\n", SECTIONS[i]);
        CHECK(strstr(sec, "<svg") && strstr(sec, "</svg>"));
        CHECK(strstr(sec, "<pre>$ lmtrain") != NULL);
        CHECK(strstr(sec, "What to see: ") != NULL);
        CHECK(strstr(sec, "class=\"fail\"") == NULL);  // no step failed, no picture missing
        free(sec);
        prev = at;
    }
    // offline: no address, no script, no external resource
    static const char *const banned[] = {"http:", "https:", "//www.", "<script", "src=", "@import", "<link", "url(http"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++) {
        if (strstr(page, banned[i])) fprintf(stderr, "the page has \"%s\"\n", banned[i]);
        CHECK(strstr(page, banned[i]) == NULL);
    }
    // the refusal, quoted from the real command: its reason and its status; it wrote nothing
    const char *phi = strstr(page, "<h2 id=\"phi\">");
    CHECK(phi && strstr(phi, "(exit status 2)") && strstr(phi, "feature_map = identity with normalize = true"));
    snprintf(path, sizeof path, "%s/runs/refused", out);
    CHECK(!file_exists(path));
    // past the training window: the edge (block_size 32 in --quick) is marked
    const char *win = strstr(page, "<h2 id=\"window\">");
    CHECK(win && strstr(win, "class=\"x-mark\" data-x=\"32\""));
    // the trade: its ablation's CPU-seconds chart, and the sentence read from both runs' metrics
    const char *trade = strstr(page, "<h2 id=\"trade\">");
    CHECK(trade && strstr(trade, "Validation loss against training CPU-seconds") &&
          strstr(trade, "tokens of context the same steps took softmax "));
    char cs[32], ls[32], cl[32], ll[32], want[200];
    last_eval("softmax", cs, ls, sizeof cs);
    last_eval("linear_decay", cl, ll, sizeof cl);
    snprintf(want, sizeof want, "took softmax %s CPU-seconds and linear_decay %s", cs, cl);
    CHECK(cs[0] && cl[0] && trade && strstr(trade, want));
    snprintf(want, sizeof want, "to a validation loss of %s against %s", ls, ll);
    CHECK(ls[0] && ll[0] && trade && strstr(trade, want));
    free(page);

    // a second tour trains nothing it finished and rebuilds the page; a run stopped part-way (its
    // checkpoint saved, no summary.txt) is resumed, not trained from scratch
    snprintf(path, sizeof path, "%s/runs/recall_linear/summary.txt", out);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/index.html", out);
    CHECK(unlink(path) == 0);
    rc = run_tour();
    CHECK(rc == 0);
    CHECK(strstr(e2e_out, "runs/decay is finished: reused") != NULL);
    CHECK(strstr(e2e_out, "lmtrain --config configs/linear_decay.ini") == NULL);
    const char *again = strstr(e2e_out, "lmtrain --config configs/recall_linear.ini");
    const char *eol = again ? strchr(again, '\n') : NULL;
    CHECK(again && eol && strstr(again, " --resume") && strstr(again, " --resume") < eol);
    CHECK(file_exists(path));
}

// Refusals come before anything is made: a corpus that is missing or not a
// file, and a folder without configs/ (exit 2, no output folder).
static void test_tour_refusals(void) {
    char o[512], dir[512];
    tpath(o, sizeof o, "refused_tour");
    char *missing[] = {"tour", "--quick", "--out", o, "--data", "/nonexistent/corpus.txt", NULL};
    CHECK(run_lmtrain(missing) == 2);
    CHECK(strstr(e2e_out, "the corpus /nonexistent/corpus.txt: No such file or directory") != NULL);
    CHECK(!file_exists(o));
    tpath(dir, sizeof dir, "");
    char *folder[] = {"tour", "--quick", "--out", o, "--data", dir, NULL};
    CHECK(run_lmtrain(folder) == 2);
    CHECK(strstr(e2e_out, "not a regular file") != NULL);
    CHECK(!file_exists(o));
}

int main(void) {
    e2e_setup();
    TEST(test_tour_page);
    TEST(test_tour_refusals);
    e2e_teardown();
    return test_summary();
}
