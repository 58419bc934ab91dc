// softmax_cache.c — softmax attention's generation form: a KV cache of
// `window` entries per head, one token at a time (see softmax_cache.h).
//
// Layout of one head's cache, head_elems elements from head h * head_elems:
//   K   in groups of SM_GROUP = 64 cache slots: group g holds, for d = 0 ..
//       dh-1, the d-th element of slots 64g .. 64g+63 side by side
//       (K[slot][d] at (slot / 64) * dh * 64 + d * 64 + slot % 64), padded to
//       a whole group. Within a group, slots 16j .. 16j+15 form panel j: one
//       16-float vector per d, 64 floats from one d to the next;
//   V   row-major (window, dh), from k_elems on;
//   each of the two padded by region_elems (why: there).
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
// A short step over the bf16 cache reads K a pair of panels at a time and V
// a pair of 16-column groups at a time (widen_pair, below): one shift and one
// AND widen 32 values, each a lane of its own chain as before.
//
// Token number pos goes to slot pos % window; once full, it overwrites the
// oldest entry. The current token is inserted first, then attended to.
//
// Two forms of the step, the same arithmetic per head (each output the same
// chain of operations): step_short, when the keys are one block (at most
// 256: a short context or window), takes four heads side by side, since such
// a cache is read from L2 and one head alone waited on its chains; step_long
// takes a head at a time, a K group at a time, since a long cache streams
// from DRAM and reads best as few streams.
#include "attention/softmax_cache.h"

#include <math.h>
#include <string.h>

#include "attention/row_sum.h"
#include "kernels/bf16.h"
#include "kernels/vexp.h"

#define SM_LANES 16                         // cache slots per K panel: one 16-float vector
#define SM_PANELS 4                         // panels per group (read as one stream)
#define SM_GROUP (SM_PANELS * SM_LANES)     // cache slots per K group
#define SM_STEP_BLOCK 256                   // scores of one block of cached keys at a time
#define SM_FUSE 4                           // heads stepped side by side (sm_cache_step)

typedef float SmVec __attribute__((vector_size(SM_LANES * sizeof(float))));
_Static_assert(SM_LANES == ROW_SUM_LANES, "load_keys reads keys through row_sum_load");
typedef int SmMask __attribute__((vector_size(SM_LANES * sizeof(int))));  // a comparison's lanes

// K's slots: whole groups
static size_t panelled(size_t window) { return (window + SM_GROUP - 1) / SM_GROUP * SM_GROUP; }

// Elements (floats, or bf16 values with kv_bf16) set aside for one region (a
// head's K or its V) of `elems`: from SM_SKEW elements on, an odd number of
// SM_SKEW. Why: with block_size 16384 each region is 1 MiB (bf16), a multiple
// of the cache's set stride (L1 4 KiB, L2 128 KiB here), so every head's
// first entries — all a step at position 64 reads — fell into the same sets
// of L1 and L2, 32 regions of a 4-layer, 4-head model into 8 ways: they
// evicted one another (and the weights) every token. An odd number of units
// steps each region's start one unit further round the sets, so the first
// 4 KiB of up to 32 regions of equal size land in different L2 sets (16 in
// fp32, whose unit is 8 KiB). Regions below one unit are left as they are:
// together they are smaller than an L1. The padding is never read.
#define SM_SKEW 2048
static size_t region_elems(size_t elems) {
    if (elems < SM_SKEW) return elems;
    size_t units = (elems + SM_SKEW - 1) / SM_SKEW;
    return (units | 1) * SM_SKEW;
}

// a head's K panels, then (from k_elems on) its V rows
static size_t k_elems(size_t window, size_t dh) { return region_elems(panelled(window) * dh); }
static size_t head_elems(size_t window, size_t dh) { return k_elems(window, dh) + region_elems(window * dh); }

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

// step_short scores in streams: a stream is one panel of one head, 16 cached
// keys scored against that head's query. score_streams runs NS of them side by
// side: out_s[j] = scale * (q_s . K[slot j of the panel]), each dot product
// summed over d in ascending order from zero (a multiply, then an add: no FMA
// in ISO C mode): the chain `sc += q[d] * k[d]` of the obvious loop, in one
// lane. Why several heads' panels together: at position 64 a head has five
// panels (65 keys), and its panels alone gave four chains and then one, each
// waiting on its adds and on its head's cache lines arriving; the streams of
// all the heads stepped together keep SM_STREAMS chains (and their loads) in
// flight throughout. `at`: where each stream's d = 0 vector is, in elements
// of the state (floats, or bf16 values with bf).
#define SM_STREAMS 8
typedef struct {
    size_t at;        // the panel's d = 0 vector, in elements from the state's start
    const float *q;   // the head's query
    float *out;       // 16 scores
} SmStream;

static inline __attribute__((always_inline)) void score_streams(const SmStream *st, const void *state, size_t dh,
                                                                float scale, size_t NS, int bf) {
    SmVec acc[SM_STREAMS] = {{0}};
    for (size_t d = 0; d < dh; d++)
        for (size_t s = 0; s < NS; s++) acc[s] += st[s].q[d] * load_keys(state, st[s].at + d * SM_GROUP, bf);
    for (size_t s = 0; s < NS; s++) {  // in stream order: a later stream's scores overwrite an earlier's excess
        SmVec o = acc[s] * scale;
        memcpy(st[s].out, &o, sizeof o);
    }
}

// The bf16 cache's streams go by pairs of panels (SM_PAIR = 32 slots: two
// panels of one group, 64 contiguous bytes per d). Why: a 512-bit load of
// the pair holds slot 2i's bf16 value in the low half of 32-bit lane i and
// slot 2i+1's in the high half, so one shift (even slots) and one AND (odd
// slots) widen 32 keys to their exact floats, where two widening loads and
// two shifts widened them a panel at a time: the step's vector units were
// its limit (docs/speed.md). Each slot's score is still the chain `sc +=
// q[d] * k[d]` from zero, d ascending, in one lane; only which lane holds
// which slot changes, and the stores put the slots back in order.
#define SM_PAIR (2 * SM_LANES)
typedef uint32_t SmBits __attribute__((vector_size(SM_LANES * sizeof(uint32_t))));

// 32 slots' bf16 values from element i on, widened: *even = slots 0, 2, ..,
// 30, *odd = slots 1, 3, .., 31 (or, for a V row, its columns)
static inline __attribute__((always_inline)) void widen_pair(const uint16_t *R, size_t i, SmVec *even,
                                                             SmVec *odd) {
    SmBits x;
    memcpy(&x, R + i, sizeof x);
    SmBits e = x << 16, o = x & 0xFFFF0000u;
    memcpy(even, &e, sizeof *even);
    memcpy(odd, &o, sizeof *odd);
}

// out[0 .. 32) = the slots of even and odd interleaved: out[2i] = even[i],
// out[2i+1] = odd[i]
static inline __attribute__((always_inline)) void store_pair(float *out, const SmVec *even, const SmVec *odd) {
#if defined(__AVX512F__)
    const __m512i lo_idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const __m512i hi_idx = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    __m512 e, o;
    memcpy(&e, even, sizeof e);
    memcpy(&o, odd, sizeof o);
    _mm512_storeu_ps(out, _mm512_permutex2var_ps(e, lo_idx, o));
    _mm512_storeu_ps(out + SM_LANES, _mm512_permutex2var_ps(e, hi_idx, o));
#else
    for (size_t i = 0; i < SM_LANES; i++) {
        out[2 * i] = (*even)[i];
        out[2 * i + 1] = (*odd)[i];
    }
#endif
}

// score_streams for the bf16 cache, NS pair streams: at is a pair's d = 0
// element, out gets 32 scores
static inline __attribute__((always_inline)) void score_pairs(const SmStream *st, const uint16_t *state, size_t dh,
                                                              float scale, size_t NS) {
    SmVec ev[SM_STREAMS], od[SM_STREAMS];
    for (size_t s = 0; s < NS; s++) ev[s] = od[s] = (SmVec){0};
    for (size_t d = 0; d < dh; d++)
        for (size_t s = 0; s < NS; s++) {
            SmVec e, o;
            widen_pair(state, st[s].at + d * SM_GROUP, &e, &o);
            float qd = st[s].q[d];
            ev[s] += qd * e;
            od[s] += qd * o;
        }
    for (size_t s = 0; s < NS; s++) {  // in stream order: a later stream's scores overwrite an earlier's excess
        SmVec e = ev[s] * scale, o = od[s] * scale;
        store_pair(st[s].out, &e, &o);
    }
}

// The n streams, SM_STREAMS side by side: panels (fp32), or pairs of panels
// (bf16: score_pairs)
#define SM_SCORE_CASE(ns)                                                              \
    case ns:                                                                           \
        if (bf) score_pairs(st, (const uint16_t *)state, dh, scale, ns);               \
        else score_streams(st, state, dh, scale, ns, 0);                               \
        break;

static inline __attribute__((always_inline)) void score_all_any(const SmStream *st, size_t n, const void *state,
                                                                size_t dh, float scale, int bf) {
    for (size_t i = 0; i < n;) {
        size_t c = n - i < SM_STREAMS ? n - i : SM_STREAMS;
        switch (c) {
            SM_SCORE_CASE(8) SM_SCORE_CASE(7) SM_SCORE_CASE(6) SM_SCORE_CASE(5)
            SM_SCORE_CASE(4) SM_SCORE_CASE(3) SM_SCORE_CASE(2) SM_SCORE_CASE(1)
        }
        i += c;
        st += c;
    }
}

static void score_all(const SmStream *st, size_t n, const float *state, size_t dh, float scale) {
    score_all_any(st, n, state, dh, scale, 0);
}

static void score_all_pairs(const SmStream *st, size_t n, const uint16_t *state, size_t dh, float scale) {
    score_all_any(st, n, state, dh, scale, 1);
}

// add_streams for pair streams: slots s .. s+n-1 scored a pair at a time
// (p[-(s % 32)] .. p[-1] and up to 31 entries past p[n-1] written too)
static size_t add_pair_streams(SmStream *st, size_t ns, size_t k0, const float *q, float *p, size_t s, size_t n,
                               size_t dh) {
    float *all = p - s % SM_PAIR;  // the first pair's slot 0
    size_t b0 = s / SM_PAIR, b1 = (s + n + SM_PAIR - 1) / SM_PAIR;  // pairs b0 .. b1-1
    for (size_t b = b0; b < b1; b++)
        st[ns++] = (SmStream){k0 + b / 2 * dh * SM_GROUP + b % 2 * SM_PAIR, q, all + (b - b0) * SM_PAIR};
    return ns;
}
_Static_assert(SM_GROUP == 2 * SM_PAIR, "a group holds two pairs");

// Appends the streams that score slots s .. s+n-1 (no wrap, n <= SM_STEP_BLOCK)
// of the head whose K starts at element k0 into p[0 .. n) (whole panels:
// p[-(s % 16)] .. p[-1] and up to 15 entries past p[n-1] are written too,
// with other slots' scores); returns the new count.
static size_t add_streams(SmStream *st, size_t ns, size_t k0, const float *q, float *p, size_t s, size_t n,
                          size_t dh) {
    float *all = p - s % SM_LANES;  // the first panel's slot 0
    size_t b0 = s / SM_LANES, b1 = (s + n + SM_LANES - 1) / SM_LANES;  // panels b0 .. b1-1
    for (size_t b = b0; b < b1; b++)
        st[ns++] = (SmStream){k0 + b / SM_PANELS * dh * SM_GROUP + b % SM_PANELS * SM_LANES, q,
                              all + (b - b0) * SM_LANES};
    return ns;
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

// The weighted sums of values of NH heads side by side, dh = 16 NG: for each
// head j, y_j[d] += p_j[0] V_j[0][d] + p_j[1] V_j[1][d] + ... and l_j += p_j[0]
// + p_j[1] + ..., rows in ascending order: row_sum_add_and_sum's chains (one
// product and one add per row), one head's next to another's. Why: a head
// alone has dh / 16 vector chains and its sum, each add waiting on the last
// for every row (65 rows at position 64); NH heads keep NH times as many in
// flight. at[j]: V_j's first row, in elements of the state. With the bf16
// cache, two groups of a row are widened together (widen_pair: one 64-byte
// load, a shift and an AND; two word permutes before, which were slower), so
// those sums run over the pair's even columns in one vector and its odd
// columns in the other, each column's chain as before.
// A head's running sum l, in every lane of a small vector: kept as NH scalars,
// GCC packed them into one vector held in memory, a store and a load in
// every row's chain.
typedef float SmSum __attribute__((vector_size(4 * sizeof(float))));
static inline __attribute__((always_inline)) void values_heads(float *const *y, const void *state,
                                                               const size_t *at, float *const *p, size_t n,
                                                               float *l, size_t NH, size_t NG, int bf) {
    RowSumVec acc[SM_FUSE][ROW_SUM_GROUPS];
    SmSum sum[SM_FUSE];
    const size_t dh = NG * ROW_SUM_LANES;
    for (size_t j = 0; j < NH; j++) {
        sum[j] = (SmSum){l[j], l[j], l[j], l[j]};
        for (size_t g = 0; g < NG; g++) memcpy(&acc[j][g], y[j] + g * ROW_SUM_LANES, sizeof acc[j][g]);
    }
    if (bf)  // a pair of groups as its even and odd columns (widen_pair), as the rows hold them
        for (size_t j = 0; j < NH; j++)
            for (size_t g = 0; g + 1 < NG; g += 2) {
                float e[ROW_SUM_LANES], o[ROW_SUM_LANES];
                for (size_t c = 0; c < ROW_SUM_LANES; c++) {
                    e[c] = y[j][g * ROW_SUM_LANES + 2 * c];
                    o[c] = y[j][g * ROW_SUM_LANES + 2 * c + 1];
                }
                memcpy(&acc[j][g], e, sizeof e);
                memcpy(&acc[j][g + 1], o, sizeof o);
            }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < NH; j++) {
            float pj = p[j][i];
            sum[j] += (SmSum){pj, pj, pj, pj};
            size_t g = 0;
            for (; g + 1 < NG; g += 2) {
                RowSumVec lo, hi;
                if (bf) {
                    widen_pair((const uint16_t *)state, at[j] + i * dh + g * ROW_SUM_LANES, &lo, &hi);
                } else {
                    lo = row_sum_load(state, at[j] + i * dh + g * ROW_SUM_LANES, 0);
                    hi = row_sum_load(state, at[j] + i * dh + (g + 1) * ROW_SUM_LANES, 0);
                }
                acc[j][g] += pj * lo;
                acc[j][g + 1] += pj * hi;
            }
            if (g < NG) acc[j][g] += pj * row_sum_load(state, at[j] + i * dh + g * ROW_SUM_LANES, bf);
        }
    for (size_t j = 0; j < NH; j++) {
        l[j] = sum[j][0];
        size_t g = 0;
        if (bf)
            for (; g + 1 < NG; g += 2) store_pair(y[j] + g * ROW_SUM_LANES, &acc[j][g], &acc[j][g + 1]);
        for (; g < NG; g++) memcpy(y[j] + g * ROW_SUM_LANES, &acc[j][g], sizeof acc[j][g]);
    }
}

#define SM_VALUES_CASE(nh, ng)                                        \
    case (nh - 1) * ROW_SUM_GROUPS + ng - 1:                          \
        values_heads(y, state, at, p, n, l, nh, ng, bf);              \
        break;

// values_heads for 1 <= nh <= SM_FUSE heads of dh = 16, 32, 48 or 64
static inline __attribute__((always_inline)) void values_any(float *const *y, const void *state, const size_t *at,
                                                             float *const *p, size_t n, float *l, size_t nh,
                                                             size_t dh, int bf) {
    switch ((nh - 1) * ROW_SUM_GROUPS + dh / ROW_SUM_LANES - 1) {
        SM_VALUES_CASE(1, 1) SM_VALUES_CASE(1, 2) SM_VALUES_CASE(1, 3) SM_VALUES_CASE(1, 4)
        SM_VALUES_CASE(2, 1) SM_VALUES_CASE(2, 2) SM_VALUES_CASE(2, 3) SM_VALUES_CASE(2, 4)
        SM_VALUES_CASE(3, 1) SM_VALUES_CASE(3, 2) SM_VALUES_CASE(3, 3) SM_VALUES_CASE(3, 4)
        SM_VALUES_CASE(4, 1) SM_VALUES_CASE(4, 2) SM_VALUES_CASE(4, 3) SM_VALUES_CASE(4, 4)
    }
}
_Static_assert(SM_FUSE == 4 && ROW_SUM_GROUPS == 4, "values_any's cases");

static void values(float *const *y, const float *state, const size_t *at, float *const *p, size_t n, float *l,
                   size_t nh, size_t dh) {
    values_any(y, state, at, p, n, l, nh, dh, 0);
}

static void values_bf16(float *const *y, const uint16_t *state, const size_t *at, float *const *p, size_t n,
                        float *l, size_t nh, size_t dh) {
    values_any(y, state, at, p, n, l, nh, dh, 1);
}

// y_j += the values of rows at[j] .. (n rows) weighted by p_j, l_j += p_j's
// sum, for nh heads: together where values_any has the shape, else a head at
// a time (row_sum.h: the same chains)
static void add_values(float *const *y, const float *state, const size_t *at, float *const *p, size_t n,
                       float *l, size_t nh, size_t dh, int bf) {
    if (n == 0) return;
    if (dh % ROW_SUM_LANES == 0 && dh / ROW_SUM_LANES <= ROW_SUM_GROUPS) {
        if (bf) values_bf16(y, (const uint16_t *)state, at, p, n, l, nh, dh);
        else values(y, state, at, p, n, l, nh, dh);
        return;
    }
    for (size_t j = 0; j < nh; j++) {
        if (bf) row_sum_add_and_sum_bf16(y[j], (const uint16_t *)state + at[j], dh, p[j], n, dh, &l[j]);
        else row_sum_add_and_sum(y[j], state + at[j], dh, p[j], n, dh, &l[j]);
    }
}

// One block's scores p[0 .. nb) of one head (with room to nv, the next
// multiple of 16) turned into probabilities, its running max m, sum l and
// output y (dh) rescaled when the max grows: online softmax in chronological
// order, a block of scores at a time (the dot products, the block's max, then
// one vectorisable exp pass (vexpf) and the weighted sum of values, which the
// caller adds). The running max changes at most once per block, so rescaling
// y is rare too.
static void block_probs(float *restrict p, size_t nb, float *restrict m, float *restrict l, float *restrict yh,
                        size_t dh) {
    // up to a whole vector: -inf, whose exp is 0 and which is no max, so
    // the max and exp passes run on whole vectors (values read p[0 .. nb))
    size_t nv = (nb + SM_LANES - 1) / SM_LANES * SM_LANES;
    for (size_t i = nb; i < nv; i++) p[i] = -INFINITY;
    float bm = block_max(p, nv), mx = *m;  // mx in a local: the exp loop then vectorises
    if (bm > mx) {
        float a = mx == -INFINITY ? 0.0f : vexpf(mx - bm);
        *l *= a;
        for (size_t d = 0; d < dh; d++) yh[d] *= a;
        mx = *m = bm;
    }
    for (size_t i = 0; i < nv; i++) p[i] = vexpf(p[i] - mx);
}

// The step when its n <= SM_STEP_BLOCK keys are one block, slots 0 .. n-1
// (the ring has not wrapped, or the window is that short): SM_FUSE heads side
// by side, each head's arithmetic its own, in the order it has alone
// (score_streams, values_heads). Such a cache is read from L2; one head alone
// waited on its chains and its lines.
static void step_short(const AttnConfig *c, float *state, size_t window, size_t slot, size_t first, size_t n,
                       float *y, const float *q, const float *k, const float *v) {
    const size_t H = (size_t)c->heads, dh = (size_t)c->dh, he = head_elems(window, dh);
    const int bf = c->kv_bf16;
    const float scale = 1.0f / sqrtf((float)dh);
    // the block's cache slots: first .. up to the end of the ring, then from slot 0
    size_t n1 = n < window - first ? n : window - first;
    // per head: the block's scores, then probabilities, p[j][0 .. n), with
    // room for whole panels' scores on either side
    float buf[SM_FUSE][SM_PAIR + SM_STEP_BLOCK + SM_PAIR];
    SmStream st[SM_FUSE * (SM_STEP_BLOCK / SM_LANES + 3)];  // at most 19 panels (or pairs) a head
    for (size_t h0 = 0; h0 < H; h0 += SM_FUSE) {
        size_t nh = H - h0 < SM_FUSE ? H - h0 : SM_FUSE, ns = 0;
        float m[SM_FUSE], l[SM_FUSE], *p[SM_FUSE], *p2[SM_FUSE], *yh[SM_FUSE];
        size_t kat[SM_FUSE], vat[SM_FUSE], vrow[SM_FUSE];  // K's and V's first elements; row `first`'s
        for (size_t j = 0; j < nh; j++) {
            size_t h = h0 + j;
            kat[j] = h * he;  // K panels, then V (window, dh): floats, or bf16 values
            vat[j] = kat[j] + k_elems(window, dh);
            vrow[j] = vat[j] + first * dh;
            if (bf)
                put_entry_bf16((uint16_t *)state + kat[j], (uint16_t *)state + vat[j], slot, k + h * dh, v + h * dh,
                               dh);
            else
                put_entry(state + kat[j], state + vat[j], slot, k + h * dh, v + h * dh, dh);
            p[j] = buf[j] + SM_PAIR;
            p2[j] = p[j] + n1;
            yh[j] = y + h * dh;
            m[j] = -INFINITY;
            l[j] = 0.0f;
            memset(yh[j], 0, dh * sizeof(float));
            // the wrapped part's streams after the first's: they overwrite its excess
            size_t (*add)(SmStream *, size_t, size_t, const float *, float *, size_t, size_t, size_t) =
                bf ? add_pair_streams : add_streams;
            ns = add(st, ns, kat[j], q + h * dh, p[j], first, n1, dh);
            if (n > n1) ns = add(st, ns, kat[j], q + h * dh, p2[j], 0, n - n1, dh);
        }
        if (bf) score_all_pairs(st, ns, (const uint16_t *)state, dh, scale);
        else score_all(st, ns, state, dh, scale);
        for (size_t j = 0; j < nh; j++) block_probs(p[j], n, &m[j], &l[j], yh[j], dh);
        // l += p[0] + ... + p[n-1] and the values, in one pass: the rows
        // from `first`, then (wrapped) from slot 0
        add_values(yh, state, vrow, p, n1, l, nh, dh, bf);
        add_values(yh, state, vat, p2, n - n1, l, nh, dh, bf);
        for (size_t j = 0; j < nh; j++) {
            float inv = 1.0f / l[j];
            for (size_t d = 0; d < dh; d++) yh[j][d] *= inv;
        }
    }
}

// The step over more than one block of keys: a head at a time, its K a group
// at a time (scores_any). Why not step_short's way: a long cache streams
// from DRAM, and a group's panels, interleaved by d, are one front-to-back
// stream; four heads side by side, or two groups, were more streams, which
// the hardware prefetchers followed worse: a step at 16 384 took 1.3-1.7
// times as long (docs/speed.md).
static void step_long(const AttnConfig *c, float *state, size_t window, size_t slot, size_t first, size_t n,
                      float *y, const float *q, const float *k, const float *v) {
    const size_t H = (size_t)c->heads, dh = (size_t)c->dh, he = head_elems(window, dh);
    const int bf = c->kv_bf16;
    const float scale = 1.0f / sqrtf((float)dh);
    // scores, then probabilities, of one block of cached keys: p[0 .. nb),
    // with room for scores()'s whole panels on either side
    float buf[SM_LANES + SM_STEP_BLOCK + SM_LANES], *p = buf + SM_LANES;
    for (size_t h = 0; h < H; h++) {
        // K panels, then V (window, dh): floats, or bf16 values
        float *K = state + h * he, *V = K + k_elems(window, dh);
        uint16_t *Kh = (uint16_t *)state + h * he, *Vh = Kh + k_elems(window, dh);
        if (bf)
            put_entry_bf16(Kh, Vh, slot, k + h * dh, v + h * dh, dh);
        else
            put_entry(K, V, slot, k + h * dh, v + h * dh, dh);
        const float *qh = q + h * dh;
        float *yh = y + h * dh;
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
            block_probs(p, nb, &m, &l, yh, dh);
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

// window >= 1
void sm_cache_step(const AttnConfig *c, float *state, size_t window, size_t pos, float *y, const float *q,
                   const float *k, const float *v) {
    size_t slot = pos % window;
    size_t n = pos + 1 < window ? pos + 1 : window;             // valid entries
    size_t first = pos + 1 < window ? 0 : (slot + 1) % window;  // the oldest one
    if (n <= SM_STEP_BLOCK)
        step_short(c, state, window, slot, first, n, y, q, k, v);
    else
        step_long(c, state, window, slot, first, n, y, q, k, v);
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
        unsigned char *K = (unsigned char *)state + h * he * es, *V = K + k_elems(window, dh) * es;
        for (size_t slot = have; slot < n; slot++) {
            size_t from = slot % have;
            for (size_t d = 0; d < dh; d++)
                memcpy(K + (k_at(slot, dh) + d * SM_GROUP) * es, K + (k_at(from, dh) + d * SM_GROUP) * es, es);
            memcpy(V + slot * dh * es, V + from * dh * es, dh * es);
        }
    }
}
