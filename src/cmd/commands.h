// commands.h — the subcommands of lmtrain, one file each under cmd/.
// Each takes argv with argv[0] = the command name and returns an exit status
// (0, ERR_RUNTIME, ERR_USAGE) after err_set on failure.
#pragma once

int cmd_ablate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_gradcheck(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_lab(int argc, char **argv);

// The whole-split evaluation of `lmtrain eval --run DIR`, for commands that
// run it on a run they trained (ablate): prints the figures, writes DIR/eval/.
int eval_run_folder(const char *run_dir);
