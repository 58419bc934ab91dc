// test_report_pairs.c — the verdict lines of every pair of kinds
// (experiment/report_pairs.h) from hand-made pair statistics: the figure a
// verdict states is the whole-split difference (the eval-batches one is a
// decoy with other numbers), its direction, and which kind a resolved
// difference calls better, for a loss (lower is better) and for accuracy.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/report_pairs.h"
#include "test.h"

static GroupStats g_group[2];
static PairedDiff g_val[4], g_eval[4], g_acc[4];

// softmax then linear; pair (0, 1) is linear − softmax.
static Ablation two_kinds(int recall, PairedDiff whole, PairedDiff batches, PairedDiff acc) {
    Ablation a;
    memset(&a, 0, sizeof a);
    memset(g_group, 0, sizeof g_group);
    snprintf(g_group[0].label, sizeof g_group[0].label, "softmax");
    snprintf(g_group[1].label, sizeof g_group[1].label, "linear");
    a.group = g_group;
    a.n_group = a.n_main = 2;
    a.level = 0.95;
    a.recall = recall;
    g_eval[1] = whole;
    g_val[1] = batches;
    g_acc[1] = acc;
    a.pair_val = g_val;
    a.pair_eval = g_eval;
    a.pair_acc = g_acc;
    return a;
}

static char *verdicts(const Ablation *a) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    report_verdicts(a, f);
    fclose(f);
    return buf;
}

static void test_loss_verdicts(void) {
    PairedDiff lower = {3, -0.1234, 0.01, -0.15, -0.09}, decoy = {3, 0.5678, 0.01, 0.55, 0.58}, none = {0};
    Ablation a = two_kinds(0, lower, decoy, none);
    char *out = verdicts(&a);
    CHECK(strstr(out, "linear vs softmax: whole-split val loss lower by 0.1234") != NULL);
    CHECK(strstr(out, "-0.1500") && strstr(out, "-0.0900"));
    CHECK(strstr(out, "resolved — linear ends better than softmax.") != NULL);
    CHECK(strstr(out, "0.5678") == NULL);  // the eval-batches figure is not the verdict's
    if (!strstr(out, "lower by 0.1234") || !strstr(out, "ends better")) fprintf(stderr, "%s", out);
    free(out);
    PairedDiff higher = {3, 0.2, 0.01, 0.1, 0.3};
    a = two_kinds(0, higher, decoy, none);
    out = verdicts(&a);
    CHECK(strstr(out, "higher by 0.2000") && strstr(out, "resolved — linear ends worse than softmax."));
    free(out);
    PairedDiff noise = {3, 0.01, 0.05, -0.1, 0.12};
    a = two_kinds(0, noise, decoy, none);
    out = verdicts(&a);
    CHECK(strstr(out, "within noise") != NULL && strstr(out, "ends") == NULL);
    free(out);
}

// accuracy: higher is better
static void test_accuracy_verdicts(void) {
    PairedDiff up = {4, 0.05, 0.01, 0.02, 0.08}, decoy = {4, -0.3, 0.01, -0.4, -0.2};
    Ablation a = two_kinds(1, decoy, decoy, up);
    char *out = verdicts(&a);
    CHECK(strstr(out, "val accuracy higher by 0.050") && strstr(out, "resolved — linear ends better than softmax."));
    if (!strstr(out, "ends better")) fprintf(stderr, "%s", out);
    free(out);
}

int main(void) {
    TEST(test_loss_verdicts);
    TEST(test_accuracy_verdicts);
    return test_summary();
}
