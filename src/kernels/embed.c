// embed.c — token (+ learned position) embedding lookup and its scatter-add.
//
// The backward is a scatter: many (b, t) share a token. It is partitioned by
// CHANNEL, so every dwte[v, c] and dwpe[t, c] is owned by exactly one task,
// which adds the rows in (b, t) order. No atomics, no per-thread partials:
// bit-identical for any thread count, and balanced even when a few tokens
// (space, 'e') dominate the batch, which a split by vocabulary row would not be.
#include "kernels/nn.h"

#include "util/pool.h"

// ---- forward ----

typedef struct {
    float *out;
    const int *tokens;
    const float *wte, *wpe;
    size_t T, C;
} EmbedFwd;

static void embed_fwd_rows(void *vctx, size_t lo, size_t hi) {
    const EmbedFwd *k = vctx;
    size_t C = k->C;
    for (size_t bt = lo; bt < hi; bt++) {
        float *restrict o = k->out + bt * C;                          // (C)
        const float *restrict e = k->wte + (size_t)k->tokens[bt] * C;  // (C)
        if (k->wpe) {
            const float *restrict p = k->wpe + (bt % k->T) * C;  // (C)
            for (size_t c = 0; c < C; c++) o[c] = e[c] + p[c];
        } else {
            for (size_t c = 0; c < C; c++) o[c] = e[c];
        }
    }
}

// out (B, T, C), tokens (B, T) each in [0, V), wte (V, C), wpe (T, C) or NULL
void embed_forward(float *out, const int *tokens, const float *wte, const float *wpe, size_t B,
                   size_t T, size_t C) {
    if (B == 0 || T == 0 || C == 0) return;
    EmbedFwd k = {out, tokens, wte, wpe, T, C};
    parallel_for(B * T, pool_grain_bytes(12 * C), embed_fwd_rows, &k);  // rows of wte, wpe read, out written
}

// ---- backward ----

typedef struct {
    float *dwte, *dwpe;
    const float *dout;
    const int *tokens;
    size_t BT, T, C, V;
} EmbedBwd;

// channels [c0, c1): every dwte[v, c], dwpe[t, c] in them gets its rows in
// (b, t) order, whatever the range, so any split is bit-identical
static void embed_bwd_channels(void *vctx, size_t c0, size_t c1) {
    const EmbedBwd *k = vctx;
    size_t C = k->C, w = c1 - c0;
    for (size_t bt = 0; bt < k->BT; bt++) {
        const float *restrict d = k->dout + bt * C + c0;  // (w) slice of (C)
        if (k->dwte) {
            // a token outside [0, V) is a caller bug; skipping it keeps the heap intact
            size_t v = (size_t)k->tokens[bt];  // negative wraps to huge: skipped too
            if (v < k->V) {
                float *restrict g = k->dwte + v * C + c0;
                for (size_t c = 0; c < w; c++) g[c] += d[c];
            }
        }
        if (k->dwpe) {
            float *restrict g = k->dwpe + (bt % k->T) * C + c0;
            for (size_t c = 0; c < w; c++) g[c] += d[c];
        }
    }
}

// dwte (V, C) += scatter of dout rows by token; dwpe (T, C) += sum over b of dout[b, t]
// dout (B, T, C), tokens (B, T)
void embed_backward(float *dwte, float *dwpe, const float *dout, const int *tokens, size_t B,
                    size_t T, size_t C, size_t V) {
    // forward: out[b, t, :] = wte[tokens[b, t], :] + wpe[t, :]
    if (B == 0 || T == 0 || C == 0 || (!dwte && !dwpe)) return;
    EmbedBwd k = {dwte, dwpe, dout, tokens, B * T, T, C, V};
    size_t grain = pool_grain_bytes(12 * B * T);  // a channel: dout read, dwte and dwpe read, written
    parallel_for(C, grain < 16 ? 16 : grain, embed_bwd_channels, &k);
}
