// layernorm.c — LayerNorm over the last dim (eps 1e-5, biased variance, as
// PyTorch), with affine weight and bias.
//
// Row reductions use 16 interleaved partial sums folded pairwise at the end:
// element i always lands in lane i % 16, so the order is fixed by C alone (not
// by threads or by what the vectoriser chose), and gcc turns the lanes into
// one vector register without -ffast-math.
//
// mean and rstd are saved per row in the forward (2 floats a row) so the
// backward needs no reduction over x of its own.
#include "kernels/nn.h"

#include <math.h>

#include "util/pool.h"

#define LN_EPS 1e-5f
#define LANES 16
#define LN_CBLOCK 16  // channels per work item of the dw/db pass

static inline float fold(float acc[LANES]) {
    for (size_t s = LANES / 2; s > 0; s /= 2)
        for (size_t j = 0; j < s; j++) acc[j] += acc[j + s];
    return acc[0];
}

// sum_i x[i]
static inline float sum_row(const float *restrict x, size_t n) {
    float acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) acc[j] += x[i + j];
    for (size_t j = 0; i + j < n; j++) acc[j] += x[i + j];
    return fold(acc);
}

// sum_i (x[i] - m)^2
static inline float sumsq_dev_row(const float *restrict x, float m, size_t n) {
    float acc[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= n; i += LANES)
        for (size_t j = 0; j < LANES; j++) {
            float d = x[i + j] - m;
            acc[j] += d * d;
        }
    for (size_t j = 0; i + j < n; j++) {
        float d = x[i + j] - m;
        acc[j] += d * d;
    }
    return fold(acc);
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
    size_t grain = (16384 + C - 1) / C;  // rows per task: >= ~16k elements each
    parallel_for(N, grain, ln_fwd_rows, &k);
}

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
        // sum g and sum g * xhat, fused in one pass with the same lane layout
        float ag[LANES] = {0}, agx[LANES] = {0};
        size_t i = 0;
        for (; i + LANES <= C; i += LANES)
            for (size_t j = 0; j < LANES; j++) {
                float g = d[i + j] * w[i + j];
                ag[j] += g;
                agx[j] += g * ((x[i + j] - m) * s);
            }
        for (size_t j = 0; i + j < C; j++) {
            float g = d[i + j] * w[i + j];
            ag[j] += g;
            agx[j] += g * ((x[i + j] - m) * s);
        }
        float mg = fold(ag) / (float)C, mgx = fold(agx) / (float)C;
        for (size_t c = 0; c < C; c++) {
            float xhat = (x[c] - m) * s;
            dx[c] += s * (d[c] * w[c] - mg - xhat * mgx);
        }
    }
}

static void ln_bwd_cblocks(void *vctx, size_t lo, size_t hi) {
    const LnBwd *k = vctx;
    size_t C = k->C;
    for (size_t blk = lo; blk < hi; blk++) {
        size_t c0 = blk * LN_CBLOCK, c1 = c0 + LN_CBLOCK < C ? c0 + LN_CBLOCK : C;
        size_t wdt = c1 - c0;
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
}

// dinp (N, C) +=, dw, db (C) +=; dout, inp (N, C); w (C); mean, rstd (N) from the forward
void layernorm_backward(float *dinp, float *dw, float *db, const float *dout, const float *inp,
                        const float *w, const float *mean, const float *rstd, size_t N, size_t C) {
    // forward: out[r, c] = (inp[r, c] - mean[r]) * rstd[r] * w[c] + b[c]
    if (N == 0 || C == 0) return;
    LnBwd k = {dinp, dw, db, dout, inp, w, mean, rstd, N, C};
    if (dinp) parallel_for(N, (16384 + C - 1) / C, ln_bwd_rows, &k);
    if (dw || db) {
        size_t nblocks = (C + LN_CBLOCK - 1) / LN_CBLOCK, per_block = LN_CBLOCK * N;
        parallel_for(nblocks, (16384 + per_block - 1) / per_block, ln_bwd_cblocks, &k);
    }
}
