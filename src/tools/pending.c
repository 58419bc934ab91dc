// pending.c — commands whose implementation has not landed yet. Each says so
// plainly and exits 2, rather than pretending to work.
#include "tools/commands.h"
#include "util/err.h"

int cmd_sample(int argc, char **argv) { (void)argc; (void)argv; return err_set(ERR_USAGE, "sample: not implemented yet"); }
int cmd_eval(int argc, char **argv) { (void)argc; (void)argv; return err_set(ERR_USAGE, "eval: not implemented yet"); }
int cmd_inspect(int argc, char **argv) { (void)argc; (void)argv; return err_set(ERR_USAGE, "inspect: not implemented yet"); }
int cmd_bench(int argc, char **argv) { (void)argc; (void)argv; return err_set(ERR_USAGE, "bench: not implemented yet"); }
