// opt.h — strict option values for the subcommands ("--tokens 12x" is an
// error, not 12). Every error is ERR_USAGE naming the command and the option.
#pragma once
#include <stddef.h>
#include <stdint.h>

// argv[*i] is an option that takes a value: *val = argv[*i + 1] and *i
// advances past it, or an error if the value is missing.
int opt_value(const char *cmd, int argc, char **argv, int *i, const char **val);
// Integer in [lo, hi], decimal.
int opt_size(const char *cmd, const char *opt, const char *val, size_t lo, size_t hi, size_t *out);
// Any unsigned 64-bit decimal integer.
int opt_u64(const char *cmd, const char *opt, const char *val, uint64_t *out);
// Finite number in [lo, hi].
int opt_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out);
