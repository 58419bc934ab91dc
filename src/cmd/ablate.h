// ablate.h — what `lmtrain ablate` was asked: its arguments, read and
// checked by ablate_args.c before anything else happens (ablate.c).
#pragma once

#define ABLATE_MAX 16  // config files

// --sweep section.key=v1,v2,...: every config is trained again at each value.
typedef struct {
    char key[128];
    char values[32][64];
    int n;
} Sweep;

typedef struct {
    const char *files[ABLATE_MAX];
    int n_files;
    const char *sets[256];
    int n_sets;
    const char *out;
    Sweep sweep;
    long seeds;  // 0: the configs' [run] seeds
    int resume, plan, estimate;  // estimate: print how long the runs still to do should take; train nothing
    long jobs;   // --plan: runs meant to run at once (divides the cores); 0: one per core
    int argc;
    char **argv;
} Args;

// Parses and checks argv (a sweep of a [run] key or of one value twice, a
// second --sweep, a --set given twice or of the swept key, an --out with a
// newline: ERR_USAGE, naming them). 0 or an exit status.
int ablate_parse_args(Args *a, int argc, char **argv);
