// args.c — see args.h.
#include "args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/edit_distance.h"
#include "util/err.h"

// ============================================================================
// Values
// ============================================================================

static int parse_u64(const char *val, uint64_t *out) {
    if (!isdigit((unsigned char)val[0])) return 0;  // no sign, no space, not empty
    errno = 0;
    char *end;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

int args_size(const char *cmd, const char *opt, const char *val, size_t lo, size_t hi, size_t *out) {
    uint64_t v;
    if (!parse_u64(val, &v) || v < lo || v > hi)
        return err_set(ERR_USAGE, "%s: %s: expected an integer in [%zu, %zu], got '%s'", cmd, opt, lo,
                       hi, val);
    *out = (size_t)v;
    return 0;
}

int args_u64(const char *cmd, const char *opt, const char *val, uint64_t *out) {
    if (!parse_u64(val, out))
        return err_set(ERR_USAGE, "%s: %s: expected a non-negative integer, got '%s'", cmd, opt, val);
    return 0;
}

int args_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out) {
    errno = 0;
    char *end;
    double v = strtod(val, &end);
    if (end == val || *end || errno || !isfinite(v) || v < lo || v > hi || isspace((unsigned char)val[0]))
        return err_set(ERR_USAGE, "%s: %s: expected a number in [%g, %g], got '%s'", cmd, opt, lo, hi, val);
    *out = v;
    return 0;
}

static int list_add(const char *cmd, const char *what, ArgList *l, const char *item) {
    if (l->n == l->cap) return err_set(ERR_USAGE, "%s: at most %d %s", cmd, l->cap, what);
    l->items[l->n++] = item;
    return 0;
}

// ============================================================================
// Help
// ============================================================================

static void format_default(const ArgOpt *o, char *buf, size_t cap) {
    if (o->shown_default) {
        snprintf(buf, cap, "%s", o->shown_default);
        return;
    }
    switch (o->type) {
    case ARG_STRING: {
        const char *v = *(const char **)o->dest;
        if (v) snprintf(buf, cap, "%s", v);
        else snprintf(buf, cap, "none");
        break;
    }
    case ARG_SIZE: snprintf(buf, cap, "%zu", *(size_t *)o->dest); break;
    case ARG_U64: snprintf(buf, cap, "%llu", (unsigned long long)*(uint64_t *)o->dest); break;
    case ARG_DOUBLE: snprintf(buf, cap, "%g", *(double *)o->dest); break;
    case ARG_FLAG: snprintf(buf, cap, "%s", *(int *)o->dest ? "on" : "off"); break;
    case ARG_REPEAT: snprintf(buf, cap, "none"); break;
    }
}

void args_print_help(const ArgSpec *s, FILE *f) {
    fprintf(f, "usage: lmtrain %s%s%s\n\n%s\n", s->cmd, s->synopsis[0] ? " " : "", s->synopsis, s->about);
    if (s->positional_help) fprintf(f, "\narguments:\n  %s\n", s->positional_help);
    fprintf(f, "\noptions:\n");
    for (size_t i = 0; i < s->n_opts; i++) {
        const ArgOpt *o = &s->opts[i];
        char left[64], dflt[256];
        snprintf(left, sizeof left, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
        if (o->required) snprintf(dflt, sizeof dflt, "required");
        else {
            char v[200];
            format_default(o, v, sizeof v);
            snprintf(dflt, sizeof dflt, "default: %s", v);
        }
        // a long option name gets its text on the next line, still in the column
        if (strlen(left) > 22) fprintf(f, "  %s\n  %-22s", left, "");
        else fprintf(f, "  %-22s", left);
        fprintf(f, " %s%s(%s)\n", o->help, o->type == ARG_REPEAT ? ", repeatable " : " ", dflt);
    }
    fprintf(f, "  %-22s %s\n", "--help", "print this help and exit");
    if (s->n_opts) fprintf(f, "\nA value can also be given as --key=value.\n");
}

// ============================================================================
// Parsing
// ============================================================================

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

// The option argv[i] names (its "--key" part, before any '='), or NULL.
static const ArgOpt *find(const ArgSpec *s, const char *a) {
    size_t len = strcspn(a, "=");
    for (size_t i = 0; i < s->n_opts; i++)
        if (strlen(s->opts[i].name) == len && !strncmp(s->opts[i].name, a, len)) return &s->opts[i];
    return NULL;
}

// Is --help among the options? Values of "--key value" options are skipped,
// so "--prompt --help" is a prompt, not a request for help.
static int wants_help(const ArgSpec *s, int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) return 1;
        const ArgOpt *o = find(s, argv[i]);
        if (o && o->type != ARG_FLAG && !strchr(argv[i], '=')) i++;
    }
    return 0;
}

// "unknown option '--tokns'": with the table's closest name when it is a
// plausible typo of it.
static int unknown_option(const ArgSpec *s, const char *a) {
    char key[80];
    snprintf(key, sizeof key, "%.*s", (int)strcspn(a, "="), a);
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (size_t i = 0; i < s->n_opts; i++) {
        size_t d = edit_distance(key, s->opts[i].name);
        if (edit_is_typo(d, strlen(s->opts[i].name) - 2) && d < best_d) {  // "--" is no part of the name
            best = s->opts[i].name;
            best_d = d;
        }
    }
    if (best)
        return err_set(ERR_USAGE, "%s: unknown option '%s' (did you mean '%s'? see lmtrain %s --help)", s->cmd, a,
                       best, s->cmd);
    return err_set(ERR_USAGE, "%s: unknown option '%s' (see lmtrain %s --help)", s->cmd, a, s->cmd);
}

static int set_value(const ArgSpec *s, const ArgOpt *o, const char *v) {
    switch (o->type) {
    case ARG_STRING: *(const char **)o->dest = v; return 0;
    case ARG_SIZE: return args_size(s->cmd, o->name, v, (size_t)o->lo, (size_t)o->hi, o->dest);
    case ARG_U64: return args_u64(s->cmd, o->name, v, o->dest);
    case ARG_DOUBLE: return args_double(s->cmd, o->name, v, o->lo, o->hi, o->dest);
    case ARG_REPEAT: return list_add(s->cmd, o->name, o->dest, v);
    case ARG_FLAG: break;
    }
    return 0;
}

// A default the parser would refuse (SIZE_MAX standing for "the last layer")
// is a sentinel: printed raw it reads as a number nobody can type. The table
// must say what it means in .shown_default; checked on every parse, so any
// test that runs the command finds a table that forgot.
static int check_table(const ArgSpec *s) {
    for (size_t i = 0; i < s->n_opts; i++) {
        const ArgOpt *o = &s->opts[i];
        if (o->shown_default || o->required) continue;
        double v;
        if (o->type == ARG_SIZE) v = (double)*(const size_t *)o->dest;
        else if (o->type == ARG_DOUBLE) v = *(const double *)o->dest;
        else continue;
        if (!(v >= o->lo && v <= o->hi))
            return err_set(ERR_USAGE, "%s: %s: its default lies outside [%g, %g] and its table gives no "
                           "shown_default", s->cmd, o->name, o->lo, o->hi);
    }
    return 0;
}

int args_parse(const ArgSpec *s, int argc, char **argv) {
    int rc = check_table(s);
    if (rc) return rc;
    if (wants_help(s, argc, argv)) {
        args_print_help(s, stdout);
        return ARGS_HELP;
    }
    unsigned char seen[64] = {0};
    if (s->n_opts > sizeof seen) return err_set(ERR_USAGE, "%s: too many options in its table", s->cmd);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {  // "-" alone is a value, as in many tools
            if (!s->positional || s->positional->n == s->positional->cap)
                return err_set(ERR_USAGE, "%s: unexpected argument '%s' (see lmtrain %s --help)", s->cmd, a,
                               s->cmd);
            s->positional->items[s->positional->n++] = a;
            continue;
        }
        const ArgOpt *o = find(s, a);
        if (!o) return unknown_option(s, a);
        seen[o - s->opts] = 1;
        const char *eq = strchr(a, '=');
        if (o->type == ARG_FLAG) {
            if (eq) return err_set(ERR_USAGE, "%s: %s takes no value (got '%s')", s->cmd, o->name, a);
            *(int *)o->dest = 1;
            continue;
        }
        const char *v;
        if (eq) v = eq + 1;
        else if (i + 1 < argc) v = argv[++i];
        else return err_set(ERR_USAGE, "%s: %s needs a value (%s %s)", s->cmd, o->name, o->name, o->value);
        rc = set_value(s, o, v);
        if (rc) return rc;
    }
    for (size_t i = 0; i < s->n_opts; i++)
        if (s->opts[i].required && !seen[i])
            return err_set(ERR_USAGE, "%s: missing %s %s (see lmtrain %s --help)", s->cmd, s->opts[i].name,
                           s->opts[i].value ? s->opts[i].value : "", s->cmd);
    return 0;
}
