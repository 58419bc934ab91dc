// lab.c — `lmtrain lab`: the memory lab. No training, about a second.
//
//   lmtrain lab [--out DIR] [--feature-map elu1|relu|identity] [--decay L] [--beta B]
//               [--trials N] [--seed S] [--run DIR [--layer L] [--head H] [--key-tokens N]]
//   --feature-map takes a list (default identity,elu1): one set of tables per map.
//
// One fast-weight memory (src/lab/memory.h) under each write rule — sum
// (linear), decay (linear_decay), delta with sum-normalised keys (delta),
// delta with L2-normalised keys — and two experiments (src/lab/experiment.h):
//   capacity   N random pairs written into one dh x dh state, every key read
//              back: mean cosine to the true value and the fraction read back
//              nearest to its own value, against N/dh, for dh = 16, 32, 64;
//   overwrite  one key written twice with two values: which comes back.
// Keys are Gaussian through each feature map — identity (zero-mean keys, nearly
// orthogonal: the textbook capacity of about dh pairs) and elu1 (the models'
// φ: every key positive, so keys overlap and interfere far earlier) — and with
// --run also the keys one head of a trained run writes on its validation text
// (N distinct positions) through that run's φ, at its dh, beside Gaussian keys
// of the same dh. With identity φ the sum rules read without the normaliser
// (φ(q)ᵀz can be zero or negative) and delta-sum does not apply (Σφ(k) can
// be zero): shown as "-".
// Tables on stdout and in OUT/report.txt; recall.csv, overwrite.csv and SVG
// charts in OUT (default runs/lab, or RUN/lab with --run).
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention/decay.h"
#include "lab/experiment.h"
#include "lab/run_keys.h"
#include "cmd/commands.h"
#include "cmd/args.h"
#include "cmd/run_load.h"
#include "format/svg.h"
#include "train/data.h"
#include "util/atomic_file.h"
#include "util/dirs.h"
#include "util/err.h"

static const size_t DHS[] = {16, 32, 64};
enum { N_DH = sizeof DHS / sizeof DHS[0] };
// N/dh = RATIO_NUM[i] / 8
static const size_t RATIO_NUM[] = {1, 2, 4, 8, 16, 32};
enum { N_RATIO = sizeof RATIO_NUM / sizeof RATIO_NUM[0] };

typedef struct {
    const char *out, *run;
    FeatureMap fmap[3];
    size_t n_fmap;
    int fmap_given;
    double decay, beta;
    size_t trials, layer, head, key_tokens;
    uint64_t seed;
} LabOpts;

typedef struct {
    const char *name;        // "gaussian" or "run"
    FeatureMap fmap;
    LabKeys keys;
    size_t dh[N_DH];         // the head sizes this source is measured at
    size_t n_dh;
    float lambda;            // the decay rule's λ for this source
    LabRecall rec[N_DH][N_RATIO][LAB_N_RULES];
    LabOverwrite ow[N_DH][LAB_N_RULES];
} Source;

typedef struct {
    AtomicFile rep;  // report.txt
    char dir[4200];
} Out;

static void out(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(Out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    vfprintf(o->rep.f, fmt, ap);
    va_end(ap);
}

static const char *const FMAP_NAME[] = {"elu1", "relu", "identity"};

// delta-sum divides by Σφ(k), which identity φ can make zero or negative
static int rule_applies(LabRule r, FeatureMap f) { return !(r == LAB_DELTA_SUM && f == FMAP_IDENTITY); }

static void measure(const LabOpts *o, Source *s, float eps) {
    const LabRecall na = {NAN, NAN};
    for (size_t d = 0; d < s->n_dh; d++)
        for (int r = 0; r < LAB_N_RULES; r++) {
            LabMemSpec sp = {(LabRule)r, s->dh[d], s->fmap, s->lambda, (float)o->beta, eps,
                             s->fmap != FMAP_IDENTITY};
            if (!rule_applies((LabRule)r, s->fmap)) {
                for (size_t i = 0; i < N_RATIO; i++) s->rec[d][i][r] = na;
                s->ow[d][r] = (LabOverwrite){NAN, NAN, NAN, NAN};
                continue;
            }
            for (size_t i = 0; i < N_RATIO; i++) {
                size_t N = RATIO_NUM[i] * s->dh[d] / 8;
                s->rec[d][i][r] = lab_recall(&sp, &s->keys, N, o->trials, o->seed);
            }
            s->ow[d][r] = lab_overwrite(&sp, &s->keys, o->trials, o->seed);
        }
}

// ============================================================================
// tables
// ============================================================================

// a table cell, "-" where the rule does not apply
static void cell(Out *f, double v) {
    if (isnan(v)) out(f, " %9s", "-");
    else out(f, " %9.3f", v);
}

static void table_recall(Out *f, const Source *s) {
    out(f, "%4s %5s %6s |", "dh", "N", "N/dh");
    for (int r = 0; r < LAB_N_RULES; r++) out(f, " %9s", lab_rule_name((LabRule)r));
    out(f, " |");
    for (int r = 0; r < LAB_N_RULES; r++) out(f, " %9s", lab_rule_name((LabRule)r));
    out(f, "\n%18s %-39s   %s\n", "", "mean cos(read-out, true value)", "fraction read back nearest its own value");
    for (size_t d = 0; d < s->n_dh; d++)
        for (size_t i = 0; i < N_RATIO; i++) {
            size_t N = RATIO_NUM[i] * s->dh[d] / 8;
            out(f, "%4zu %5zu %6.3g |", s->dh[d], N, (double)RATIO_NUM[i] / 8);
            for (int r = 0; r < LAB_N_RULES; r++) cell(f, s->rec[d][i][r].cos);
            out(f, " |");
            for (int r = 0; r < LAB_N_RULES; r++) cell(f, s->rec[d][i][r].acc);
            out(f, "\n");
        }
    // one sentence on what the table shows, from its own numbers at its largest dh
    size_t d = s->n_dh - 1;
    out(f, "What it shows: the more pairs share the state (N/dh), the less comes back; at dh = %zu each rule "
           "reads back at least 90 %% of the pairs up to", s->dh[d]);
    const char *sep = " ";
    for (int r = 0; r < LAB_N_RULES; r++) {
        if (!rule_applies((LabRule)r, s->fmap)) continue;
        size_t held = 0;  // ratios from the smallest while the rule still reads back 90 %
        while (held < N_RATIO && s->rec[d][held][r].acc >= 0.9) held++;
        if (held) out(f, "%s%s N/dh = %g", sep, lab_rule_name((LabRule)r), (double)RATIO_NUM[held - 1] / 8);
        else out(f, "%s%s not even at N/dh = %g", sep, lab_rule_name((LabRule)r), (double)RATIO_NUM[0] / 8);
        sep = ", ";
    }
    out(f, ".\n");
}

// what the read-out y ≈ a·v1 + b·v2 amounts to, in words (buf: 48 bytes)
static const char *verdict(const LabOverwrite *w, char *buf) {
    double a = w->first, b = w->second;
    if (fabs(a) <= 0.01 * fabs(b)) return "v2 alone: v1 overwritten";
    if (fabs(a - b) <= 0.001 * (fabs(a) + fabs(b))) return "the average of v1 and v2";
    snprintf(buf, 48, "a mix, b/a = %.3g", b / a);
    return buf;
}

static void table_overwrite(Out *f, const Source *s) {
    out(f, "%-10s %4s %9s %9s %10s %10s  %s\n", "rule", "dh", "a (v1)", "b (v2)", "cos(y,v1)", "cos(y,v2)",
        "what comes back");
    for (int r = 0; r < LAB_N_RULES; r++)
        for (size_t d = 0; d < s->n_dh; d++) {
            const LabOverwrite *w = &s->ow[d][r];
            if (!rule_applies((LabRule)r, s->fmap)) continue;
            char buf[48];
            out(f, "%-10s %4zu %9.4f %9.4f %10.3f %10.3f  %s\n", lab_rule_name((LabRule)r), s->dh[d], w->first,
                w->second, w->cos_first, w->cos_second, verdict(w, buf));
        }
    // one sentence on what the table shows: each rule's verdict at the largest dh
    size_t d = s->n_dh - 1;
    out(f, "What it shows: a key written twice reads back, at dh = %zu,", s->dh[d]);
    const char *sep = " ";
    char replaced[64] = "";
    for (int r = 0; r < LAB_N_RULES; r++) {
        if (!rule_applies((LabRule)r, s->fmap)) continue;
        char buf[48];
        const char *v = verdict(&s->ow[d][r], buf);
        out(f, "%s%s: %s", sep, lab_rule_name((LabRule)r), v);
        if (!strncmp(v, "v2 alone", 8))
            snprintf(replaced + strlen(replaced), sizeof replaced - strlen(replaced), "%s%s", *replaced ? ", " : "",
                     lab_rule_name((LabRule)r));
        sep = "; ";
    }
    if (*replaced) out(f, ". Only %s replace%s the old value; the others keep part of it.\n", replaced,
                       strchr(replaced, ',') ? "" : "s");
    else out(f, ". No rule here replaces the old value.\n");
}

// ============================================================================
// files
// ============================================================================

static int write_csvs(Out *f, const Source *src, size_t n_src) {
    char path[4400];
    AtomicFile a;
    snprintf(path, sizeof path, "%s/recall.csv", f->dir);
    int rc = atomic_open(&a, path);
    if (rc) return rc;
    fprintf(a.f, "keys,feature_map,dh,N,N_over_dh,rule,cos,acc\n");
    for (size_t k = 0; k < n_src; k++)
        for (size_t d = 0; d < src[k].n_dh; d++)
            for (size_t i = 0; i < N_RATIO; i++)
                for (int r = 0; r < LAB_N_RULES; r++)
                    if (rule_applies((LabRule)r, src[k].fmap))
                    fprintf(a.f, "%s,%s,%zu,%zu,%.9g,%s,%.9g,%.9g\n", src[k].name, FMAP_NAME[src[k].fmap], src[k].dh[d],
                            RATIO_NUM[i] * src[k].dh[d] / 8, (double)RATIO_NUM[i] / 8,
                            lab_rule_name((LabRule)r), src[k].rec[d][i][r].cos, src[k].rec[d][i][r].acc);
    if ((rc = atomic_commit(&a))) return rc;
    snprintf(path, sizeof path, "%s/overwrite.csv", f->dir);
    if ((rc = atomic_open(&a, path))) return rc;
    fprintf(a.f, "keys,feature_map,dh,rule,a_first,b_second,cos_first,cos_second\n");
    for (size_t k = 0; k < n_src; k++)
        for (size_t d = 0; d < src[k].n_dh; d++)
            for (int r = 0; r < LAB_N_RULES; r++) {
                const LabOverwrite *w = &src[k].ow[d][r];
                if (!rule_applies((LabRule)r, src[k].fmap)) continue;
                fprintf(a.f, "%s,%s,%zu,%s,%.9g,%.9g,%.9g,%.9g\n", src[k].name, FMAP_NAME[src[k].fmap], src[k].dh[d],
                        lab_rule_name((LabRule)r), w->first, w->second, w->cos_first, w->cos_second);
            }
    return atomic_commit(&a);
}

// One chart of a metric (0 cos, 1 acc) against N/dh: a colour per rule and a
// line style per series group. Groups: each dh of one source, or (run) the
// trained keys against Gaussian keys of the same dh.
typedef struct {
    const Source *src;
    size_t d;            // index into src->dh
    const char *label;   // "dh 16", "run keys", ...
    int dashed;
} Group;

static int chart(const Out *f, const char *name, const char *title, int metric, const Group *g,
                 size_t ng) {
    enum { MAXS = 3 * LAB_N_RULES };
    double x[N_RATIO], y[MAXS][N_RATIO];
    char lab[MAXS][64];
    SvgSeries s[MAXS];
    size_t ns = 0;
    for (size_t i = 0; i < N_RATIO; i++) x[i] = (double)RATIO_NUM[i] / 8;
    for (int r = 0; r < LAB_N_RULES; r++)
        for (size_t k = 0; k < ng && ns < MAXS; k++) {
            if (!rule_applies((LabRule)r, g[k].src->fmap)) continue;
            for (size_t i = 0; i < N_RATIO; i++) {
                const LabRecall *c = &g[k].src->rec[g[k].d][i][r];
                y[ns][i] = metric ? c->acc : c->cos;
            }
            snprintf(lab[ns], sizeof lab[ns], "%s, %s", lab_rule_name((LabRule)r), g[k].label);
            s[ns] = (SvgSeries){lab[ns], x, y[ns], N_RATIO, g[k].dashed, r + 1};
            ns++;
        }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", f->dir, name);
    SvgChart c = {title, "N / dh (pairs stored per dimension of the key)",
                  metric ? "fraction read back nearest its own value" : "mean cos(read-out, true value)", 1, 0};
    return svg_line_chart(path, &c, s, ns);
}

// Gaussian sources: one pair of charts per feature map, a line style per dh
// (64 solid, 32 dashed, 16 dotted); the run: its keys against Gaussian keys.
static int write_charts(const Out *f, const Source *src, size_t n_gauss, const Source *run) {
    char t[2][200], name[2][64], labels[N_DH][16];
    Group g[N_DH];
    int rc = 0;
    for (size_t k = 0; k < n_gauss && !rc; k++) {
        const Source *s = &src[k];
        for (size_t d = 0; d < s->n_dh; d++) {
            snprintf(labels[d], sizeof labels[d], "dh %zu", s->dh[d]);
            g[d] = (Group){s, d, labels[d], (int)(s->n_dh - 1 - d)};
        }
        const char *fm = FMAP_NAME[s->fmap];
        snprintf(t[0], sizeof t[0], "Memory lab, Gaussian keys through %s: retrieval cosine", fm);
        snprintf(t[1], sizeof t[1], "Memory lab, Gaussian keys through %s: nearest-value accuracy", fm);
        snprintf(name[0], sizeof name[0], "recall_cos_%s.svg", fm);
        snprintf(name[1], sizeof name[1], "recall_acc_%s.svg", fm);
        if (!(rc = chart(f, name[0], t[0], 0, g, s->n_dh))) rc = chart(f, name[1], t[1], 1, g, s->n_dh);
    }
    if (rc || !run) return rc;
    g[0] = (Group){&run[0], 0, "run keys", 0};
    g[1] = (Group){&run[1], 0, "Gaussian", 1};
    snprintf(t[0], sizeof t[0], "Memory lab, a trained head's keys (dh %zu, %s): retrieval cosine", run->dh[0],
             FMAP_NAME[run->fmap]);
    snprintf(t[1], sizeof t[1], "Memory lab, a trained head's keys (dh %zu, %s): nearest-value accuracy",
             run->dh[0], FMAP_NAME[run->fmap]);
    if ((rc = chart(f, "run_recall_cos.svg", t[0], 0, g, 2))) return rc;
    return chart(f, "run_recall_acc.svg", t[1], 1, g, 2);
}

// ============================================================================
// options and the command
// ============================================================================

// "identity,elu1": each once, at most all three
static int parse_fmaps(const char *v, LabOpts *o) {
    o->n_fmap = 0;
    o->fmap_given = 1;
    for (const char *p = v;; p++) {
        size_t len = strcspn(p, ",");
        int f = -1;
        for (int k = 0; k < 3; k++)
            if (len == strlen(FMAP_NAME[k]) && !strncmp(p, FMAP_NAME[k], len)) f = k;
        for (size_t k = 0; k < o->n_fmap && f >= 0; k++)
            if (o->fmap[k] == (FeatureMap)f) f = -1;
        if (f < 0)
            return err_set(ERR_USAGE, "lab: --feature-map: expected a list of distinct elu1, relu, identity, got '%s'",
                           v);
        o->fmap[o->n_fmap++] = (FeatureMap)f;
        p += len;
        if (!*p) return 0;
    }
}

static int parse(int argc, char **argv, LabOpts *o) {
    *o = (LabOpts){.fmap = {FMAP_IDENTITY, FMAP_ELU1}, .n_fmap = 2, .decay = 0.97, .beta = 1.0, .trials = 20, .seed = 1,
                   .key_tokens = 4096};
    const char *fmaps = NULL;
    const ArgOpt opts[] = {
        {"--out", ARG_STRING, &o->out, "DIR", .help = "the results folder", .shown_default = "runs/lab, or RUN/lab with --run"},
        {"--feature-map", ARG_STRING, &fmaps, "LIST", .help = "feature maps, comma-separated: elu1, relu, identity",
         .shown_default = "identity,elu1"},
        {"--decay", ARG_DOUBLE, &o->decay, "L", .help = "lambda of the decayed-sum rule", .lo = 0, .hi = 1},
        {"--beta", ARG_DOUBLE, &o->beta, "B", .help = "write strength of the delta rules", .lo = 0, .hi = 1},
        {"--trials", ARG_SIZE, &o->trials, "N", .help = "random draws averaged per point", .lo = 1, .hi = 100000},
        {"--seed", ARG_U64, &o->seed, "S", .help = "random seed"},
        {"--run", ARG_STRING, &o->run, "DIR", .help = "also the keys of a trained run's head"},
        {"--layer", ARG_SIZE, &o->layer, "L", .help = "with --run: the layer (from 0)", .lo = 0, .hi = 1 << 20},
        {"--head", ARG_SIZE, &o->head, "H", .help = "with --run: the head (from 0)", .lo = 0, .hi = 1 << 20},
        {"--key-tokens", ARG_SIZE, &o->key_tokens, "N", .help = "with --run: validation tokens to draw keys from",
         .lo = 1, .hi = 10000000},
    };
    const ArgSpec spec = {"lab", "[options]",
                          "The memory lab, no training: N random key/value pairs written into one dh x dh state\n"
                          "under each write rule (sum, decayed sum, delta with sum or L2 keys), read back against\n"
                          "N/dh for dh = 16, 32, 64; then one key written twice. Tables, CSV and SVG in DIR.",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return rc;
    return fmaps ? parse_fmaps(fmaps, o) : 0;
}

// The validation text's first n tokens, window after window (the lab only
// needs positions the model was trained at).
static size_t val_tokens(const Dataset *d, size_t T, size_t n, int *tokens) {
    size_t windows = dataset_eval_windows(d, SPLIT_VAL, T), got = 0;
    int *tg = xcalloc(T, sizeof(int));
    for (size_t w = 0; w < windows && got + T <= n; w++, got += T)
        dataset_eval_window(d, SPLIT_VAL, w, T, tokens + got, tg);
    free(tg);
    return got;
}

// Loads the run and fills the trained head's key pool; the decay rule uses
// that head's λ when the run has one.
static int run_source(const LabOpts *o, LoadedRun *r, Source *s, float **pool, float *eps) {
    int rc = run_load(r, o->run);
    if (rc) return rc;
    const Model *m = &r->model;
    if (!m->kind->state_layout) {  // the lab's rules write a fast-weight matrix; a KV cache is none
        char kinds[256] = "";
        for (int i = 0; attn_kinds[i]; i++)
            if (attn_kinds[i]->state_layout)
                snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%s", kinds[0] ? ", " : "",
                         attn_kinds[i]->name);
        rc = err_set(ERR_USAGE, "lab: --run %s: a %s run keeps its keys in a cache, not in a fast-weight memory "
                                "the lab's write rules model; give a run of %s", o->run, m->kind->name, kinds);
        run_unload(r);
        return rc;
    }
    if (o->layer >= m->L || o->head >= m->H) {
        rc = err_set(ERR_USAGE, "lab: --layer %zu --head %zu: %s has %zu layers of %zu heads (from 0)", o->layer,
                     o->head, o->run, m->L, m->H);
        run_unload(r);
        return rc;
    }
    size_t need = RATIO_NUM[N_RATIO - 1] * m->dh / 8;  // the largest N
    int *tok = xcalloc(o->key_tokens, sizeof(int));
    size_t n = val_tokens(r->data, m->Tmax, o->key_tokens, tok);
    if (n < need) {
        free(tok);
        rc = err_set(ERR_USAGE, "lab: --key-tokens %zu gives %zu keys from whole windows of %zu; the largest "
                                "N needs %zu", o->key_tokens, n, m->Tmax, need);
        run_unload(r);
        return rc;
    }
    *pool = xcalloc(n * m->dh, sizeof(float));
    lab_run_keys(m, tok, n, o->layer, o->head, *pool);
    free(tok);
    *s = (Source){.name = "run", .fmap = o->fmap_given ? o->fmap[0] : r->cfg.feature_map, .keys = {*pool, n},
                  .dh = {m->dh}, .n_dh = 1, .lambda = (float)o->decay};
    if (m->layer[o->layer].theta) s->lambda = (float)attn_lambda(m->layer[o->layer].theta->data[o->head]);
    *eps = r->cfg.eps;
    return 0;
}

int cmd_lab(int argc, char **argv) {
    LabOpts o;
    int rc = parse(argc, argv, &o);
    if (rc) return args_status(rc);
    // one Gaussian source per feature map (dh 16, 32, 64); with --run two more:
    // the run's keys and Gaussian keys at its dh, both through the run's φ
    static Source src[5];
    Source *run = NULL;
    float eps = 1e-6f, *pool = NULL;
    LoadedRun r;
    for (size_t k = 0; k < o.n_fmap; k++) {
        src[k] = (Source){.name = "gaussian", .fmap = o.fmap[k], .n_dh = N_DH, .lambda = (float)o.decay};
        memcpy(src[k].dh, DHS, sizeof DHS);
    }
    if (o.run) {
        run = &src[o.n_fmap];
        if ((rc = run_source(&o, &r, run, &pool, &eps))) return rc;
        run[1] = (Source){.name = "gaussian_run_dh", .fmap = run->fmap, .n_dh = 1, .dh = {run->dh[0]},
                          .lambda = run->lambda};
    }
    size_t n_src = o.n_fmap + (run ? 2 : 0);
    Out f;
    if (o.out) snprintf(f.dir, sizeof f.dir, "%s", o.out);
    else if (o.run) snprintf(f.dir, sizeof f.dir, "%s/lab", r.dir);
    else snprintf(f.dir, sizeof f.dir, "runs/lab");
    char path[4400];
    snprintf(path, sizeof path, "%s/report.txt", f.dir);
    if ((rc = make_dirs(f.dir)) || (rc = atomic_open(&f.rep, path))) goto done;

    for (size_t k = 0; k < n_src; k++) measure(&o, &src[k], eps);
    out(&f, "memory lab: N pairs written into one dh x dh state, every key read back; %zu trials per point,\n"
            "the same keys and values for every rule (seed %llu). Values N(0, I); raw keys N(0, I) through φ.\n",
        o.trials, (unsigned long long)o.seed);
    out(&f, "rules: sum = linear (S += φ(k)vᵀ, read normalised by φ(q)ᵀz); decay = linear_decay with λ = %.4g;\n"
            "delta-sum = delta (k̂ = φ(k)/Σφ(k), S += βk̂(v − Sᵀk̂)ᵀ, β = %.3g); delta-l2 = the same with "
            "k̂ = φ(k)/‖φ(k)‖.\n"
            "With identity φ the sum rules read Sᵀq unnormalised and delta-sum does not apply (-).\n",
        o.decay, o.beta);
    for (size_t k = 0; k < o.n_fmap; k++) {
        out(&f, "\n== capacity: Gaussian keys through %s ==\n", FMAP_NAME[src[k].fmap]);
        table_recall(&f, &src[k]);
    }
    if (run) {
        out(&f, "\n== capacity: the keys of %s, layer %zu head %zu through %s (dh %zu, %zu validation positions; "
                "decay uses λ = %.4g) ==\n",
            o.run, o.layer, o.head, FMAP_NAME[run->fmap], run->dh[0], run->keys.n_pool, run->lambda);
        table_recall(&f, run);
        out(&f, "-- the same with Gaussian keys of that dh, for comparison --\n");
        table_recall(&f, run + 1);
    }
    for (size_t k = 0; k < o.n_fmap; k++) {
        out(&f, "\n== overwrite, keys through %s: one key written twice, v1 then v2, then read: "
                "y ≈ a·v1 + b·v2 (least squares) ==\n", FMAP_NAME[src[k].fmap]);
        table_overwrite(&f, &src[k]);
        if (src[k].fmap == FMAP_IDENTITY)
            out(&f, "(identity φ: the sum rules read without the normaliser, so a and b carry the scale ‖k‖² ≈ dh)\n");
    }
    if (run) {
        out(&f, "-- with the trained head's keys --\n");
        table_overwrite(&f, run);
    }
    if ((rc = write_csvs(&f, src, n_src)) || (rc = write_charts(&f, src, o.n_fmap, run))) {
        atomic_abort(&f.rep);
        goto done;
    }
    if (!(rc = atomic_commit(&f.rep)))
        printf("\nwritten to %s/: report.txt, recall.csv, overwrite.csv, recall_{cos,acc}_<feature map>.svg%s\n",
               f.dir, run ? ", run_recall_{cos,acc}.svg" : "");
done:
    if (o.run) run_unload(&r);
    free(pool);
    return rc;
}
