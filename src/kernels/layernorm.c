// layernorm.c — LayerNorm over the last dim (eps 1e-5, biased variance, as
// PyTorch), with affine weight and bias.
//
// Row reductions use 16 interleaved partial sums, folded pairwise at the end,
// plus the < 16 leftover elements summed in order and added last. The order is
// fixed by C alone (not by threads or by what the vectoriser chose), and gcc
// turns the 16 lanes into one vector register without -ffast-math. (Keeping
// each reduction to one accumulator array, and the tail out of it, matters:
// gcc spills the lanes to the stack otherwise, at 3x the cost.)
//
// mean and rstd are saved per row in the forward (2 floats a row) so the
// backward needs no reduction over x of its own.
#include "kernels/nn.h"

#include <math.h>

#include "util/pool.h"

#define LN_EPS 1e-5f
#define LANES 16
#define LN_CBLOCK 64  // channels whose dw, db sums a task keeps in registers

static inline float fold(float acc[LANES]) {
    for (size_t s = LANES / 2; s > 0; s /= 2)
        for (size_t j = 0; j < s; j++) acc[j] += acc[j + s];
    return acc[0];
}

// sum_i x[i]
static inline float sum_row(const float *restrict x, size_t n) {
    float acc[LANES] = {0}, tail = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += x[i + j];
    for (; i < n; i++) tail += x[i];
    return fold(acc) + tail;
}

// sum_i (x[i] - m)^2
static inline float sumsq_dev_row(const float *restrict x, float m, size_t n) {
    float acc[LANES] = {0}, tail = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += (x[i + j] - m) * (x[i + j] - m);
    for (; i < n; i++) tail += (x[i] - m) * (x[i] - m);
    return fold(acc) + tail;
}

// sum_i a[i] b[i]
static inline float dot_row(const float *restrict a, const float *restrict b, size_t n) {
    float acc[LANES] = {0}, tail = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += a[i + j] * b[i + j];
    for (; i < n; i++) tail += a[i] * b[i];
    return fold(acc) + tail;
}

// sum_i a[i] b[i] xhat[i], xhat = (x - m) s
static inline float dot_xhat_row(const float *restrict a, const float *restrict b,
                                 const float *restrict x, float m, float s, size_t n) {
    float acc[LANES] = {0}, tail = 0;
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += a[i + j] * b[i + j] * ((x[i + j] - m) * s);
    for (; i < n; i++) tail += a[i] * b[i] * ((x[i] - m) * s);
    return fold(acc) + tail;
}

// ---- forward ----

typedef struct {
    float *out, *mean, *rstd;
    const float *inp, *w, *b;
    size_t C;
} LnFwd;

static void ln_fwd_rows(void *vctx, size_t lo, size_t hi) {
    const LnFwd *k = vctx;
    size_t C = k->C;
    const float *restrict w = k->w, *restrict b = k->b;  // (C)
    for (size_t r = lo; r < hi; r++) {
        const float *restrict x = k->inp + r * C;  // (C)
        float *restrict o = k->out + r * C;        // (C)
        // two passes (mean, then squared deviations) rather than E[x^2] - m^2,
        // which cancels catastrophically when |mean| >> std
        float m = sum_row(x, C) / (float)C;
        float var = sumsq_dev_row(x, m, C) / (float)C;  // biased, as PyTorch
        float s = 1.0f / sqrtf(var + LN_EPS);
        for (size_t c = 0; c < C; c++) o[c] = (x[c] - m) * s * w[c] + b[c];
        if (k->mean) k->mean[r] = m;
        if (k->rstd) k->rstd[r] = s;
    }
}

// out, inp (N, C); w, b (C); mean, rstd (N) saved for the backward
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *w,
                       const float *b, size_t N, size_t C) {
    if (N == 0 || C == 0) return;
    LnFwd k = {out, mean, rstd, inp, w, b, C};
    parallel_for(N, pool_grain_bytes(8 * C), ln_fwd_rows, &k);  // a row: x read, out written
}

// ---- one row (generation) ----
//
// ln_fwd_rows' arithmetic for N = 1 with the 16 partial sums held in one
// register and folded there (the same pairwise adds: lane j += lane j+8, then
// +4, +2, +1), instead of going through an array on the stack: generation runs
// nine of these per token, each a chain of dependent steps, and the array's
// round trips were most of their time. Bit-identical to layernorm_forward
// (tests/kernels/test_layernorm.c compares them).
#if defined(__AVX512F__)
#include <immintrin.h>

static inline float fold16(__m512 v) {
    __m256 a = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));  // j += j+8
    __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));       // j += j+4
    __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));                                        // j += j+2
    return _mm_cvtss_f32(_mm_add_ss(c, _mm_shuffle_ps(c, c, 1)));                         // 0 += 1
}

void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t C) {
    if (C == 0) return;
    size_t nv = C / LANES * LANES, i;
    __m512 acc = _mm512_setzero_ps();
    for (i = 0; i < nv; i += LANES) acc = _mm512_add_ps(acc, _mm512_loadu_ps(x + i));
    float tail = 0;
    for (; i < C; i++) tail += x[i];
    float m = (fold16(acc) + tail) / (float)C;
    __m512 vm = _mm512_set1_ps(m);
    acc = _mm512_setzero_ps();
    for (i = 0; i < nv; i += LANES) {
        __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), vm);
        acc = _mm512_add_ps(acc, _mm512_mul_ps(d, d));
    }
    tail = 0;
    for (; i < C; i++) tail += (x[i] - m) * (x[i] - m);
    float var = (fold16(acc) + tail) / (float)C;
    float s = 1.0f / sqrtf(var + LN_EPS);
    __m512 vs = _mm512_set1_ps(s);
    for (i = 0; i < nv; i += LANES) {
        __m512 o = _mm512_mul_ps(_mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(x + i), vm), vs), _mm512_loadu_ps(w + i));
        _mm512_storeu_ps(out + i, _mm512_add_ps(o, _mm512_loadu_ps(b + i)));
    }
    for (; i < C; i++) out[i] = (x[i] - m) * s * w[i] + b[i];
}
#else
// other instruction sets: the rows' own code
void layernorm_row(float *out, const float *x, const float *w, const float *b, size_t C) {
    layernorm_forward(out, NULL, NULL, x, w, b, 1, C);
}
#endif

// ---- backward ----
//
// With xhat = (x - mean) * rstd, out = xhat * w + b and g = dout * w:
//   dinp = rstd * (g - mean(g) - xhat * mean(g * xhat))
//   dw   = sum over rows of dout * xhat,   db = sum over rows of dout
// dinp is a per-row job (partitioned by row); dw, db reduce over rows, so they
// get a second pass partitioned by channel: each dw[c] is summed by one task
// in row order, whatever the thread count.

typedef struct {
    float *dinp, *dw, *db;
    const float *dout, *inp, *w, *mean, *rstd;
    size_t N, C;
} LnBwd;

static void ln_bwd_rows(void *vctx, size_t lo, size_t hi) {
    const LnBwd *k = vctx;
    size_t C = k->C;
    const float *restrict w = k->w;  // (C)
    for (size_t r = lo; r < hi; r++) {
        const float *restrict x = k->inp + r * C;    // (C)
        const float *restrict d = k->dout + r * C;   // (C)
        float *restrict dx = k->dinp + r * C;        // (C)
        float m = k->mean[r], s = k->rstd[r];
        // mean of g = dout * w and of g * xhat (two passes: see the top of the file)
        float mg = dot_row(d, w, C) / (float)C;
        float mgx = dot_xhat_row(d, w, x, m, s, C) / (float)C;
        for (size_t c = 0; c < C; c++) {
            float xhat = (x[c] - m) * s;
            dx[c] += s * (d[c] * w[c] - mg - xhat * mgx);
        }
    }
}

// dw, db for channels [c0, c0 + wdt), wdt <= LN_CBLOCK, summed over rows in
// order. Inlined with the constant LN_CBLOCK for full blocks, so the sums stay
// in vector registers across the row loop.
static inline void ln_dwdb_block(const LnBwd *k, size_t c0, size_t wdt) {
    size_t C = k->C;
    float sw[LN_CBLOCK] = {0}, sb[LN_CBLOCK] = {0};
    for (size_t r = 0; r < k->N; r++) {
        const float *restrict x = k->inp + r * C + c0;   // (wdt) slice of (C)
        const float *restrict d = k->dout + r * C + c0;  // (wdt) slice of (C)
        float m = k->mean[r], s = k->rstd[r];
        for (size_t c = 0; c < wdt; c++) {
            sw[c] += d[c] * ((x[c] - m) * s);
            sb[c] += d[c];
        }
    }
    if (k->dw)
        for (size_t c = 0; c < wdt; c++) k->dw[c0 + c] += sw[c];
    if (k->db)
        for (size_t c = 0; c < wdt; c++) k->db[c0 + c] += sb[c];
}

// Channels [lo, hi). Each channel's sum is the same whatever range it lands
// in, so any split is fine.
static void ln_bwd_channels(void *vctx, size_t lo, size_t hi) {
    const LnBwd *k = vctx;
    for (size_t c0 = lo; c0 < hi; c0 += LN_CBLOCK) {
        if (hi - c0 >= LN_CBLOCK)
            ln_dwdb_block(k, c0, LN_CBLOCK);
        else
            ln_dwdb_block(k, c0, hi - c0);
    }
}

// dinp (N, C) +=, dw, db (C) +=; dout, inp (N, C); w (C); mean, rstd (N) from the forward
void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                        const float *w, const float *mean, const float *rstd, size_t N, size_t C) {
    // forward: out[r, c] = (inp[r, c] - mean[r]) * rstd[r] * w[c] + b[c]
    if (N == 0 || C == 0) return;
    LnBwd k = {dinp, dw, db, dout, inp, w, mean, rstd, N, C};
    // a row: dout, x read, dinp read and written
    if (dinp) parallel_for(N, pool_grain_bytes(16 * C), ln_bwd_rows, &k);
    if (dw || db) {
        size_t grain = pool_grain_bytes(8 * N);  // a channel: its column of dout and of x
        parallel_for(C, grain < 16 ? 16 : grain, ln_bwd_channels, &k);
    }
}
