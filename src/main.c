// main.c — lmtrain's command line (SPEC §2): parse, dispatch, print the one
// error message, exit with its status (0 ok, 1 runtime failure, 2 usage).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "train/run_folder.h"
#include "train/train.h"
#include "util/err.h"
#include "util/pool.h"

#define LMTRAIN_VERSION "0.1.0"

static const char *USAGE =
    "usage:\n"
    "  lmtrain --config FILE [--set section.key=value]... [--out DIR] [--resume | --overwrite]\n"
    "                                                                             train one run\n"
    "  lmtrain ablate FILE FILE... [--seeds N] [--set ...] [--out DIR] [--sweep k=a,b,...]\n"
    "                [--resume | --overwrite] [--plan [--jobs J]]                 train each with N seeds, compare\n"
    "  lmtrain report DIR                                                         an ablation's report from its finished runs\n"
    "  lmtrain sample --run DIR [--prompt TEXT] [--tokens N] [--temperature T] [--top-k K] [--seed S]\n"
    "  lmtrain eval --run DIR [--length N]                                        full-split val loss, bits/char\n"
    "  lmtrain inspect --run DIR [--stretch N] [--drift-tokens N] [--fp16-tokens N] [--layer L] [--head H]\n"
    "                  [--seed S]                                                  fast-weight diagnostics, pictures\n"
    "  lmtrain bench [--part peak,train,length,generate] [--kinds a,b,...] [--seq 256,1024,4096,16384]\n"
    "                [--out DIR] [--quick]                                        speed: peak, throughput, cost vs length\n"
    "  lmtrain gradcheck                                                          finite-difference check of every op\n"
    "  lmtrain export --run DIR [--out FILE] [--force]                            weights as safetensors\n"
    "  lmtrain lab [--out DIR] [--feature-map F] [--decay L] [--beta B] [--trials N] [--seed S]\n"
    "              [--run DIR [--layer L] [--head H] [--key-tokens N]]            memory lab: capacity, overwrite\n"
    "  lmtrain --help | --version\n"
    "\n"
    "--config NAME that is not an existing file is looked up in configs/.\n"
    "Exit status: 0 success, 1 runtime failure (bad data, NaN, I/O), 2 usage or config error,\n"
    "128 + N stopped by signal N: 130 SIGINT, 143 SIGTERM, 129 SIGHUP (a checkpoint was saved;\n"
    "continue with --resume); 141 stdout was closed (checkpoint saved too).\n"
    "A run folder that already holds a run needs --resume (continue it) or --overwrite (discard it).\n";

static int cmd_train(int argc, char **argv) {
    const char *config = NULL, *out = NULL;
    int resume = 0, overwrite = 0;
    char *sets[256];
    int n_sets = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_val = i + 1 < argc;
        if (strcmp(a, "--config") == 0 && has_val) config = argv[++i];
        else if (strcmp(a, "--out") == 0 && has_val) out = argv[++i];
        else if (strcmp(a, "--set") == 0 && has_val) {
            if (n_sets == 256) return err_set(ERR_USAGE, "too many --set options (at most 256)");
            sets[n_sets++] = argv[++i];
        } else if (strcmp(a, "--resume") == 0) resume = 1;
        else if (strcmp(a, "--overwrite") == 0) overwrite = 1;
        else return err_set(ERR_USAGE, "unknown or incomplete option '%s'\n\n%s", a, USAGE);
    }
    if (!config) return err_set(ERR_USAGE, "missing --config FILE\n\n%s", USAGE);
    if (resume && overwrite)
        return err_set(ERR_USAGE, "--resume continues the run in the folder, --overwrite discards it: give one");
    Config c;
    int rc = cli_load_config(&c, config, sets, n_sets);
    if (rc) return rc;
    char dir[4096];
    cli_run_dir(dir, sizeof dir, &c, out);
    rc = train_run(&c, dir, resume ? TRAIN_RESUME : overwrite ? TRAIN_OVERWRITE : TRAIN_NEW);
    if (rc == 0) printf("run written to %s/ (summary.txt, metrics.csv, curves.svg, checkpoint.bin)\n", dir);
    return rc;
}

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);  // argv[0] is the command name
} Command;

static const Command COMMANDS[] = {
    {"ablate", cmd_ablate},   {"report", cmd_report},       {"sample", cmd_sample}, {"eval", cmd_eval},
    {"inspect", cmd_inspect}, {"gradcheck", cmd_gradcheck}, {"export", cmd_export}, {"lab", cmd_lab},
    {"bench", cmd_bench},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(USAGE, stderr);
        return ERR_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("lmtrain %s\n", LMTRAIN_VERSION);
        return 0;
    }
    int rc = -1;
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) rc = COMMANDS[i].run(argc - 1, argv + 1);
    if (rc < 0) {
        if (argv[1][0] != '-') rc = err_set(ERR_USAGE, "unknown command '%s'\n\n%s", argv[1], USAGE);
        else rc = cmd_train(argc, argv);
    }
    pool_shutdown();
    // What a command printed must have reached stdout (/dev/full, a full disk):
    // a result nobody received is a failure, exit 1, whatever the command.
    errno = 0;
    int bad = fflush(stdout) != 0, e = errno;
    if ((bad || ferror(stdout)) && rc == 0)
        rc = err_set(ERR_RUNTIME, "cannot write to stdout: %s", e ? strerror(e) : "write error");
    if (rc != 0 && err_msg()[0]) fprintf(stderr, "lmtrain: %s\n", err_msg());
    return rc;
}
