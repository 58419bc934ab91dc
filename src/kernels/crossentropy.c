// crossentropy.c — softmax fused with the negative log-likelihood.
//
// Fused because the pair has a short, stable gradient (probs - onehot) and the
// separate log of a softmax would lose precision for confident predictions.
// The per-row loss is log(sum exp(l - max)) - (l[target] - max) in double;
// the exps are vexpf (vectorised, ~2 ulp; 0 where l - max < -87).
//
// The mean over rows must not depend on the thread count, so rows are grouped
// into fixed blocks (their size depends on N only); each block sums its rows
// in order, then the block sums are added in order. No allocation: at most
// CE_MAX_BLOCKS block sums live on the stack.
#include "kernels/nn.h"

#include <math.h>

#include "kernels/vexp.h"
#include "util/pool.h"

#define CE_MAX_BLOCKS 256
#define CE_MIN_BLOCK_ROWS 16
#define CE_LANES 8

// ---- forward ----

// p = softmax(l) over one row; returns log(sum exp(l - max)) in double, and
// the max in *mx. The sum runs in CE_LANES interleaved double partial sums plus
// an in-order tail: a fixed order that gcc still vectorises.
static inline double softmax_row(float *restrict p, const float *restrict l, size_t V, float *mx) {
    float m = l[0];
    for (size_t v = 1; v < V; v++) m = l[v] > m ? l[v] : m;
    for (size_t v = 0; v < V; v++) p[v] = vexpf(l[v] - m);
    double acc[CE_LANES] = {0}, tail = 0;
    size_t v = 0;
    for (; v + CE_LANES <= V; v += CE_LANES)
        for (size_t j = 0; j < CE_LANES; j++) acc[j] += p[v + j];
    for (; v < V; v++) tail += p[v];
    for (size_t h = CE_LANES / 2; h > 0; h /= 2)
        for (size_t j = 0; j < h; j++) acc[j] += acc[j + h];
    double sum = acc[0] + tail;  // >= 1: the max contributes exp(0)
    float inv = (float)(1.0 / sum);
    for (size_t u = 0; u < V; u++) p[u] *= inv;
    *mx = m;
    return log(sum);
}

typedef struct {
    float *probs, *losses;
    const float *logits;
    const int *targets;
    size_t N, V, rows_per_block;
    double block_loss[CE_MAX_BLOCKS];
} CeFwd;

static void ce_fwd_blocks(void *vctx, size_t lo, size_t hi) {
    CeFwd *k = vctx;
    size_t V = k->V;
    for (size_t blk = lo; blk < hi; blk++) {
        size_t r0 = blk * k->rows_per_block;
        size_t r1 = r0 + k->rows_per_block < k->N ? r0 + k->rows_per_block : k->N;
        double total = 0;
        for (size_t r = r0; r < r1; r++) {
            const float *restrict l = k->logits + r * V;  // (V)
            float *restrict p = k->probs + r * V;         // (V)
            float mx;
            double lse = softmax_row(p, l, V, &mx);  // log-sum-exp of l - mx
            int t = k->targets[r];
            double loss = 0;
            if (t >= 0) {
                // a target >= V is a caller bug: NaN makes it loud, with no out-of-bounds read
                loss = (size_t)t < V ? lse - ((double)l[t] - (double)mx) : NAN;
                total += loss;
            }
            if (k->losses) k->losses[r] = (float)loss;
        }
        k->block_loss[blk] = total;
    }
}

// probs (N, V) saved; losses (N) or NULL; logits (N, V); targets (N), < 0 = not scored
double crossentropy_forward(float *probs, float *losses, const float *logits, const int *targets,
                            size_t N, size_t V, size_t *n_scored) {
    size_t scored = 0;
    for (size_t r = 0; r < N; r++) scored += targets[r] >= 0;
    if (n_scored) *n_scored = scored;
    if (N == 0 || V == 0) return 0.0;
    CeFwd k = {.probs = probs, .losses = losses, .logits = logits, .targets = targets, .N = N, .V = V};
    k.rows_per_block = (N + CE_MAX_BLOCKS - 1) / CE_MAX_BLOCKS;
    if (k.rows_per_block < CE_MIN_BLOCK_ROWS) k.rows_per_block = CE_MIN_BLOCK_ROWS;
    size_t nblocks = (N + k.rows_per_block - 1) / k.rows_per_block;
    size_t per_block = k.rows_per_block * V;
    parallel_for(nblocks, pool_grain_bytes(8 * per_block), ce_fwd_blocks, &k);  // logits read, probs written
    double total = 0;
    for (size_t blk = 0; blk < nblocks; blk++) total += k.block_loss[blk];
    return scored ? total / (double)scored : 0.0;
}

// ---- backward ----

typedef struct {
    float *dlogits;
    const float *probs;
    const int *targets;
    size_t V;
    float scale;
} CeBwd;

static void ce_bwd_rows(void *vctx, size_t lo, size_t hi) {
    const CeBwd *k = vctx;
    size_t V = k->V;
    float scale = k->scale;
    for (size_t r = lo; r < hi; r++) {
        int t = k->targets[r];
        if (t < 0) continue;  // not scored: no gradient
        const float *restrict p = k->probs + r * V;  // (V)
        float *restrict dl = k->dlogits + r * V;     // (V)
        // (size_t)t >= V (a caller bug, NaN loss) matches no v: no out-of-bounds write
        for (size_t v = 0; v < V; v++) {
            float onehot = v == (size_t)t ? 1.0f : 0.0f;
            dl[v] += (p[v] - onehot) * scale;
        }
    }
}

// dlogits (N, V) += (probs - onehot(target)) * dloss / n_scored on scored rows
void crossentropy_backward(float *dlogits, const float *probs, const int *targets, size_t N,
                           size_t V, size_t n_scored, float dloss) {
    // forward: loss = (1 / n_scored) sum over scored r of -log softmax(logits[r])[targets[r]]
    if (!dlogits || n_scored == 0 || N == 0 || V == 0) return;
    CeBwd k = {dlogits, probs, targets, V, (float)((double)dloss / (double)n_scored)};
    parallel_for(N, pool_grain_bytes(12 * V), ce_bwd_rows, &k);  // probs read, dlogits read, written
}
