// data.c — the Dataset front door: picks the task, forwards every call.
#include "train/data.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "train/data_internal.h"
#include "util/err.h"

int dataset_open(const Config *c, Dataset **out) {
    *out = NULL;
    switch (c->task) {
    case TASK_TEXT: return text_dataset_open(c, out);
    case TASK_RECALL: return recall_dataset_open(c, out);
    }
    return err_set(ERR_USAGE, "[data] task: unknown task %d", (int)c->task);
}

void dataset_free(Dataset *d) {
    if (d) d->ops->free(d);
}

Task dataset_task(const Dataset *d) { return d->task; }
int dataset_vocab_size(const Dataset *d) { return d->vocab; }

size_t dataset_decode(const Dataset *d, int token, char buf[8]) {
    assert(token >= 0 && token < d->vocab);
    return d->ops->decode(d, token, buf);
}

int dataset_encode_byte(const Dataset *d, unsigned char byte) {
    return d->ops->encode_byte(d, byte);
}

int dataset_encode_prompt(const Dataset *d, const char *text, int *out, size_t cap, size_t *n) {
    *n = 0;
    return d->ops->encode_prompt(d, text, out, cap, n);
}

uint64_t dataset_vocab_fingerprint(const Dataset *d) {
    // FNV-1a over (task, vocab, then each token's symbol with its length), so
    // "same size, different bytes" and "same symbols, other task" both differ.
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t prime = 0x100000001b3ull;
    h = (h ^ (uint64_t)d->task) * prime;
    h = (h ^ (uint64_t)d->vocab) * prime;
    for (int t = 0; t < d->vocab; t++) {
        char buf[8];
        size_t len = d->ops->decode(d, t, buf);
        h = (h ^ (uint64_t)len) * prime;
        for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)buf[i]) * prime;
    }
    return h;
}

uint64_t data_hash_bytes(const void *data, size_t n) {
    // 8 bytes per multiply, then a final avalanche: a few GB/s, so even the
    // 2 GiB cap costs well under a second, and any changed byte changes the hash.
    const unsigned char *p = data;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < n; k++) tail |= (uint64_t)p[i + k] << (8 * k);
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

DataFingerprint dataset_fingerprint(const Dataset *d) { return d->fp; }

int dataset_fingerprint_diff(const Dataset *d, const Config *c, DataFingerprint then, char *buf, size_t cap) {
    DataFingerprint now = d->fp;
    if (now.bytes == then.bytes && now.hash == then.hash) return 0;
    if (d->task == TASK_RECALL)
        snprintf(buf, cap, "the recall task's generator settings differ from the ones the run trained on "
                           "([data] vocab, pairs, val_examples, [model] block_size or [run] seed)");
    else if (now.bytes != then.bytes)
        snprintf(buf, cap, "the corpus %s now has %llu bytes, the run trained on %llu", c->path,
                 (unsigned long long)now.bytes, (unsigned long long)then.bytes);
    else
        snprintf(buf, cap, "the corpus %s has the same size (%llu bytes) but other content than the one the "
                           "run trained on (content hash %016llx, was %016llx)", c->path,
                 (unsigned long long)now.bytes, (unsigned long long)now.hash, (unsigned long long)then.hash);
    return 1;
}

void dataset_batch(const Dataset *d, int split, Rng *rng, size_t B, size_t T, int *inputs,
                   int *targets) {
    assert(split == SPLIT_TRAIN || split == SPLIT_VAL);
    d->ops->batch(d, split, rng, B, T, inputs, targets);
}

size_t dataset_eval_windows(const Dataset *d, int split, size_t T) {
    assert(split == SPLIT_TRAIN || split == SPLIT_VAL);
    return d->ops->eval_windows(d, split, T);
}

void dataset_eval_window(const Dataset *d, int split, size_t i, size_t T, int *inputs,
                         int *targets) {
    assert(i < dataset_eval_windows(d, split, T));
    d->ops->eval_window(d, split, i, T, inputs, targets);
}

size_t dataset_split_tokens(const Dataset *d, int split) {
    assert(split == SPLIT_TRAIN || split == SPLIT_VAL);
    return d->ops->split_tokens(d, split);
}
