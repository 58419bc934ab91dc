// commands.c — the table of subcommands (a new command: its file in src/cmd/
// and one line here).
#include "commands.h"

#include <string.h>

const Command commands[] = {
    {"train", cmd_train, "train one run (the default: `lmtrain --config FILE` is the same)"},
    {"ablate", cmd_ablate, "train several configs alike (with N seeds each) and compare them"},
    {"report", cmd_report, "an ablation's report from its finished runs"},
    {"frontier", cmd_frontier, "loss against CPU-seconds across context lengths (make frontier)"},
    {"sample", cmd_sample, "generate text from a trained run"},
    {"eval", cmd_eval, "exact validation loss over the whole split, and by position"},
    {"inspect", cmd_inspect, "fast-weight diagnostics of a trained run"},
    {"bench", cmd_bench, "speed: FMA peak, training throughput, cost against length, generation"},
    {"gradcheck", cmd_gradcheck, "every gradient against finite differences"},
    {"export", cmd_export, "the trained weights as safetensors"},
    {"lab", cmd_lab, "the memory lab: capacity and overwrite of each write rule, no training"},
    {"tour", cmd_tour, "the article's claims, each measured on this machine: one offline page (runs/tour)"},
    {NULL, NULL, NULL},
};

const Command *command_find(const char *name) {
    for (const Command *c = commands; c->name; c++)
        if (!strcmp(c->name, name)) return c;
    return NULL;
}
