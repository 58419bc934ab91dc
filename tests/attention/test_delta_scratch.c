// test_delta_scratch.c — both of delta's training forms (the token recurrence,
// delta_chunk.c, and the WY/UT form, delta_wy.c) leave nothing in their scratch
// that a later call reads.
//
// delta.c hands one scratch to all the slabs of a task (a thread's range of
// (b, h) slabs): it runs every slab's forward, then later every slab's
// backward, on that one buffer. So a slab's backward finds in the scratch what
// the range's last forward (another slab) or the backward before it left
// there, never its own forward's values. Here two slabs X and Y run in that
// order on one scratch (forward X, forward Y, backward X, backward Y) and each
// again alone on a scratch of NaN refilled before every call; every output and
// gradient must have the same bits both ways. test_delta_bits.c fills the
// recurrence's scratch with NaN before each call; test_delta_wy.c runs the WY
// form's forward and backward on one scratch, so a backward that read its own
// forward's leftovers (a chunk's k̂ not loaded again, say) would pass there.
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "attention/delta_chunk.h"
#include "attention/delta_wy.h"
#include "test.h"
#include "util/rng.h"

// One slab's inputs and what its forward and backward produce.
typedef struct {
    DeltaSlab p;
    float *q, *k, *v, *dy, *a, *lam_t, *ll;  // (T, d) q, k, v, dy; (T) a, λ_t, log λ_t
    float *saved;                            // the forward's saved states
    float *out;                              // y, dq, dk, dv (T, d), then da, dll (T)
    double norm, dsum;
} Slab;

static void fill(float *x, size_t n, float scale, Rng *r) {
    for (size_t i = 0; i < n; i++) x[i] = scale * rng_normal(r);
}
static void fill_nan(float *x, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] = NAN;
}
static size_t out_floats(const DeltaSlab *p) { return 4 * p->T * p->dh + 2 * p->T; }

static Slab slab_new(DeltaSlab p, int per_pos, uint64_t seed) {
    Slab s = {.p = p};
    size_t T = p.T, Td = T * p.dh;
    Rng r;
    rng_seed(&r, seed);
    s.q = malloc((4 * Td + 3 * T) * sizeof(float));
    s.k = s.q + Td, s.v = s.k + Td, s.dy = s.v + Td, s.a = s.dy + Td, s.lam_t = s.a + T, s.ll = s.lam_t + T;
    fill(s.q, 4 * Td, 1.0f, &r);
    fill(s.a, T, 1.5f, &r);
    double theta = 2.0;  // λ ≈ 0.88, per position around it
    for (size_t t = 0; t < T; t++) {
        double x = theta + 0.5 * rng_normal(&r);
        s.lam_t[t] = (float)decay_sigmoid(x);
        s.ll[t] = (float)decay_log_sigmoid(x);
    }
    s.p.lam = (float)decay_sigmoid(theta);
    s.p.loglam = decay_log_sigmoid(theta);
    s.p.lam_t = per_pos ? s.lam_t : NULL;
    s.p.ll = per_pos ? s.ll : NULL;
    s.saved = malloc(delta_saved_floats(&s.p) * sizeof(float));
    s.out = malloc(out_floats(&s.p) * sizeof(float));
    fill_nan(s.saved, delta_saved_floats(&s.p));
    memset(s.out, 0, out_floats(&s.p) * sizeof(float));  // the backward adds
    return s;
}

static void slab_free(Slab *s) { free(s->q), free(s->saved), free(s->out); }

static void forward(Slab *s, int wy, float *scratch) {
    s->norm = (wy ? delta_wy_forward : delta_chunk_forward)(&s->p, s->out, s->saved, scratch, s->q, s->k, s->v,
                                                            s->a);
}

static void backward(Slab *s, int wy, float *scratch) {
    size_t Td = s->p.T * s->p.dh;
    float *o = s->out, *dll = s->p.lam_t ? o + 4 * Td + s->p.T : NULL;
    s->dsum = (wy ? delta_wy_backward : delta_chunk_backward)(&s->p, o + Td, o + 2 * Td, o + 3 * Td, o + 4 * Td,
                                                              dll, s->dy, s->saved, scratch, s->q, s->k, s->v,
                                                              s->a);
}

static int same_slab(const Slab *x, const Slab *y) {
    return memcmp(x->out, y->out, out_floats(&x->p) * sizeof(float)) == 0 &&
           memcmp(&x->norm, &y->norm, sizeof x->norm) == 0 && memcmp(&x->dsum, &y->dsum, sizeof x->dsum) == 0;
}

// X and Y (different inputs, the same shape) shared as delta.c shares them,
// against each alone with NaN in its scratch before every call
static int shared_matches_alone(DeltaSlab p, int wy, int per_pos, uint64_t seed) {
    size_t ns = wy ? delta_wy_scratch_floats(&p) : delta_scratch_floats(&p);
    float *scratch = malloc(ns * sizeof(float));
    Slab sx = slab_new(p, per_pos, seed), sy = slab_new(p, per_pos, seed + 1);
    Slab ax = slab_new(p, per_pos, seed), ay = slab_new(p, per_pos, seed + 1);
    fill_nan(scratch, ns);
    forward(&sx, wy, scratch), forward(&sy, wy, scratch);
    backward(&sx, wy, scratch), backward(&sy, wy, scratch);
    Slab *alone[2] = {&ax, &ay};
    for (int i = 0; i < 2; i++) {
        fill_nan(scratch, ns);
        forward(alone[i], wy, scratch);
        fill_nan(scratch, ns);
        backward(alone[i], wy, scratch);
    }
    int ok = same_slab(&sx, &ax) && same_slab(&sy, &ay);
    int finite = 1;
    for (size_t i = 0; i < out_floats(&p); i++) finite &= isfinite(ax.out[i]) && isfinite(ay.out[i]);
    if (!ok || !finite)
        fprintf(stderr, "  %s T %zu d %zu chunk %zu key_norm %d identity %d per_pos %d: %s\n", wy ? "WY" : "recurrence",
                p.T, p.dh, p.chunk, (int)p.key_norm, p.state_identity, per_pos,
                !finite ? "a non-finite output" : "a shared scratch changed the bits");
    slab_free(&sx), slab_free(&sy), slab_free(&ax), slab_free(&ay), free(scratch);
    return ok && finite;
}

static void test_shared_scratch_changes_no_bit(void) {
    // a single chunk (chunk >= T: the case a backward could take its own
    // forward's last chunk from the scratch), several, and an uneven last one;
    // head sizes off and on the 16-float vectors, the recurrence's (< 64) and
    // the WY form's (>= 64) and each form at the other's sizes too
    static const size_t Ts[] = {1, 16, 37};
    static const size_t ds[] = {8, 20, 32, 64, 72};
    int n = 0;
    for (int wy = 0; wy <= 1; wy++)
        for (size_t a = 0; a < sizeof Ts / sizeof Ts[0]; a++)
            for (size_t b = 0; b < sizeof ds / sizeof ds[0]; b++)
                for (int v = 0; v < 3; v++, n++) {
                    size_t chunk = v == 0 ? 64 : v == 1 ? 16 : 7;
                    DeltaSlab p = {.T = Ts[a], .dh = ds[b], .chunk = chunk < Ts[a] ? chunk : Ts[a],
                                   .fmap = FMAP_IDENTITY, .eps = 1e-6f, .normalize = 1, .key_norm = KEYNORM_L2};
                    if (v == 1) p.fmap = FMAP_ELU1, p.key_norm = KEYNORM_SUM, p.state_identity = 1;
                    CHECK(shared_matches_alone(p, wy, v == 2, 500 + (uint64_t)n));
                }
}

int main(void) {
    TEST(test_shared_scratch_changes_no_bit);
    return test_summary();
}
