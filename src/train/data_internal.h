// data_internal.h — what a task implements behind data.h. Not for other callers.
//
// Each task file defines a struct whose first member is a Dataset (so a
// Dataset * points at it) and a table of these functions; data.c dispatches.
// A new task = one new file + one line in dataset_open.
#pragma once
#include "train/data.h"

typedef struct {
    void (*free)(Dataset *d);
    size_t (*decode)(const Dataset *d, int token, char buf[8]);
    int (*encode_byte)(const Dataset *d, unsigned char byte);
    int (*encode_prompt)(const Dataset *d, const char *text, int *out, size_t cap, size_t *n);
    void (*batch)(const Dataset *d, int split, Rng *rng, size_t B, size_t T, int *inputs,
                  int *targets);
    size_t (*eval_windows)(const Dataset *d, int split, size_t T);
    void (*eval_window)(const Dataset *d, int split, size_t i, size_t T, int *inputs,
                        int *targets);
    size_t (*split_tokens)(const Dataset *d, int split);
} DatasetOps;

struct Dataset {
    const DatasetOps *ops;
    Task task;
    int vocab;  // token ids are 0 .. vocab-1
    DataFingerprint fp;  // set by the task's open
};

// The fast content hash of data_fingerprint (64-bit, 8 bytes a step).
uint64_t data_hash_bytes(const void *data, size_t n);

int text_dataset_open(const Config *c, Dataset **out);
int recall_dataset_open(const Config *c, Dataset **out);
