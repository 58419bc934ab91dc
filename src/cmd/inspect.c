// inspect.c — `lmtrain inspect --run DIR`: fast-weight diagnostics (SPEC §7).
//
//   lmtrain inspect --run DIR [--stretch N] [--drift-tokens N] [--fp16-tokens N]
//                   [--layer L] [--head H] [--seed S]
//
// For a trained run, in this order:
//   1. λ per head and its memory horizon 1/(1-λ), drawn against block_size
//      (kinds with a decay: linear_decay, delta)
//   2. ||S|| and ||z|| against position on a long validation stretch
//   3. the largest difference between the training (chunkwise / tiled) and
//      generation (recurrent / KV-cache) forms
//   4. drift of a float16-rounded state against the float32 state over
//      --drift-tokens generated tokens: why the state must be float32
//   5. what a float16 state does to the next-token loss over --fp16-tokens
//      validation tokens
//   6. KV-cache bytes vs fast-weight state bytes against length
//   7. heatmaps of one head's S (--layer, default the last; --head, default 0)
//      at positions 16, 64, 256, 1024
//   8. the attention matrix the kind implies, every head of --layer, on the
//      first validation window (up to 64 tokens): softmax's own, or the weight
//      each earlier value has in a fast-weight kind's read-out
// Tables go to stdout and DIR/inspect/report.txt; every curve also to a CSV
// and an SVG in DIR/inspect/. Items 2, 4, 5 and 7 need a fast-weight state
// (every kind but softmax); z exists for the linear kinds only.
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attention/decay.h"
#include "attention/params.h"
#include "cmd/commands.h"
#include "cmd/inspect_drift_chart.h"
#include "cmd/inspect_probe.h"
#include "cmd/args.h"
#include "cmd/run_load.h"
#include "format/svg.h"
#include "format/svg_heatmap.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/format_bytes.h"
#include "util/pool.h"

typedef struct {
    const char *run;
    size_t stretch, drift_tokens, fp16_tokens, layer, head;
    uint64_t seed;
} InspectOpts;

typedef struct {
    LoadedRun *r;
    Model *m;
    char dir[4300];   // DIR/inspect
    AtomicFile rep;   // report.txt
    int fw;               // the kind keeps a fast-weight state (AttnKind.state_layout)
    AttnStateLayout lay;  // where, when fw
    int cache;        // the kind generates from a KV cache (its memory grows with length)
} Inspect;

// 1 (after saying why) when a state section does not apply to this kind
static int state_missing(Inspect *in);
static void out(Inspect *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// " S z" table cells of widths ws, wz with the numeric format fmt ("%*.4g");
// z is NaN for kinds without a normaliser and shows as "-"
static void num_cells(Inspect *in, double s, double z, int ws, int wz, const char *fmt) {
    char a[64], b[64];
    snprintf(a, sizeof a, fmt, ws, s);
    if (isnan(z)) snprintf(b, sizeof b, "%*s", wz, "-");
    else snprintf(b, sizeof b, fmt, wz, z);
    out(in, " %s %s", a, b);
}

// ============================================================================
// Output: every table line to stdout and report.txt; CSV and SVG files
// ============================================================================

static void out(Inspect *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(Inspect *in, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vfprintf(in->rep.f, fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void file_path(char *buf, size_t cap, const Inspect *in, const char *name) {
    snprintf(buf, cap, "%s/%s", in->dir, name);
}

// DIR/inspect/NAME, opened for an atomic write
static int open_file(const Inspect *in, const char *name, AtomicFile *a) {
    char path[4400];
    file_path(path, sizeof path, in, name);
    return atomic_open(a, path);
}

// A CSV of columns x, y[0], y[1], ... with one row per x; NaN/inf as empty.
static int write_csv(const Inspect *in, const char *name, const char *header, const double *x,
                     const double *y, size_t rows, size_t cols) {
    AtomicFile a;
    int rc = open_file(in, name, &a);
    if (rc) return rc;
    fprintf(a.f, "%s\n", header);
    for (size_t i = 0; i < rows; i++) {
        fprintf(a.f, "%.17g", x[i]);
        for (size_t j = 0; j < cols; j++) {
            double v = y[i * cols + j];
            if (isfinite(v)) fprintf(a.f, ",%.9g", v);
            else fprintf(a.f, ",%s", isnan(v) ? "" : "inf");
        }
        fputc('\n', a.f);
    }
    return atomic_commit(&a);
}

// A CSV of per-layer S and z values (rows, L) each: columns first, then
// S_<what>_layer0.., z_<what>_layer0..
static int write_sz_csv(const Inspect *in, const char *name, const char *first, const char *what,
                        const double *x, const double *s, const double *z, size_t rows) {
    size_t L = in->m->L, cap = 64 + 2 * L * (32 + strlen(what));
    char *hdr = xcalloc(cap, 1);
    size_t pos = (size_t)snprintf(hdr, cap, "%s", first);
    for (int part = 0; part < 2; part++)
        for (size_t l = 0; l < L; l++)
            pos += (size_t)snprintf(hdr + pos, cap - pos, ",%s_%s_layer%zu", part ? "z" : "S", what, l);
    double *y = xcalloc(rows * 2 * L + 1, sizeof(double));  // (rows, 2L)
    for (size_t i = 0; i < rows; i++)
        for (size_t l = 0; l < L; l++) {
            y[i * 2 * L + l] = s[i * L + l];
            y[i * 2 * L + L + l] = z[i * L + l];
        }
    int rc = write_csv(in, name, hdr, x, y, rows, 2 * L);
    free(y);
    free(hdr);
    return rc;
}

// One series per column of y (rows, cols), labelled "layer j" unless labels given.
static int write_svg(const Inspect *in, const char *name, const char *title, const char *xl,
                     const char *yl, int logx, int logy, const double *x, const double *y, size_t rows,
                     size_t cols, const char *const *labels) {
    char path[4400], lab[16][32];
    file_path(path, sizeof path, in, name);
    size_t ns = cols < 16 ? cols : 16;  // more layers than colours would not read anyway
    SvgSeries s[16];
    double *ys = xcalloc(ns * rows + 1, sizeof(double));
    for (size_t j = 0; j < ns; j++) {
        for (size_t i = 0; i < rows; i++) ys[j * rows + i] = y[i * cols + j];
        snprintf(lab[j], sizeof lab[j], "layer %zu", j);
        s[j] = (SvgSeries){labels ? labels[j] : lab[j], x, ys + j * rows, rows, 0, 0};
    }
    SvgChart c = {title, xl, yl, logx, logy};
    int rc = svg_line_chart(path, &c, s, ns);
    free(ys);
    return rc;
}

// What the kind owns besides q, k, v and the output projection (attention/params.h)
static void section_owned(Inspect *in) {
    const Model *m = in->m;
    AttnOwnParam own[ATTN_MAX_OWN];
    size_t n = attn_own_params(m->kind, &m->acfg, own);
    if (n == 0) out(in, "%s owns no parameters besides q, k, v and the output projection\n", m->kind->name);
    for (size_t i = 0; i < n; i++) {
        if (own[i].place == ATTN_OWN_QKV_ROWS)
            out(in, "owns: %zu row%s per head of attn.qkv.weight: %s\n", own[i].per_head,
                own[i].per_head == 1 ? "" : "s", own[i].what);
        else
            out(in, "owns: %s, %zu per head%s: %s\n", own[i].name, own[i].per_head, own[i].learnable ? "" : " (frozen)",
                own[i].what);
    }
}

// ============================================================================
// 1. λ per head
// ============================================================================

static int section_lambda(Inspect *in) {
    const Model *m = in->m;
    out(in, "\n== 1. decay λ per head and memory horizon 1/(1-λ) ==\n");
    if (!model_has_decay(m)) {
        if (!in->cache)
            out(in, "%s has no decay: λ = 1, every token is kept at full weight forever "
                    "(horizon unbounded; the normaliser z makes the read-out an average)\n",
                m->kind->name);
        else
            out(in, "%s has no fast-weight state and no λ (skipped)\n", m->kind->name);
        return 0;
    }
    out(in, "λ = sigmoid(θ); the weight of a token n steps back is λ^n: it falls to 1/e after\n"
            "about 1/(1-λ) tokens (the horizon) and to 1/2 after ln 2 / -ln λ (the half-life).%s\n",
        m->cfg.decay_learnable ? "" : " (decay_learnable = false: λ stayed at decay_init)");
    if (m->acfg.data_decay)
        out(in, "decay = data: θ is the bias of the gate, λ_t = sigmoid(w_hᵀx_t + θ) changes from token to\n"
                "token; the rows below are λ where w_hᵀx_t = 0 (decay_lambda_at() gives λ_t per token)\n");
    out(in, "%6s %5s %10s %10s %12s %12s\n", "layer", "head", "theta", "lambda", "horizon", "half-life");
    char path[4400];
    AtomicFile a;
    int rc = open_file(in, "lambda.csv", &a);
    if (rc) return rc;
    fprintf(a.f, "layer,head,theta,lambda,horizon,half_life\n");
    for (size_t l = 0; l < m->L; l++)
        for (size_t h = 0; h < m->H; h++) {
            double th = m->layer[l].theta->data[h];
            // 1 - λ = sigmoid(-θ) and -ln λ = softplus(-θ), both without cancellation near λ = 1
            double lam = attn_lambda(th), one_minus = attn_lambda(-th);
            double neg_log = -decay_log_sigmoid(th);
            double horizon = 1.0 / one_minus, half = log(2.0) / neg_log;
            out(in, "%6zu %5zu %10.4f %10.6f %12.1f %12.1f\n", l, h, th, lam, horizon, half);
            fprintf(a.f, "%zu,%zu,%.9g,%.9g,%.9g,%.9g\n", l, h, th, lam, horizon, half);
        }
    out(in, "(block_size is %zu: a horizon far beyond it is memory the training windows never used)\n",
        m->Tmax);
    if ((rc = atomic_commit(&a))) return rc;
    // the horizons, head by head, against the training window
    size_t n = m->L * m->H;
    double *x = xcalloc(n, sizeof(double)), *hz = xcalloc(n, sizeof(double)), *bs = xcalloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i;
        hz[i] = 1.0 + exp(m->layer[i / m->H].theta->data[i % m->H]);  // 1/(1 − sigmoid θ)
        bs[i] = (double)m->Tmax;
    }
    char title[300];
    snprintf(title, sizeof title, "%s (%s): memory horizon 1/(1-λ) of each head", in->r->cfg.name, m->kind->name);
    // block_size in black, dashed: the line the horizons are read against; y from 0, linear, so a
    // narrow spread of horizons is not stretched over the whole chart
    SvgSeries ser[2] = {{"horizon 1/(1-λ)", x, hz, n, 0, 1}, {"block_size (window)", x, bs, n, 1, 7}};
    SvgChart c = {title, "head (layer x heads + head)", "tokens", 0, 0};
    SvgStyle st = {.xint = 1, .yzero = 1};
    file_path(path, sizeof path, in, "lambda_horizon.svg");
    rc = svg_styled_chart(path, &c, NULL, ser, NULL, 2, &st);
    free(x);
    free(hz);
    free(bs);
    return rc;
}

static int state_missing(Inspect *in) {
    if (in->fw) return 0;
    if (in->cache) out(in, "%s keeps a KV cache, not a fast-weight state (skipped)\n", in->m->kind->name);
    else out(in, "%s's state is not laid out as S | z per head (skipped)\n", in->m->kind->name);
    return 1;
}

// ============================================================================
// 2. ||S|| and ||z|| against position
// ============================================================================

// The first n tokens of the validation split: its consecutive windows'
// inputs, back to back (for recall: the validation sequences one after another).
static size_t val_stretch(const Dataset *d, size_t T, size_t n, int *tokens) {
    size_t windows = dataset_eval_windows(d, SPLIT_VAL, T), got = 0;
    int *in = xcalloc(T, sizeof(int)), *tg = xcalloc(T, sizeof(int));  // (T) each
    for (size_t w = 0; w < windows && got < n; w++) {
        size_t take = n - got < T ? n - got : T;
        dataset_eval_window(d, SPLIT_VAL, w, T, in, tg);
        memcpy(tokens + got, in, take * sizeof(int));
        got += take;
    }
    free(in);
    free(tg);
    return got;
}

static int section_norms(Inspect *in, size_t stretch) {
    const Model *m = in->m;
    out(in, "\n== 2. state norms ||S_i|| and ||z_i|| against position i ==\n");
    if (state_missing(in)) return 0;
    int *tok = xcalloc(stretch ? stretch : 1, sizeof(int));
    size_t n = val_stretch(in->r->data, m->Tmax, stretch, tok);
    size_t L = m->L;
    double *s = xcalloc(n * L + 1, sizeof(double)), *z = xcalloc(n * L + 1, sizeof(double));
    double *x = xcalloc(n + 1, sizeof(double));
    probe_state_norms(m, tok, n, s, z);
    for (size_t i = 0; i < n; i++) x[i] = (double)(i + 1);
    out(in, "%zu validation tokens fed one at a time through the recurrent form; mean over heads.\n", n);
    if (m->wpe && n > m->Tmax)
        out(in, "(pos = learned: tokens past block_size %zu reuse its last position embedding)\n", m->Tmax);
    out(in, "%10s", "position");
    for (size_t l = 0; l < L; l++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "||S|| L%zu", l);
        snprintf(b, sizeof b, "||z|| L%zu", l);
        out(in, " %12s %11s", a, b);
    }
    out(in, "\n");
    for (size_t p = 1; p <= n; p *= 4) {
        size_t i = p - 1;
        out(in, "%10zu", p);
        for (size_t l = 0; l < L; l++) num_cells(in, s[i * L + l], z[i * L + l], 12, 11, "%*.4g");
        out(in, "\n");
        if (p * 4 > n && p != n) {  // always end on the last position
            out(in, "%10zu", n);
            for (size_t l = 0; l < L; l++) num_cells(in, s[(n - 1) * L + l], z[(n - 1) * L + l], 12, 11, "%*.4g");
            out(in, "\n");
        }
    }
    if (!in->lay.has_z) out(in, "(%s keeps no normaliser z: its read-out is normalised by the query's features)\n",
                            m->kind->name);
    out(in, "%s\n", model_has_decay(m)
                        ? "With decay the state is a leaky sum: its norm levels off after a few horizons."
                        : "Without decay the state only grows (roughly like the number of tokens for z).");
    char title[300];
    int rc = write_sz_csv(in, "state_norm.csv", "position", "norm", x, s, z, n);
    if (!rc) {
        snprintf(title, sizeof title, "%s (%s): ||S_i||_F, mean over heads", in->r->cfg.name,
                 m->kind->name);
        rc = write_svg(in, "state_norm_S.svg", title, "position i (tokens seen)", "||S_i||_F", 1, 1, x, s,
                       n, L, NULL);
    }
    if (!rc && in->lay.has_z) {
        snprintf(title, sizeof title, "%s (%s): ||z_i||_2, mean over heads", in->r->cfg.name,
                 m->kind->name);
        rc = write_svg(in, "state_norm_z.svg", title, "position i (tokens seen)", "||z_i||_2", 1, 1, x, z,
                       n, L, NULL);
    }
    free(tok);
    free(s);
    free(z);
    free(x);
    return rc;
}

// ============================================================================
// 3. parallel vs recurrent
// ============================================================================

static void section_parallel(Inspect *in) {
    Model *m = in->m;
    const Dataset *d = in->r->data;
    size_t T = m->Tmax, windows = dataset_eval_windows(d, SPLIT_VAL, T);
    size_t B = windows < 4 ? windows : 4;
    out(in, "\n== 3. training form vs generation form ==\n");
    out(in, "%zu validation windows of %zu tokens. Attention alone: the training graph's attention output\n"
            "against the kind's one-token step fed the same q, k, v. Whole model: logits of the training\n"
            "forward against the generator's.\n", B, T);
    out(in, "training form: %s; generation form: %s\n", m->kind->training_form, m->kind->generation_form);
    int *tok = xcalloc(B * T, sizeof(int)), *tg = xcalloc(T, sizeof(int));
    for (size_t b = 0; b < B; b++) dataset_eval_window(d, SPLIT_VAL, b, T, tok + b * T, tg);
    ProbeDiff *dl = xcalloc(m->L, sizeof *dl), lg;
    probe_parallel_vs_recurrent(m, tok, B, dl, &lg);
    out(in, "%-12s %14s %12s %14s\n", "", "max |diff|", "max |value|", "relative");
    for (size_t l = 0; l < m->L; l++)
        out(in, "attn layer %-2zu %13.3g %12.4g %14.3g\n", l, dl[l].max_abs, dl[l].ref_max,
            dl[l].ref_max > 0 ? dl[l].max_abs / dl[l].ref_max : dl[l].max_abs);
    out(in, "%-12s %14.3g %12.4g %14.3g\n", "logits", lg.max_abs, lg.ref_max,
        lg.ref_max > 0 ? lg.max_abs / lg.ref_max : lg.max_abs);
    out(in, "(float32 rounding is ~6e-8 relative per operation; the two forms sum in different orders)\n");
    free(dl);
    free(tok);
    free(tg);
}

// ============================================================================
// 4. float16 drift
// ============================================================================

// "inspect: WHAT done/n tokens" on stderr: rewritten in place on a terminal, a line each otherwise
static void progress(const char *what, size_t done, size_t n) {
    if (isatty(STDERR_FILENO)) fprintf(stderr, "\rinspect: %s %zu/%zu tokens   ", what, done, n);
    else fprintf(stderr, "inspect: %s %zu/%zu tokens\n", what, done, n);
    if (isatty(STDERR_FILENO) && done == n) fprintf(stderr, "\r\033[K");
}

static void drift_progress(size_t done, size_t n) { progress("float16 drift", done, n); }

// about 10 token counts per decade from 1 to n, and n itself
static size_t log_points(size_t n, size_t *at, size_t cap) {
    size_t k = 0;
    for (int i = 0; k < cap; i++) {
        size_t v = (size_t)llround(pow(10.0, i / 10.0));
        if (v > n) break;
        if (k == 0 || v > at[k - 1]) at[k++] = v;
    }
    if (k < cap && (k == 0 || at[k - 1] != n)) at[k++] = n;
    return k;
}

static int section_drift(Inspect *in, size_t n, uint64_t seed) {
    const Model *m = in->m;
    out(in, "\n== 4. float16 state drift ==\n");
    if (state_missing(in)) return 0;
    if (n == 0) {
        out(in, "--drift-tokens 0 (skipped)\n");
        return 0;
    }
    int start = dataset_encode_byte(in->r->data, '\n');
    if (start < 0) start = 0;
    size_t at[200], L = m->L;
    size_t k = log_points(n, at, 200);
    double *s = xcalloc(k * L, sizeof(double)), *z = xcalloc(k * L, sizeof(double));
    double *x = xcalloc(k, sizeof(double));
    probe_fp16_drift(m, start, n, seed, at, k, s, z, n >= 20000 ? drift_progress : NULL);
    out(in, "%zu tokens generated (temperature 1, seed %llu) with the float32 state; a shadow\n"
            "copy takes the same updates and is rounded to float16 after every one.\n"
            "Relative error ||X16 - X32|| / ||X32||, X = S or z, all heads of a layer:\n",
        n, (unsigned long long)seed);
    out(in, "%10s", "tokens");
    for (size_t l = 0; l < L; l++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "S L%zu", l);
        snprintf(b, sizeof b, "z L%zu", l);
        out(in, " %10s %10s", a, b);
    }
    out(in, "\n");
    for (size_t i = 0; i < k; i++) {
        x[i] = (double)at[i];
        int decade = at[i] == n;
        for (size_t p = 1; p <= at[i]; p *= 10) decade |= p == at[i];
        if (!decade) continue;
        out(in, "%10zu", at[i]);
        for (size_t l = 0; l < L; l++) num_cells(in, s[i * L + l], z[i * L + l], 10, 10, "%*.3g");
        out(in, "\n");
    }
    out(in, "float16 keeps 11 significant bits: an update below ~1/2048 of a state entry is lost to\n"
            "rounding, and the rounding errors of every update accumulate in the state.\n");
    if (model_has_decay(m))
        out(in, "Decay forgets old errors at the rate it forgets old tokens, so the error levels off.\n");
    else
        out(in, "Without decay the state grows like the token count: z passes 2048 after a few thousand\n"
                "tokens, and from then on adding a value below 1 rounds away entirely.\n");
    char title[300];
    int rc = write_sz_csv(in, "fp16_drift.csv", "tokens", "rel_err", x, s, z, k);
    char path[4400];
    file_path(path, sizeof path, in, "fp16_drift.svg");
    snprintf(title, sizeof title, "%s (%s): float16 state vs float32", in->r->cfg.name, m->kind->name);
    if (!rc) rc = drift_chart_write(path, title, x, s, z, k, L, in->lay.has_z);
    free(s);
    free(z);
    free(x);
    return rc;
}

// ============================================================================
// 5. KV cache vs state bytes
// ============================================================================

static int section_memory(Inspect *in) {
    const Model *m = in->m;
    // the run's own cache or state, and for the other side the first registered
    // kind of the other sort (attn_kinds: softmax's KV cache, linear's state)
    const AttnKind *sm = in->cache ? m->kind : NULL, *fw = in->cache ? NULL : m->kind;
    for (int i = 0; attn_kinds[i]; i++) {
        if (!sm && !attn_kinds[i]->state_layout) sm = attn_kinds[i];
        if (!fw && attn_kinds[i]->state_layout) fw = attn_kinds[i];
    }
    static const size_t lens[] = {16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};
    enum { NL = sizeof lens / sizeof lens[0] };
    size_t kv_floats = 2 * m->H * m->dh, st_floats = fw->state_floats(&m->acfg, m->Tmax);
    out(in, "\n== 6. inference memory against length (this model's shape, all %zu layers) ==\n", m->L);
    out(in, "KV cache: 2 x %zu heads x %zu = %zu floats per token per layer.\n", m->H, m->dh, kv_floats);
    out(in, "fast-weight state (%s): %zu floats per layer, whatever the length.\n", fw->name, st_floats);
    out(in, "They are equal at %.1f tokens. `sample` keeps softmax's cache to a sliding window of\n"
            "block_size = %zu tokens (the third column).\n", (double)st_floats / (double)kv_floats, m->Tmax);
    out(in, "%10s %16s %20s %16s\n", "tokens", "KV cache", "KV cache (window)", "state");
    double x[NL], y[NL * 2];
    for (size_t i = 0; i < NL; i++) {
        size_t len = lens[i], win = len < m->Tmax ? len : m->Tmax;
        double kv = (double)m->L * (double)sm->memory_bytes(&m->acfg, len);
        double kw = (double)m->L * (double)sm->memory_bytes(&m->acfg, win);
        double st = (double)m->L * (double)fw->memory_bytes(&m->acfg, len);
        char a[32], b[32], c[32];
        format_bytes(a, sizeof a, kv);
        format_bytes(b, sizeof b, kw);
        format_bytes(c, sizeof c, st);
        out(in, "%10zu %16s %20s %16s\n", len, a, b, c);
        x[i] = (double)len;
        y[i * 2] = kv;
        y[i * 2 + 1] = st;
    }
    int rc = write_csv(in, "memory.csv", "tokens,kv_cache_bytes,state_bytes", x, y, NL, 2);
    char state_label[64];
    snprintf(state_label, sizeof state_label, "%s state", fw->name);
    const char *const labels[] = {"softmax KV cache", state_label};
    char title[300];
    snprintf(title, sizeof title, "%s: inference memory per sequence", in->r->cfg.name);
    if (!rc)
        rc = write_svg(in, "memory.svg", title, "sequence length (tokens)", "bytes (all layers)", 1, 1, x, y,
                       NL, 2, labels);
    return rc;
}

// ============================================================================
// 5. float16 state: the next-token loss
// ============================================================================

static void fp16_progress(size_t done, size_t n) { progress("float16 loss", done, n); }

static int section_fp16_loss(Inspect *in, size_t n) {
    const Model *m = in->m;
    out(in, "\n== 5. float16 state: what it does to the next-token loss ==\n");
    if (state_missing(in)) return 0;
    if (n < 2) {  // opt-in: it reads the stream twice, one token at a time, the slowest study here
        out(in, "skipped: --fp16-tokens %zu. This study scores a long stream twice, token by token (the slowest\n"
                "part of inspect, so it is off by default); --fp16-tokens 100000 runs it.\n", n);
        return 0;
    }
    int *tok = xcalloc(n, sizeof(int));
    n = val_stretch(in->r->data, m->Tmax, n, tok);
    // ranges ending at 10, 100, 1000, ... and at the last scored position
    size_t at[16], k = 0;
    for (size_t e = 10; e < n - 1 && k < 15; e *= 10) at[k++] = e;
    at[k++] = n - 1;
    double *l32 = xcalloc(k, sizeof(double)), *l16 = xcalloc(k, sizeof(double));
    probe_fp16_loss(m, tok, n, at, k, l32, l16, n >= 20000 ? fp16_progress : NULL);
    out(in, "%zu validation tokens read in one stream, twice: with the float32 state, and with the state\n"
            "stored as float16 between tokens (rounded after every update). Mean next-token loss over\n"
            "each range of positions (nats):\n", n);
    if (m->wpe && n > m->Tmax)
        out(in, "(pos = learned: past block_size %zu every token reuses the last position embedding, so\n"
                " the float32 loss climbs too; a pos = none run shows the float16 effect alone)\n", m->Tmax);
    out(in, "%18s %12s %12s %12s\n", "positions", "float32", "float16", "difference");
    AtomicFile a;
    int rc = open_file(in, "fp16_loss.csv", &a);
    if (rc) goto out;
    fprintf(a.f, "from,to,loss_fp32,loss_fp16\n");
    int broke = 0;
    for (size_t i = 0; i < k; i++) {
        size_t from = i ? at[i - 1] + 1 : 1;
        char range[40];
        snprintf(range, sizeof range, "%zu-%zu", from, at[i]);
        if (isfinite(l16[i])) {
            out(in, "%18s %12.4f %12.4f %+12.4f\n", range, l32[i], l16[i], l16[i] - l32[i]);
        } else {
            out(in, "%18s %12.4f %12s %12s\n", range, l32[i], "NaN", "-");
            broke = 1;
        }
        fprintf(a.f, "%zu,%zu,%.9g,%.9g\n", from, at[i], l32[i], l16[i]);
    }
    if (broke)
        out(in, "NaN: the float16 state overflowed (float16's largest value is 65504) and the model's\n"
                "output became NaN; it does not recover.\n");
    out(in, "%s\n", model_has_decay(m)
                        ? "Decay keeps the state bounded, so float16's relative rounding stays small at any length."
                        : "Without decay the state grows without bound: each write falls below float16's rounding\n"
                          "step of what is already stored, and the memory stops learning from new tokens.");
    rc = atomic_commit(&a);
out:
    free(tok);
    free(l32);
    free(l16);
    return rc;
}

// ============================================================================
// 7. pictures of the state: one head's S along a validation stretch
// ============================================================================

// σ1² of the (d, d) matrix A: the largest eigenvalue of AᵀA by power iteration
// (200 steps from a fixed start: plenty for a picture's summary number)
static double top_singular_sq(const double *A, size_t d) {
    double *x = xcalloc(d, sizeof(double)), *y = xcalloc(d, sizeof(double)), ev = 0;
    for (size_t i = 0; i < d; i++) x[i] = 1.0 + 0.01 * (double)i;
    for (int it = 0; it < 200; it++) {
        for (size_t i = 0; i < d; i++) {  // y = A x
            y[i] = 0;
            for (size_t j = 0; j < d; j++) y[i] += A[i * d + j] * x[j];
        }
        double nx = 0;
        for (size_t j = 0; j < d; j++) {  // x = Aᵀ y
            x[j] = 0;
            for (size_t i = 0; i < d; i++) x[j] += A[i * d + j] * y[i];
            nx += x[j] * x[j];
        }
        nx = sqrt(nx);
        if (nx == 0) break;
        for (size_t j = 0; j < d; j++) x[j] /= nx;
        ev = nx;  // ||AᵀA x|| for unit x -> σ1²
    }
    free(x);
    free(y);
    return ev;
}

static int section_heatmaps(Inspect *in, size_t stretch, size_t layer, size_t head) {
    const Model *m = in->m;
    out(in, "\n== 7. one head's fast weights S, layer %zu head %zu, along a validation text ==\n", layer, head);
    if (state_missing(in)) return 0;
    static const size_t POS[] = {16, 64, 256, 1024};
    size_t at[4], k = 0, d = m->dh;
    for (size_t i = 0; i < 4; i++)
        if (POS[i] <= stretch) at[k++] = POS[i];
    if (k == 0) {
        out(in, "--stretch %zu is shorter than 16 tokens (skipped)\n", stretch);
        return 0;
    }
    int *tok = xcalloc(at[k - 1], sizeof(int));
    size_t n = val_stretch(in->r->data, m->Tmax, at[k - 1], tok);
    while (k > 0 && at[k - 1] > n) k--;
    float *S = xcalloc(k * d * d + 1, sizeof(float));
    double *v = xcalloc(k * d * d + 1, sizeof(double));
    probe_state_snapshots(m, tok, n, layer, head, at, k, S);
    SvgHeatPanel p[4];
    char lab[4][48];
    out(in, "%10s %12s %12s %14s\n", "position", "||S||_F", "max |S_ij|", "top direction");
    char path[4400];
    AtomicFile a;
    int rc = open_file(in, "state_heatmap.csv", &a);
    if (rc) goto out;
    fprintf(a.f, "position,i,j,S\n");
    for (size_t s = 0; s < k; s++) {
        double fro = 0, mx = 0;
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) {
                double x = S[(s * d + i) * d + j];
                v[(s * d + i) * d + j] = x;
                fro += x * x;
                mx = fabs(x) > mx ? fabs(x) : mx;
                fprintf(a.f, "%zu,%zu,%zu,%.9g\n", at[s], i, j, x);
            }
        double top = top_singular_sq(v + s * d * d, d);
        out(in, "%10zu %12.4g %12.4g %14.3f\n", at[s], sqrt(fro), mx, fro > 0 ? top / fro : 0);
        snprintf(lab[s], sizeof lab[s], "after %zu tokens", at[s]);
        p[s] = (SvgHeatPanel){lab[s], d, d, v + s * d * d, 0};
    }
    out(in, "(S_ij: how much key feature i writes into value coordinate j. Top direction: σ1²/||S||²,\n"
            " the share of the largest outer product u·vᵀ in S — near 1, the memory is mostly one\n"
            " pattern written over and over; about %.2g for a random %zux%zu matrix)\n", 4.0 / (double)d, d, d);
    if ((rc = atomic_commit(&a))) goto out;
    char title[300], note[200];
    snprintf(title, sizeof title, "%s (%s): S of layer %zu head %zu along a validation text", in->r->cfg.name,
             m->kind->name, layer, head);
    snprintf(note, sizeof note, "each panel on its own colour scale (blue −max, white 0, red +max)%s",
             m->wpe && at[k - 1] > m->Tmax ? "; past block_size positions reuse the last embedding" : "");
    SvgHeatmap h = {title, note, "key feature i", "value coordinate j", 220};
    file_path(path, sizeof path, in, "state_heatmap.svg");
    rc = svg_heatmaps(path, &h, p, k);
out:
    free(tok);
    free(S);
    free(v);
    return rc;
}

// ============================================================================
// 8. the attention matrix a kind implies
// ============================================================================

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The q-quantile of |W[i, j]| over j <= i: the colour scale of an attention
// picture, so that the first rows (all weight on the one token there is) do
// not wash out the rest; larger weights saturate.
static double abs_quantile_causal(const double *W, size_t T, double q) {
    size_t n = 0;
    double *a = xcalloc(T * (T + 1) / 2 + 1, sizeof(double));
    for (size_t i = 0; i < T; i++)
        for (size_t j = 0; j <= i; j++) a[n++] = fabs(W[i * T + j]);
    qsort(a, n, sizeof *a, cmp_double);
    double v = n ? a[(size_t)(q * (double)(n - 1))] : 0;
    free(a);
    return v;
}

static int section_attention(Inspect *in, size_t layer) {
    const Model *m = in->m;
    const AttnKind *kind = m->kind;
    size_t T = m->Tmax < 64 ? m->Tmax : 64, d = m->dh, H = m->H, na = attn_aux(kind, &m->acfg);
    out(in, "\n== 8. the attention matrix %s implies: layer %zu, first validation window (%zu tokens) ==\n",
        kind->name, layer, T);
    if (!kind->value_weights) {
        out(in, "%s does not describe its read-out as weights on the values (skipped)\n", kind->name);
        return 0;
    }
    const Dataset *ds = in->r->data;
    if (dataset_eval_windows(ds, SPLIT_VAL, m->Tmax) == 0) {
        out(in, "no full validation window (skipped)\n");
        return 0;
    }
    int *tok = xcalloc(m->Tmax, sizeof(int)), *tg = xcalloc(m->Tmax, sizeof(int));
    dataset_eval_window(ds, SPLIT_VAL, 0, m->Tmax, tok, tg);
    ProbeHeadTrace tr = {xcalloc(T * d, sizeof(float)), xcalloc(T * d, sizeof(float)),
                         xcalloc(T * d, sizeof(float)), xcalloc(T * d, sizeof(float)),
                         xcalloc(T * (na ? na : 1), sizeof(float))};
    double *W = xcalloc(H * T * T, sizeof(double)), *y0 = xcalloc(T * d, sizeof(double));
    double *lam = xcalloc(T, sizeof(double));  // λ_t of the head
    SvgHeatPanel p[16];
    char lab[16][32];
    out(in, "W[i, j]: the weight of value v_j in output y_i;\n%s\n", kind->weights_formula);
    if (m->acfg.data_decay) out(in, "decay = data: λ^(i−j) is λ_{j+1}···λ_i, each token's own λ_t; λ below is their mean\n");
    out(in, "%5s %9s %14s %14s %14s %16s\n", "head", "λ", "on itself", "last 8 tokens", "mean distance",
        "reconstruction");
    char path[4400];
    AtomicFile a;
    int rc = open_file(in, "attention.csv", &a);
    if (rc) goto out;
    fprintf(a.f, "head,i,j,weight\n");
    for (size_t h = 0; h < H; h++) {
        probe_head_trace(m, tok, T, layer, h, &tr);
        const float *th = m->layer[layer].theta ? m->layer[layer].theta->data : NULL;
        double lam_mean = 0;
        for (size_t t = 0; t < T; t++) {
            lam[t] = decay_lambda_at(kind, &m->acfg, tr.aux + t * na, th, h);
            lam_mean += lam[t] / (double)T;
        }
        double *w = W + h * T * T;
        kind->value_weights(&m->acfg, T, tr.q, tr.k, tr.aux, lam, w, y0);
        // the weights must give back the step's own output: y_i = Σ_j W_ij v_j + y0_i
        double err = 0, ymax = 1e-30, self = 0, near = 0, dist = 0, tot = 0;
        for (size_t i = 0; i < T; i++) {
            for (size_t c = 0; c < d; c++) {
                double r = y0[i * d + c];
                for (size_t j = 0; j <= i; j++) r += w[i * T + j] * tr.v[j * d + c];
                err = fmax(err, fabs(r - tr.y[i * d + c]));
                ymax = fmax(ymax, fabs(tr.y[i * d + c]));
            }
            double row = 0;
            for (size_t j = 0; j <= i; j++) row += fabs(w[i * T + j]);
            for (size_t j = 0; j <= i && row > 0; j++) {
                double f = fabs(w[i * T + j]) / row;
                self += (j == i) * f;
                near += (i - j < 8) * f;
                dist += (double)(i - j) * f;
                fprintf(a.f, "%zu,%zu,%zu,%.9g\n", h, i, j, w[i * T + j]);
            }
            tot += row > 0;
        }
        out(in, "%5zu %9.5f %14.3f %14.3f %14.2f %16.2g\n", h, lam_mean, self / tot, near / tot, dist / tot, err / ymax);
        if (h < 16) {
            snprintf(lab[h], sizeof lab[h], "head %zu", h);
            p[h] = (SvgHeatPanel){lab[h], T, T, w, abs_quantile_causal(w, T, 0.98)};
        }
    }
    out(in, "(shares of Σ_j |W_ij| per row, averaged over rows; mean distance in tokens; reconstruction:\n"
            " max |Σ_j W_ij v_j + y0_i − y_i| / max |y| against the kind's own step output)\n");
    if ((rc = atomic_commit(&a))) goto out;
    char title[300], text[80], note[260];
    size_t tl = 0;
    for (size_t t = 0; t < T && tl + 8 < sizeof text; t++) {
        char c[8];
        size_t nb = dataset_decode(ds, tok[t], c);
        for (size_t b = 0; b < nb && tl + 1 < sizeof text; b++) text[tl++] = c[b] == '\n' ? '/' : c[b];
    }
    text[tl] = 0;
    snprintf(title, sizeof title, "%s (%s): attention matrix of layer %zu, %zu tokens", in->r->cfg.name,
             kind->name, layer, T);
    snprintf(note, sizeof note, "text: \"%s\" (/ = newline); colours saturate at the 98th percentile of |W|",
             text);
    SvgHeatmap hm = {title, note, "output position i", "value position j", H <= 4 ? 220 : 160};
    file_path(path, sizeof path, in, "attention.svg");
    rc = svg_heatmaps(path, &hm, p, H < 16 ? H : 16);
out:
    free(tok);
    free(tg);
    free(tr.q), free(tr.k), free(tr.v), free(tr.y), free(tr.aux);
    free(W);
    free(y0);
    free(lam);
    return rc;
}

// ============================================================================
// The command
// ============================================================================

static int parse(int argc, char **argv, InspectOpts *o) {
    // the drift study's 10 000 tokens see the error level off (decay) or the state overflow (no
    // decay) and keep inspect of a baby run within seconds; the float16 loss study is opt-in
    *o = (InspectOpts){.stretch = 4096, .drift_tokens = 10000, .fp16_tokens = 0, .layer = SIZE_MAX,
                       .seed = 1337};
    const ArgOpt opts[] = {
        {"--run", ARG_STRING, &o->run, "DIR", .help = "the run folder (with checkpoint.bin)", .required = 1},
        {"--stretch", ARG_SIZE, &o->stretch, "N", .help = "validation tokens for the state-norm curve", .lo = 1, .hi = 1e8},
        {"--drift-tokens", ARG_SIZE, &o->drift_tokens, "N", .help = "generated tokens for the float16 drift study; 0 = skip",
         .lo = 0, .hi = 1e9},
        {"--fp16-tokens", ARG_SIZE, &o->fp16_tokens, "N",
         .help = "validation tokens for the float16 loss study, the slowest one (off by default; 100000 is a "
                 "good length)", .lo = 0, .hi = 1e9, .shown_default = "0: skipped"},
        {"--layer", ARG_SIZE, &o->layer, "L", .help = "the layer of the heatmaps and attention pictures (from 0)",
         .lo = 0, .hi = 1 << 20, .shown_default = "the last layer"},
        {"--head", ARG_SIZE, &o->head, "H", .help = "the head of the state heatmaps (from 0)", .lo = 0, .hi = 1 << 20},
        {"--seed", ARG_U64, &o->seed, "S", .help = "random seed of the drift study's sampler"},
    };
    const ArgSpec spec = {"inspect", "--run DIR [options]",
                          "Fast-weight diagnostics of a trained run: lambda per head, state norms, training vs\n"
                          "generation form, float16 drift and loss, memory against length, state heatmaps and\n"
                          "the implied attention matrix (DIR/inspect/).",
                          ARGS_TABLE(opts)};
    return args_parse(&spec, argc, argv);
}

int cmd_inspect(int argc, char **argv) {
    InspectOpts o;
    int rc = parse(argc, argv, &o);
    if (rc) return args_status(rc);
    LoadedRun r;
    if ((rc = run_load(&r, o.run))) return rc;
    const Model *m = &r.model;
    if (o.layer == SIZE_MAX) o.layer = m->L - 1;  // default: the last layer
    if (o.layer >= m->L || o.head >= m->H) {  // refused before anything is written
        rc = err_set(ERR_USAGE, "inspect: --layer %zu --head %zu: %s has %zu layers of %zu heads (from 0)",
                     o.layer, o.head, r.dir, m->L, m->H);
        goto done;
    }
    pool_init(r.cfg.threads);
    Inspect in = {.r = &r, .m = &r.model,
                  .cache = model_inference_bytes(&r.model, 1) != model_inference_bytes(&r.model, 2)};
    in.fw = r.model.kind->state_layout != NULL;
    if (in.fw) r.model.kind->state_layout(&r.model.acfg, &in.lay);
    snprintf(in.dir, sizeof in.dir, "%s/inspect", r.dir);
    char path[4400];
    file_path(path, sizeof path, &in, "report.txt");
    if ((rc = make_dirs(in.dir)) || (rc = atomic_open(&in.rep, path))) goto done;
    out(&in, "inspect %s: %s attention, %zu layers x %zu heads of %zu, step %llu\n", r.dir, m->kind->name,
        m->L, m->H, m->dh, (unsigned long long)r.st.step);
    section_owned(&in);
    if (!(rc = section_lambda(&in)) && !(rc = section_norms(&in, o.stretch))) {
        section_parallel(&in);
        if (!(rc = section_drift(&in, o.drift_tokens, o.seed)) && !(rc = section_fp16_loss(&in, o.fp16_tokens)) &&
            !(rc = section_memory(&in)) && !(rc = section_heatmaps(&in, o.stretch, o.layer, o.head)))
            rc = section_attention(&in, o.layer);
    }
    if (rc) {
        atomic_abort(&in.rep);
        goto done;
    }
    if (!(rc = atomic_commit(&in.rep)))
        printf("\nwritten to %s/: report.txt and CSV + SVG for each curve and picture\n", in.dir);
done:
    run_unload(&r);
    return rc;
}
