// optim.c — the two per-step optimiser kernels: the global gradient norm (for
// clipping) and the AdamW update, elementwise over a flat parameter buffer.
#include "kernels/nn.h"

#include <math.h>

#include "util/pool.h"

// ---- global norm ----
//
// The sum runs over fixed blocks whose size depends on n only; each block sums
// in a fixed lane order and the block sums are added in block order, so the
// result is bit-identical for any thread count. Double accumulation: a few
// million squares in float would lose digits, and (double) g * g cannot overflow.

#define GN_MAX_BLOCKS 1024
#define GN_MIN_BLOCK 8192
#define GN_LANES 8

typedef struct {
    const float *g;
    size_t n, block;
    double part[GN_MAX_BLOCKS];
} GnCtx;

static void gn_blocks(void *vctx, size_t lo, size_t hi) {
    GnCtx *k = vctx;
    for (size_t blk = lo; blk < hi; blk++) {
        size_t i0 = blk * k->block, i1 = i0 + k->block < k->n ? i0 + k->block : k->n;
        const float *restrict g = k->g + i0;
        size_t len = i1 - i0, i = 0;
        double acc[GN_LANES] = {0};
        for (; i + GN_LANES <= len; i += GN_LANES)
            for (size_t j = 0; j < GN_LANES; j++) acc[j] += (double)g[i + j] * (double)g[i + j];
        for (size_t j = 0; i + j < len; j++) acc[j] += (double)g[i + j] * (double)g[i + j];
        for (size_t s = GN_LANES / 2; s > 0; s /= 2)
            for (size_t j = 0; j < s; j++) acc[j] += acc[j + s];
        k->part[blk] = acc[0];
    }
}

// sqrt(sum g^2), g (n)
double global_norm(const float *g, size_t n) {
    if (n == 0) return 0.0;
    GnCtx k = {.g = g, .n = n};
    k.block = (n + GN_MAX_BLOCKS - 1) / GN_MAX_BLOCKS;
    if (k.block < GN_MIN_BLOCK) k.block = GN_MIN_BLOCK;
    size_t nblocks = (n + k.block - 1) / k.block;
    parallel_for(nblocks, 1, gn_blocks, &k);
    double total = 0;
    for (size_t blk = 0; blk < nblocks; blk++) total += k.part[blk];
    return sqrt(total);
}

// ---- AdamW ----
//
// torch.optim.AdamW's sequence of float operations per element, with the
// scalars formed in double as Python does:
//   g  = grad * grad_scale                       (the clipping factor)
//   p  = p * (1 - lr * wd)                       (decoupled decay, before the step)
//   m  = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g g
//   p -= (lr / bc1) * (m / (sqrt(v) / sqrt(bc2) + eps)),   bc = 1 - b^step
// which is p -= lr * mhat / (sqrt(vhat) + eps) with mhat = m / bc1, vhat = v / bc2.
// (PyTorch forms m with lerp, m + (1 - b1) (g - m): the same value up to the
// last bit.)

#define ADAMW_GRAIN 8192

typedef struct {
    float *p, *m, *v;
    const float *g;
    float b1, one_m_b1, b2, one_m_b2, eps, shrink, step_size, bc2_sqrt, grad_scale;
} AdamCtx;

// The spans of one update: items [0, total) of the dispatch are the spans'
// elements one after the other; shrink[decay] is each span's decay factor.
typedef struct {
    AdamCtx k;
    const AdamSpan *spans;
    size_t n_spans;
    float shrink[2];
} AdamJob;

// One element, the reference for the SIMD paths below, which perform the same
// IEEE operations in the same order, so every lane gives the bits this gives
// (gcc in ISO C mode, -std=c11, fuses no a * b + c into an FMA on its own).
// They exist only because sqrtf's errno path stops gcc vectorising this loop.
static inline void adamw_one(const AdamCtx *k, float *p, float *m, float *v, float g) {
    float gi = g * k->grad_scale;
    float mi = k->b1 * *m + k->one_m_b1 * gi;
    float vi = k->b2 * *v + k->one_m_b2 * gi * gi;
    *m = mi;
    *v = vi;
    float denom = sqrtf(vi) / k->bc2_sqrt + k->eps;
    *p = *p * k->shrink - k->step_size * (mi / denom);
}

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
#define VW 16
#define vf __m512
#define vset1 _mm512_set1_ps
#define vload _mm512_loadu_ps
#define vstore _mm512_storeu_ps
#define vadd _mm512_add_ps
#define vsub _mm512_sub_ps
#define vmul _mm512_mul_ps
#define vdiv _mm512_div_ps
#define vsqrt _mm512_sqrt_ps
#elif defined(__AVX2__)
#define VW 8
#define vf __m256
#define vset1 _mm256_set1_ps
#define vload _mm256_loadu_ps
#define vstore _mm256_storeu_ps
#define vadd _mm256_add_ps
#define vsub _mm256_sub_ps
#define vmul _mm256_mul_ps
#define vdiv _mm256_div_ps
#define vsqrt _mm256_sqrt_ps
#endif

static void adamw_range(const AdamCtx *k, size_t lo, size_t hi) {
    size_t i = lo;
#ifdef VW
    vf gs = vset1(k->grad_scale), b1 = vset1(k->b1), omb1 = vset1(k->one_m_b1);
    vf b2 = vset1(k->b2), omb2 = vset1(k->one_m_b2), bc2s = vset1(k->bc2_sqrt);
    vf eps = vset1(k->eps), shrink = vset1(k->shrink), lr = vset1(k->step_size);
    for (; i + VW <= hi; i += VW) {
        vf gi = vmul(vload(k->g + i), gs);
        vf mi = vadd(vmul(b1, vload(k->m + i)), vmul(omb1, gi));
        vf vi = vadd(vmul(b2, vload(k->v + i)), vmul(vmul(omb2, gi), gi));
        vstore(k->m + i, mi);
        vstore(k->v + i, vi);
        vf denom = vadd(vdiv(vsqrt(vi), bc2s), eps);
        vf pi = vsub(vmul(vload(k->p + i), shrink), vmul(lr, vdiv(mi, denom)));
        vstore(k->p + i, pi);
    }
#endif
    for (; i < hi; i++) adamw_one(k, k->p + i, k->m + i, k->v + i, k->g[i]);
}

// The elements [lo, hi) of the spans laid end to end, each span with its own
// decay: element-wise, so where a task's range starts changes no bit.
static void adamw_spans(void *vctx, size_t lo, size_t hi) {
    const AdamJob *j = vctx;
    size_t at = 0;  // the first item of span s
    for (size_t s = 0; s < j->n_spans && lo < hi; at += j->spans[s++].n) {
        const AdamSpan *sp = &j->spans[s];
        if (lo >= at + sp->n) continue;
        size_t end = hi < at + sp->n ? hi : at + sp->n;
        AdamCtx k = j->k;
        k.shrink = j->shrink[sp->decay != 0];
        k.p += sp->offset, k.m += sp->offset, k.v += sp->offset, k.g += sp->offset;
        adamw_range(&k, lo - at, end - at);
        lo = end;
    }
}

// p, g, m, v: the blocks the spans index; step >= 1
void adamw_update_spans(float *p, const float *g, float *m, float *v, const AdamSpan *spans, size_t n_spans,
                        float lr, float beta1, float beta2, float eps, float wd, float grad_scale, long step) {
    double bc1 = 1.0 - pow((double)beta1, (double)step);
    double bc2 = 1.0 - pow((double)beta2, (double)step);
    AdamJob j = {
        .k = {
            .p = p, .m = m, .v = v, .g = g,
            .b1 = beta1, .one_m_b1 = (float)(1.0 - (double)beta1),
            .b2 = beta2, .one_m_b2 = (float)(1.0 - (double)beta2),
            .eps = eps,
            .step_size = (float)((double)lr / bc1),
            .bc2_sqrt = (float)sqrt(bc2),
            .grad_scale = grad_scale,
        },
        .spans = spans, .n_spans = n_spans,
        .shrink = {1.0f, (float)(1.0 - (double)lr * (double)wd)},
    };
    size_t total = 0;
    for (size_t s = 0; s < n_spans; s++) total += spans[s].n;
    parallel_for(total, ADAMW_GRAIN, adamw_spans, &j);
}

// p, g, m, v (n); step >= 1
void adamw_update(float *p, const float *g, float *m, float *v, size_t n, float lr, float beta1,
                  float beta2, float eps, float wd, float grad_scale, long step) {
    AdamSpan one = {0, n, 1};
    adamw_update_spans(p, g, m, v, &one, 1, lr, beta1, beta2, eps, wd, grad_scale, step);
}
