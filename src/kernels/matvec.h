// matvec.h — one-token products for generation: out (OC) = W (OC, K) · inp (K)
// over a copy of W packed once, when a generator starts, in the order the
// product reads it.
//
// Packed layout ("panels"): the outputs in panels of MATVEC_PANEL (256), the
// last one narrower; a panel of n outputs holds, for k = 0 .. K-1, the weights
// W[r0 .. r0+n)[k] of its outputs, padded with zeros to a whole number of
// 16-float vectors. The whole matrix is one contiguous stream, read once,
// front to back, and a generator lays its matrices out back to back in the
// order a step uses them, so the hardware prefetcher follows one stream from
// the first layer's qkv to the head.
//
// fp32 (matvec_f32): every output is the same chain of operations as gemm's
// (kernels/gemm.h: k ascending within K blocks of GEMM_KC, FMA from zero, the
// blocks' sums added in order), so it equals matmul_forward's row bit for bit.
//
// bf16 (matvec_bf16): the weights rounded to bfloat16 (round to nearest even)
// in the packed copy — half the bytes — and the input rounded to bfloat16 at
// the start of each product: the AVX-512 BF16 dot product (vdpbf16ps) takes
// bf16 on both sides. Products of two bf16 values are exact in fp32; the sum
// is accumulated in fp32. Where the CPU lacks AVX-512 BF16 (checked at run
// time), plain C computes the same products and sums them in fp32, in its own
// order: the same value up to the summation order.
#pragma once
#include "kernels/kernel_names.h"
#include <stddef.h>
#include <stdint.h>

#define MATVEC_PANEL 256  // outputs per panel: 16 zmm accumulators

// floats (fp32) or bf16 values (bf16) of the packed copy of a (OC, K) weight
extern size_t matvec_f32_packed_size(size_t K, size_t OC);
extern size_t matvec_bf16_packed_size(size_t K, size_t OC);

// dst (packed) <- w (OC, K), row-major as the model stores it (torch layout)
extern void matvec_f32_pack(float *dst, const float *w, size_t OC, size_t K);
extern void matvec_bf16_pack(uint16_t *dst, const float *w, size_t OC, size_t K);

// What a product does with its result: store it, or add it to what is there
// (the residual stream: out[i] = out[i] + W inp, add_forward's sum).
typedef enum { MATVEC_STORE, MATVEC_ADD } MatvecMode;

// out (OC) = (or +=) W inp, W packed by matvec_f32_pack. out must not overlap inp.
extern void matvec_f32(float *out, const float *inp, const float *packed, size_t K, size_t OC,
                MatvecMode mode);

// The same with a bf16-packed W. scratch: matvec_bf16_scratch_size(K) uint32_t
// (the rounded input, two k a word), 64-byte aligned.
extern size_t matvec_bf16_scratch_size(size_t K);
extern void matvec_bf16(float *out, const float *inp, const uint16_t *packed, size_t K, size_t OC,
                 MatvecMode mode, uint32_t *scratch);

// What the input goes through before it is rounded: nothing, or GELU
// (kernels/gelu.h: gelu_forward's values, bit for bit). matvec_bf16_in(...,
// MATVEC_IN_GELU, ...) gives exactly matvec_bf16 on gelu_forward(inp): the
// AVX-512 BF16 kernel applies it a block of MATVEC_BLOCK inputs at a time,
// between the weight loads of the product's first panel, where it costs
// little; no pass of its own and no buffer for GELU's output.
typedef enum { MATVEC_IN_PLAIN, MATVEC_IN_GELU } MatvecInput;
#define MATVEC_BLOCK 32  // inputs rounded at a time (two 16-float vectors)
extern void matvec_bf16_in(float *out, const float *inp, MatvecInput act, const uint16_t *packed, size_t K,
                    size_t OC, MatvecMode mode, uint32_t *scratch);

// Which bf16 kernel matvec_bf16 runs: "avx512-bf16" (vdpbf16ps) or "plain-c".
// matvec_bf16_force_plain(1) makes it take plain C anyway (tests compare the
// two; a CPU without AVX-512 BF16 always takes plain C).
extern const char *matvec_bf16_kernel(void);
extern void matvec_bf16_force_plain(int on);
