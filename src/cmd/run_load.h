// run_load.h — open a finished (or checkpointed) run for the tools that read
// one: sample, eval, inspect, export.
//
// Everything comes from DIR/checkpoint.bin: the configuration stored inside it
// (not DIR/config.ini, which a user may have edited), the model built from that
// configuration, and its weights. The dataset the configuration names is
// reopened (tokens <-> text need its vocabulary) and checked against the
// vocabulary fingerprint saved at training time.
//
//     LoadedRun r;
//     int rc = run_load(&r, dir);
//     if (rc) return rc;            // message set: missing folder / checkpoint, data, mismatch
//     ... r.model, r.data, r.cfg, r.st ...
//     run_unload(&r);
#pragma once
#include "config/config.h"
#include "model/model.h"
#include "train/checkpoint.h"
#include "train/data.h"

typedef struct {
    char dir[4096];    // the run folder, as given
    char ckpt[4200];   // dir/checkpoint.bin
    Config cfg;        // the configuration stored in the checkpoint (== r.model.cfg)
    Dataset *data;     // the run's data, reopened
    Model model;       // built from cfg with the data's vocabulary, weights loaded
    TrainState st;     // step, tokens seen, best val loss, ... of the checkpoint
} LoadedRun;

// Returns 0, or ERR_RUNTIME with a message naming the folder or file: the
// folder does not exist or is not a folder, it holds no checkpoint.bin, the
// checkpoint is corrupt or does not match its own configuration, the data
// cannot be opened (its path is relative to where training ran), or the data's
// vocabulary is not the one the run was trained on. On failure nothing is left
// allocated. Does not start the thread pool: callers that run the training
// graph call pool_init(r->cfg.threads) themselves.
int run_load(LoadedRun *r, const char *dir);
void run_unload(LoadedRun *r);
