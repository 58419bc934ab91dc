// matvec_i8.h — generation's one-token product with int8 weights:
// out (OC) = W (OC, K) · inp (K), a quarter of fp32's bytes per token.
//
// Quantisation (symmetric, no zero point):
//   weights, once at pack time, per output row o:
//       s_o = m_o / 127 with m_o = max_k |W[o][k]| (float division; s_o = 0
//       for an all-zero row), q_ok = W[o][k] * (127 / m_o) rounded to the
//       nearest integer (ties to even), clamped to [-127, 127];
//   the input, per product (matvec_i8_quantize_input), the whole vector:
//       s_x = a / 127 with a = max_k |inp[k]|, x_k = inp[k] * (127 / a)
//       rounded the same way, stored as u_k = x_k + 128 in [1, 255] (the
//       unsigned operand of vpdpbusd).
//   With MATVEC_IN_GELU the vector quantised is GELU(inp) (gelu_value, bit
//   for bit gelu_forward's), and a = max(max_k inp[k], MATVEC_I8_GELU_FLOOR):
//   known before GELU is computed, so GELU and the quantisation can run a
//   block at a time inside the product (at most a few bits of a 127-step grid
//   lost against the exact max when every input is below 0.17). It bounds
//   |GELU(inp)| to within half a step: GELU(x) <= x for x > 0, and below zero
//   gelu_value (the tanh form) dips to -0.170041 at x = -0.7526 (the erf
//   form's -0.16997 is not this code's), 0.03 of a step past -127, where the
//   clamp holds it: less than the rounding's half step (test_gelu_floor).
//   A row or input whose largest |value| is below MATVEC_I8_TINY is taken as
//   zero (scale 0): 127 / m would overflow near the bottom of the float range,
//   and the values such a row or input contributes are below 1e-30 anyway.
//   Then, per output: acc_o = sum_k u_k q_ok (int32, exact: |acc| <= 255 ·
//   127 · K < 2^31 for K <= MATVEC_I8_MAX_K), d_o = acc_o - c_o with
//   c_o = 128 sum_k q_ok stored in the packed copy (so d_o = sum_k x_k q_ok),
//   and
//       out_o = (float)d_o * (s_o * s_x)        (two fp32 multiplies, in that order)
//   or out_o + that in MATVEC_ADD mode. Both kernels — AVX-512 VNNI
//   (vpdpbusd, 64 multiply-adds an instruction) and plain C — compute the same
//   integers and these same fp32 operations, so their outputs are equal bit for
//   bit. An input with an infinity or NaN gives NaN outputs, and so does a
//   weight row with one (its s_o is stored as NaN), as fp32 would propagate
//   them: not a quantised guess.
//
// The error against the fp32 product sum_k W[o][k] inp[k] is bounded per
// output by sum_k (s_o / 2 (|inp_k| + s_x / 2) + |W[o][k]| s_x / 2) plus fp32
// rounding (tests/kernels/test_matvec_i8.c).
//
// Packed layout: the outputs in panels of MATVEC_PANEL (matvec.h); a panel of
// n outputs, width = n rounded up to 16, holds
//   for each quad p of k (4p .. 4p+3, zero past K): width groups of four
//       bytes, group j the int8 q_{r0+j, 4p} .. q_{r0+j, 4p+3} in that order
//       (the 32-bit word vpdpbusd multiplies with the input's four bytes);
//   then width floats s_o, then width int32 c_o (zero for padding outputs).
// One contiguous stream, read once front to back, like matvec.h's.
#pragma once
#include "kernels/kernel_names.h"
#include <stddef.h>
#include <stdint.h>

#include "kernels/matvec.h"

#define MATVEC_I8_MAX_K 65536  // acc stays exact in int32 up to here
#define MATVEC_I8_TINY 1e-30f
#define MATVEC_I8_GELU_FLOOR 0.17f  // max |GELU(x)| over x <= 0 within half a step (above)
#define MATVEC_I8_BLOCK 64  // inputs quantised at a time inside the product

// bytes of the packed copy of a (OC, K) weight (a multiple of 64)
extern size_t matvec_i8_packed_bytes(size_t K, size_t OC);
// dst (64-byte aligned) <- w (OC, K), row-major as the model stores it
extern void matvec_i8_pack(void *dst, const float *w, size_t OC, size_t K);

// bytes of a product's scratch (the quantised input: K rounded up to 64)
extern size_t matvec_i8_scratch_bytes(size_t K);

// u (scratch, matvec_i8_scratch_bytes(K), 64-byte aligned) <- the quantised
// input u_k = x_k + 128 (of act(inp)), padded with 128 (x = 0); returns s_x
// (0 for a zero input, NaN if the input has an infinity or NaN). What the
// products below quantise, as they do it.
extern float matvec_i8_quantize_input(uint8_t *u, const float *inp, MatvecInput act, size_t K);

// out (OC) = (or +=) W act(inp), W packed by matvec_i8_pack; K <=
// MATVEC_I8_MAX_K. scratch as for matvec_i8_quantize_input. out must not
// overlap inp. The VNNI kernel quantises the input a block of MATVEC_I8_BLOCK
// at a time between the first panel's weight loads (after one pass for a).
extern void matvec_i8_in(float *out, const float *inp, MatvecInput act, const void *packed, size_t K, size_t OC,
                  MatvecMode mode, uint8_t *scratch);
extern void matvec_i8(float *out, const float *inp, const void *packed, size_t K, size_t OC, MatvecMode mode,
               uint8_t *scratch);  // act = MATVEC_IN_PLAIN

// NULL if this process can run the VNNI kernel; otherwise why not, a phrase for
// an error message. Checked at run time (cpuid through the compiler, which
// includes the OS saving the AVX-512 registers). Test hook: with the
// environment variable LMTRAIN_CPU_NO_VNNI set to a non-empty value the CPU is
// taken to lack it, so the refusal can be tested on any machine.
extern const char *matvec_i8_cpu_missing(void);

// Which kernel matvec_i8 runs: "avx512-vnni" or "plain-c".
// matvec_i8_force_plain(1) makes it take plain C anyway (tests compare the
// two; without VNNI plain C is the only one).
extern const char *matvec_i8_kernel(void);
extern void matvec_i8_force_plain(int on);
