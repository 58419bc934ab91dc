// main.c — lmtrain's command line (SPEC §2): dispatch to a subcommand, print
// the one error message, exit with its status (0 ok, 1 runtime failure, 2 usage).
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "kernels/blocking.h"
#include "kernels/cpu.h"
#include "util/err.h"
#include "util/pool.h"

#define LMTRAIN_VERSION "0.1.0"

static void usage(FILE *f) {
    fputs("usage: lmtrain COMMAND [options]     (lmtrain COMMAND --help lists a command's options)\n"
          "       lmtrain --config FILE [options]   train one run (the same as lmtrain train)\n"
          "       lmtrain --help | --version\n\ncommands:\n",
          f);
    for (const Command *c = commands; c->name; c++) fprintf(f, "  %-10s %s\n", c->name, c->summary);
    fprintf(f, "\n--config NAME that is not an existing file is looked up in configs/, then in the configs\n"
               "an installed lmtrain ships (share/lmtrain/configs beside its bin/, then %s).\n",
            cli_share_configs());
    fputs(
          "Exit status: 0 success, 1 runtime failure (bad data, NaN, I/O), 2 usage or config error,\n"
          "128 + N stopped by signal N: 130 SIGINT, 143 SIGTERM, 129 SIGHUP (a checkpoint was saved;\n"
          "continue with --resume); 141 stdout was closed (checkpoint saved too).\n"
          "A run folder that already holds a run needs --resume (continue it) or --overwrite (discard it).\n",
          f);
    fprintf(f, "Kernels: the %s path, chosen from the CPU at start (LMTRAIN_ISA=avx512|avx2|portable forces\n"
               "a path the CPU allows; lmtrain --version shows the CPU).\n",
            kernel_isa_name(kernel_isa()));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return ERR_USAGE;
    }
    int rc = 0;
    const Command *c = command_find(argv[1]);
    // --help and --version print too: they pass the stdout check below like any command
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
        usage(stdout);
    else if (strcmp(argv[1], "--version") == 0) {
        char line[256], blocking[800];
        kernel_describe(line, sizeof line);
        gemm_blocking_describe(blocking, sizeof blocking);
        printf("lmtrain %s\n%s\n%s\n", LMTRAIN_VERSION, line, blocking);
    } else if (c) rc = c->run(argc - 1, argv + 1);
    else if (argv[1][0] == '-') rc = cmd_train(argc, argv);  // `lmtrain --config FILE ...`
    else rc = err_set(ERR_USAGE, "unknown command '%s' (lmtrain --help lists them)", argv[1]);
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
