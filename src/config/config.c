// config.c — the typed key table, parsing each value, cross-field checks,
// writing and diffing a Config (SPEC §3).
//
// One table (FIELDS) lists every key once: its section, type, place in the
// struct, valid range, and whether it changes the model. Loading, --set,
// validation, writing and diffing all walk that table, so a new key is one
// line there plus its default in config_defaults().
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "attention/attention.h"
#include "config/ini.h"
#include "util/edit_distance.h"
#include "util/file_check.h"
#include "util/err.h"

// Enums and bools are read and written through int (memcpy, so no aliasing
// games); make sure the compiler agrees they are int-sized.
_Static_assert(sizeof(Task) == sizeof(int), "enum Task must be int-sized");
_Static_assert(sizeof(PosKind) == sizeof(int), "enum PosKind must be int-sized");
_Static_assert(sizeof(FeatureMap) == sizeof(int), "enum FeatureMap must be int-sized");
_Static_assert(sizeof(StateInit) == sizeof(int), "enum StateInit must be int-sized");
_Static_assert(sizeof(KeyNorm) == sizeof(int), "enum KeyNorm must be int-sized");
_Static_assert(sizeof(DecayMode) == sizeof(int), "enum DecayMode must be int-sized");

// ---------------------------------------------------------------------------
// The key table

typedef enum { F_STR, F_INT, F_U64, F_DBL, F_BOOL, F_ENUM, F_DECAY } FieldType;

// Extra rules for string keys.
typedef enum { S_ANY, S_NONEMPTY, S_NAME } StrRule;

typedef struct {
    const char *section;
    const char *key;
    FieldType type;
    size_t off;                // offsetof(Config, field)
    size_t size;               // F_STR: buffer size including the terminating 0
    StrRule rule;              // F_STR
    long long lo, hi;          // F_INT: inclusive range
    double dlo, dhi;           // F_DBL, F_DECAY: range (dhi = INFINITY: no upper bound)
    int lo_open, hi_open;      // F_DBL, F_DECAY: 1 = bound excluded
    const char *const *names;  // F_ENUM: value names, index = enum value, NULL-terminated
    // config_diff(model_keys_only): 1 for keys that change the model's shape or
    // math, or the data it sees. Model/data keys: everything in [data], [model]
    // and [attention], plus run.seed (init and data order) and train.batch_size
    // (which examples each step draws). Not model keys, so a --resume may change
    // them: run.name, run.out_dir, run.threads (results are thread-count
    // independent), run.seeds (read by `ablate` only), and the rest of
    // [train] — steps, lr, min_lr, warmup, weight_decay, beta1, beta2,
    // grad_clip, eval_every, eval_batches, log_every, checkpoint_every,
    // precision (the same model and data; only how the matmuls round).
    int model;
} Field;

static const char *const SECTIONS[] = {"run", "data", "model", "attention", "train"};
enum { N_SECTIONS = sizeof SECTIONS / sizeof SECTIONS[0] };

static const char *const TASK_NAMES[] = {"text", "recall", NULL};
static const char *const POS_NAMES[] = {"learned", "none", NULL};
static const char *const FMAP_NAMES[] = {"elu1", "relu", "identity", NULL};
static const char *const STATE_NAMES[] = {"zero", "identity", NULL};
static const char *const KEYNORM_NAMES[] = {"sum", "l2", NULL};
static const char *const DECAY_NAMES[] = {"learned", "fixed", "data", NULL};

#define OFF(field) offsetof(Config, field)
#define STR(sec, k, field, r, m) \
    {.section = sec, .key = k, .type = F_STR, .off = OFF(field), \
     .size = sizeof(((Config *)0)->field), .rule = r, .model = m}
#define INT(sec, k, field, l, h, m) \
    {.section = sec, .key = k, .type = F_INT, .off = OFF(field), .lo = l, .hi = h, .model = m}
#define DBL(sec, k, field, l, lopen, h, hopen, m)                                      \
    {.section = sec, .key = k, .type = F_DBL, .off = OFF(field), .dlo = l, .dhi = h, \
     .lo_open = lopen, .hi_open = hopen, .model = m}
#define BOOL(sec, k, field, m) {.section = sec, .key = k, .type = F_BOOL, .off = OFF(field), .model = m}
#define ENUM(sec, k, field, n, m) \
    {.section = sec, .key = k, .type = F_ENUM, .off = OFF(field), .names = n, .model = m}

// Upper bounds on sizes are generous; they exist so that products of two
// sizes always fit in an int and so that config_validate's product checks are
// the only place "too big" is decided.
static const Field FIELDS[] = {
    STR("run", "name", name, S_NAME, 0),
    STR("run", "out_dir", out_dir, S_NONEMPTY, 0),
    {.section = "run", .key = "seed", .type = F_U64, .off = OFF(seed), .model = 1},
    INT("run", "threads", threads, 0, 1024, 0),
    INT("run", "seeds", seeds, 1, 1000, 0),

    ENUM("data", "task", task, TASK_NAMES, 1),
    STR("data", "path", path, S_ANY, 1),
    DBL("data", "val_fraction", val_fraction, 0, 1, 1, 1, 1),
    INT("data", "vocab", vocab, 4, 256, 1),
    INT("data", "pairs", pairs, 1, 127, 1),
    INT("data", "val_examples", val_examples, 1, 1 << 24, 1),

    INT("model", "layers", layers, 1, 1024, 1),
    INT("model", "heads", heads, 1, CFG_MAX_HEADS, 1),
    INT("model", "d_model", d_model, 1, 1 << 16, 1),
    INT("model", "ffn_mult", ffn_mult, 0, 64, 1),
    INT("model", "block_size", block_size, 1, 1 << 20, 1),
    ENUM("model", "pos", pos, POS_NAMES, 1),

    STR("attention", "kind", kind, S_NONEMPTY, 1),
    ENUM("attention", "feature_map", feature_map, FMAP_NAMES, 1),
    DBL("attention", "eps", eps, 0, 1, INFINITY, 0, 1),
    BOOL("attention", "normalize", normalize, 1),
    BOOL("attention", "allow_identity_normalize", allow_identity_normalize, 1),
    {.section = "attention", .key = "decay_init", .type = F_DECAY, .off = OFF(decay_init),
     .dlo = 0, .dhi = 1, .lo_open = 1, .hi_open = 1, .model = 1},
    BOOL("attention", "decay_learnable", decay_learnable, 1),
    ENUM("attention", "decay", decay, DECAY_NAMES, 1),
    ENUM("attention", "key_norm", key_norm, KEYNORM_NAMES, 1),
    INT("attention", "chunk", chunk, 1, 1 << 20, 1),
    ENUM("attention", "state_init", state_init, STATE_NAMES, 1),
    BOOL("attention", "output_norm", output_norm, 1),
    BOOL("attention", "key_shift", key_shift, 1),

    INT("train", "steps", steps, 1, INT_MAX, 0),
    INT("train", "batch_size", batch_size, 1, 1 << 20, 1),
    DBL("train", "lr", lr, 0, 1, INFINITY, 0, 0),
    DBL("train", "min_lr", min_lr, 0, 0, INFINITY, 0, 0),
    INT("train", "warmup", warmup, 0, INT_MAX, 0),
    DBL("train", "weight_decay", weight_decay, 0, 0, INFINITY, 0, 0),
    DBL("train", "beta1", beta1, 0, 0, 1, 1, 0),
    DBL("train", "beta2", beta2, 0, 0, 1, 1, 0),
    DBL("train", "grad_clip", grad_clip, 0, 0, INFINITY, 0, 0),
    INT("train", "eval_every", eval_every, 1, INT_MAX, 0),
    INT("train", "eval_batches", eval_batches, 1, 1 << 20, 0),
    INT("train", "log_every", log_every, 1, INT_MAX, 0),
    INT("train", "checkpoint_every", checkpoint_every, 1, INT_MAX, 0),
    // 0 = no CPU budget (never written then); a value given must be > 0 (validate)
    DBL("train", "cpu_seconds", cpu_seconds, 0, 0, INFINITY, 0, 0),
    ENUM("train", "precision", precision, precision_names, 0),
};
enum { N_FIELDS = sizeof FIELDS / sizeof FIELDS[0] };

void config_defaults(Config *c) {
    memset(c, 0, sizeof *c);
    strcpy(c->out_dir, "runs");
    c->seed = 1337;
    c->threads = 0;
    c->seeds = 1;
    c->task = TASK_TEXT;
    c->val_fraction = 0.1;
    c->vocab = 64;
    c->pairs = 8;
    c->val_examples = 1000;
    c->layers = 4;
    c->heads = 4;
    c->d_model = 128;
    c->ffn_mult = 4;
    c->block_size = 64;
    c->pos = POS_LEARNED;
    strcpy(c->kind, "softmax");
    c->feature_map = FMAP_ELU1;
    c->eps = 1e-6;
    c->normalize = 1;
    c->allow_identity_normalize = 0;
    c->decay_init[0] = 0.99;
    c->n_decay_init = 1;
    c->decay_learnable = 1;
    c->decay = DECAY_LEARNED;
    c->key_norm = KEYNORM_SUM;
    c->chunk = 64;
    c->state_init = STATE_ZERO;
    c->output_norm = 0;
    c->key_shift = 0;
    c->steps = 2000;
    c->batch_size = 12;
    c->lr = 1e-3;
    c->min_lr = 1e-4;
    c->warmup = 100;
    c->weight_decay = 0.1;
    c->beta1 = 0.9;
    c->beta2 = 0.99;
    c->grad_clip = 1.0;
    c->eval_every = 250;
    c->eval_batches = 20;
    c->log_every = 10;
    c->checkpoint_every = 500;
    c->precision = PRECISION_FP32;
    c->cpu_seconds = 0;
    c->steps_given = c->cpu_seconds_given = 0;
    c->key_norm_given = c->feature_map_given = 0;  // softmax's: sum, elu1 (follow_kind)
}

void config_defaults_record(Config *c) {
    config_defaults(c);
    c->key_norm_given = c->feature_map_given = 1;
    c->steps_given = 1;  // a record's steps was resolved when it was written
}

// The keys whose default depends on the kind take it, unless given. Run after
// every layer (the file, each --set), as a later layer may change the kind or
// normalize; an unknown kind is left for validate() to report.
static void follow_kind(Config *c) {
    const AttnKind *kind = memchr(c->kind, 0, sizeof c->kind) ? attn_kind_find(c->kind) : NULL;
    if (!kind) return;
    if (!c->key_norm_given) c->key_norm = attn_default_key_norm(kind, c->normalize);
    if (!c->feature_map_given) c->feature_map = attn_default_feature_map(kind, c->key_norm);
}

// Marks field i as given if it is one of the keys follow_kind() fills in.
static void mark_given(Config *c, int i) {
    if (FIELDS[i].off == OFF(key_norm)) c->key_norm_given = 1;
    if (FIELDS[i].off == OFF(feature_map)) c->feature_map_given = 1;
    if (FIELDS[i].off == OFF(steps)) c->steps_given = 1;
    if (FIELDS[i].off == OFF(cpu_seconds)) c->cpu_seconds_given = 1;
}

// ---------------------------------------------------------------------------
// Field access

static int get_int(const Config *c, const Field *f) {
    int v;
    memcpy(&v, (const char *)c + f->off, sizeof v);
    return v;
}

static void set_int(Config *c, const Field *f, int v) { memcpy((char *)c + f->off, &v, sizeof v); }

static double get_dbl(const Config *c, const Field *f) {
    double v;
    memcpy(&v, (const char *)c + f->off, sizeof v);
    return v;
}

static const char *get_str(const Config *c, const Field *f) { return (const char *)c + f->off; }

// ---------------------------------------------------------------------------
// Names: sections, keys, suggestions

static int find_section(const char *name) {
    for (int i = 0; i < N_SECTIONS; i++)
        if (strcmp(SECTIONS[i], name) == 0) return i;
    return -1;
}

static int find_field(const char *section, const char *key) {
    for (int i = 0; i < N_FIELDS; i++)
        if (strcmp(FIELDS[i].section, section) == 0 && strcmp(FIELDS[i].key, key) == 0) return i;
    return -1;
}

static void unknown_section_msg(char *msg, size_t cap, const char *name) {
    snprintf(msg, cap, "unknown section [%.64s] (expected one of: run, data, model, attention, train)",
             name);
}

static void unknown_key_msg(char *msg, size_t cap, const char *section, const char *key) {
    // The key may simply be in the wrong section.
    for (int i = 0; i < N_FIELDS; i++)
        if (strcmp(FIELDS[i].key, key) == 0) {
            snprintf(msg, cap, "[%s] unknown key \"%s\" (it belongs in [%s])", section, key,
                     FIELDS[i].section);
            return;
        }
    // Otherwise suggest the closest key of this section if it is close enough
    // to be a plausible typo: about one edit per three characters.
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (int i = 0; i < N_FIELDS; i++) {
        if (strcmp(FIELDS[i].section, section) != 0) continue;
        size_t d = edit_distance(key, FIELDS[i].key);
        if (edit_is_typo(d, strlen(FIELDS[i].key)) && d < best_d) {
            best = FIELDS[i].key;
            best_d = d;
        }
    }
    if (best) {
        snprintf(msg, cap, "[%s] unknown key \"%.64s\" (did you mean \"%s\"?)", section, key, best);
        return;
    }
    size_t len = (size_t)snprintf(msg, cap, "[%s] unknown key \"%.64s\" (expected one of:", section, key);
    const char *sep = " ";
    for (int i = 0; i < N_FIELDS && len < cap; i++) {
        if (strcmp(FIELDS[i].section, section) != 0) continue;
        len += (size_t)snprintf(msg + len, cap - len, "%s%s", sep, FIELDS[i].key);
        sep = ", ";
    }
    if (len < cap) snprintf(msg + len, cap - len, ")");
}

// ---------------------------------------------------------------------------
// Values: text -> typed, with range checks

// Shortest "%.Ng" that reads back as exactly v: 0.001 stays "0.001", and
// any double still round-trips (at most 17 digits).
static void format_double(char *buf, size_t cap, double v) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

// "(expected 1..64)" / "(expected lr > 0)" / "(expected 0 <= beta1 < 1)"
static void range_text(char *buf, size_t cap, const Field *f) {
    if (f->type == F_INT) {
        snprintf(buf, cap, "%lld..%lld", f->lo, f->hi);
        return;
    }
    char lo[32], hi[32];
    format_double(lo, sizeof lo, f->dlo);
    format_double(hi, sizeof hi, f->dhi);
    if (isinf(f->dhi))
        snprintf(buf, cap, "%s %s %s", f->key, f->lo_open ? ">" : ">=", lo);
    else
        snprintf(buf, cap, "%s %s %s %s %s", lo, f->lo_open ? "<" : "<=", f->key,
                 f->hi_open ? "<" : "<=", hi);
}

static int dbl_in_range(const Field *f, double v) {
    if (!isfinite(v)) return 0;
    if (f->lo_open ? !(v > f->dlo) : !(v >= f->dlo)) return 0;
    if (f->hi_open ? !(v < f->dhi) : !(v <= f->dhi)) return 0;
    return 1;
}

static void out_of_range_msg(char *msg, size_t cap, const Field *f, const char *text) {
    char range[96];
    range_text(range, sizeof range, f);
    snprintf(msg, cap, "[%s] %s: %.64s is out of range (expected %s)", f->section, f->key, text, range);
}

// Strict number parsers: the whole text must be the number. Return 0 on
// success, 1 if the text is not a number, 2 if it is one that does not fit.
static int parse_ll(const char *s, long long *out) {
    if (*s == 0 || !(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9'))) return 1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end) return 1;
    if (errno == ERANGE) return 2;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, unsigned long long *out) {
    // strtoull would quietly wrap "-1" to 2^64-1.
    if (*s == 0 || !((*s >= '0' && *s <= '9') || *s == '+')) return 1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end) return 1;
    if (errno == ERANGE) return 2;
    *out = v;
    return 0;
}

static int parse_dbl(const char *s, double *out) {
    if (*s == 0 || (unsigned char)*s <= ' ') return 1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end) return 1;
    if (errno == ERANGE) return 2;  // 1e999, 1e-400
    if (!isfinite(v)) return 1;     // "nan", "inf": not numbers a config means
    *out = v;
    return 0;
}

static int parse_bool(const char *s, int *out) {
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) return *out = 1, 0;
        if (strcasecmp(s, no[i]) == 0) return *out = 0, 0;
    }
    return 1;
}

// Checks a string value against its field's rules; NULL or what is wrong.
static const char *str_problem(const Field *f, const char *s) {
    size_t n = strlen(s);
    if (n >= f->size) return "too long";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return "contains a control character";
    if (f->rule != S_ANY && n == 0) return "must not be empty";
    if (f->rule == S_NAME) {
        // The name becomes a directory under out_dir.
        if (strchr(s, '/')) return "must not contain '/' (it names a folder under out_dir)";
        if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return "must not be \".\" or \"..\"";
    }
    return NULL;
}

// Parses `text` into field f of c. On error writes "[section] key: ..." to
// msg and returns -1.
static int parse_field(Config *c, const Field *f, const char *text, char *msg, size_t cap) {
    char *p = (char *)c + f->off;
    switch (f->type) {
    case F_STR: {
        if (strlen(text) >= f->size) {
            snprintf(msg, cap, "[%s] %s: too long (%zu characters, at most %zu)", f->section, f->key,
                     strlen(text), f->size - 1);
            return -1;
        }
        const char *why = str_problem(f, text);
        if (why) {
            snprintf(msg, cap, "[%s] %s: %s, got \"%.100s\"", f->section, f->key, why, text);
            return -1;
        }
        memset(p, 0, f->size);
        memcpy(p, text, strlen(text));
        return 0;
    }
    case F_INT: {
        long long v = 0;
        int r = parse_ll(text, &v);
        if (r == 1) {
            snprintf(msg, cap, "[%s] %s: expected an integer, got \"%.100s\"", f->section, f->key, text);
            return -1;
        }
        if (r == 2 || v < f->lo || v > f->hi) {
            out_of_range_msg(msg, cap, f, text);
            return -1;
        }
        set_int(c, f, (int)v);
        return 0;
    }
    case F_U64: {
        unsigned long long v = 0;
        int r = parse_u64(text, &v);
        if (r == 1) {
            snprintf(msg, cap, "[%s] %s: expected a non-negative integer, got \"%.100s\"", f->section,
                     f->key, text);
            return -1;
        }
        if (r == 2) {
            snprintf(msg, cap, "[%s] %s: %.64s is out of range (expected 0..%llu)", f->section, f->key,
                     text, ULLONG_MAX);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case F_DBL: {
        double v = 0;
        int r = parse_dbl(text, &v);
        if (r == 1) {
            snprintf(msg, cap, "[%s] %s: expected a number, got \"%.100s\"", f->section, f->key, text);
            return -1;
        }
        if (r == 2 || !dbl_in_range(f, v)) {
            out_of_range_msg(msg, cap, f, text);
            return -1;
        }
        memcpy(p, &v, sizeof v);
        return 0;
    }
    case F_BOOL: {
        int v = 0;
        if (parse_bool(text, &v)) {
            snprintf(msg, cap, "[%s] %s: expected true or false (or 1/0, yes/no, on/off), got \"%.100s\"",
                     f->section, f->key, text);
            return -1;
        }
        set_int(c, f, v);
        return 0;
    }
    case F_ENUM: {
        for (int i = 0; f->names[i]; i++)
            if (strcmp(text, f->names[i]) == 0) {
                set_int(c, f, i);
                return 0;
            }
        size_t len = (size_t)snprintf(msg, cap, "[%s] %s: expected one of", f->section, f->key);
        for (int i = 0; f->names[i] && len < cap; i++)
            len += (size_t)snprintf(msg + len, cap - len, "%s%s", i ? ", " : " ", f->names[i]);
        if (len < cap) snprintf(msg + len, cap - len, "; got \"%.100s\"", text);
        return -1;
    }
    case F_DECAY: {
        // One value for every head, or a comma-separated list, one per head.
        double vals[CFG_MAX_HEADS];
        int n = 0;
        const char *s = text;
        for (;;) {
            const char *comma = strchr(s, ',');
            size_t len = comma ? (size_t)(comma - s) : strlen(s);
            while (len > 0 && (*s == ' ' || *s == '\t')) s++, len--;
            while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
            char item[64];
            if (len >= sizeof item) len = 0;  // too long to be a number: report it as not one
            memcpy(item, s, len);
            item[len] = 0;
            if (n == CFG_MAX_HEADS) {
                snprintf(msg, cap, "[%s] %s: more than %d values (at most one per head)", f->section,
                         f->key, CFG_MAX_HEADS);
                return -1;
            }
            double v = 0;
            int r = parse_dbl(item, &v);
            if (r == 1) {
                snprintf(msg, cap,
                         "[%s] %s: expected a number or a comma-separated list of numbers, got \"%.100s\"",
                         f->section, f->key, text);
                return -1;
            }
            if (r == 2 || !dbl_in_range(f, v)) {
                out_of_range_msg(msg, cap, f, item);
                return -1;
            }
            vals[n++] = v;
            if (!comma) break;
            s = comma + 1;
        }
        memset(c->decay_init, 0, sizeof c->decay_init);
        memcpy(c->decay_init, vals, (size_t)n * sizeof vals[0]);
        c->n_decay_init = n;
        return 0;
    }
    }
    return -1;
}

// ---------------------------------------------------------------------------
// Loading and --set

// `decay_learnable = false` is the older spelling of `decay = fixed`; the two
// are kept equal. Within one layer (a file, or one --set) a key that is set
// wins over the other's earlier value; setting both to disagreeing values in
// the same file is refused (which one was meant?).
static int sync_decay(Config *t, int set_decay, int set_learnable, char *msg, size_t cap) {
    if (set_decay && set_learnable && t->decay_learnable != (t->decay != DECAY_FIXED)) {
        snprintf(msg, cap,
                 "[attention] decay = %s contradicts decay_learnable = %s (decay_learnable = false "
                 "means decay = fixed; give only one of them)",
                 DECAY_NAMES[t->decay], t->decay_learnable ? "true" : "false");
        return -1;
    }
    if (set_learnable && !set_decay)
        t->decay = !t->decay_learnable ? DECAY_FIXED : t->decay == DECAY_FIXED ? DECAY_LEARNED : t->decay;
    t->decay_learnable = t->decay != DECAY_FIXED;
    return 0;
}

// Reads INI from f into c; `path` names the source in messages and, when
// the text has no [run] name, gives the run its name. Every line is read:
// each bad one adds its error to errs (c then stays as it was). Returns
// ERR_RUNTIME on a read error, else 0 (look at errs).
static int load_stream(Config *c, FILE *f, const char *path, ErrList *errs) {
    // Parse into a copy so a failed load leaves *c as it was.
    Config t = *c;
    int first_line[N_FIELDS] = {0};  // line each key was set on, for duplicates
    const char *section = NULL;
    char msg[1024];
    int before = errs->n + errs->dropped;
    IniReader r;
    IniLine l;
    ini_open(&r, f);
    while (ini_next(&r, &l) != INI_END) {
        switch (l.kind) {
        case INI_ERROR:
            errlist_add(errs, "%s:%d: %s", path, l.line, l.error);
            break;
        case INI_SECTION: {
            int s = find_section(l.section);
            if (s < 0) {
                unknown_section_msg(msg, sizeof msg, l.section);
                errlist_add(errs, "%s:%d: %s", path, l.line, msg);
                section = NULL;
                continue;  // its keys are not blamed again as "outside any section"
            }
            section = SECTIONS[s];
            break;
        }
        case INI_PAIR: {
            if (!section) {
                if (before == errs->n + errs->dropped)
                    errlist_add(errs, "%s:%d: key outside any section (\"%.64s\" needs a [section] line above it)",
                                path, l.line, l.key);
                break;
            }
            int i = find_field(section, l.key);
            if (i < 0) {
                unknown_key_msg(msg, sizeof msg, section, l.key);
                errlist_add(errs, "%s:%d: %s", path, l.line, msg);
            } else if (first_line[i]) {
                errlist_add(errs, "%s:%d: [%s] duplicate key \"%s\" (first set at line %d)", path, l.line, section,
                            l.key, first_line[i]);
            } else if (parse_field(&t, &FIELDS[i], l.value, msg, sizeof msg) < 0) {
                errlist_add(errs, "%s:%d: %s", path, l.line, msg);
            } else {
                first_line[i] = l.line;
            }
            break;
        }
        default:
            break;
        }
    }
    int bad_read = ferror(f);
    ini_close(&r);
    if (bad_read) return err_set(ERR_RUNTIME, "reading config %s: %s", path, strerror(errno));
    if (errs->n + errs->dropped > before) return 0;
    if (sync_decay(&t, first_line[find_field("attention", "decay")],
                   first_line[find_field("attention", "decay_learnable")], msg, sizeof msg) < 0) {
        errlist_add(errs, "%s: %s", path, msg);
        return 0;
    }

    for (int i = 0; i < N_FIELDS; i++)
        if (first_line[i]) mark_given(&t, i);
    follow_kind(&t);

    if (!first_line[find_field("run", "name")]) {
        // name = file name without directory and ".ini"
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(base);
        if (n >= 4 && strcmp(base + n - 4, ".ini") == 0) n -= 4;
        if (n >= sizeof t.name) {
            errlist_add(errs, "%s: file name too long for a run name; set [run] name", path);
            return 0;
        }
        memset(t.name, 0, sizeof t.name);
        memcpy(t.name, base, n);
    }
    *c = t;
    return 0;
}

// A config is a few KiB; 1 MiB keeps a wrong path from being read without bound.
#define CONFIG_MAX_BYTES ((size_t)1 << 20)

int config_load(Config *c, const char *path) {
    char *text = NULL;
    size_t n = 0;
    // regular files only, never blocking on a FIFO (file_check.h); read whole, then parsed
    if (read_regular(path, "config", CONFIG_MAX_BYTES, &text, &n)) return ERR_USAGE;
    int rc = config_load_text(c, text, n, path);
    free(text);
    return rc;
}

static int load_text(Config *c, const char *text, size_t n, const char *origin, ErrList *errs) {
    // fmemopen may refuse a zero-length buffer; empty text reads as "\n".
    FILE *f = n ? fmemopen((void *)text, n, "r") : fmemopen("\n", 1, "r");
    if (!f) return err_set(ERR_RUNTIME, "%s: cannot read the configuration text: %s", origin, strerror(errno));
    int rc = load_stream(c, f, origin, errs);
    fclose(f);
    return rc;
}

int config_load_text(Config *c, const char *text, size_t n, const char *origin) {
    ErrList errs = {0};
    int rc = load_text(c, text, n, origin, &errs);
    return rc ? rc : errlist_report(&errs, ERR_USAGE);
}

static char *trim(char *s) {
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

// One --set; an error names the assignment and goes to errs.
static void set_one(Config *c, const char *assignment, ErrList *errs) {
    char buf[2048];
    size_t n = strlen(assignment);
    if (n >= sizeof buf) {
        errlist_add(errs, "--set %.64s...: too long", assignment);
        return;
    }
    memcpy(buf, assignment, n + 1);

    char *eq = strchr(buf, '=');
    char *dot = strchr(buf, '.');
    if (!eq || !dot || dot > eq) {
        errlist_add(errs, "--set %s: expected section.key=value (e.g. train.lr=3e-4)", assignment);
        return;
    }
    *eq = 0;
    *dot = 0;
    char *section = trim(buf), *key = trim(dot + 1), *value;
    // No comment stripping: the shell already split the arguments, and a '#'
    // here is part of the value.
    const char *why = ini_parse_value(eq + 1, 0, &value);
    if (why) {
        errlist_add(errs, "--set %s: %s", assignment, why);
        return;
    }

    char msg[1024];
    if (find_section(section) < 0) {
        unknown_section_msg(msg, sizeof msg, section);
        errlist_add(errs, "--set %s: %s", assignment, msg);
        return;
    }
    int i = find_field(section, key);
    if (i < 0) {
        unknown_key_msg(msg, sizeof msg, section, key);
        errlist_add(errs, "--set %s: %s", assignment, msg);
        return;
    }
    Config t = *c;
    if (parse_field(&t, &FIELDS[i], value, msg, sizeof msg) < 0) {
        errlist_add(errs, "--set %s: %s", assignment, msg);
        return;
    }
    if (i == find_field("attention", "decay_learnable") && !t.decay_learnable && t.decay == DECAY_DATA) {
        // the older spelling switches a learned decay off; a data-dependent one would
        // become fixed decay without a word
        errlist_add(errs, "--set %s: decay_learnable = false would turn decay = data into decay = fixed; "
                          "say --set attention.decay=fixed if that is meant", assignment);
        return;
    }
    sync_decay(&t, i == find_field("attention", "decay"), i == find_field("attention", "decay_learnable"),
               msg, sizeof msg);  // one key set: never a contradiction
    mark_given(&t, i);
    follow_kind(&t);
    *c = t;
}

int config_set(Config *c, const char *assignment) {
    ErrList errs = {0};
    set_one(c, assignment, &errs);
    return errlist_report(&errs, ERR_USAGE);
}

// ---------------------------------------------------------------------------
// Validation

// Re-checks one field of a struct that may not have come through the parser
// (built in code, or edited); the parser already enforces the same rules.
static int check_field(const Config *c, const Field *f, char *msg, size_t cap) {
    char text[64];
    switch (f->type) {
    case F_STR: {
        const char *s = get_str(c, f);
        if (!memchr(s, 0, f->size)) {
            snprintf(msg, cap, "[%s] %s: not terminated", f->section, f->key);
            return -1;
        }
        const char *why = str_problem(f, s);
        if (why) {
            snprintf(msg, cap, "[%s] %s: %s, got \"%.100s\"", f->section, f->key, why, s);
            return -1;
        }
        return 0;
    }
    case F_INT: {
        int v = get_int(c, f);
        if (v < f->lo || v > f->hi) {
            snprintf(text, sizeof text, "%d", v);
            out_of_range_msg(msg, cap, f, text);
            return -1;
        }
        return 0;
    }
    case F_U64:
        return 0;
    case F_DBL: {
        double v = get_dbl(c, f);
        if (!dbl_in_range(f, v)) {
            format_double(text, sizeof text, v);
            out_of_range_msg(msg, cap, f, text);
            return -1;
        }
        return 0;
    }
    case F_BOOL: {
        int v = get_int(c, f);
        if (v != 0 && v != 1) {
            snprintf(msg, cap, "[%s] %s: %d is not a boolean (expected 0 or 1)", f->section, f->key, v);
            return -1;
        }
        return 0;
    }
    case F_ENUM: {
        int v = get_int(c, f), n = 0;
        while (f->names[n]) n++;
        if (v < 0 || v >= n) {
            snprintf(msg, cap, "[%s] %s: %d is not a valid choice", f->section, f->key, v);
            return -1;
        }
        return 0;
    }
    case F_DECAY: {
        if (c->n_decay_init < 1 || c->n_decay_init > CFG_MAX_HEADS) {
            snprintf(msg, cap, "[%s] %s: %d values (expected 1..%d)", f->section, f->key,
                     c->n_decay_init, CFG_MAX_HEADS);
            return -1;
        }
        for (int h = 0; h < c->n_decay_init; h++)
            if (!dbl_in_range(f, c->decay_init[h])) {
                format_double(text, sizeof text, c->decay_init[h]);
                out_of_range_msg(msg, cap, f, text);
                return -1;
            }
        return 0;
    }
    }
    return 0;
}

// A size is "absurd" beyond 2^40 floats (4 TiB): no run of this program gets
// near that, and staying below it keeps every product well inside size_t.
#define ABSURD_FLOATS 1099511627776.0  // 2^40

// Where a problem with keys k1 (and k2, may be NULL) came from: the --set
// assignments that gave them (the last one per key), else the file.
typedef struct {
    const char *file;
    const char *const *sets;
    int n_sets;
    ErrList *errs;
} Origin;

// 1 if the assignment "section.key=value" (spaces allowed around the parts) sets `name` ("section.key").
static int sets_key(const char *assignment, const char *name) {
    const char *eq = strchr(assignment, '=');
    if (!eq) return 0;
    char buf[256];
    size_t n = 0;
    for (const char *p = assignment; p < eq && n + 1 < sizeof buf; p++)
        if (!isspace((unsigned char)*p)) buf[n++] = *p;
    buf[n] = 0;
    return strcmp(buf, name) == 0;
}

static void blame(const Origin *o, const char *k1, const char *k2, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    const char *keys[2] = {k1, k2};
    for (int k = 0; k < 2; k++) {
        if (!keys[k]) continue;
        for (int i = o->n_sets - 1; i >= 0; i--)
            if (sets_key(o->sets[i], keys[k])) {
                if (len < cap) len += (size_t)snprintf(buf + len, cap - len, "%s--set %s", len ? ", " : "", o->sets[i]);
                break;
            }
    }
    if (!len) snprintf(buf, cap, "%s", o->file ? o->file : "config");
}

// Every problem is added to o->errs (the caller reports them all at once).
#define FAIL(k1, k2, ...)                                   \
    do {                                                    \
        char where_[1200], what_[2048];                     \
        blame(o, k1, k2, where_, sizeof where_);            \
        snprintf(what_, sizeof what_, __VA_ARGS__);         \
        errlist_add(o->errs, "%s: %s", where_, what_);      \
    } while (0)

// The README's configs are named kind plus variant ("delta_data", "nopos_linear",
// "recall_delta_sum"); given as a kind, such a name gets the keys it stands for.
// 1 and the hint in buf if `name` is one.
static int composite_kind_hint(const char *name, char *buf, size_t cap) {
    static const struct { const char *affix, *means; int prefix; } parts[] = {
        {"nopos_", "pos = none", 1},     {"recall_", "task = recall", 1},
        {"_data", "decay = data", 0},    {"_sum", "key_norm = sum", 0},
    };
    char kind[64], means[256] = "";
    snprintf(kind, sizeof kind, "%s", name);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            size_t n = strlen(kind), a = strlen(parts[i].affix);
            if (n <= a) continue;
            char *at = parts[i].prefix ? kind : kind + n - a;
            if (strncmp(at, parts[i].affix, a) != 0) continue;
            if (parts[i].prefix) memmove(kind, kind + a, n - a + 1);
            else *at = 0;
            size_t m = strlen(means);
            snprintf(means + m, sizeof means - m, "%s%s", m ? ", " : "", parts[i].means);
            changed = 1;
        }
    }
    if (!means[0] || !attn_kind_find(kind)) return 0;
    snprintf(buf, cap, "\"%s\" is the name of a config in configs/: kind = %s with %s; give --config %s, or "
                       "set those keys", name, kind, means, name);
    return 1;
}

static void validate(const Config *c, const Origin *o) {
    char msg[1024], key[160];
    int before = o->errs->n + o->errs->dropped;
    for (int i = 0; i < N_FIELDS; i++)
        if (check_field(c, &FIELDS[i], msg, sizeof msg) < 0) {
            snprintf(key, sizeof key, "%s.%s", FIELDS[i].section, FIELDS[i].key);
            FAIL(key, NULL, "%s", msg);
        }
    // The checks below combine fields, so each needs every field in range:
    // a value out of range is reported alone, not again through what it breaks.
    if (o->errs->n + o->errs->dropped > before) return;

    if (!attn_kind_find(c->kind)) {
        size_t len = (size_t)snprintf(msg, sizeof msg, "expected one of:");
        for (int i = 0; attn_kinds[i] && len < sizeof msg; i++)
            len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", i ? ", " : " ", attn_kinds[i]->name);
        char composite[512];
        if (composite_kind_hint(c->kind, composite, sizeof composite))
            FAIL("attention.kind", NULL, "[attention] kind: unknown attention kind \"%s\" (%s; %s)", c->kind, msg,
                 composite);
        else FAIL("attention.kind", NULL, "[attention] kind: unknown attention kind \"%s\" (%s)", c->kind, msg);
        return;  // the kind-specific checks below need a kind
    }
    // The attention modules compute in float32: eps must survive the cast
    // as a normal number.
    if (c->eps < FLT_MIN || c->eps > FLT_MAX)
        FAIL("attention.eps", NULL, "[attention] eps: %g is outside float32's normal range (expected %g..%g)", c->eps, (double)FLT_MIN, (double)FLT_MAX);

    if (c->d_model % c->heads != 0)
        FAIL("model.d_model", "model.heads", "[model] d_model %d is not divisible by heads %d", c->d_model,
                       c->heads);
    // keys that only some kinds read: refused where they would silently do nothing
    const AttnKind *kind = attn_kind_find(c->kind);
    if (c->key_norm != KEYNORM_SUM && !kind->uses_key_norm)
        FAIL("attention.key_norm", "attention.kind",
                       "[attention] key_norm = %s applies only to kind = delta (the %s kind does "
                       "not normalise its keys that way)", KEYNORM_NAMES[c->key_norm], c->kind);
    if (c->key_norm == KEYNORM_L2 && !c->normalize)
        FAIL("attention.key_norm", "attention.normalize",
                       "[attention] key_norm = l2 normalises the keys, but normalize = false turns "
                       "key normalisation off; set normalize = true");
    // φ must be positive where a sum of φ values is a denominator: with identity
    // φ, φ(q)ᵀz (or Σφ(k)) is a sum of signed terms that crosses zero, and the
    // read-out and its gradient blow up there (docs/math.md measures it). L2 key
    // normalisation divides by ‖φ(k)‖ >= 0 instead, which identity cannot flip.
    if (kind->phi_normalizer && c->feature_map == FMAP_IDENTITY && c->normalize &&
        !(kind->uses_key_norm && c->key_norm == KEYNORM_L2) && !c->allow_identity_normalize)
        FAIL("attention.feature_map", "attention.normalize",
                       "[attention] feature_map = identity with normalize = true: the read-out divides "
                       "by a sum of φ values (φ(q)ᵀz), which identity φ lets cross zero, so outputs and "
                       "gradients blow up (docs/math.md). Use feature_map = elu1 or relu, or normalize = "
                       "false; to train it anyway and watch it fail, set [attention] "
                       "allow_identity_normalize = true");
    if (c->decay == DECAY_DATA && !kind->data_decay)
        FAIL("attention.decay", "attention.kind",
                       "[attention] decay = data needs a kind with an input-dependent decay "
                       "(linear_decay or delta); %s has none", c->kind);
    if (c->decay_learnable != (c->decay != DECAY_FIXED))
        FAIL("attention.decay", "attention.decay_learnable", "[attention] decay = %s contradicts decay_learnable = %s",
                       DECAY_NAMES[c->decay], c->decay_learnable ? "true" : "false");
    if (c->n_decay_init != 1 && c->n_decay_init != c->heads)
        FAIL("attention.decay_init", "model.heads",
                       "[attention] decay_init has %d values but heads is %d (give one value for all "
                       "heads, or one per head)", c->n_decay_init, c->heads);

    if (c->task == TASK_TEXT && c->path[0] == 0)
        FAIL("data.path", "data.task", "[data] path: task = text needs a corpus path (e.g. path = data/tinyshakespeare.txt)");
    if (c->task == TASK_RECALL) {
        if (c->vocab % 2 != 0)
            FAIL("data.vocab", NULL, "[data] vocab %d must be even for task = recall (keys and values split it in halves)",
                           c->vocab);
        if (c->pairs > c->vocab / 2 - 1)
            FAIL("data.pairs", "data.vocab",
                           "[data] pairs %d needs at least %d distinct keys but vocab %d has %d (pairs <= vocab/2 - 1)", c->pairs, c->pairs, c->vocab, c->vocab / 2 - 1);
        if (4LL * c->pairs > c->block_size)
            FAIL("data.pairs", "model.block_size", "[data] pairs %d does not fit in [model] block_size %d (needs 4*pairs <= block_size)", c->pairs, c->block_size);
    }
    // A CPU budget: the run stops when its training CPU time reaches it or at
    // `steps`, whichever comes first, and `steps` stays the LR schedule's
    // length. So steps must be a number the user chose, not the default.
    if (c->cpu_seconds_given && !(c->cpu_seconds > 0))
        FAIL("train.cpu_seconds", NULL, "[train] cpu_seconds = %g: a CPU budget must be more than 0 seconds "
             "(leave the key out to train for `steps`)", c->cpu_seconds);
    else if (c->cpu_seconds > 0 && !c->steps_given)
        FAIL("train.cpu_seconds", "train.steps", "[train] cpu_seconds = %g needs [train] steps given too: with a "
             "CPU budget, steps is the cap and the length of the learning-rate schedule (the run stops at "
             "whichever comes first)", c->cpu_seconds);
    if (c->min_lr > c->lr)
        FAIL("train.min_lr", "train.lr", "[train] min_lr %g is larger than lr %g", c->min_lr, c->lr);

    // Sizes: computed in double, so the check itself cannot overflow.
    double L = c->layers, D = c->d_model, T = c->block_size, B = c->batch_size;
    double F = c->ffn_mult;
    double V = c->task == TASK_RECALL ? c->vocab : 256;  // char-level: at most 256 symbols
    double params = L * D * D * (4 + 2 * F) + (V + T) * D;
    if (params > ABSURD_FLOATS)
        FAIL("model.d_model", "model.layers",
                       "[model] too large: layers*d_model*d_model*(4 + 2*ffn_mult) is %.3g parameters (limit 2^40)", params);
    // Saved activations: a few (B, T, C) buffers per layer plus the FFN's
    // (B, T, ffn_mult*C), and the logits.
    double acts = B * T * D * L * (16 + 2 * F) + B * T * V;
    if (acts > ABSURD_FLOATS)
        FAIL("train.batch_size", "model.block_size",
                       "[train] batch_size*[model] block_size*d_model*layers is too large: about %.3g floats of activations (limit 2^40)", acts);
    // The kind's work buffers (per-chunk state, a chunk's scratch, ...), as the
    // kind sizes them; only once the sizes above are sane, so the count fits.
    if (params <= ABSURD_FLOATS && acts <= ABSURD_FLOATS && c->d_model % c->heads == 0) {
        AttnConfig ac = config_attention(c);
        double work = L * (double)kind->work_floats(&ac, (size_t)B, (size_t)T);
        if (work > ABSURD_FLOATS)
            FAIL("attention.chunk", NULL,
                 "[attention] chunk %d with this model: the %s kind's work buffers (per-chunk state and "
                 "scratch) would hold %.3g floats (limit 2^40)", c->chunk, c->kind, work);
    }
}

int config_validate_sets(const Config *c, const char *origin, const char *const *sets, int n_sets) {
    ErrList errs = {0};
    Origin o = {origin, sets, n_sets, &errs};
    validate(c, &o);
    return errlist_report(&errs, ERR_USAGE);
}

int config_validate(const Config *c, const char *origin) { return config_validate_sets(c, origin, NULL, 0); }

int config_load_all(Config *c, const char *path, const char *const *sets, int n_sets) {
    ErrList errs = {0};
    char *text = NULL;
    size_t n = 0;
    // regular files only, never blocking on a FIFO (file_check.h); read whole, then parsed
    if (read_regular(path, "config", CONFIG_MAX_BYTES, &text, &n)) return ERR_USAGE;
    int rc = load_text(c, text, n, path, &errs);
    free(text);
    if (rc) return rc;
    int file_ok = errs.n == 0;
    // every --set is tried, so all their mistakes show at once too
    for (int i = 0; i < n_sets; i++) set_one(c, sets[i], &errs);
    // and the cross-field checks too: a --set that did not parse left its key as
    // it was, and the others' problems still show (the docs promise every error
    // at once). A file with bad lines is not checked further: its keys are half read.
    if (file_ok) {
        Origin o = {path, sets, n_sets, &errs};
        validate(c, &o);
    }
    return errlist_report(&errs, ERR_USAGE);
}

// ---------------------------------------------------------------------------
// Writing

// Bare when the tokenizer would read it back unchanged, else "quoted".
static void write_string(FILE *f, const char *s) {
    size_t n = strlen(s);
    int quote = n == 0 || isspace((unsigned char)s[0]) || isspace((unsigned char)s[n - 1]) ||
                s[0] == '"' || strpbrk(s, "#;") != NULL;
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

static void write_value(FILE *f, const Config *c, const Field *fd) {
    char buf[64];
    switch (fd->type) {
    case F_STR:
        write_string(f, get_str(c, fd));
        break;
    case F_INT:
        fprintf(f, "%d", get_int(c, fd));
        break;
    case F_U64:
        fprintf(f, "%llu", c->seed);
        break;
    case F_DBL:
        format_double(buf, sizeof buf, get_dbl(c, fd));
        fputs(buf, f);
        break;
    case F_BOOL:
        fputs(get_int(c, fd) ? "true" : "false", f);
        break;
    case F_ENUM:
        fputs(fd->names[get_int(c, fd)], f);
        break;
    case F_DECAY:
        for (int h = 0; h < c->n_decay_init; h++) {
            format_double(buf, sizeof buf, c->decay_init[h]);
            fprintf(f, "%s%s", h ? ", " : "", buf);
        }
        break;
    }
}

int config_write(const Config *c, FILE *f) {
    fputs("# lmtrain configuration as resolved for this run: every key, defaults included.\n", f);
    const char *section = NULL;
    for (int i = 0; i < N_FIELDS; i++) {
        const Field *fd = &FIELDS[i];
        if (!section || strcmp(section, fd->section) != 0) {
            fprintf(f, "\n[%s]\n", fd->section);
            section = fd->section;
        }
        if (fd->off == OFF(cpu_seconds) && c->cpu_seconds == 0) continue;  // no CPU budget: as before the key
        fprintf(f, "%-16s = ", fd->key);
        write_value(f, c, fd);
        fputc('\n', f);
    }
    if (fflush(f) != 0 || ferror(f)) return err_set(ERR_RUNTIME, "writing config: %s", strerror(errno));
    return 0;
}

// ---------------------------------------------------------------------------
// Diff

// decay_init compared per head: "0.9" and "0.9, 0.9, 0.9, 0.9" with 4 heads
// are the same model.
static int decay_differs(const Config *a, const Config *b) {
    int H = a->heads > b->heads ? a->heads : b->heads;
    if (H > CFG_MAX_HEADS) H = CFG_MAX_HEADS;
    if (a->n_decay_init == 1 && b->n_decay_init == 1) return a->decay_init[0] != b->decay_init[0];
    for (int h = 0; h < H; h++) {
        double va = a->n_decay_init == 1 ? a->decay_init[0] : h < a->n_decay_init ? a->decay_init[h] : NAN;
        double vb = b->n_decay_init == 1 ? b->decay_init[0] : h < b->n_decay_init ? b->decay_init[h] : NAN;
        if (!(va == vb)) return 1;
    }
    return 0;
}

static int field_differs(const Config *a, const Config *b, const Field *f) {
    switch (f->type) {
    case F_STR:
        return strncmp(get_str(a, f), get_str(b, f), f->size) != 0;
    case F_INT:
    case F_BOOL:
    case F_ENUM:
        return get_int(a, f) != get_int(b, f);
    case F_U64:
        return a->seed != b->seed;
    case F_DBL:
        return get_dbl(a, f) != get_dbl(b, f);
    case F_DECAY:
        return decay_differs(a, b);
    }
    return 0;
}

// With model_keys_only, only keys whose Field.model is set count: the two
// lists (model/data keys vs run-bookkeeping and schedule keys) are spelled out
// beside Field.model at the top of this file.
int config_diff(const Config *a, const Config *b, char *buf, size_t cap, int model_keys_only) {
    int count = 0;
    size_t len = 0;
    if (buf && cap) buf[0] = 0;
    for (int i = 0; i < N_FIELDS; i++) {
        const Field *f = &FIELDS[i];
        if (model_keys_only && !f->model) continue;
        if (!field_differs(a, b, f)) continue;
        if (buf && len < cap)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s.%s", count ? ", " : "", f->section, f->key);
        count++;
    }
    return count;
}

AttnConfig config_attention(const Config *c) {
    return (AttnConfig){
        .heads = c->heads,
        .dh = c->d_model / c->heads,
        .feature_map = c->feature_map,
        .eps = (float)c->eps,
        .normalize = c->normalize,
        .chunk = c->chunk,
        .state_identity = c->state_init == STATE_IDENTITY,
        .key_norm = c->key_norm,
        .data_decay = c->decay == DECAY_DATA,
        .decay_learned = c->decay != DECAY_FIXED,
    };
}
