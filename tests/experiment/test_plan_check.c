// test_plan_check.c — run names an ablation can use, a plan read back as it
// was written (names with ".." inside), and how a new plan relates to the
// one a folder records (experiment/plan_check.h).
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment/plan.h"
#include "experiment/plan_check.h"
#include "test.h"
#include "util/err.h"

static char g_dir[64];

static void test_names(void) {
    const char *ok[] = {"softmax", "linear_decay", "lin..v2", "my run", "seed", "seedling", "sweep", "a<b&c", "report"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK(plan_name_problem(ok[i]) == NULL);
        if (plan_name_problem(ok[i])) fprintf(stderr, "  %s: %s\n", ok[i], plan_name_problem(ok[i]));
    }
    const char *bad[] = {"report.md", "report.html", "curves.svg", "curves_zoom.svg", "curves_diff.svg",
                         "ablation.tsv", ".lmtrain.lock", ".", "..", ".hidden", "sweep_lr", "seed5", "seed1337",
                         "a|b", "a`b", "a\tb"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(plan_name_problem(bad[i]) != NULL);
        if (!plan_name_problem(bad[i])) fprintf(stderr, "  accepted: %s\n", bad[i]);
    }
}

static void three_kinds(Plan *p, int seeds, int kinds) {
    const char *names[] = {"softmax", "linear", "lin..v2"};
    memset(p, 0, sizeof *p);
    for (int s = 0; s < seeds; s++)
        for (int k = 0; k < kinds; k++) plan_add(p, names[k], 5 + (unsigned long long)s, "", "", k);
}

// A plan written and read back: the same runs, ".." inside a name included;
// a line whose folder leaves the ablation ("../x", "a/./b") is malformed.
static void test_round_trip(void) {
    Plan p, q;
    three_kinds(&p, 2, 3);
    plan_add(&p, "linear", 5, "train.lr", "2e-3", 1);
    CHECK(plan_write(&p, g_dir) == 0);
    CHECK(plan_read(&q, g_dir) == 0);
    CHECK(q.n == p.n);
    for (size_t i = 0; i < p.n && i < q.n; i++) {
        CHECK(!strcmp(p.run[i].rel, q.run[i].rel) && !strcmp(p.run[i].group, q.run[i].group));
        CHECK(p.run[i].seed == q.run[i].seed && !strcmp(p.run[i].sweep_value, q.run[i].sweep_value));
    }
    CHECK(q.n == 7 && !strcmp(q.run[2].rel, "lin..v2/seed5") && !strcmp(q.run[2].name, "lin..v2"));
    plan_free(&q);
    plan_free(&p);
    char path[128];
    snprintf(path, sizeof path, "%s/ablation.tsv", g_dir);
    const char *escapes[] = {"../x/seed5\t../x\t5\t-\t-\n", "a/./b/seed5\ta/./b\t5\t-\t-\n", "/abs/seed5\t/abs\t5\t-\t-\n"};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path, "w");
        fputs(escapes[i], f);
        fclose(f);
        CHECK(plan_read(&q, g_dir) == ERR_RUNTIME && strstr(err_msg(), "malformed"));
        err_clear();
    }
    unlink(path);
}

static void test_relation(void) {
    Plan rec, p, got;
    PlanRelation rel;
    char why[512];
    three_kinds(&p, 2, 3);
    CHECK(plan_relation(&p, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_NEW);
    plan_free(&got);
    three_kinds(&rec, 2, 3);
    CHECK(plan_write(&rec, g_dir) == 0);
    // the same runs in another order: the same plan
    Plan shuffled = {0};
    for (size_t i = p.n; i-- > 0;) plan_add(&shuffled, p.run[i].name, p.run[i].seed, "", "", 0);
    CHECK(plan_relation(&shuffled, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_SAME);
    plan_free(&got);
    plan_free(&shuffled);
    // fewer configs, fewer seeds: part of it
    Plan fewer;
    three_kinds(&fewer, 2, 2);
    CHECK(plan_relation(&fewer, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_PART && got.n == 6);
    plan_free(&got);
    plan_free(&fewer);
    three_kinds(&fewer, 1, 3);
    CHECK(plan_relation(&fewer, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_PART);
    plan_free(&got);
    plan_free(&fewer);
    // more seeds: extends it
    Plan more;
    three_kinds(&more, 3, 3);
    CHECK(plan_relation(&more, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_EXTENDS);
    plan_free(&got);
    plan_free(&more);
    // fewer configs with more seeds, or a sweep cell instead of a config: another plan, named
    three_kinds(&more, 3, 2);
    CHECK(plan_relation(&more, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_OTHER);
    CHECK(strstr(why, "it plans lin..v2/seed5/ and not softmax/seed7/") != NULL);
    if (!strstr(why, "lin..v2/seed5/")) fprintf(stderr, "  why: %s\n", why);
    plan_free(&got);
    plan_free(&more);
    three_kinds(&more, 2, 3);
    more.run[0].seed = 9;  // the same folder name, another seed: not the same run
    CHECK(plan_relation(&more, g_dir, &rel, &got, why, sizeof why) == 0 && rel == PLAN_OTHER);
    plan_free(&got);
    plan_free(&more);
    plan_free(&rec);
    plan_free(&p);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/lmtrain-plan-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    TEST(test_names);
    TEST(test_round_trip);
    TEST(test_relation);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", g_dir);
    return test_summary();
}
