// checkpoint.h — everything a run needs to continue bit-identically.
//
// A checkpoint is a binfile (checksummed, atomic) with sections:
//   config   the resolved configuration as INI text (what the weights belong to)
//   params   the parameter block, (n_floats) float32
//   adam_m   AdamW first moments,  (n_floats)
//   adam_v   AdamW second moments, (n_floats)
//   state    TrainState, little-endian fixed-width fields
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "train/optimizer.h"

#define CHECKPOINT_VERSION 4u  // 2: the state gained batch_hash; 3: data_bytes, data_hash; 4: cpu_s
#define CHECKPOINT_OLDEST 2u   // still read: a version-2 state is version 3's without the data fields

typedef struct {
    uint64_t step;            // optimizer steps completed
    uint64_t rng;             // training-batch RNG state after `step` batches
    uint64_t vocab_hash;      // dataset_vocab_fingerprint of the data it trained on
    uint64_t n_floats;        // parameter block size, a cheap shape check
    double best_val;          // best validation loss so far (NaN if none)
    uint64_t best_step;
    double elapsed_s;         // training wall time so far
    double loss_sum;          // running train-loss sum since the last metrics row
    uint64_t loss_count;
    uint64_t tokens;          // training tokens seen
    uint64_t batch_hash;      // FNV-1a over every training batch so far: equal across
                              // runs exactly when they saw the same batches in order
    uint64_t data_bytes;      // dataset_fingerprint of the data it trained on (version 3;
    uint64_t data_hash;       // both 0 when read from a version-2 checkpoint: unknown)
    double cpu_s;             // training CPU time so far, summed over the sessions (version 4;
                              // 0 when read from an older checkpoint: its CPU time is unknown)
} TrainState;

int checkpoint_save(const char *path, const Model *m, const AdamW *o, const TrainState *s);

// Reads and validates `path`. *cfg gets the stored configuration (parsed and
// validated), so a caller can compare it with the one it was given or build
// the model from it.
int checkpoint_read_config(const char *path, Config *cfg);
// Loads weights (and optimizer moments and state when o, s are non-NULL) into
// a model already built from a compatible config. Errors are ERR_RUNTIME
// naming the file and what did not match.
int checkpoint_load(const char *path, Model *m, AdamW *o, TrainState *s);
// Only the training state (for reports): no model needed.
int checkpoint_read_state(const char *path, TrainState *s);
// Folds a batch's inputs and targets into a running batch_hash.
uint64_t batch_hash_update(uint64_t h, const int *inputs, const int *targets, size_t n);
