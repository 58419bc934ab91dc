// args.h — the one option parser every subcommand uses.
//
// A command describes its options in a table; args_parse fills the variables
// the table points to and answers --help from the same table, so the help can
// never list an option the parser does not know, nor the wrong default:
//
//     const char *run = NULL;
//     size_t tokens = 500;                       // the default is the initial value
//     const ArgOpt opts[] = {
//         {"--run", ARG_STRING, &run, "DIR", .help = "the run folder", .required = 1},
//         {"--tokens", ARG_SIZE, &tokens, "N", .help = "tokens to generate", .lo = 0, .hi = 1e9},
//     };
//     const ArgSpec spec = {"sample", "--run DIR [options]", "Generate text.", ARGS_TABLE(opts)};
//     int rc = args_parse(&spec, argc, argv);
//     if (rc) return args_status(rc);            // --help printed: exit 0; else the usage error
//
// Accepted forms: "--key value" and "--key=value"; a flag is "--flag" alone.
// Values are strict ("--tokens 12x" and "--tokens -1" are errors, not 12 and a
// huge number). Every error is ERR_USAGE naming the command and the option,
// and is found before the command does anything.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    ARG_STRING,  // const char **dest
    ARG_SIZE,    // size_t *dest, decimal, in [lo, hi]
    ARG_U64,     // uint64_t *dest, any unsigned 64-bit decimal
    ARG_DOUBLE,  // double *dest, finite, in [lo, hi]
    ARG_FLAG,    // int *dest, set to 1; takes no value
    ARG_REPEAT,  // ArgList *dest: each occurrence appends its value (e.g. --set)
} ArgType;

// The values of a repeated option, or the positional arguments, in argv order.
typedef struct {
    const char **items;  // the caller's array of cap entries
    int cap, n;
} ArgList;

typedef struct {
    const char *name;    // "--tokens"
    ArgType type;
    void *dest;          // see ArgType; its value on entry is the default --help shows
    const char *value;   // the value's name in the help ("N", "DIR"); NULL for flags
    const char *help;    // one line: what the option does
    double lo, hi;       // ARG_SIZE and ARG_DOUBLE: the accepted range
    int required;        // the command cannot run without it
    const char *shown_default;  // shown instead of dest's value when that would
                                // mislead (e.g. 0 standing for "all cores");
                                // required when the default lies outside
                                // [lo, hi] (a sentinel such as SIZE_MAX)
} ArgOpt;

typedef struct {
    const char *cmd;         // the command's name ("sample")
    const char *synopsis;    // after "lmtrain CMD": "--run DIR [options]"
    const char *about;       // what the command does; may span lines
    const ArgOpt *opts;
    size_t n_opts;
    ArgList *positional;     // NULL: the command takes no positional arguments
    const char *positional_help;  // e.g. "CONFIG  a config file or a name in configs/"
} ArgSpec;

// .opts and .n_opts of an ArgSpec from an array of ArgOpt.
#define ARGS_TABLE(a) .opts = (a), .n_opts = sizeof(a) / sizeof((a)[0])

// Returned by args_parse when it printed the help: the command stops, exit 0.
#define ARGS_HELP (-1)

// 0 (every dest filled), ARGS_HELP (--help or -h was given: the help went to
// stdout), or ERR_USAGE after err_set: a table whose default is a sentinel
// without .shown_default (see ArgOpt), an unknown option, a missing or bad
// value, a value given to a flag, too many repeats, or a required option absent.
int args_parse(const ArgSpec *s, int argc, char **argv);

// What a command returns after a non-zero args_parse: 0 for ARGS_HELP.
static inline int args_status(int rc) { return rc == ARGS_HELP ? 0 : rc; }

// The help text (what --help prints); the defaults shown are the dests'
// current values. (args_parse looks for --help before it parses anything, so
// "--tokens 5 --help" still shows the default, not 5.)
void args_print_help(const ArgSpec *s, FILE *f);

// Strict value parsers (for list elements such as "--seq 256,1024"), with the
// same messages as args_parse: "CMD: OPT: expected ..., got 'VAL'".
int args_size(const char *cmd, const char *opt, const char *val, size_t lo, size_t hi, size_t *out);
int args_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out);
int args_u64(const char *cmd, const char *opt, const char *val, uint64_t *out);
