// data.h — the dataset: where token batches come from (SPEC §3 [data], §9).
//
// One opaque Dataset, two tasks behind it:
//   text    any file read as bytes; the vocabulary is the sorted set of distinct
//           bytes in the whole file; the last val_fraction of the file is the
//           validation split (text_data.c).
//   recall  multi-query associative recall sequences generated from the seed,
//           no file (recall_data.c).
//
// A Dataset holds no position and no random state after dataset_open: every
// random choice comes from the Rng passed to dataset_batch. So the same seed
// gives the same batches whatever the model (the ablation compares kinds on
// identical batch order), and a checkpoint only needs to save that Rng.
//
// Batches: inputs (B, T) token ids, targets (B, T) next-token ids, target -1 =
// not scored (recall scores only the query positions). split 0 = train, 1 = val.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "util/rng.h"

enum { SPLIT_TRAIN = 0, SPLIT_VAL = 1 };

typedef struct Dataset Dataset;

// text: reads c->path; recall: checks vocab/pairs/block_size and generates the
// fixed validation set. Returns 0, or ERR_RUNTIME (file missing, a directory,
// unreadable, empty, larger than 2 GiB, a split shorter than block_size + 1)
// or ERR_USAGE (settings out of range) with a message naming the file or key.
int dataset_open(const Config *c, Dataset **out);
void dataset_free(Dataset *d);

Task dataset_task(const Dataset *d);
int dataset_vocab_size(const Dataset *d);

// Token -> printable form in buf, NUL-terminated; returns its length in bytes.
// text: the one byte of the token (length 1, even when that byte is 0 — write
// it with fwrite(buf, 1, len, f)); recall: "_" (filler), "k12" (key, token 12),
// "v40" (value, token 40). Recall tokens need a separator when printed in a row.
size_t dataset_decode(const Dataset *d, int token, char buf[8]);
// text: the token id of a byte, -1 if the byte never occurs in the file;
// recall: always -1 (its symbols are not bytes; use dataset_encode_prompt).
int dataset_encode_byte(const Dataset *d, unsigned char byte);
// Prompt text -> tokens. text: one token per byte; recall: whitespace-separated
// symbols as dataset_decode prints them ("k3 v40 _ k3"). Writes at most cap ids
// (cap >= strlen(text) always suffices) and their count to *n. Returns 0 or
// ERR_USAGE with a message naming the offending character or symbol.
int dataset_encode_prompt(const Dataset *d, const char *text, int *out, size_t cap, size_t *n);
// 64-bit FNV-1a hash of the task and vocabulary (the token -> symbol table), so a
// run can check that reopening its data gives the vocabulary it was trained on.
uint64_t dataset_vocab_fingerprint(const Dataset *d);

// What a checkpoint records of the data it trained on, so that a resume on
// other data is refused. text: the corpus size in bytes and a fast 64-bit hash
// of its bytes; recall: the validation tokens and a hash of the generator's
// settings (vocab, pairs, val_examples, block_size, seed).
typedef struct {
    uint64_t bytes, hash;
} DataFingerprint;
DataFingerprint dataset_fingerprint(const Dataset *d);
// 0 if `then` (from a checkpoint) matches d; else 1 with a sentence saying what
// changed in buf ("data/x.txt now has 1000 bytes, the run trained on 1200").
int dataset_fingerprint_diff(const Dataset *d, const Config *c, DataFingerprint then, char *buf, size_t cap);

// One batch, drawn with rng only (which it advances):
//   text    each row is a random contiguous window of the split: start s uniform in
//           [0, n_split - T - 1], inputs = x[s .. s+T), targets = x[s+1 .. s+T].
//           Needs T + 1 <= n_split (guaranteed for T <= block_size).
//   recall  train: a fresh sequence per row; val: each row a uniformly drawn
//           example (with replacement) of the fixed validation set. T must equal
//           block_size.
// Never allocates and never changes d, so threads may share a Dataset.
// inputs, targets: (B, T).
void dataset_batch(const Dataset *d, int split, Rng *rng, size_t B, size_t T, int *inputs,
                   int *targets);

// Full-split evaluation (`lmtrain eval`), no randomness.
//   text    the consecutive non-overlapping windows of T tokens (+1 target) from the
//           start of the split, final partial window dropped: (n_split - 1) / T of
//           them; window i is inputs = x[iT .. iT+T), targets = x[iT+1 .. iT+T].
//   recall  val: the val_examples sequences in order (T must equal block_size);
//           train: 0 windows (the training stream is unbounded).
// inputs, targets: (T).
size_t dataset_eval_windows(const Dataset *d, int split, size_t T);
void dataset_eval_window(const Dataset *d, int split, size_t i, size_t T, int *inputs,
                         int *targets);
// Tokens in a split. text: bytes of the split; recall: val_examples *
// (block_size + 1) for val, 0 for the unbounded training stream.
size_t dataset_split_tokens(const Dataset *d, int split);
