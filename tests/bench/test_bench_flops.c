// test_bench_flops.c — the FLOP model of `lmtrain bench` (src/bench/bench_flops.c)
// against a count of what the kernels actually multiply.
//
// Every matrix product of a forward + backward goes through a counter
// (gemm_counter.h). The formula is derived by hand from the
// kernels; the count must match it exactly (both are integers below 2^53).
#include "../test.h"
#include "gemm_counter.h"
#include "model/model.h"
#include "bench/bench.h"

// The model of c over an 11-token vocabulary, its (B, T) training graph and a
// random batch (the counts do not depend on the tokens, only on the shapes).
static void build(Model *m, Graph *g, const Config *c, size_t B, size_t T) {
    model_build(m, c, 11);
    graph_build(g, m, B, T);
    bench_random_tokens(g->tokens, B * T, 11, 3);
    bench_random_tokens(g->targets, B * T, 11, 4);
}

// Counted FLOPs of one forward + backward vs the formula, for one model.
static void check(const char *kind, size_t B, size_t T, int chunk, int normalize, int ffn, int pos_none) {
    Config c;
    bench_config(&c, kind, 2, 2, 16, (int)T, (int)B, pos_none ? POS_NONE : POS_LEARNED);
    c.chunk = chunk;
    c.normalize = normalize;
    c.ffn_mult = ffn;
    Model m;
    Graph g;
    build(&m, &g, &c, B, T);
    BenchFlops f = bench_flops_per_token(&m, T);
    // the forward alone: a third of the dense multiplies, and attention's forward share
    g_gemm_flops = 0;
    graph_forward(&g);
    double want_fwd = (f.dense / 3 + f.attention_fwd) * (double)(B * T);
    CHECK(f.attention_fwd > 0 && f.attention_fwd < f.attention);
    CHECK_NEAR(g_gemm_flops, want_fwd, 1e-9 * want_fwd);
    if (fabs(g_gemm_flops - want_fwd) > 1e-9 * want_fwd)
        fprintf(stderr, "  %s forward: counted %.0f, formula %.0f\n", kind, g_gemm_flops, want_fwd);
    g_gemm_flops = 0;
    double loss = graph_forward_backward(&g, &m);
    double want = (f.dense + f.attention) * (double)(B * T);
    CHECK(isfinite(loss));
    CHECK(f.attention > 0);
    CHECK_NEAR(g_gemm_flops, want, 0.0);
    if (g_gemm_flops != want)
        fprintf(stderr, "  %s B=%zu T=%zu chunk=%d normalize=%d ffn=%d: counted %.0f, formula %.0f\n", kind, B,
                T, chunk, normalize, ffn, g_gemm_flops, want);
    graph_free(&g);
    model_free(&m);
}

static void test_softmax_matches_count(void) {
    check("softmax", 2, 5, 64, 1, 4, 0);     // one partial tile
    check("softmax", 1, 64, 64, 1, 4, 1);    // exactly one tile
    check("softmax", 2, 150, 64, 1, 0, 1);   // 3 query tiles, the last partial; attention-only blocks
}

static void test_linear_kinds_match_count(void) {
    const char *kinds[] = {"linear", "linear_decay"};
    for (int i = 0; i < 2; i++) {
        check(kinds[i], 2, 40, 16, 1, 4, 0);  // 3 chunks, the last partial (8)
        check(kinds[i], 1, 40, 16, 0, 4, 1);  // without the normaliser column (w = dh)
        check(kinds[i], 2, 10, 64, 1, 4, 1);  // chunk longer than T: one chunk of T
        check(kinds[i], 1, 33, 1, 1, 0, 1);   // chunk 1: the purely recurrent extreme
    }
}

// delta at dh >= 64 runs the WY/UT chunkwise form, all of it GEMMs but the
// triangular solves (forward one, backward two: L(L−1)dh each per chunk),
// which the GEMM counter cannot see: the count must be the formula less those.
static void check_delta_wy(size_t B, size_t T, int chunk) {
    Config c;
    bench_config(&c, "delta", 1, 1, 64, (int)T, (int)B, POS_NONE);
    c.chunk = chunk;
    c.ffn_mult = 0;
    Model m;
    Graph g;
    build(&m, &g, &c, B, T);
    BenchFlops f = bench_flops_per_token(&m, T);
    double solves = 0, d = 64;  // per slab, forward's share is a third
    for (size_t t0 = 0; t0 < T; t0 += (size_t)chunk) {
        double L = (double)(T - t0 < (size_t)chunk ? T - t0 : (size_t)chunk);
        solves += 3 * L * (L - 1) * d;
    }
    double slabs = (double)B * (double)m.H * (double)m.L;
    g_gemm_flops = 0;
    graph_forward(&g);
    double want_fwd = f.dense / 3 * (double)(B * T) + f.attention_fwd * (double)(B * T) - slabs * solves / 3;
    CHECK_NEAR(g_gemm_flops, want_fwd, 0.0);
    if (g_gemm_flops != want_fwd) fprintf(stderr, "  delta WY forward: counted %.0f, formula %.0f\n", g_gemm_flops, want_fwd);
    g_gemm_flops = 0;
    CHECK(isfinite(graph_forward_backward(&g, &m)));
    double want = (f.dense + f.attention) * (double)(B * T) - slabs * solves;
    CHECK_NEAR(g_gemm_flops, want, 0.0);
    if (g_gemm_flops != want) fprintf(stderr, "  delta WY T=%zu chunk=%d: counted %.0f, formula %.0f\n", T, chunk, g_gemm_flops, want);
    graph_free(&g);
    model_free(&m);
}

static void test_delta_wy_matches_count(void) {
    check_delta_wy(2, 40, 16);  // 3 chunks, the last partial
    check_delta_wy(1, 10, 64);  // chunk longer than T
    check_delta_wy(1, 9, 1);    // chunk 1
}

// The closed forms quoted in bench_flops.c, for full tiles / chunks.
static void test_closed_forms(void) {
    Config c;
    bench_config(&c, "softmax", 4, 4, 128, 4096, 1, POS_NONE);
    Model m;
    model_build(&m, &c, 65);
    BenchFlops f = bench_flops_per_token(&m, 4096);
    // 6 x (L (3C^2 + C^2 + 2 F C) + V C)
    CHECK_NEAR(f.dense, 6.0 * (4 * (3 * 128 * 128 + 128 * 128 + 2 * 512 * 128) + 65 * 128), 0.0);
    // 7 C (T + 64) per layer: sum over tile pairs of 14 * 64^2 * dh over H heads, / T
    CHECK_NEAR(f.attention, 4 * 7.0 * 128 * (4096 + 64), 0.0);
    model_free(&m);
    bench_config(&c, "linear", 4, 4, 128, 4096, 1, POS_NONE);
    model_build(&m, &c, 65);
    f = bench_flops_per_token(&m, 4096);
    // per layer per token, chunk c = 64, d = 32, w = 33: c (63d/8 + 9w/8) + 8 d w + 4 d², times H,
    // less what the first chunk (three 2·c·d·w products of a zero state) and the last (two
    // 2·c·d·d) skip, once per sequence. The c terms: the three lower triangles of A Bᵀ (A
    // twice, G) at 3/4 of 2c²d each, the four masked products (A Ṽ over w, three over d) at
    // 9/16 of 2c²d or 2c²w (linear.c: linear_flops)
    CHECK_NEAR(f.attention,
               4 * 4 * (64.0 * (63.0 * 32 / 8 + 9.0 * 33 / 8) + 8.0 * 32 * 33 + 4.0 * 32 * 32 -
                        (3 * 2.0 * 64 * 32 * 33 + 2 * 2.0 * 64 * 32 * 32) / 4096),
               0.0);
    model_free(&m);
}

int main(void) {
    TEST(test_softmax_matches_count);
    TEST(test_linear_kinds_match_count);
    TEST(test_delta_wy_matches_count);
    TEST(test_closed_forms);
    return test_summary();
}
