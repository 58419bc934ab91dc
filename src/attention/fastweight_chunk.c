// fastweight_chunk.c — chunkwise forward and reverse-sweep backward on one slab.
//
// Notation (see the header): d = dh, w = d + normalize, L = this chunk's
// length, r = row (query) and s = column (key) inside the chunk, pw[n] = λ^n.
// Every decay factor goes through the chunk's Decay (below): the powers of one
// λ, or exps of differences of cumulative log-decays for a λ per position; the
// gradient is collected as dL/db_r and turned into dL/dlog λ at the end.
// All chunk products go through gemm_serial: the caller already runs one slab
// per task, so the products themselves stay single-threaded. Those with the
// causal mask form only its lower triangle (wy_gemm_lower) or skip the zeros
// above it (fastweight_tri.h), each element the full product's value.
#include "fastweight_chunk.h"

#include <math.h>
#include <string.h>

#include "attention/fastweight_tri.h"
#include "attention/feature_map.h"
#include "attention/wy_kernels.h"
#include "kernels/gemm.h"
#include "kernels/vexp.h"

// sub-buffers start on 16-float (64-byte) boundaries
static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

static size_t width(const FwSlab *p) { return p->dh + (p->normalize ? 1 : 0); }
static size_t n_chunks(const FwSlab *p) { return p->chunk ? (p->T + p->chunk - 1) / p->chunk : 0; }

// ---- saved: the state entering each chunk, then (normalize) den per position ----
typedef struct {
    float *states;  // (n_chunks, d, w)
    float *den;     // (T) φ(q_i)ᵀ z_i + eps, only with normalize
} Saved;

static Saved saved_at(const FwSlab *p, float *base) {
    Saved s;
    s.states = base;
    s.den = base + round16(n_chunks(p) * p->dh * width(p));
    return s;
}

size_t fw_saved_floats(const FwSlab *p) {
    return round16(n_chunks(p) * p->dh * width(p)) + (p->normalize ? round16(p->T) : 0);
}

// ---- scratch ----
// Ṽ = [v | 1] is formed only where a head size makes the backward's split
// products round differently (vt, fw_ones_split_exact); otherwise v is read
// where it lies (rows ld apart) and the ones column is `ones` (see gemm_v and
// the notes in the backward).
typedef struct {
    float *phq, *phk;  // (L, d) φ(q), φ(k) of the chunk
    float *ones;       // (chunk) 1.0: Ṽ's last column with normalize
    float *nt;         // (L, w) forward: [num | den - eps]; backward: [dnum | dden]
    float *a;          // (L, L) φ(q) φ(k)ᵀ, then ⊙ D
    float *g;          // (L, L) backward: dÑ Ṽᵀ, then ⊙ D
    float *dphq;       // (L, d)
    float *dphk;       // (L, d)
    float *dvt;        // (L, d) dL/dv (the ones column's gradient is not needed)
    float *vt;         // (L, w) [v | 1] formed, or NULL (with normalize, where !fw_ones_split_exact(d))
    float *st;         // (d, w) forward: carried state [S | z]
    float *dst;        // (d, w) backward: dL/d(state after the chunk)
    float *pw;         // (chunk + 2) λ^n, n = 0 .. chunk + 1
    float *pr;         // (chunk) the same powers reversed, pr[i] = λ^(chunk-1-i): row r of D is pr + chunk-1-r
    float *drow;       // (chunk) one row of D (a λ per position), computed once and read twice
    float *eq, *ek;    // (chunk) query-from-state and key-to-state factors of the chunk
    double *b, *db;    // (chunk) cumulative log-decays b_r and dL/db_r
} Scratch;

int fw_ones_split_exact(size_t d) { return d < GEMM_KC || d % GEMM_KC == 0; }

// the backward forms [v | 1] (see the note above fw_chunk_backward)
static int formed_v(const FwSlab *p) { return p->normalize && !fw_ones_split_exact(p->dh); }

static Scratch scratch_at(const FwSlab *p, float *base) {
    size_t chunk = p->chunk, d = p->dh, w = width(p);
    Scratch s;
    float *f = base;
    s.phq = f;  f += round16(chunk * d);
    s.phk = f;  f += round16(chunk * d);
    s.ones = f; f += round16(chunk);
    s.nt = f;   f += round16(chunk * w);
    s.a = f;    f += round16(chunk * chunk);
    s.g = f;    f += round16(chunk * chunk);
    s.dphq = f; f += round16(chunk * d);
    s.dphk = f; f += round16(chunk * d);
    s.dvt = f;  f += round16(chunk * d);
    s.vt = NULL;
    if (formed_v(p)) s.vt = f, f += round16(chunk * w);
    s.st = f;   f += round16(d * w);
    s.dst = f;  f += round16(d * w);
    s.pw = f;   f += round16(chunk + 2);
    s.pr = f;   f += round16(chunk);
    s.drow = f; f += round16(chunk);
    s.eq = f;   f += round16(chunk);
    s.ek = f;   f += round16(chunk);
    s.b = (double *)(void *)f;  f += round16(2 * chunk);  // 64-byte aligned: fine for double
    s.db = (double *)(void *)f;
    return s;
}

size_t fw_scratch_floats(const FwSlab *p) {
    size_t chunk = p->chunk, d = p->dh, w = width(p);
    return 5 * round16(chunk * d) + round16(chunk * w) + 2 * round16(chunk * chunk) + 2 * round16(d * w) +
           round16(chunk + 2) + 5 * round16(chunk) + 2 * round16(2 * chunk) + (formed_v(p) ? round16(chunk * w) : 0);
}

// λ^n and the ones column
static void fill_powers(const FwSlab *p, const Scratch *s) {
    for (size_t i = 0; i < p->chunk; i++) s->ones[i] = 1.0f;
    // λ^n = exp(n log λ): no repeated products (error growth) and no 1/λ
    // (log λ = 0, linear: exp(0) = 1 exactly, without the exps)
    for (size_t n = 0; n <= p->chunk + 1; n++) s->pw[n] = p->loglam == 0.0 ? 1.0f : (float)exp((double)n * p->loglam);
    for (size_t i = 0; i < p->chunk; i++) s->pr[i] = s->pw[p->chunk - 1 - i];
}

// The decay factors of chunk [t0, t0+L): b_r = Σ_{u<=r} log λ_{t0+u} (= (r+1) log λ
// for one λ), eq[r] = exp(b_r), ek[s] = exp(b_{L-1} − b_s), returns exp(b_{L-1}).
static float chunk_decay(const FwSlab *p, const Scratch *s, size_t t0, size_t L) {
    double acc = 0;
    for (size_t r = 0; r < L; r++) {
        acc += p->ll ? (double)p->ll[t0 + r] : p->loglam;
        s->b[r] = acc;
        s->db[r] = 0;
    }
    for (size_t r = 0; r < L; r++) {
        s->eq[r] = p->ll ? (float)exp(s->b[r]) : s->pw[r + 1];
        s->ek[r] = p->ll ? (float)exp(s->b[L - 1] - s->b[r]) : s->pw[L - 1 - r];
    }
    return p->ll ? (float)exp(s->b[L - 1]) : s->pw[L];
}

// λ = 1 (linear, or a decay whose log λ is exactly 0): every decay factor
// (D, eq, ek, es) is exp(0) = 1 exactly, and x · 1 = x for every float, so
// the multiplications by them are skipped and nothing changes.
static int unit_decay(const FwSlab *p) { return !p->ll && p->loglam == 0.0; }

// Row r of D: D_rj for j = 0 .. r, the decay from key position j to query
// position r. One λ: a slice of the reversed powers (contiguous in j, so the
// loops that read it vectorise); a λ per position: its exps, computed once
// for the row (the backward reads each twice).
static const float *decay_row(const FwSlab *p, const Scratch *s, size_t r) {
    if (!p->ll) return s->pr + (p->chunk - 1 - r);
    // the exponents, then one call of the chosen path's vexpf over the row
    for (size_t j = 0; j <= r; j++) s->drow[j] = (float)(s->b[r] - s->b[j]);
    vexpf_n(s->drow, s->drow, r + 1);
    return s->drow;
}

// dL/db_r -> dL/dlog λ_t (t = t0 + u gets Σ_{r>=u} dL/db_r), ADDED to dll if
// given; returns Σ_t dL/dlog λ_t, summed in a fixed order
static double chunk_decay_grad(const Scratch *s, size_t t0, size_t L, float *dll) {
    double suffix = 0, total = 0;
    for (size_t u = L; u-- > 0;) {
        suffix += s->db[u];
        total += suffix;
        if (dll) dll[t0 + u] += (float)suffix;
    }
    return total;
}

// rows (rows, d) of src, rows ld apart -> dst (rows, d) contiguous
static void copy_rows(float *restrict dst, const float *restrict src, size_t ld, size_t rows, size_t d) {
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < d; i++) dst[r * d + i] = src[r * ld + i];
}

// φ(q), φ(k) for positions [t0, t0+L) (rows of q, k ld apart). Rows ld apart
// are strips of wider rows (attention.h: AttnIO): they are first copied side
// by side (into dφq, dφk, free until the backward's products), a tight loop
// with many loads in flight, then φ runs over contiguous values (measured
// faster than φ row by row straight from the strips). v is read in place.
static void load_chunk(const FwSlab *p, const Scratch *s, size_t t0, size_t L, const float *q,
                       const float *k) {
    size_t d = p->dh, ld = p->ld;
    const float *xq = q + t0 * d, *xk = k + t0 * d;
    if (ld != d) {
        copy_rows(s->dphq, q + t0 * ld, ld, L, d);
        copy_rows(s->dphk, k + t0 * ld, ld, L, d);
        xq = s->dphq;
        xk = s->dphk;
    }
    fmap_forward(p->fmap, s->phq, xq, L * d);
    fmap_forward(p->fmap, s->phk, xk, L * d);
}

// sum_i a_i b_i in double, as 8 interleaved partial sums folded pairwise,
// then the < 8 leftovers in order: a fixed order (set by n alone) that gcc
// turns into one vector of doubles, not a chain of dependent scalar adds
#define DOT_LANES 8
static double dot(const float *a, const float *b, size_t n) {
    double acc[DOT_LANES] = {0}, tail = 0;
    size_t i = 0;
    for (; i + DOT_LANES <= n; i += DOT_LANES)
        for (size_t j = 0; j < DOT_LANES; j++) acc[j] += (double)a[i + j] * b[i + j];
    for (; i < n; i++) tail += (double)a[i] * b[i];
    for (size_t h = DOT_LANES / 2; h > 0; h /= 2)
        for (size_t j = 0; j < h; j++) acc[j] += acc[j + h];
    return acc[0] + tail;
}

// C (M, w) = op(A) B + beta C for a B of w columns, ldb apart (S̃ and its
// gradient: ldb = w). With normalize w = d + 1, and that last column alone
// would run a whole edge tile (16 columns wide) in gemm's tiles; it goes to
// gemm's one-column path instead, which skips the packing and the padding.
// gemm's contract (kernels/gemm.c) makes every element the same chain of
// operations whatever the rest of the product, so this changes no value.
static void gemm_w(const FwSlab *p, int transA, size_t M, size_t K, const float *A, size_t lda,
                   const float *B, float beta, float *C) {
    size_t d = p->dh, w = width(p);
    if (!p->normalize) {
        gemm_serial(transA, 0, M, w, K, 1.0f, A, lda, B, w, beta, C, w);
        return;
    }
    gemm_serial(transA, 0, M, d, K, 1.0f, A, lda, B, w, beta, C, w);
    gemm_serial(transA, 0, M, 1, K, 1.0f, A, lda, B + d, w, beta, C + d, w);
}

// C (d, w) = Aᵀ Ṽ + beta C for A (L, d), Ṽ = [v | 1] (L, w) with v's rows
// ld apart where they lie: the same two products as gemm_w, the last
// column's B being the ones
static void gemm_v_t(const FwSlab *p, const Scratch *s, size_t L, const float *A, const float *v, float beta,
                     float *C) {
    size_t d = p->dh, w = width(p);
    gemm_serial(1, 0, d, d, L, 1.0f, A, d, v, p->ld, beta, C, w);
    if (p->normalize) gemm_serial(1, 0, d, 1, L, 1.0f, A, d, s->ones, 1, beta, C + d, w);
}

// C (L, w) = M Ṽ + beta C for the masked M (L, L): gemm_v_t's two products
// with M's zeros above the diagonal skipped (fastweight_tri.h)
static void tri_v(const FwSlab *p, const Scratch *s, size_t L, const float *M, const float *v, float beta,
                  float *C) {
    size_t d = p->dh, w = width(p);
    fw_tri_mul(L, d, M, v, p->ld, beta, C, w);
    if (p->normalize) fw_tri_mul(L, 1, M, s->ones, 1, beta, C + d, w);
}

// ---- forward ----

double fw_chunk_forward(const FwSlab *p, float *y, float *saved, float *scratch, const float *q,
                        const float *k, const float *v) {
    size_t T = p->T, d = p->dh, w = width(p), chunk = p->chunk, nch = n_chunks(p);
    Saved sv = saved_at(p, saved);
    Scratch s = scratch_at(p, scratch);
    fill_powers(p, &s);
    int unit = unit_decay(p);

    // S̃_{-1} = [S0 | z0]
    memset(s.st, 0, d * w * sizeof(float));
    if (p->state_identity)
        for (size_t i = 0; i < d; i++) {
            s.st[i * w + i] = 1.0f;
            if (p->normalize) s.st[i * w + d] = 1.0f;
        }

    for (size_t c = 0; c < nch; c++) {
        size_t t0 = c * chunk, L = T - t0 < chunk ? T - t0 : chunk;
        memcpy(sv.states + c * d * w, s.st, d * w * sizeof(float));  // for the backward sweep
        load_chunk(p, &s, t0, L, q, k);
        const float *vc = v + t0 * p->ld;  // the chunk's v, (L, d) rows ld apart
        float es = chunk_decay(p, &s, t0, L);

        // intra-chunk scores: A = (Φq Φkᵀ) ⊙ D          // (L, L), formed where j <= r
        wy_gemm_lower(L, d, 1.0f, s.phq, d, s.phk, d, s.a);
        for (size_t r = 0; r < L; r++) {
            float *ar = s.a + r * L;
            if (!unit) {
                const float *dr = decay_row(p, &s, r);
                for (size_t j = 0; j <= r; j++) ar[j] *= dr[j];
            }
            for (size_t j = r + 1; j < L; j++) ar[j] = 0.0f;
        }
        // Ñ = diag(λ^(r+1)) Φq S̃ + A Ṽ                  // (L, w)
        // (the first chunk reads S̃ = 0 unless state_identity: no read-out)
        int zero_state = c == 0 && !p->state_identity;
        if (!zero_state) {
            gemm_w(p, 0, L, d, s.phq, d, s.st, 0.0f, s.nt);
            for (size_t r = 0; r < L && !unit; r++)
                for (size_t j = 0; j < w; j++) s.nt[r * w + j] *= s.eq[r];
        }
        tri_v(p, &s, L, s.a, vc, zero_state ? 0.0f : 1.0f, s.nt);

        for (size_t r = 0; r < L; r++) {
            const float *nr = s.nt + r * w;
            float *yr = y + (t0 + r) * p->ldy;
            if (p->normalize) {
                float den = nr[d] + p->eps;
                sv.den[t0 + r] = den;
                for (size_t j = 0; j < d; j++) yr[j] = nr[j] / den;
            } else {
                memcpy(yr, nr, d * sizeof(float));
            }
        }

        // S̃ ← λ^L S̃ + Φkᵀ diag(λ^(L-1-s)) Ṽ   (rows of Φk scaled in place)
        for (size_t j = 0; j < L && !unit; j++)
            for (size_t i = 0; i < d; i++) s.phk[j * d + i] *= s.ek[j];
        gemm_v_t(p, &s, L, s.phk, vc, es, s.st);
    }

    double ss = 0;
    for (size_t i = 0; i < d; i++) ss += dot(s.st + i * w, s.st + i * w, d);
    return sqrt(ss);
}

// Row r of the masked product's db terms: x_j = D_rj A_rj G_rj (double)
// goes to db_r − db_j for j < r (j = r: its terms cancel; adding then
// removing x would round db away). Row r's own total is summed in DOT_LANES
// partial sums, x_j into lane j mod DOT_LANES, ascending j, folded pairwise:
// written as whole groups of DOT_LANES (one vector of doubles, no chain of
// dependent adds), then the rest one by one into the same lanes.
static void db_row(const float *dr, const float *ar, const float *gr, size_t r, double *db) {
    double racc[DOT_LANES] = {0};
    size_t j = 0;
    for (; j + DOT_LANES <= r; j += DOT_LANES)
        for (size_t l = 0; l < DOT_LANES; l++) {
            double x = dr[j + l] * ((double)ar[j + l] * gr[j + l]);
            racc[l] += x;
            db[j + l] -= x;
        }
    for (; j < r; j++) {
        double x = dr[j] * ((double)ar[j] * gr[j]);
        racc[j % DOT_LANES] += x;
        db[j] -= x;
    }
    for (size_t h = DOT_LANES / 2; h > 0; h /= 2)
        for (size_t l = 0; l < h; l++) racc[l] += racc[l + h];
    db[r] += racc[0];
}

// ---- backward ----
//
// Reverse sweep over chunks carrying dS̃ = dL/d(state after the chunk).
// db accumulates dL/db_r: a factor exp(b_r − b_s) contributes +x to db_r and
// −x to db_s, x = factor × (its coefficient's gradient); exp(b_r) only +x.
//
// Products with a zero operand are skipped: the last chunk's dS̃' (the final
// state feeds nothing), the first chunk's S̃ (S0 = 0 unless state_identity),
// and the first chunk's dS̃ update (nothing reads it). Skipping changes no
// bit of a finite result: a skipped product gives exactly +0 (every term is
// ±0, summed from +0), its db terms add +0, and the product that follows it
// with beta = 1 computes t + (+0), which is t (what it now writes with
// beta = 0) for every t but −0 — and a chain of FMAs from +0 ends at −0 only
// if its terms are all zero or underflow. The forward skips the first
// chunk's read-out of S̃ = 0 the same way. linear_flops counts what runs.
//
// With normalize, two products run over Ṽ = [v | 1] along its width w = d + 1:
// G = dÑ Ṽᵀ and Ṽ dS̃'ᵀ. Their last term is x · 1 for x = dden_r (G) or
// dz_i (dS̃'s last column): gemm ends each element's chain with the FMA
// acc + x·1, which rounds acc + x once, so the product over v alone (K = d)
// followed by one float add of x gives the same bits (in the portable build
// too: a multiply by 1, exact, then that add). That holds while the K sum is
// one gemm block there (d < GEMM_KC, or d a multiple of it, where x starts a
// block of its own); a head size above GEMM_KC = 256 and not a multiple of it
// rounds differently from a [v | 1] product: there (a head size the configs
// shipped do not use, but a user may: d_model 300, heads 1) the backward forms
// [v | 1] in scratch and runs the two products over it, as the code before
// the split did, so no configuration's bits changed (fw_ones_split_exact).

double fw_chunk_backward(const FwSlab *p, float *dq, float *dk, float *dv, float *dll_t,
                         const float *dy, const float *y, const float *saved, float *scratch,
                         const float *q, const float *k, const float *v) {
    size_t T = p->T, d = p->dh, w = width(p), chunk = p->chunk, nch = n_chunks(p);
    Saved sv = saved_at(p, (float *)saved);  // read only below
    Scratch s = scratch_at(p, scratch);
    fill_powers(p, &s);
    double dll = 0, *db = s.db;
    int unit = unit_decay(p), grad = p->lambda_grad;

    memset(s.dst, 0, d * w * sizeof(float));  // the final state feeds nothing
    for (size_t c = nch; c-- > 0;) {
        size_t t0 = c * chunk, L = T - t0 < chunk ? T - t0 : chunk;
        const float *st = sv.states + c * d * w;  // S̃ entering this chunk, (d, w)
        int zero_state = c == 0 && !p->state_identity, zero_dst = c + 1 == nch;
        load_chunk(p, &s, t0, L, q, k);
        const float *vc = v + t0 * p->ld;  // the chunk's v, (L, d) rows ld apart
        float es = chunk_decay(p, &s, t0, L);
        for (size_t r = 0; r < L && s.vt; r++) {  // [v | 1] formed (formed_v)
            memcpy(s.vt + r * w, vc + r * p->ld, d * sizeof(float));
            s.vt[r * w + d] = 1.0f;
        }

        // dÑ: y_r = num_r / den_r  =>  dnum_r = dy_r / den_r,
        //                             dden_r = -(dy_r · y_r) / den_r
        for (size_t r = 0; r < L; r++) {
            const float *dyr = dy + (t0 + r) * p->ldy;
            float *gr = s.nt + r * w;
            if (p->normalize) {
                float den = sv.den[t0 + r];
                for (size_t j = 0; j < d; j++) gr[j] = dyr[j] / den;
                gr[d] = (float)(-dot(dyr, y + (t0 + r) * p->ldy, d) / den);
            } else {
                memcpy(gr, dyr, d * sizeof(float));
            }
        }

        // Ñ += (Φq Φkᵀ ⊙ D) Ṽ: with G = dÑ Ṽᵀ, the masked product's inputs get
        // d(Φq Φkᵀ) = G ⊙ D, and x_rs = D_rs (Φq Φkᵀ)_rs G_rs goes to db_r − db_s
        // G's last term, dden_r · 1 (normalize), is added to the product over v
        // below (see the note above fw_chunk_backward)
        // (A and G are formed only where j <= r: the loop below reads no more)
        wy_gemm_lower(L, d, 1.0f, s.phq, d, s.phk, d, s.a);
        if (s.vt)
            wy_gemm_lower(L, w, 1.0f, s.nt, w, s.vt, w, s.g);
        else
            wy_gemm_lower(L, d, 1.0f, s.nt, w, vc, p->ld, s.g);
        for (size_t r = 0; r < L; r++) {
            float *ar = s.a + r * L, *gr = s.g + r * L;
            if (p->normalize && !s.vt)
                for (size_t j = 0; j <= r; j++) gr[j] += s.nt[r * w + d];  // (j > r: masked below)
            const float *dr = unit ? NULL : decay_row(p, &s, r);
            if (grad) db_row(dr ? dr : s.pw, ar, gr, r, db);  // (λ = 1: pw holds ones)
            for (size_t j = 0; j <= r && dr; j++) {
                ar[j] *= dr[j];
                gr[j] *= dr[j];
            }
            for (size_t j = r + 1; j < L; j++) ar[j] = gr[j] = 0.0f;
        }

        // Ñ += diag(exp b_r) Φq S̃:  dΦq_r = exp(b_r) (dÑ S̃ᵀ)_r,
        //   db_r += exp(b_r) φq_r · (dÑ S̃ᵀ)_r
        if (!zero_state) {
            gemm_serial(0, 1, L, d, w, 1.0f, s.nt, w, st, w, 0.0f, s.dphq, d);
            for (size_t r = 0; r < L && (grad || !unit); r++) {
                float *xr = s.dphq + r * d;
                if (grad) db[r] += s.eq[r] * dot(xr, s.phq + r * d, d);
                for (size_t i = 0; i < d && !unit; i++) xr[i] *= s.eq[r];
            }
        }
        fw_tri_mul(L, d, s.g, s.phk, d, zero_state ? 0.0f : 1.0f, s.dphq, d);  // + (G⊙D) Φk

        // S̃' = ... + Φkᵀ diag(exp(b_{L-1} − b_s)) Ṽ:  dΦk_s = ek_s (Ṽ dS̃'ᵀ)_s,
        //   x_s = ek_s φk_s · (Ṽ dS̃'ᵀ)_s goes to db_{L-1} − db_s
        if (!zero_dst) {
            if (s.vt)
                gemm_serial(0, 1, L, d, w, 1.0f, s.vt, w, s.dst, w, 0.0f, s.dphk, d);
            else
                gemm_serial(0, 1, L, d, d, 1.0f, vc, p->ld, s.dst, w, 0.0f, s.dphk, d);
            for (size_t j = 0; j < L && p->normalize && !s.vt; j++)  // Ṽ's ones times dz
                for (size_t i = 0; i < d; i++) s.dphk[j * d + i] += s.dst[i * w + d];
            for (size_t j = 0; j < L && (grad || !unit); j++) {
                float *zr = s.dphk + j * d;
                if (grad && j + 1 < L) {  // j = L-1 nets to 0
                    double x = s.ek[j] * dot(zr, s.phk + j * d, d);
                    db[L - 1] += x;
                    db[j] -= x;
                }
                for (size_t i = 0; i < d && !unit; i++) zr[i] *= s.ek[j];
            }
        }
        fw_tri_mul_t(L, d, s.g, s.phq, d, zero_dst ? 0.0f : 1.0f, s.dphk, d);  // + (G⊙D)ᵀ Φq

        // dṼ_s = λ^(L-1-s) (Φk dS̃')_s + ((Φq Φkᵀ ⊙ D)ᵀ dÑ)_s, its first d
        // columns (dv; the ones column's gradient goes nowhere)
        if (!zero_dst) {
            gemm_serial(0, 0, L, d, d, 1.0f, s.phk, d, s.dst, w, 0.0f, s.dvt, d);
            for (size_t j = 0; j < L && !unit; j++)
                for (size_t i = 0; i < d; i++) s.dvt[j * d + i] *= s.ek[j];
        }
        fw_tri_mul_t(L, d, s.a, s.nt, w, zero_dst ? 0.0f : 1.0f, s.dvt, d);

        // S̃' = exp(b_{L-1}) S̃ + ...:  db_{L-1} += exp(b_{L-1}) <S̃, dS̃'>;
        // dS̃ = exp(b_{L-1}) dS̃' + Φqᵀ diag(exp b_r) dÑ   (rows of dÑ scaled in place, last use)
        if (grad && !zero_state && !zero_dst) db[L - 1] += es * dot(st, s.dst, d * w);
        if (grad) dll += chunk_decay_grad(&s, t0, L, dll_t);
        if (c > 0) {
            for (size_t r = 0; r < L && !unit; r++)
                for (size_t i = 0; i < w; i++) s.nt[r * w + i] *= s.eq[r];
            gemm_w(p, 1, d, L, s.phq, d, s.nt, es, s.dst);
        }

        // through φ, and ADD into the caller's gradients
        // (s.phq, s.phk still hold φ(q), φ(k): the slope reuses them)
        size_t ld = p->ld;
        fmap_backward_phi_rows(p->fmap, dq + t0 * ld, ld, s.dphq, q + t0 * ld, s.phq, L, d);
        fmap_backward_phi_rows(p->fmap, dk + t0 * ld, ld, s.dphk, k + t0 * ld, s.phk, L, d);
        for (size_t j = 0; j < L; j++) {
            float *dvr = dv + (t0 + j) * ld;
            const float *gr = s.dvt + j * d;
            for (size_t i = 0; i < d; i++) dvr[i] += gr[i];
        }
    }
    return dll;
}
