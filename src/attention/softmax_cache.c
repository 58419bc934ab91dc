// softmax_cache.c — softmax attention's generation form: a KV cache of
// `window` entries per head, one token at a time (see softmax_cache.h).
//
// Layout of one head's cache, head_elems elements from head h * head_elems:
//   K   in groups of SM_GROUP = 64 cache slots: group g holds, for d = 0 ..
//       dh-1, the d-th element of slots 64g .. 64g+63 side by side
//       (K[slot][d] at (slot / 64) * dh * 64 + d * 64 + slot % 64), padded to
//       a whole group. Within a group, slots 16j .. 16j+15 form panel j: one
//       16-float vector per d, 64 floats from one d to the next;
//   V   row-major (window, dh).
// Why panels: a step scores every cached key against one query. Each score is
// a chain of dh dependent multiply-adds; with keys stored row by row those
// chains ran one scalar at a time and cost more than reading the cache. In a
// panel the same chain runs for 16 keys at once, one lane each, with vector
// loads straight from the cache, and a group's four panels run side by side
// (four independent chains keep the adders busy).
// Why groups of four panels interleaved by d: at long contexts a step streams
// the whole cache from DRAM, and the four panels scored together are then
// read as one front-to-back stream (256 contiguous bytes per d). Stored one
// panel after another (dh * 16 floats each), the same four chains read four
// streams 2 KiB apart, and a step at 16 384 took about 1.4 times as long
// (docs/speed.md). The values are read a row at a time by row_sum_add, which
// already runs along a row.
//
// With AttnConfig.kv_bf16 (the generator's int8 mode) the same layout holds
// bf16 values (uint16_t elements, two to a float of the state): K and V are
// rounded to nearest even as they are inserted and widened back to their
// exact floats (a 16-bit shift) as they are read, so a step computes the same
// fp32 chains as the fp32 cache would holding those rounded values. Why: a
// step streams the whole cache, so half its bytes is up to half the step's
// reading (measured 0.85-0.96x the time at position 64, 0.33-1.0x at 16 384;
// docs/speed.md, which also shows the rest of softmax's cost at 64 is the
// step's arithmetic, not the cache's size).
//
// Token number pos goes to slot pos % window; once full, it overwrites the
// oldest entry. The current token is inserted first, then attended to.
#include "attention/softmax_cache.h"

#include <math.h>
#include <string.h>

#include "attention/row_sum.h"
#include "kernels/bf16.h"
#include "kernels/vexp.h"

#define SM_LANES 16                         // cache slots per K panel: one 16-float vector
#define SM_PANELS 4                         // panels per group, scored side by side (switch in scores)
#define SM_GROUP (SM_PANELS * SM_LANES)     // cache slots per K group
#define SM_STEP_BLOCK 256                   // scores of one block of cached keys at a time

typedef float SmVec __attribute__((vector_size(SM_LANES * sizeof(float))));
_Static_assert(SM_LANES == ROW_SUM_LANES, "load_keys reads keys through row_sum_load");
typedef int SmMask __attribute__((vector_size(SM_LANES * sizeof(int))));  // a comparison's lanes

// K's slots: whole groups
static size_t panelled(size_t window) { return (window + SM_GROUP - 1) / SM_GROUP * SM_GROUP; }

// elements (floats, or bf16 values with kv_bf16) of one head: K panels, then V rows
static size_t head_elems(size_t window, size_t dh) { return (panelled(window) + window) * dh; }

size_t sm_cache_floats(const AttnConfig *c, size_t window) {
    size_t n = (size_t)c->heads * head_elems(window, (size_t)c->dh);
    return c->kv_bf16 ? (n + 1) / 2 : n;
}

void sm_cache_reset(const AttnConfig *c, float *state, size_t window) {
    memset(state, 0, sm_cache_floats(c, window) * sizeof(float));
}

// where K[slot][0] is; K[slot][d] is SM_GROUP * d further on
static size_t k_at(size_t slot, size_t dh) { return slot / SM_GROUP * dh * SM_GROUP + slot % SM_GROUP; }

static void put_entry(float *K, float *V, size_t slot, const float *k, const float *v, size_t dh) {
    float *kd = K + k_at(slot, dh);
    for (size_t d = 0; d < dh; d++) kd[d * SM_GROUP] = k[d];
    memcpy(V + slot * dh, v, dh * sizeof(float));
}

// the same in bf16: k and v rounded to nearest even
static void put_entry_bf16(uint16_t *K, uint16_t *V, size_t slot, const float *k, const float *v, size_t dh) {
    uint16_t *kd = K + k_at(slot, dh);
    for (size_t d = 0; d < dh; d++) kd[d * SM_GROUP] = bf16_from_float(k[d]);
    bf16_from_floats(V + slot * dh, v, dh);
}

// i mod window for i < 2 window (an oldest slot plus an age): a compare, not
// a division, which cost as much as the dot product it indexes
static inline size_t ring(size_t i, size_t window) { return i < window ? i : i - window; }

// 16 keys' element d from Kp + i on: floats, or with bf bf16 values widened
// to their exact floats (row_sum.h's load: the same 16 contiguous elements)
static inline __attribute__((always_inline)) SmVec load_keys(const void *Kp, size_t i, int bf) {
    return row_sum_load(Kp, i, bf);
}

// NP panels of one group from the one whose d = 0 vector is at Kp:
// out[16 u + j] = scale * (q . K[16 u + j]), slots counted from that panel's
// first, each dot product summed over d in ascending order from zero (a
// multiply, then an add: no FMA in ISO C mode): the chain `sc += q[d] * k[d]`
// of the obvious loop, in one lane. NP panels side by side keep the adders
// busy. bf: K in bf16 (kv_bf16).
static inline __attribute__((always_inline)) void score_panels(float *out, const void *Kp, const float *q,
                                                               size_t dh, float scale, size_t NP, int bf) {
    SmVec acc[SM_PANELS] = {{0}};
    for (size_t d = 0; d < dh; d++) {
        float qd = q[d];
        for (size_t u = 0; u < NP; u++) acc[u] += qd * load_keys(Kp, d * SM_GROUP + u * SM_LANES, bf);
    }
    for (size_t u = 0; u < NP; u++) {
        SmVec s = acc[u] * scale;
        memcpy(out + u * SM_LANES, &s, sizeof s);
    }
}

// p[i] = scale * (q . K[s + i]) for i < n, slots s .. s+n-1 (no wrap, n <= SM_STEP_BLOCK).
// Whole panels are scored and stored: p[-(s % 16)] .. p[-1] and up to 15
// entries past p[n-1] are written too (with other slots' scores).
static inline __attribute__((always_inline)) void scores_any(float *p, const void *K, const float *q, size_t s,
                                                             size_t n, size_t dh, float scale, int bf) {
    float *all = p - s % SM_LANES;  // the first panel's slot 0
    size_t b0 = s / SM_LANES, b1 = (s + n + SM_LANES - 1) / SM_LANES;  // panels b0 .. b1-1
    for (size_t b = b0; b < b1;) {
        // panels b .. up to the end of b's group, side by side
        size_t np = SM_PANELS - b % SM_PANELS;
        if (np > b1 - b) np = b1 - b;
        float *o = all + (b - b0) * SM_LANES;
        size_t at = b / SM_PANELS * dh * SM_GROUP + b % SM_PANELS * SM_LANES;  // in elements
        const void *Kp = bf ? (const void *)((const uint16_t *)K + at) : (const void *)((const float *)K + at);
        switch (np) {
        case 4: score_panels(o, Kp, q, dh, scale, 4, bf); break;
        case 3: score_panels(o, Kp, q, dh, scale, 3, bf); break;
        case 2: score_panels(o, Kp, q, dh, scale, 2, bf); break;
        default: score_panels(o, Kp, q, dh, scale, 1, bf); break;
        }
        b += np;
    }
}

static void scores(float *p, const float *K, const float *q, size_t s, size_t n, size_t dh, float scale) {
    scores_any(p, K, q, s, n, dh, scale, 0);
}

static void scores_bf16(float *p, const uint16_t *K, const float *q, size_t s, size_t n, size_t dh, float scale) {
    scores_any(p, K, q, s, n, dh, scale, 1);
}

// The largest of p[0 .. n), or -inf: the value `if (p[i] > m) m = p[i]` from
// m = -inf finds, taken 16 lanes at a time (then across the lanes) instead of
// as one chain of dependent compares. Any order finds the same value: NaN is
// never taken, and among equal values only +0 and -0 differ; which of those
// becomes the max changes no output of the step (it is only subtracted from
// nonzero scores and from +-0, whose exp is 1 either way, or compared).
static float block_max(const float *p, size_t n) {
    SmVec mv;
    for (size_t j = 0; j < SM_LANES; j++) mv[j] = -INFINITY;
    size_t i = 0;
    for (; i + SM_LANES <= n; i += SM_LANES) {
        SmVec x;
        memcpy(&x, p + i, sizeof x);
        SmMask gt = x > mv;
        mv = (SmVec)((gt & (SmMask)x) | (~gt & (SmMask)mv));
    }
    float m = -INFINITY;
    for (size_t j = 0; j < SM_LANES; j++)
        if (mv[j] > m) m = mv[j];
    for (; i < n; i++)
        if (p[i] > m) m = p[i];
    return m;
}

// window >= 1
void sm_cache_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y, const float *q,
                   const float *k, const float *v) {
    const size_t H = (size_t)c->heads, dh = (size_t)c->dh, he = head_elems(window, dh);
    const int bf = c->kv_bf16;
    const float scale = 1.0f / sqrtf((float)dh);
    size_t slot = pos % window;
    size_t n = pos + 1 < window ? pos + 1 : window;             // valid entries
    size_t first = pos + 1 < window ? 0 : (slot + 1) % window;  // the oldest one
    // scores, then probabilities, of one block of cached keys: p[0 .. nb),
    // with room for scores()'s whole panels on either side
    float buf[SM_LANES + SM_STEP_BLOCK + SM_LANES], *p = buf + SM_LANES;
    for (size_t h = 0; h < H; h++) {
        // K panels, then V (window, dh): floats, or bf16 values
        float *K = state + h * he, *V = K + panelled(window) * dh;
        uint16_t *Kh = (uint16_t *)state + h * he, *Vh = Kh + panelled(window) * dh;
        if (bf)
            put_entry_bf16(Kh, Vh, slot, k + h * dh, v + h * dh, dh);
        else
            put_entry(K, V, slot, k + h * dh, v + h * dh, dh);
        const float *qh = q + h * dh;
        float *yh = y + h * dh;
        // Online softmax in chronological order, a block of scores at a time:
        // the dot products, the block's max, then one vectorisable exp pass
        // (vexpf) and the weighted sum of values. The running max changes at
        // most once per block, so rescaling y is rare too.
        float m = -INFINITY, l = 0.0f;
        memset(yh, 0, dh * sizeof(float));
        for (size_t t0 = 0; t0 < n; t0 += SM_STEP_BLOCK) {
            size_t nb = n - t0 < SM_STEP_BLOCK ? n - t0 : SM_STEP_BLOCK;
            // the block's cache slots: s .. up to the end of the ring, then from slot 0
            size_t s = ring(first + t0, window), n1 = nb < window - s ? nb : window - s;
            // the second call after the first: it overwrites the first's excess
            if (bf) {
                scores_bf16(p, Kh, qh, s, n1, dh, scale);
                if (nb > n1) scores_bf16(p + n1, Kh, qh, 0, nb - n1, dh, scale);
            } else {
                scores(p, K, qh, s, n1, dh, scale);
                if (nb > n1) scores(p + n1, K, qh, 0, nb - n1, dh, scale);
            }
            // up to a whole vector: -inf, whose exp is 0 and which is no max, so
            // the max and exp passes run on whole vectors (values reads p[0 .. nb))
            size_t nv = (nb + SM_LANES - 1) / SM_LANES * SM_LANES;
            for (size_t i = nb; i < nv; i++) p[i] = -INFINITY;
            float bm = block_max(p, nv);
            if (bm > m) {
                float a = m == -INFINITY ? 0.0f : vexpf(m - bm);
                l *= a;
                for (size_t d = 0; d < dh; d++) yh[d] *= a;
                m = bm;
            }
            for (size_t i = 0; i < nv; i++) p[i] = vexpf(p[i] - m);
            // l += p[0] + ... + p[nb-1] and the values, in one pass
            if (bf) {
                row_sum_add_and_sum_bf16(yh, Vh + s * dh, dh, p, n1, dh, &l);
                row_sum_add_and_sum_bf16(yh, Vh, dh, p + n1, nb - n1, dh, &l);
            } else {
                row_sum_add_and_sum(yh, V + s * dh, dh, p, n1, dh, &l);
                row_sum_add_and_sum(yh, V, dh, p + n1, nb - n1, dh, &l);
            }
        }
        float inv = 1.0f / l;
        for (size_t d = 0; d < dh; d++) yh[d] *= inv;
    }
}

// After `have` tokens (1 <= have <= window) slots 0 .. have-1 hold them; after
// `pos` the first min(pos, window) slots are in use. Those are filled with
// copies of the `have` real entries, round the ring: a step reads as many
// entries as it would at pos, and its cost does not depend on their values.
// Elements are copied as bytes (4 for floats, 2 for bf16 values).
void sm_cache_extend(const AttnConfig *c, float *state, size_t window, size_t have, size_t pos) {
    const size_t H = (size_t)c->heads, dh = (size_t)c->dh, n = pos < window ? pos : window;
    const size_t es = c->kv_bf16 ? sizeof(uint16_t) : sizeof(float), he = head_elems(window, dh);
    for (size_t h = 0; h < H; h++) {
        unsigned char *K = (unsigned char *)state + h * he * es, *V = K + panelled(window) * dh * es;
        for (size_t slot = have; slot < n; slot++) {
            size_t from = slot % have;
            for (size_t d = 0; d < dh; d++)
                memcpy(K + (k_at(slot, dh) + d * SM_GROUP) * es, K + (k_at(from, dh) + d * SM_GROUP) * es, es);
            memcpy(V + slot * dh * es, V + from * dh * es, dh * es);
        }
    }
}
