// gradcheck_cmd.c — `lmtrain gradcheck`: every op against finite differences.
#include <stdio.h>

#include "autograd/gradcheck.h"
#include "model/model_gradcheck.h"
#include "cmd/commands.h"
#include "util/err.h"

int cmd_gradcheck(int argc, char **argv) {
    if (argc > 1) return err_set(ERR_USAGE, "gradcheck takes no options (got '%s')", argv[1]);
    printf("central finite differences vs backward; pass if |a-n| <= %.0e*max(|a|,|n|) + %.0e*max|grad|\n",
           GC_REL, GC_ABS);
    int bad = gradcheck_all(stdout);
    bad += model_gradcheck_all(stdout);
    printf("%s\n", bad ? "gradcheck FAILED" : "all gradients agree");
    return bad ? err_set(ERR_RUNTIME, "%d gradient check(s) failed", bad) : 0;
}
