// generate.h — the incremental inference path: one token at a time.
//
// The training-time Graph recomputes a whole (B, T) window; a Generator holds
// what a sequence has absorbed so far and turns one more token into the
// next-token logits. Same weights, same kernels (kernels/nn.h with N = 1), same
// block layout as graph_build; only attention changes form:
//   softmax        a KV cache of `window` = block_size entries per head and layer
//                  (a ring buffer: once full, the oldest entry is dropped)
//   fast weights   the recurrent form, one float32 S (dh x dh) and z (dh) per
//                  head and layer, updated in place: memory does not grow
// Everything is allocated by generator_init; generator_step never allocates.
// The matrices are read through packed copies (see Generator.packed): in fp32
// the products are the same arithmetic as the training forward's rows, bit for
// bit; GEN_WEIGHTS_BF16 trades that for half the bytes read per token,
// GEN_WEIGHTS_INT8 for a quarter, and keeps softmax's KV cache in bf16 (half
// the bytes a step streams from it; softmax_cache.c, docs/speed.md).
//
// Positions. The token absorbed at `pos` (0-based: tokens absorbed before it
// since the last reset) gets the position embedding row min(pos, block_size-1):
//   pos < block_size    exactly what the full forward on the prefix gives that
//                       token, so both paths compute the same function (equal
//                       up to float rounding: tests/model/test_generate.c);
//   pos >= block_size   (pos = learned only) the last learned row, the latest
//                       position the model was trained at. The model never saw
//                       such contexts in training; this is the usual streaming
//                       compromise, stated here rather than hidden.
// With pos = none there is no position embedding: the fast-weight kinds then
// compute exactly the full forward on the whole prefix at any length (their
// state sums over all of it), and softmax attends to the last block_size tokens
// (a sliding window; each cached key and value was computed when its token
// arrived, from the context it had then).
//
// key_shift: keys are projected from the previous token's input (SPEC §4), so
// each layer keeps the previous token's key projection (zero before the first
// token, as x_{-1} = 0 in training).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

// Called after each layer's attention step, with exactly what the kind's step
// saw: q, k (after the key shift), v (H, dh), aux (H, n_aux), and its output y
// (H, dh, before output_norm). For diagnostics (inspect's float16 shadow state).
// The decay of head h at this token is decay_lambda_at(m->kind, &m->acfg,
// aux + h * attn_aux(m->kind, &m->acfg), theta, h) (attention/decay.h): with
// decay = data that is λ_t, the gate's value for this token.
typedef void (*GenLayerHook)(void *ctx, size_t layer, size_t pos, const float *q, const float *k,
                             const float *v, const float *aux, const float *y);

// How a generator holds the weight matrices it streams every token
// (kernels/matvec.h): an fp32 copy, bit-identical to the training forward's
// products, or a bf16 copy (half the bytes; weights rounded to nearest even
// once, at init, and each product's input rounded as it is read; LayerNorm,
// GELU, attention, residual stream and sums stay fp32), or an int8 copy
// (kernels/matvec_i8.h: a quarter of the bytes; each row quantised once, at
// init, with its own scale, each product's input quantised with one scale for
// the vector; the same parts stay fp32 as with bf16, except softmax's KV cache,
// kept in bf16: Generator.acfg.kv_bf16). int8 needs AVX-512 VNNI:
// callers check matvec_i8_cpu_missing() first (the plain C kernel computes the
// same numbers, for the tests, far slower).
typedef enum { GEN_WEIGHTS_FP32, GEN_WEIGHTS_BF16, GEN_WEIGHTS_INT8 } GenWeights;
extern const char *const GEN_WEIGHTS_NAME[];  // "fp32", "bf16", "int8", NULL-terminated
int gen_weights_from_name(const char *name);  // its GenWeights, or -1

// The matrices in the order a step reads them: per layer qkv, proj (and fc,
// fc_proj), then the tied head (wte).
enum { GEN_QKV, GEN_PROJ, GEN_FC, GEN_FC_PROJ, GEN_PER_LAYER };

typedef struct {
    const Model *m;
    // Packed copies of the model's matrices (kernels/matvec.h), taken by
    // generator_init, back to back in the order a step reads them, so a step
    // streams one block of memory front to back. A generator therefore sees
    // the weights as they were at init; call generator_refresh after changing them.
    GenWeights weights;
    void *packed;         // the block: floats (fp32), bf16 values or int8 panels (bytes)
    size_t *offset;       // (L * GEN_PER_LAYER + 1) where each matrix starts, in elements (int8: bytes)
    uint32_t *x2;         // bf16 only: a product's input rounded to bf16 pairs
    uint8_t *xq;          // int8 only: a product's input quantised (matvec_i8_quantize_input)
    AttnConfig acfg;      // the model's, with kv_bf16 set for int8 weights (a bf16 KV cache)
    size_t window;        // KV-cache capacity in tokens (= block_size); ignored by fast-weight kinds
    size_t state_floats;  // floats of attention state per layer: kind->state_floats(window)
    size_t pos;           // tokens absorbed since the last reset
    float *state;         // (L, state_floats)
    float *prev_k;        // (L, C) key projection of the previous token (key_shift), else NULL
    // scratch, one token wide
    float *x;             // (C) residual stream
    float *h;             // (C) LayerNorm output
    float *qkv;           // (3C + H*n_aux) q | k | v | aux, each head-major (H, dh)
    float *k;             // (C) the key the step reads (shifted copy when key_shift)
    float *att;           // (C) attention output (H, dh)
    float *att2;          // (C) per-head LayerNorm of att (output_norm)
    float *fc;            // (F) FFN hidden before GELU
    float *fc_act;        // (F) after GELU (gelu_forward's buffers must not alias)
    float *logits;        // (V)
    GenLayerHook hook;    // optional, NULL by default
    void *hook_ctx;
} Generator;

// Allocates the state and scratch for model m (which must outlive g) and
// resets it. Exits on out-of-memory like every setup allocation.
// generator_init holds the weights in fp32.
void generator_init(Generator *g, const Model *m);
void generator_init_weights(Generator *g, const Model *m, GenWeights w);
// The same with a KV cache of `window` tokens (>= block_size) instead of
// block_size: softmax then attends to the last `window` tokens, as the
// training graph does over a whole window of that length (eval --weights past
// block_size with pos = none). Fast-weight kinds ignore it.
void generator_init_window(Generator *g, const Model *m, GenWeights w, size_t window);
void generator_free(Generator *g);
// Re-reads the model's weights into the generator's packed copies.
void generator_refresh(Generator *g);
// Forgets the sequence: empty cache / initial state (zero, or I and 1 with
// state_init = identity), previous keys zero, pos = 0.
void generator_reset(Generator *g);

// Absorbs `token` (in [0, V)) at position `pos`, which must equal g->pos (the
// tokens absorbed since the reset; passed explicitly because it selects the
// position embedding row and the cache slot), and returns the logits (V) for
// the next token. The pointer is g->logits, overwritten by the next step.
const float *generator_step(Generator *g, int token, size_t pos);

// For benchmarks only: brings the generator from g->pos (>= 1) to position pos
// as far as the cost of a step goes (AttnKind.state_extend: a KV cache is
// filled with copies of its entries), without stepping. Returns 0 and changes
// nothing if the kind has no such shortcut (its step costs the same anywhere).
int generator_extend(Generator *g, size_t pos);

// Attention state of layer l: (state_floats). Fast-weight kinds: per head S
// (dh, dh) then z (dh); softmax: per head K (window, dh) then V (window, dh),
// in bf16 with int8 weights (acfg.kv_bf16; softmax_cache.c has the layout).
float *generator_layer_state(Generator *g, size_t l);
// Bytes of attention state holding the sequence now, all layers: the KV cache
// entries in use (softmax: min(pos, window) tokens) or the fixed state.
size_t generator_state_bytes_used(const Generator *g);
// Bytes of attention state allocated, all layers (the cache at full window).
size_t generator_state_bytes_allocated(const Generator *g);
