// test_flops.c — every registered kind's AttnKind.flops (what `lmtrain bench`
// reports) against an independent count of what its kernels execute, for
// each variant it accepts and several (T, dh, chunk).
//
// The count has two parts. Matrix products are counted as they run: every
// GEMM goes through a counter (gemm_counter.h), 2·M·N·K each. Work done in
// plain loops instead of GEMMs is counted by walking those loops below, one
// line per loop of the kernel, a multiply-add 2 and a lone multiply or add 1.
// A kind with no entry in LOOPS fails the test: a new kind states here what
// its kernels do outside GEMMs (nothing, for most).
// Terms of order T·dh (feature maps, normalisers, gates) are outside both the
// kinds' counts and this one (attention.h).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attention/attention.h"
#include "attention/decay.h"
#include "gemm_counter.h"
#include "test.h"
#include "util/pool.h"
#include "util/rng.h"

// delta's token recurrence (delta_chunk.c, head sizes below delta.c's
// WY_MIN_DH = 64) runs no GEMM; its d²-order loops, per slab:
static void delta_recurrence_loops(size_t T, size_t d, size_t chunk, double *fwd, double *bwd) {
    double d2 = (double)d * (double)d;
    *fwd = *bwd = 0;
    for (size_t t0 = 0; t0 < T; t0 += chunk) {
        size_t L = T - t0 < chunk ? T - t0 : chunk;
        for (size_t r = 0; r < L; r++) {  // delta_chunk_forward, per position (first_e, then step_forward)
            *fwd += 2 * d2;               //   e = Sᵀk̂ (first_e, or the step before's read of k̂'): a multiply-add per entry of S
            *fwd += 3 * d2;               //   S = λS + (βk̂_i) e: a multiply and a multiply-add
            *fwd += 2 * d2;               //   y = Sᵀq̂
        }
        for (size_t r = 0; r < L; r++) {     // delta_chunk_backward's recompute of the chunk (no y)
            *bwd += 2 * d2;                  //   e = Sᵀk̂
            if (r + 1 < L) *bwd += 3 * d2;   //   the next position's state; the chunk's last needs none
        }
        for (size_t r = 0; r < L; r++) {  // the reverse sweep, per position
            *bwd += 5 * 2 * d2;           //   pass_a over d rows: G += q̂ dy, du += k̂ G, P·dy, G·u, P·G
            *bwd += 2 * d2;               //   pass_b: P·du, a multiply-add
            *bwd += 3 * d2;               //   pass_b: G = λG − c du, two multiplies and a subtraction
        }
    }
}

// delta's WY/UT form (delta_wy.c, head size >= 64): all GEMMs but the
// triangular solves of each chunk, L(L−1)/2 rows of d multiply-adds each:
// forward one (U), backward the forward's again and its transpose.
static void delta_wy_loops(size_t T, size_t d, size_t chunk, double *fwd, double *bwd) {
    *fwd = *bwd = 0;
    for (size_t t0 = 0; t0 < T; t0 += chunk) {
        double L = (double)(T - t0 < chunk ? T - t0 : chunk), solve = L * (L - 1) / 2 * 2 * (double)d;
        *fwd += solve;
        *bwd += 2 * solve;
    }
}

static void delta_loops(const AttnConfig *c, size_t T, double *fwd, double *bwd) {
    size_t chunk = attn_chunk_length(c, T);
    if (c->dh < 64) delta_recurrence_loops(T, (size_t)c->dh, chunk, fwd, bwd);
    else delta_wy_loops(T, (size_t)c->dh, chunk, fwd, bwd);
}

// all of it GEMMs (softmax's tiles, the linear kinds' chunks)
static void gemm_only(const AttnConfig *c, size_t T, double *fwd, double *bwd) {
    (void)c, (void)T;
    *fwd = *bwd = 0;
}

static const struct {
    const char *kind;
    void (*loops)(const AttnConfig *c, size_t T, double *fwd, double *bwd);
} LOOPS[] = {{"softmax", gemm_only}, {"linear", gemm_only}, {"linear_decay", gemm_only}, {"delta", delta_loops}};

static void (*loops_of(const AttnKind *k))(const AttnConfig *, size_t, double *, double *) {
    for (size_t i = 0; i < sizeof LOOPS / sizeof LOOPS[0]; i++)
        if (strcmp(LOOPS[i].kind, k->name) == 0) return LOOPS[i].loops;
    return NULL;
}

// One slab (B = H = 1) through forward and backward: GEMM FLOPs counted
// as they run, plus the loops' count; against kind->flops. Returns 1 if equal.
static int check_one(const AttnKind *k, const AttnConfig *c, size_t T, Rng *r) {
    size_t n = T * (size_t)c->dh, na = attn_aux(k, c) * T;
    float *q = calloc(n, 4), *kk = calloc(n, 4), *v = calloc(n, 4), *y = calloc(n, 4), *dy = calloc(n, 4);
    float *dq = calloc(n, 4), *dk = calloc(n, 4), *dv = calloc(n, 4);
    float *aux = calloc(na + 1, 4), *daux = calloc(na + 1, 4), theta = 2.0f, dtheta = 0;
    float *work = calloc(k->work_floats(c, 1, T) + 1, 4);
    for (size_t i = 0; i < n; i++) q[i] = rng_normal(r), kk[i] = rng_normal(r), v[i] = rng_normal(r), dy[i] = rng_normal(r);
    for (size_t i = 0; i < na; i++) aux[i] = rng_normal(r);
    const float *th = k->uses_decay ? &theta : NULL;
    g_gemm_flops = 0;
    k->forward(c, 1, T, y, work, q, kk, v, aux, th);
    double gemm_fwd = g_gemm_flops;
    k->backward(c, 1, T, dq, dk, dv, daux, k->uses_decay ? &dtheta : NULL, dy, work, q, kk, v, aux, th, y);
    double gemm_all = g_gemm_flops, loops_fwd, loops_bwd, fwd;
    loops_of(k)(c, T, &loops_fwd, &loops_bwd);
    double total = k->flops(c, T, &fwd);
    int ok = fwd == gemm_fwd + loops_fwd && total == gemm_all + loops_fwd + loops_bwd && fwd > 0 && fwd < total;
    if (!ok)
        fprintf(stderr, "  %s T=%zu dh=%d chunk=%d normalize=%d state_identity=%d key_norm=%d data_decay=%d: flops %.0f "
                "(forward %.0f), counted %.0f (forward %.0f)\n", k->name, T, c->dh, c->chunk, c->normalize,
                c->state_identity, (int)c->key_norm,
                c->data_decay, total, fwd, gemm_all + loops_fwd + loops_bwd, gemm_fwd + loops_fwd);
    free(q), free(kk), free(v), free(y), free(dy), free(dq), free(dk), free(dv), free(aux), free(daux), free(work);
    return ok;
}

static void test_every_kind_and_variant(void) {
    static const size_t Ts[] = {1, 10, 40, 65};
    static const int dhs[] = {8, 24, 64}, chunks[] = {1, 16, 64};
    Rng r;
    rng_seed(&r, 2024);
    int kinds = 0;
    for (int ki = 0; attn_kinds[ki]; ki++) {
        const AttnKind *k = attn_kinds[ki];
        CHECK(k->flops != NULL);
        CHECK(loops_of(k) != NULL);
        if (!k->flops || !loops_of(k)) {
            fprintf(stderr, "  kind %s: no flops() or no loop count in test_flops.c's LOOPS\n", k->name);
            continue;
        }
        kinds++;
        int bad = 0, runs = 0;
        for (int norm = 0; norm < 2; norm++)
          for (int si = 0; si < 2; si++)  // S0 = 0 or I: the linear kinds skip products of a zero state
            for (int kn = 0; kn < (k->uses_key_norm ? 2 : 1); kn++)
                for (int dd = 0; dd < (k->data_decay ? 2 : 1); dd++)
                    for (size_t ti = 0; ti < sizeof Ts / sizeof Ts[0]; ti++)
                        for (size_t di = 0; di < sizeof dhs / sizeof dhs[0]; di++)
                            for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
                                AttnConfig c = {.heads = 1, .dh = dhs[di], .feature_map = FMAP_ELU1, .eps = 1e-6f,
                                                .normalize = norm, .chunk = chunks[ci], .state_identity = si,
                                                .key_norm = kn ? KEYNORM_L2 : KEYNORM_SUM, .data_decay = dd};
                                bad += !check_one(k, &c, Ts[ti], &r);
                                runs++;
                            }
        CHECK(bad == 0);
        CHECK(runs >= 36);
    }
    CHECK(kinds >= 4);  // softmax, linear, linear_decay, delta
}

int main(void) {
    pool_init(1);
    TEST(test_every_kind_and_variant);
    pool_shutdown();
    return test_summary();
}
