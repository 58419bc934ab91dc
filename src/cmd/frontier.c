// frontier.c — `lmtrain frontier DIR`: the loss–compute trade across context
// lengths from the ablations DIR/ctx<N>/ (`make frontier` trains them):
// DIR/frontier.md with the crossover sentence, frontier.svg, frontier.html
// (experiment/frontier.h).
#include <stdio.h>

#include "cmd/args.h"
#include "cmd/commands.h"
#include "experiment/frontier.h"
#include "util/err.h"

int cmd_frontier(int argc, char **argv) {
    const char *dirs[1];
    ArgList dir_list = {dirs, 1, 0};
    const ArgSpec spec = {"frontier", "DIR",
                          "Final loss against training CPU-seconds per kind and context length, from the\n"
                          "ablations DIR/ctx<N>/ (make frontier): DIR/frontier.md (with the crossover: the\n"
                          "length from which a fast-weight kind reaches the first kind's loss in fewer\n"
                          "CPU-seconds), frontier.svg and frontier.html.",
                          .opts = NULL, .n_opts = 0, .positional = &dir_list,
                          .positional_help = "DIR  the folder holding ctx64/, ctx256/, ... (one ablation each)"};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);
    if (dir_list.n == 0) return err_set(ERR_USAGE, "frontier: missing DIR (see lmtrain frontier --help)");
    Frontier f;
    if ((rc = frontier_load(&f, dirs[0]))) return rc;
    if ((rc = frontier_write(&f, dirs[0]))) return rc;
    frontier_markdown(&f, stdout);
    printf("\nfrontier written to %s/frontier.md, frontier.svg and frontier.html\n", dirs[0]);
    return 0;
}
