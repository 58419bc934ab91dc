// test_delta_ahead.c — the rows the token recurrence asks for ahead
// (delta_chunk.h: delta_ahead, delta_ahead_rows) are those of the chunk it
// works on next. Prefetching changes no value, so no output test can see a
// wrong chunk there: only the lost speed would. Here the run order is spelt
// out (a task's slabs one after another; forward: chunks ascending, backward:
// descending) and every chunk's ahead must name the next chunk in it, the
// last one nothing; and the steps of a chunk must ask for every row of the
// chunk ahead once, in order, whatever the two lengths.
#include "attention/delta_chunk.h"
#include "test.h"

static size_t chunk_len(size_t T, size_t chunk, size_t c) {
    return T - c * chunk < chunk ? T - c * chunk : chunk;
}

static void test_ahead_is_the_next_chunk_run(void) {
    enum { SLABS = 3 };
    size_t Ts[] = {1, 5, 64, 130}, chunks[] = {1, 3, 64, 200};
    // where each slab's rows start (q and y): arbitrary, increasing, as delta.c's
    ptrdiff_t base[SLABS] = {0, 32, 388 * 64}, base_y[SLABS] = {0, 32, 128 * 64};
    for (size_t a = 0; a < sizeof Ts / sizeof Ts[0]; a++)
        for (size_t b = 0; b < sizeof chunks / sizeof chunks[0]; b++)
            for (int backward = 0; backward <= 1; backward++) {
                size_t T = Ts[a], chunk = chunks[b] < T ? chunks[b] : T, nch = (T + chunk - 1) / chunk;
                // the run order: (slab, chunk) pairs
                size_t order[SLABS * 200][2], n = 0;
                for (size_t s = 0; s < SLABS; s++)
                    for (size_t i = 0; i < nch; i++) order[n][0] = s, order[n][1] = backward ? nch - 1 - i : i, n++;
                for (size_t i = 0; i < n; i++) {
                    size_t s = order[i][0], c = order[i][1];
                    DeltaSlab p = {.T = T, .dh = 4, .chunk = chunk, .ld = 388, .ldy = 128};
                    if (s + 1 < SLABS)
                        p.has_next = 1, p.next = base[s + 1] - base[s], p.next_y = base_y[s + 1] - base_y[s];
                    DeltaAhead A = delta_ahead(&p, c, backward);
                    if (i + 1 == n) {
                        CHECK(A.L == 0);
                        continue;
                    }
                    size_t s2 = order[i + 1][0], c2 = order[i + 1][1];
                    CHECK(A.t0 == c2 * chunk);
                    CHECK(A.L == chunk_len(T, chunk, c2));
                    CHECK(A.off == base[s2] - base[s]);
                    CHECK(A.off_y == base_y[s2] - base_y[s]);
                }
            }
}

static void test_steps_cover_the_chunk_ahead_once(void) {
    for (size_t L = 1; L <= 70; L++)
        for (size_t La = 0; La <= 70; La++) {
            size_t next = 0;  // the first row not yet asked for
            for (size_t s = 0; s < L; s++) {
                size_t lo, hi;
                delta_ahead_rows(La, s, L, &lo, &hi);
                CHECK(lo == next && hi >= lo);
                next = hi;
            }
            CHECK(next == La);
        }
}

int main(void) {
    TEST(test_ahead_is_the_next_chunk_run);
    TEST(test_steps_cover_the_chunk_ahead_once);
    return test_summary();
}
