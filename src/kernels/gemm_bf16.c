// gemm_bf16.c — gemm_bf16's serial block: the packing that rounds to bf16 and
// the vdpbf16ps micro-kernel (gemm.h; the loop nest is gemm.c's).
//
// vdpbf16ps multiplies bf16 PAIRS: lane j of the accumulator gets
// a[2j]*b[2j] + a[2j+1]*b[2j+1], each product exact in fp32 (8 x 8 significant
// bits). So the packed operands hold k in pairs, one 32-bit word per pair
// (k even in the low half, k odd in the high half; an odd kc pads a zero):
//   B panel, per GEMM_BF16_NR columns: bp[p*32 + j] = (op(B)[2p][j], op(B)[2p+1][j])
//   A, op(A) = A^T: per 8 rows, k-major:  ap[p*8 + i] = (op(A)[i][2p], op(A)[i][2p+1])
//   A, op(A) = A:   row-major, kp words per row: ap[i*kp + p], the row converted in place
// The conversion (vcvtne2ps2bf16: round to nearest even, as bf16_from_float)
// happens while packing, which reads the fp32 operand once anyway.
//
// Compiled in every x86-64 build through BF16_TARGET (bf16.h), called only
// when the CPU has AVX-512 BF16.
#include "gemm_kernels.h"
#include "kernels/bf16.h"

#if defined(BF16_HAVE_KERNELS)
#include <immintrin.h>
#include <stdint.h>

#include "kernels/avx512_tile.h"

// Blocking, in the bytes of gemm.c's per-thread buffers (bf16 halves them).
#define BF_KC GEMM_KC  // must be even: a K block holds whole pairs
#define BF_MC 192      // rows of A per packed block (a multiple of 8)
#define BF_NC 512      // columns of B per packed panel (a multiple of 32)
_Static_assert(BF_KC % 2 == 0, "bf16 K blocks hold whole pairs");
_Static_assert(BF_MC * (BF_KC / 2) <= GEMM_MC * GEMM_KC, "bf16 A block fits gemm.c's buffer");
_Static_assert(BF_NC * (BF_KC / 2) <= GEMM_KC * GEMM_NC, "bf16 B panel fits gemm.c's buffer");

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

// 16 words (x0[j], x1[j]), j < 16: two fp32 vectors rounded and interleaved.
BF16_TARGET static inline __m512i pair_up(__m512 x0, __m512 x1) {
    const __m512i idx = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8,
                                         23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    // cvtne2ps_pbh(hi, lo): elements 0..15 from lo, 16..31 from hi
    return _mm512_permutexvar_epi16(idx, (__m512i)_mm512_cvtne2ps_pbh(x1, x0));
}

// Up to 32 contiguous floats src[0 .. w) (zeros after) as 16 pair words.
BF16_TARGET static inline __m512i row_pairs(const float *src, size_t w) {
    __m512 lo = _mm512_maskz_loadu_ps(mask_first(w), src);
    __m512 hi = w > 16 ? _mm512_maskz_loadu_ps(mask_first(w - 16), src + 16) : _mm512_setzero_ps();
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);  // in k order: word p = (k 2p, k 2p+1)
}

// Pairs of rows r0, r0+1 of a row-major X (rows < kc), `n` (<= 16) columns
// from column j: the pair-interleaved layout of op(B) = B and op(A) = A^T.
BF16_TARGET static inline __m512i rows_pair_words(const float *X, size_t ldx, size_t r0, size_t kc,
                                                  size_t j, size_t n) {
    __mmask16 m = mask_first(n);
    __m512 x0 = _mm512_maskz_loadu_ps(m, X + r0 * ldx + j);
    __m512 x1 = r0 + 1 < kc ? _mm512_maskz_loadu_ps(m, X + (r0 + 1) * ldx + j) : _mm512_setzero_ps();
    return pair_up(x0, x1);
}

// op(B)[k0 .. k0+kc)[j0 .. j0+nc) -> bp (bf16 pairs), columns padded to 32.
BF16_TARGET static void pack_b(uint32_t *bp, int transB, const float *B, size_t ldb, size_t k0, size_t kc,
                               size_t j0, size_t nc) {
    size_t kp = (kc + 1) / 2;
    for (size_t q = 0; q < nc; q += GEMM_BF16_NR) {
        size_t nr = min_sz(GEMM_BF16_NR, nc - q);
        uint32_t *dst = bp + q * kp;  // (kp, 32) words
        for (size_t h = 0; h < GEMM_BF16_NR; h += 16) {
            size_t n = nr > h ? min_sz(16, nr - h) : 0;
            if (!transB) {  // B is (K, N): pair up rows 2p, 2p+1
                for (size_t p = 0; p < kp; p++)
                    _mm512_store_si512(dst + p * 32 + h,
                                       n ? rows_pair_words(B + k0 * ldb, ldb, 2 * p, kc, j0 + q + h, n)
                                         : _mm512_setzero_si512());
                continue;
            }
            // B is (N, K): each row of B is a column of op(B), already in pair order once
            // converted; 16 rows x 16 words go through the register transpose
            const float *src = B + (j0 + q + h) * ldb + k0;
            for (size_t c0 = 0; c0 < kc; c0 += 32) {
                size_t w = min_sz(32, kc - c0), words = (w + 1) / 2;
                __m512 r[16];
                for (size_t i = 0; i < 16; i++)
                    r[i] = i < n ? _mm512_castsi512_ps(row_pairs(src + i * ldb + c0, w)) : _mm512_setzero_ps();
                transpose16(r);
                for (size_t c = 0; c < words; c++) _mm512_store_ps((float *)(dst + (c0 / 2 + c) * 32 + h), r[c]);
            }
        }
    }
}

// op(A)[i0 .. i0+mc)[k0 .. k0+kc) -> ap (bf16 pairs; layout by transA, see the top).
BF16_TARGET static void pack_a(uint32_t *ap, int transA, const float *A, size_t lda, size_t i0, size_t mc,
                               size_t k0, size_t kc) {
    size_t kp = (kc + 1) / 2;
    if (transA) {  // A is (K, M): 16 rows of op(A) per pair of A's rows, 8 to a panel
        for (size_t p0 = 0; p0 < mc; p0 += 16) {
            size_t n = min_sz(16, mc - p0);
            for (size_t p = 0; p < kp; p++) {
                __m512i v = rows_pair_words(A + k0 * lda, lda, 2 * p, kc, i0 + p0, n);
                _mm256_store_si256((__m256i *)(ap + p0 * kp + p * 8), _mm512_castsi512_si256(v));
                if (n > 8)
                    _mm256_store_si256((__m256i *)(ap + (p0 + 8) * kp + p * 8), _mm512_extracti64x4_epi64(v, 1));
            }
        }
        return;
    }
    for (size_t i = 0; i < mc; i++) {  // A is (M, K): each row converted where it is
        const float *src = A + (i0 + i) * lda + k0;
        for (size_t c0 = 0; c0 < kc; c0 += 32) {
            size_t w = min_sz(32, kc - c0);
            _mm512_mask_storeu_epi32(ap + i * kp + c0 / 2, mask_first((w + 1) / 2), row_pairs(src + c0, w));
        }
    }
}

// One 8 x 32 tile: acc[i][j] = sum over pairs p < kp of the pair products, in
// p order from zero, then tile_store. Row i's pair p is a[i][p * astep].
BF16_TARGET static inline __attribute__((always_inline)) void micro_core(size_t kp, const uint32_t *const a[8],
                                                                         size_t astep, int half, const uint32_t *bp,
                                                                         float *c, size_t ldc, size_t mr, size_t nr,
                                                                         float alpha, float beta) {
    __m512 acc[8][2];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    tile_prefetch(c, ldc, mr, half);
    for (size_t p = 0; p < kp; p++) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(bp + p * 32);
        __m512bh b1 = half ? b0 : (__m512bh)_mm512_load_si512(bp + p * 32 + 16);
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            __m512bh ai = (__m512bh)_mm512_set1_epi32((int)a[i][p * astep]);
            acc[i][0] = _mm512_dpbf16_ps(acc[i][0], ai, b0);
            if (!half) acc[i][1] = _mm512_dpbf16_ps(acc[i][1], ai, b1);
        }
    }
    tile_store(acc, half, c, ldc, mr, nr, alpha, beta);
}

BF16_TARGET static void micro(size_t kp, const uint32_t *const a[8], size_t astep, const uint32_t *bp, float *c,
                              size_t ldc, size_t mr, size_t nr, float alpha, float beta) {
    if (nr <= 16)
        micro_core(kp, a, astep, 1, bp, c, ldc, mr, nr, alpha, beta);
    else
        micro_core(kp, a, astep, 0, bp, c, ldc, mr, nr, alpha, beta);
}

void gemm_block_bf16(const GemmArgs *g, size_t m0, size_t m1, size_t n0, size_t n1) {
    PackBufs *pb = gemm_pack_bufs();
    uint32_t *apk = (uint32_t *)pb->a, *bpk = (uint32_t *)pb->b;
    for (size_t jc = n0; jc < n1; jc += BF_NC) {
        size_t nc = min_sz(BF_NC, n1 - jc);
        for (size_t pc = 0; pc < g->K; pc += BF_KC) {
            size_t kc = min_sz(BF_KC, g->K - pc), kp = (kc + 1) / 2;
            float beta = pc == 0 ? g->beta : 1.0f;
            pack_b(bpk, g->transB, g->B, g->ldb, pc, kc, jc, nc);
            for (size_t ic = m0; ic < m1; ic += BF_MC) {
                size_t mc = min_sz(BF_MC, m1 - ic);
                pack_a(apk, g->transA, g->A, g->lda, ic, mc, pc, kc);
                for (size_t jr = 0; jr < nc; jr += GEMM_BF16_NR) {
                    size_t nr = min_sz(GEMM_BF16_NR, nc - jr);
                    for (size_t ir = 0; ir < mc; ir += 8) {
                        size_t mr = min_sz(8, mc - ir);
                        const uint32_t *a[8];
                        size_t astep;
                        if (g->transA) {  // k-major panel: row i at ap[p*8 + i]
                            for (size_t i = 0; i < 8; i++) a[i] = apk + ir * kp + i;
                            astep = 8;
                        } else {  // row-major: row i at ap[i*kp + p]; rows past mr read, unused
                            for (size_t i = 0; i < 8; i++) a[i] = apk + (ir + (i < mr ? i : mr - 1)) * kp;
                            astep = 1;
                        }
                        micro(kp, a, astep, bpk + jr * kp, g->C + (ic + ir) * g->ldc + jc + jr, g->ldc, mr, nr,
                              g->alpha, beta);
                        if (pc + kc == g->K) gemm_epilogue(g, ic + ir, jc + jr, mr, nr);
                    }
                }
            }
        }
    }
}

#else  // no bf16 kernels in this build: bf16_cpu_missing() refuses before anything gets here

#include <stdio.h>
#include <stdlib.h>

void gemm_block_bf16(const GemmArgs *g, size_t m0, size_t m1, size_t n0, size_t n1) {
    (void)g, (void)m0, (void)m1, (void)n0, (void)n1;
    fprintf(stderr, "lmtrain: internal error: gemm_bf16 in a build without bf16 kernels\n");
    abort();
}
#endif
