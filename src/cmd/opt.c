// opt.c — see opt.h.
#include "opt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/err.h"

int opt_value(const char *cmd, int argc, char **argv, int *i, const char **val) {
    if (*i + 1 >= argc) return err_set(ERR_USAGE, "%s: %s needs a value", cmd, argv[*i]);
    *val = argv[++*i];
    return 0;
}

static int parse_u64(const char *val, uint64_t *out) {
    if (!isdigit((unsigned char)val[0])) return 0;  // no sign, no space, not empty
    errno = 0;
    char *end;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

int opt_size(const char *cmd, const char *opt, const char *val, size_t lo, size_t hi, size_t *out) {
    uint64_t v;
    if (!parse_u64(val, &v) || v < lo || v > hi)
        return err_set(ERR_USAGE, "%s: %s: expected an integer in [%zu, %zu], got '%s'", cmd, opt, lo,
                       hi, val);
    *out = (size_t)v;
    return 0;
}

int opt_u64(const char *cmd, const char *opt, const char *val, uint64_t *out) {
    if (!parse_u64(val, out))
        return err_set(ERR_USAGE, "%s: %s: expected a non-negative integer, got '%s'", cmd, opt, val);
    return 0;
}

int opt_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out) {
    errno = 0;
    char *end;
    double v = strtod(val, &end);
    if (end == val || *end || errno || !isfinite(v) || v < lo || v > hi || isspace((unsigned char)val[0]))
        return err_set(ERR_USAGE, "%s: %s: expected a number in [%g, %g], got '%s'", cmd, opt, lo, hi, val);
    *out = v;
    return 0;
}
