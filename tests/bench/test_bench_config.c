// test_bench_config.c — `lmtrain bench` times each kind as `lmtrain train`
// runs it: bench_config resolves the keys whose default follows the kind
// (key_norm, feature_map) as a config file naming the kind does, and a --set
// that changes nothing changes nothing (before, bench's delta kept softmax's
// sum keys and elu+1 features until any --set re-resolved them).
#include "../test.h"
#include "attention/attention.h"
#include "bench/bench.h"
#include "config/config.h"

static void test_kind_defaults_as_in_a_config(void) {
    for (int k = 0; attn_kinds[k]; k++) {
        const char *kind = attn_kinds[k]->name;
        Config b, f;
        bench_config(&b, kind, 4, 4, 128, 64, 12, POS_LEARNED);
        config_defaults(&f);
        char set[64];
        snprintf(set, sizeof set, "attention.kind=%s", kind);
        CHECK(config_set(&f, set) == 0);
        CHECK(strcmp(b.kind, kind) == 0);
        CHECK(b.key_norm == f.key_norm && b.feature_map == f.feature_map);
        if (b.key_norm != f.key_norm || b.feature_map != f.feature_map)
            fprintf(stderr, "  %s: bench key_norm %d feature_map %d, a config %d %d\n", kind, (int)b.key_norm,
                    (int)b.feature_map, (int)f.key_norm, (int)f.feature_map);
    }
    // delta's own: L2 keys (the case that went wrong)
    Config d, s;
    config_defaults(&s);
    bench_config(&d, "delta", 4, 4, 128, 64, 12, POS_LEARNED);
    CHECK(d.key_norm != s.key_norm);
}

static void test_noop_set_changes_nothing(void) {
    Config a, b;
    bench_config(&a, "delta", 4, 4, 128, 64, 12, POS_LEARNED);
    CHECK(bench_add_set("model.heads=4") == 0);  // what bench_config sets anyway
    bench_config(&b, "delta", 4, 4, 128, 64, 12, POS_LEARNED);
    CHECK(a.key_norm == b.key_norm && a.feature_map == b.feature_map && a.heads == b.heads);
}

int main(void) {
    TEST(test_kind_defaults_as_in_a_config);
    TEST(test_noop_set_changes_nothing);
    return test_summary();
}
