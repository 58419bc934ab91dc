// train.c — `lmtrain --config FILE` (or `lmtrain train --config FILE`): one
// training run, start to finish or resumed (SPEC §2).
#include <stdio.h>

#include "cmd/args.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "train/run_folder.h"
#include "train/train.h"
#include "util/err.h"

int cmd_train(int argc, char **argv) {
    const char *config = NULL, *out = NULL;
    const char *sets[256];
    ArgList set_list = {sets, 256, 0};
    int resume = 0, overwrite = 0;
    const ArgOpt opts[] = {
        {"--config", ARG_STRING, &config, "FILE", .help = "the run's config: a file, or a name in configs/", .required = 1},
        {"--set", ARG_REPEAT, &set_list, "section.key=value", .help = "override a config key"},
        {"--out", ARG_STRING, &out, "DIR", .help = "the run folder", .shown_default = "[run] out_dir/name"},
        {"--resume", ARG_FLAG, &resume, NULL, .help = "continue the run in DIR from its checkpoint, bit for bit"},
        {"--overwrite", ARG_FLAG, &overwrite, NULL, .help = "discard the run DIR holds and train anew"},
    };
    const ArgSpec spec = {"train", "--config FILE [options]   (or: lmtrain --config FILE [options])",
                          "Train one run: DIR/config.ini, metrics.csv, checkpoint.bin, curves.svg, summary.txt.",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (rc) return args_status(rc);
    if (resume && overwrite)
        return err_set(ERR_USAGE, "--resume continues the run in the folder, --overwrite discards it: give one");
    Config c;
    if ((rc = cli_load_config(&c, config, sets, set_list.n))) return rc;
    char dir[4096];
    cli_run_dir(dir, sizeof dir, &c, out);
    rc = train_run(&c, dir, resume ? TRAIN_RESUME : overwrite ? TRAIN_OVERWRITE : TRAIN_NEW);
    if (rc == 0) printf("run written to %s/ (summary.txt, metrics.csv, curves.svg, checkpoint.bin)\n", dir);
    return rc;
}
