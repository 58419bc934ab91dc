// test_frontier_crossover.c — the crossover rule of experiment/frontier.h on
// hand-made cells: the shortest length from which on (every longer length
// too) a kind reaches the baseline's loss in fewer CPU-seconds, its interval
// below 1 and every seed there; with one seed, the point estimates.
#include "../test.h"
#include "experiment/frontier.h"

static void cell(Frontier *f, size_t l, size_t k, double ratio, double lo, double hi, int n, int reached) {
    f->cell[l][k].to_base = (PairedRatio){n, ratio, lo, hi};
    f->cell[l][k].reached = reached;
}

static void setup(Frontier *f, size_t seeds) {
    memset(f, 0, sizeof *f);
    f->n_len = 3, f->n_kinds = 3, f->n_seeds = seeds;
    f->length[0] = 64, f->length[1] = 256, f->length[2] = 1024;
    for (size_t l = 0; l < 3; l++)
        for (size_t k = 1; k < 3; k++) cell(f, l, k, 1.2, 1.1, 1.3, 3, 3);  // slower everywhere
}

static void test_from_a_length_on(void) {
    Frontier f;
    setup(&f, 3);
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 0);
    cell(&f, 1, 1, 0.8, 0.7, 0.9, 3, 3);  // kind 1 faster at 256 and 1024
    cell(&f, 2, 1, 0.6, 0.5, 0.7, 3, 3);
    cell(&f, 2, 2, 0.4, 0.3, 0.5, 3, 3);  // kind 2 faster at 1024 only
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 256 && f.crossover_kind == 1);
    cell(&f, 1, 2, 0.5, 0.4, 0.6, 3, 3);  // now kind 2 from 256 too, and lower there: it is named
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 256 && f.crossover_kind == 2);
}

static void test_not_resolved_or_not_reached(void) {
    Frontier f;
    setup(&f, 3);
    cell(&f, 2, 1, 0.8, 0.6, 1.05, 3, 3);  // interval reaches past 1: not faster
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 0);
    cell(&f, 2, 1, 0.8, 0.6, 0.9, 3, 2);  // a seed never got to the baseline's loss
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 0);
    cell(&f, 1, 1, 0.8, 0.6, 0.9, 3, 3);  // faster at 256 but not at 1024: not "from 256 on"
    cell(&f, 2, 1, 1.1, 1.0, 1.2, 3, 3);
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 0);
}

static void test_one_seed_point_estimates(void) {
    Frontier f;
    setup(&f, 1);
    for (size_t l = 0; l < 3; l++) cell(&f, l, 1, 1.2, NAN, NAN, 1, 1);
    cell(&f, 2, 1, 0.9, NAN, NAN, 1, 1);
    frontier_find_crossover(&f);
    CHECK(f.crossover_len == 1024 && f.crossover_kind == 1);
}

int main(void) {
    TEST(test_from_a_length_on);
    TEST(test_not_resolved_or_not_reached);
    TEST(test_one_seed_point_estimates);
    return test_summary();
}
