// gradcheck.c — `lmtrain gradcheck`: every op against finite differences.
#include <stdio.h>

#include "autograd/gradcheck.h"
#include "model/model_gradcheck.h"
#include "cmd/args.h"
#include "cmd/commands.h"
#include "util/err.h"

int cmd_gradcheck(int argc, char **argv) {
    const ArgSpec spec = {"gradcheck", "",
                          "Every op's and the whole model's backward against central finite differences.",
                          .opts = NULL};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);
    printf("central finite differences vs backward; pass if |a-n| <= %.0e*max(|a|,|n|) + %.0e*max|grad|\n",
           GC_REL, GC_ABS);
    int bad = gradcheck_all(stdout);
    bad += model_gradcheck_all(stdout);
    printf("%s\n", bad ? "gradcheck FAILED" : "all gradients agree");
    return bad ? err_set(ERR_RUNTIME, "%d gradient check(s) failed", bad) : 0;
}
