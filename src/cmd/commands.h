// commands.h — the subcommands of lmtrain, one file each in src/cmd/.
// Each takes argv with argv[0] = the command name, parses it with args.h (so
// each answers --help), and returns an exit status (0, ERR_RUNTIME,
// ERR_USAGE) after err_set on failure.
#pragma once

int cmd_train(int argc, char **argv);
int cmd_ablate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_frontier(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_gradcheck(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_tour(int argc, char **argv);

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;  // one line for `lmtrain --help`
} Command;

// Every subcommand, in the order `lmtrain --help` lists them; ends with {NULL}.
extern const Command commands[];
const Command *command_find(const char *name);  // NULL if unknown

// The whole-split evaluation of `lmtrain eval --run DIR`, for commands that
// run it on a run they trained (ablate): prints the figures, writes DIR/eval/.
int eval_run_folder(const char *run_dir);
