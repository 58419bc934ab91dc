// gemm.c — C = alpha * op(A) op(B) + beta * C, blocked and packed (GotoBLAS
// loop order), threaded by output blocks.
//
// Loop nest of one serial block of C (rows m0..m1, columns n0..n1):
// (GEMM_NC, GEMM_MC: the blocking in force, gemm_nc() / gemm_mc(): it never
// changes a result, kernels/blocking.h)
//   jc: GEMM_NC columns of C        pack op(B)[pc.., jc..] once  (kc x nc, lives in L2)
//    pc: GEMM_KC steps of K          (fixed: the K summation order never depends on the partition)
//     ic: GEMM_MC rows of C          pack op(A)[ic.., pc..]       (mc x kc)
//      jr, ir: GEMM_NR x GEMM_MR tiles -> gemm_micro              (B sliver stays in L1)
// The first K block applies beta; later ones add (beta = 1). Where op(A) = A
// on AVX-512 and AVX2 (GEMM_K_INNER), the K blocks go inside the row blocks
// instead (gemm_block_k_inner): same tiles, same chains, less traffic for C. On
// AVX-512 and AVX2 op(A) = A^T (the weights' gradients, dY^T X) may be read
// in place too: a tile reads its GEMM_MR contiguous floats per step where
// they lie, the layout a packed sliver has (gemm_micro_cols). Whether that
// beats packing when A's rows lie a page or more apart depends on the CPU
// (kernels/blocking.h: pack_at), so the blocking says.
//
// The contract callers build on: every C element is the same chain of
// operations whatever the tile, block, thread count, or the rest of the
// product (M, N) — its value depends only on its row of op(A), its column of
// op(B), K, alpha, beta and its old value. So gemm() is bit-identical for any
// thread count, and a one-row product (generation) matches the same row of
// the batched one (training) exactly. The matrix-vector shortcut (gemm_vec)
// keeps that arithmetic too. tests/kernels/test_gemm.c writes the chain out.
#include "gemm.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gemm_kernels.h"
#include "kernels/bf16.h"
#include "kernels/blocking.h"
#include "util/err.h"
#include "util/pool.h"

const char *gemm_isa(void) { return GEMM_ISA; }

size_t gemm_mc(void) { return (size_t)GEMM_MR * (size_t)gemm_blocking(GEMM_PATH).mc_tiles; }
size_t gemm_nc(void) { return (size_t)GEMM_NR * (size_t)gemm_blocking(GEMM_PATH).nc_tiles; }

// A task of the threaded gemm gets at least this many multiply-adds (~8 us at
// 250 GFLOP/s): waking a pool thread was measured at 5 us best case and ~25 us
// on average on the busy 2-core target, so smaller splits lose.
#define GEMM_MIN_TASK_FMA ((size_t)1 << 21)

// A block of at most this many rows of C reads op(B) = B in place instead of
// packing it: a packed B panel is reused by every row tile of the block, so
// for the few row tiles of the attention kinds' small per-head products the
// packing costs as much as it saves.
#ifndef GEMM_B_IN_PLACE_ROWS
#define GEMM_B_IN_PLACE_ROWS 64
#endif

// pack_at (kernels/blocking.h) packs op(A) = Aᵀ when A's rows are at least
// this many floats apart: 4 KiB, a page a step. Shorter strides are read in
// place (the tile prefetches them): on the Emerald Rapids Xeon that beat
// packing at the baby model's strides (384, 512 floats) and lost to it at the
// large model's (1152, 1536).
#define GEMM_PACK_AT_MIN_LDA 1024

// ---------------------------------------------------------------- reference

void gemm_ref(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
              const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
              size_t ldc) {
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            double acc = 0.0;
            for (size_t k = 0; k < K; k++) {
                double a = transA ? A[k * lda + i] : A[i * lda + k];
                double b = transB ? B[j * ldb + k] : B[k * ldb + j];
                acc += a * b;
            }
            double c = (double)alpha * acc;
            if (beta != 0.0f) c += (double)beta * C[i * ldc + j];
            C[i * ldc + j] = (float)c;
        }
    }
}

// ---------------------------------------------------------------- packing buffers

// One pair of packing buffers per thread (PackBufs, gemm_kernels.h), allocated
// on the thread's first gemm at their fixed maximum size and freed when the
// thread exits.

static pthread_key_t bufs_key;
static pthread_once_t bufs_once = PTHREAD_ONCE_INIT;
static int bufs_key_ok;
static _Thread_local PackBufs *tl_bufs;

static void bufs_free(void *p) {
    PackBufs *pb = p;
    free(pb->raw);
    free(pb->bk_raw);
    free(pb);
}

static void bufs_key_init(void) {
    // Failure is not fatal: buffers of exiting threads would just not be freed.
    bufs_key_ok = pthread_key_create(&bufs_key, bufs_free) == 0;
}

// (Re)allocates pb's a and b for mc rows, nc columns.
static void pack_bufs_size(PackBufs *pb, size_t mc, size_t nc) {
    free(pb->raw);
    size_t na = mc * GEMM_KC, nb = (size_t)GEMM_KC * nc;
    pb->raw = xmalloc((na + nb) * sizeof(float) + 64);
    float *base = (float *)(((uintptr_t)pb->raw + 63) & ~(uintptr_t)63);
    pb->a = base;
    pb->b = base + na;  // na is a multiple of 16 floats, so b stays 64-byte aligned
    pb->mc = mc, pb->nc = nc;
}

PackBufs *gemm_pack_bufs(void) {
    size_t mc = gemm_mc() > GEMM_MC ? gemm_mc() : GEMM_MC, nc = gemm_nc() > GEMM_NC ? gemm_nc() : GEMM_NC;
    if (tl_bufs) {
        if (tl_bufs->mc < mc || tl_bufs->nc < nc) pack_bufs_size(tl_bufs, mc, nc);
        return tl_bufs;
    }
    pthread_once(&bufs_once, bufs_key_init);
    PackBufs *pb = xmalloc(sizeof *pb);
    pb->raw = NULL;
    pack_bufs_size(pb, mc, nc);
    pb->bk_raw = NULL;
    pb->bk = NULL;
    pb->bk_cap = 0;
    if (bufs_key_ok) pthread_setspecific(bufs_key, pb);  // registers the destructor
    tl_bufs = pb;
    return pb;
}

// ---------------------------------------------------------------- serial blocked product

// One tile of C: rows ic+ir .. +mr, columns jc+jr .. +nr, one K block of kc
// steps. op(A): packed at ap (ap != NULL), else read in place (op(A) = A).
// op(B): a packed panel at bp (ldb == 0), else read in place, row k at bp + k*ldb.
static inline void one_tile(const GemmArgs *g, const float *ap, const float *bp, size_t ldb, size_t ic, size_t ir,
                            size_t mr, size_t jc, size_t jr, size_t nr, size_t kc, size_t pc, float beta) {
    float *c = g->C + (ic + ir) * g->ldc + jc + jr;
#if defined(GEMM_HAS_MICRO_ROWS)
    if (!ap && g->transA) {  // op(A) = A^T in place: row i, step k at A[(pc + k)*lda + ic + ir + i]
        const float *a = g->A + pc * g->lda + ic + ir;
        if (ldb)
            gemm_micro_cols_b(kc, a, g->lda, bp + jr, ldb, c, g->ldc, mr, nr, g->alpha, beta);
        else
            gemm_micro_cols(kc, a, g->lda, bp + jr * kc, c, g->ldc, mr, nr, g->alpha, beta);
        return;
    }
    if (!ap) {
        const float *a = g->A + (ic + ir) * g->lda + pc;
        if (ldb)
            gemm_micro_rows_b(kc, a, g->lda, bp + jr, ldb, c, g->ldc, mr, nr, g->alpha, beta);
        else
            gemm_micro_rows(kc, a, g->lda, bp + jr * kc, c, g->ldc, mr, nr, g->alpha, beta);
        return;
    }
    if (ldb) {
        gemm_micro_b(kc, ap + ir * kc, bp + jr, ldb, c, g->ldc, mr, nr, g->alpha, beta);
        return;
    }
#elif defined(GEMM_HAS_MICRO_COLS)
    (void)ldb;  // op(B) is always packed here
    if (!ap) {  // op(A) = A^T in place (the only in-place A of this path)
        gemm_micro_cols(kc, g->A + pc * g->lda + ic + ir, g->lda, bp + jr * kc, c, g->ldc, mr, nr, g->alpha, beta);
        return;
    }
#else
    (void)pc, (void)ldb;  // without in-place micro-kernels both operands are packed here
#endif
    gemm_micro(kc, ap + ir * kc, bp + jr * kc, c, g->ldc, mr, nr, g->alpha, beta);
}

// The tiles of one block of C: rows ic..ic+mc, columns jc..jc+nc, one K block
// (one_tile's operands). Column slivers outside, so one B sliver stays in L1
// while the row tiles pass. The last K block of a product with an epilogue
// goes by rows instead (the A sliver stays in L1, the B slivers come from L2
// either way), so that each strip of GEMM_MR rows is final as soon as its
// columns are done: the epilogue then runs on it while it is in L1 and reads
// its own operands in runs of nc. (Per tile, those were GEMM_MR strided runs
// of 128 bytes that the hardware prefetcher does not follow; per block, they
// pushed the B panel out of L2: with GELU's epilogue both measured slower than
// the separate pass, docs/speed-log.md.)
// The tiles' chains are the same in either order.
static void block_tiles(const GemmArgs *g, const float *ap, const float *bp, size_t ldb, size_t ic,
                        size_t mc, size_t jc, size_t nc, size_t kc, size_t pc, float beta) {
    if (g->epi && pc + kc == g->K) {
        for (size_t ir = 0; ir < mc; ir += GEMM_MR) {
            size_t mr = mc - ir < GEMM_MR ? mc - ir : GEMM_MR;
            for (size_t jr = 0; jr < nc; jr += GEMM_NR)
                one_tile(g, ap, bp, ldb, ic, ir, mr, jc, jr, nc - jr < GEMM_NR ? nc - jr : GEMM_NR, kc, pc, beta);
            gemm_epilogue(g, ic + ir, jc, mr, nc);
        }
        return;
    }
    for (size_t jr = 0; jr < nc; jr += GEMM_NR) {
        size_t nr = nc - jr < GEMM_NR ? nc - jr : GEMM_NR;
        for (size_t ir = 0; ir < mc; ir += GEMM_MR)
            one_tile(g, ap, bp, ldb, ic, ir, mc - ir < GEMM_MR ? mc - ir : GEMM_MR, jc, jr, nr, kc, pc, beta);
    }
}

#if defined(GEMM_K_INNER)
static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

// pb->bk with room for at least n floats (grown, never shrunk: the sizes a
// thread sees repeat every training step).
static float *pack_bufs_bk(PackBufs *pb, size_t n) {
    if (n > pb->bk_cap) {
        free(pb->bk_raw);
        pb->bk_raw = xmalloc(n * sizeof(float) + 64);
        pb->bk = (float *)(((uintptr_t)pb->bk_raw + 63) & ~(uintptr_t)63);
        pb->bk_cap = n;
    }
    return pb->bk;
}

// C[m0..m1, n0..n1) over all of K for op(A) = A, with the K blocks innermost
// above the tiles:
//   jc: up to GEMM_NC columns   pack op(B)[all of K][jc..] once: one kc x nc panel per K block
//    ic: GEMM_MC rows of C
//     pc: GEMM_KC steps of K     the C block (mc x nc) stays in L2 over all of K;
//                                op(A)[ic..][pc..] read in place (AVX-512) or packed (mc x kc)
//      jr, ir: tiles
// The other order (K blocks outside the row blocks) streams all of C's rows
// through memory once per K block, beside the B panel in L2: measured, a tenth
// to a sixth of the large model's forward and dX products' time (docs/speed.md).
// Each tile runs the K blocks in the same order with the same beta, so every
// element is the same chain as in the other order.
static void gemm_block_k_inner(const GemmArgs *g, PackBufs *pb, int b_in_place, size_t m0, size_t m1,
                               size_t n0, size_t n1) {
    // the packed panel, all K blocks of nc columns, is at most GEMM_BK_FLOATS
    size_t ncb = gemm_nc(), mcb = gemm_mc();
    if (g->K * ncb > GEMM_BK_FLOATS) ncb = GEMM_BK_FLOATS / g->K / GEMM_NR * GEMM_NR;
    if (ncb < GEMM_NR) ncb = GEMM_NR;
    float *bk = NULL;
    if (!b_in_place) bk = pack_bufs_bk(pb, g->K * round_up(n1 - n0 < ncb ? n1 - n0 : ncb, GEMM_NR));
    for (size_t jc = n0; jc < n1; jc += ncb) {
        size_t nc = n1 - jc < ncb ? n1 - jc : ncb, ncp = round_up(nc, GEMM_NR);
        if (!b_in_place)
            for (size_t pc = 0; pc < g->K; pc += GEMM_KC) {
                size_t kc = g->K - pc < GEMM_KC ? g->K - pc : GEMM_KC;
                gemm_pack_b(bk + pc * ncp, g->transB, g->B, g->ldb, pc, kc, jc, nc);
            }
        for (size_t ic = m0; ic < m1; ic += mcb) {
            size_t mc = m1 - ic < mcb ? m1 - ic : mcb;
            for (size_t pc = 0; pc < g->K; pc += GEMM_KC) {
                size_t kc = g->K - pc < GEMM_KC ? g->K - pc : GEMM_KC;
                float beta = pc == 0 ? g->beta : 1.0f;
                const float *ap = NULL;  // in place
#if !defined(GEMM_HAS_MICRO_ROWS)
                gemm_pack_a(pb->a, g->transA, g->A, g->lda, ic, mc, pc, kc);
                ap = pb->a;
#endif
                if (b_in_place)
                    block_tiles(g, ap, g->B + pc * g->ldb + jc, g->ldb, ic, mc, jc, nc, kc, pc, beta);
                else
                    block_tiles(g, ap, bk + pc * ncp, 0, ic, mc, jc, nc, kc, pc, beta);
            }
        }
    }
}
#endif

// C[m0..m1, n0..n1) over all of K.
static void gemm_block(const GemmArgs *g, size_t m0, size_t m1, size_t n0, size_t n1) {
    if (g->K == 0) {
        for (size_t i = m0; i < m1; i++)
            for (size_t j = n0; j < n1; j++) {
                float *c = g->C + i * g->ldc + j;
                *c = g->beta != 0.0f ? g->beta * *c : 0.0f;
            }
        gemm_epilogue(g, m0, n0, m1 - m0, n1 - n0);
        return;
    }
    if (g->bf16) {
        gemm_block_bf16(g, m0, m1, n0, n1);
        return;
    }
#if defined(GEMM_HAS_VEC)
    // Matrix-vector shapes skip packing and the 7/8 (M == 1) or 31/32
    // (N == 1) of each tile that would be padding; same arithmetic per
    // element as the tiles. M == 1 with op(B) = B^T is generation's matmul.
    if (g->N == 1) {  // C[i][0] = sum_k op(A)[i][k] op(B)[k][0]
        size_t incb = g->transB ? 1 : g->ldb;
        if (g->transA)
            gemm_vec(m0, m1, g->K, GEMM_KC, g->alpha, g->A, g->lda, g->B, incb, g->beta, g->C,
                     g->ldc);
        else
            gemm_vec_t(m0, m1, g->K, GEMM_KC, g->alpha, g->A, g->lda, g->B, incb, g->beta, g->C,
                       g->ldc);
        gemm_epilogue(g, m0, n0, m1 - m0, n1 - n0);
        return;
    }
    if (g->M == 1) {  // C[0][j] = sum_k op(A)[0][k] op(B)[k][j]
        size_t inca = g->transA ? g->lda : 1;
        if (g->transB)
            gemm_vec_t(n0, n1, g->K, GEMM_KC, g->alpha, g->B, g->ldb, g->A, inca, g->beta, g->C, 1);
        else
            gemm_vec(n0, n1, g->K, GEMM_KC, g->alpha, g->B, g->ldb, g->A, inca, g->beta, g->C, 1);
        gemm_epilogue(g, m0, n0, m1 - m0, n1 - n0);
        return;
    }
#endif
    PackBufs *pb = gemm_pack_bufs();
#if defined(GEMM_HAS_MICRO_ROWS)
    int b_in_place = !g->transB && m1 - m0 <= GEMM_B_IN_PLACE_ROWS;
#else
    int b_in_place = 0;
#endif
#if defined(GEMM_K_INNER)
    if (!g->transA) {
        gemm_block_k_inner(g, pb, b_in_place, m0, m1, n0, n1);
        return;
    }
#endif
    size_t mcb = gemm_mc(), ncb = gemm_nc();
#if defined(GEMM_HAS_MICRO_COLS)
    // pack_at packs only rows a page or more apart (kernels/blocking.h)
    int pack_at = gemm_blocking(GEMM_PATH).pack_at && g->lda >= GEMM_PACK_AT_MIN_LDA;
#endif
    for (size_t jc = n0; jc < n1; jc += ncb) {
        size_t nc = n1 - jc < ncb ? n1 - jc : ncb;
        for (size_t pc = 0; pc < g->K; pc += GEMM_KC) {
            size_t kc = g->K - pc < GEMM_KC ? g->K - pc : GEMM_KC;
            const float *bp = g->B + pc * g->ldb + jc;  // op(B)[pc][jc] when read in place
            size_t ldb = g->ldb;
            if (!b_in_place) {
                gemm_pack_b(pb->b, g->transB, g->B, g->ldb, pc, kc, jc, nc);
                bp = pb->b;
                ldb = 0;
            }
            for (size_t ic = m0; ic < m1; ic += mcb) {
                size_t mc = m1 - ic < mcb ? m1 - ic : mcb;
#if defined(GEMM_HAS_MICRO_COLS)
                // only op(A) = A^T comes here (A itself goes K-inner): read in
                // place, its GEMM_MR floats per step contiguous as in a packed
                // sliver, unless this CPU's blocking packs it
                const float *ap = NULL;
                if (pack_at) {
                    gemm_pack_a(pb->a, g->transA, g->A, g->lda, ic, mc, pc, kc);
                    ap = pb->a;
                }
#else
                const float *ap = pb->a;
                gemm_pack_a(pb->a, g->transA, g->A, g->lda, ic, mc, pc, kc);
#endif
                block_tiles(g, ap, bp, ldb, ic, mc, jc, nc, kc, pc, pc == 0 ? g->beta : 1.0f);
            }
        }
    }
}

void gemm_serial(int transA, int transB, size_t M, size_t N, size_t K, float alpha,
                 const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                 size_t ldc) {
    if (M == 0 || N == 0) return;
    GemmArgs g = {transA, transB, M, N, K, alpha, beta, A, B, C, lda, ldb, ldc, 0, NULL};
    gemm_block(&g, 0, M, 0, N);
}

// ---------------------------------------------------------------- threaded

// Tasks own whole units of C: `unit` rows (split_rows) or columns, all of K.
typedef struct {
    GemmArgs g;
    int split_rows;
    size_t unit;
} GemmTask;

static void gemm_task(void *ctx, size_t lo, size_t hi) {
    const GemmTask *t = ctx;
    const GemmArgs *g = &t->g;
    size_t extent = t->split_rows ? g->M : g->N;
    size_t a = lo * t->unit, b = hi * t->unit < extent ? hi * t->unit : extent;
    if (t->split_rows)
        gemm_block(g, a, b, 0, g->N);
    else
        gemm_block(g, 0, g->M, a, b);
}

static void gemm_threaded(const GemmArgs *g) {
    if (g->M == 0 || g->N == 0) return;
    GemmTask t = {*g, g->M >= g->N, 0};
    // Split the longer side, so each task re-packs only the smaller operand.
    if (g->bf16)
        t.unit = t.split_rows ? GEMM_BF16_MR : GEMM_BF16_NR;
    else
        t.unit = t.split_rows ? GEMM_MR : GEMM_NR;
    size_t extent = t.split_rows ? g->M : g->N, other = t.split_rows ? g->N : g->M;
    size_t units = (extent + t.unit - 1) / t.unit;
    size_t unit_fma = t.unit * other * (g->K ? g->K : 1);
    size_t grain = (GEMM_MIN_TASK_FMA + unit_fma - 1) / unit_fma;
    parallel_for(units, grain, gemm_task, &t);
}

void gemm_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A, size_t lda,
              const float *B, size_t ldb, float beta, float *C, size_t ldc, const GemmEpilogue *epi) {
    GemmArgs g = {transA, transB, M, N, K, alpha, beta, A, B, C, lda, ldb, ldc, 0, epi};
    gemm_threaded(&g);
}

void gemm(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
          size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    gemm_epi(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}

void gemm_bf16_epi(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
                   size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc,
                   const GemmEpilogue *epi) {
    const char *missing = bf16_cpu_missing();
    if (missing) {  // callers check first (the config refuses bf16 here): reaching this is a bug
        fprintf(stderr, "lmtrain: internal error: gemm_bf16 called, but %s\n", missing);
        abort();
    }
    GemmArgs g = {transA, transB, M, N, K, alpha, beta, A, B, C, lda, ldb, ldc, 1, epi};
    gemm_threaded(&g);
}

void gemm_bf16(int transA, int transB, size_t M, size_t N, size_t K, float alpha, const float *A,
               size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc) {
    gemm_bf16_epi(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, NULL);
}
