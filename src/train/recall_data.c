// recall_data.c — task = recall: multi-query associative recall (SPEC §9).
//
// A sequence is T + 1 = block_size + 1 tokens s[0..T]. The model reads
// inputs = s[0 .. T) (the spec's block_size tokens) and is scored against
// targets = s[1 .. T], shifted by one; the extra token lets a query sit at the
// very last input position and still have its value as a target.
//
// Layout, with p = pairs and V = vocab:
//   s[2i] = k_i, s[2i+1] = v_i for i < p    the pairs: keys drawn without
//                                           replacement from 1 .. V/2-1, values
//                                           uniform in V/2 .. V-1
//   queries   each key once more at a query slot o: s[o] = k_i, s[o+1] = v_i.
//             Slots are the even offsets after the pairs whose value still fits,
//             o in {2p, 2p+2, ...} with o + 1 <= T, i.e. slot j is o = 2p + 2j for
//             j < n_slots = (T+1)/2 - p (integer division). The p used slots are a
//             uniformly random p-subset (so queries never overlap), and the keys
//             fill them in a uniformly random order, independent of the pair order.
//   filler    every other position is 0.
// 4p <= T guarantees enough slots: (T+1)/2 - p >= 2p - p = p.
//
// Scoring: target[o] = s[o+1] = the value at each query slot o, every other
// target -1. The values inside the pairs are random, so they are not scored.
//
// Training sequences are fresh on every call, drawn from the caller's Rng.
// The validation set is val_examples sequences generated once at open from an
// Rng seeded with seed ^ RECALL_VAL_SEED_XOR, a stream separate from any the
// trainer derives from the seed itself; it never changes during a run.
#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "train/data_internal.h"
#include "util/err.h"

#define RECALL_VAL_SEED_XOR 0x5eed5eed5eed5eedull

typedef struct {
    Dataset base;
    int pairs;       // p
    size_t T;        // block_size; a sequence is T + 1 tokens
    size_t n_val;    // val_examples
    uint8_t *val;    // (n_val, T + 1) the fixed validation sequences
} RecallData;

// ---------------------------------------------------------------------------
// one sequence

// Draws one sequence and writes it as the model sees it: inputs = s[0 .. T),
// targets scored only at the query slots. Draws, in order: the p keys, the p
// values, the query order, the query slots. V <= 256, so at most 127 keys.
// inputs, targets: (T).
static void recall_generate(int *inputs, int *targets, Rng *rng, int V, int p, size_t T) {
    int half = V / 2, n_keys = half - 1;
    assert(p >= 1 && p <= n_keys && (T + 1) / 2 >= 2 * (size_t)p);
    for (size_t t = 0; t < T; t++) {
        inputs[t] = 0;  // filler
        targets[t] = -1;
    }

    // keys: partial Fisher-Yates, so pool[0 .. p) is a uniform draw without replacement
    int pool[128];
    for (int i = 0; i < n_keys; i++) pool[i] = 1 + i;
    for (int i = 0; i < p; i++) {
        int j = i + (int)rng_below(rng, (uint64_t)(n_keys - i));
        int tmp = pool[i];
        pool[i] = pool[j];
        pool[j] = tmp;
    }
    for (int i = 0; i < p; i++) {
        inputs[2 * i] = pool[i];
        inputs[2 * i + 1] = half + (int)rng_below(rng, (uint64_t)half);
    }

    // query order: a uniform permutation of the pairs (Fisher-Yates)
    int order[128];
    for (int i = 0; i < p; i++) order[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = (int)rng_below(rng, (uint64_t)i + 1);
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }

    // query slots: selection sampling (Knuth's Algorithm S) picks a uniform
    // p-subset of the n_slots in increasing order with no scratch memory: slot j
    // is taken with probability (still needed) / (slots left).
    size_t n_slots = (T + 1) / 2 - (size_t)p;
    int q = 0;
    for (size_t j = 0; j < n_slots && q < p; j++) {
        if (rng_below(rng, n_slots - j) < (uint64_t)(p - q)) {
            size_t o = 2 * (size_t)p + 2 * j;  // o <= T - 1
            int i = order[q++];
            inputs[o] = inputs[2 * i];
            if (o + 1 < T) inputs[o + 1] = inputs[2 * i + 1];  // s[T] is never an input
            targets[o] = inputs[2 * i + 1];
        }
    }
    assert(q == p);  // Algorithm S always completes: when slots left == needed it takes all
}

// The validation set is stored compactly as sequences s[0 .. T], one byte a
// token. inputs/targets -> s: s[T] is the value of a query at T - 1 if there
// is one, else filler.
static void recall_pack(uint8_t *s, const int *inputs, const int *targets, size_t T) {
    for (size_t t = 0; t < T; t++) s[t] = (uint8_t)inputs[t];
    s[T] = (uint8_t)(targets[T - 1] >= 0 ? targets[T - 1] : 0);
}

// s[0 .. T] -> inputs (T), targets (T) with only the query positions scored.
static void recall_to_io(const uint8_t *s, int p, size_t T, int *inputs, int *targets) {
    for (size_t t = 0; t < T; t++) {
        inputs[t] = s[t];
        targets[t] = -1;
    }
    // In the query region an even position holds a key (never 0) or filler.
    for (size_t o = 2 * (size_t)p; o + 1 <= T; o += 2)
        if (s[o] != 0) targets[o] = s[o + 1];
}

// ---------------------------------------------------------------------------
// the task's operations

static void recall_free(Dataset *d) {
    RecallData *r = (RecallData *)d;
    free(r->val);
    free(r);
}

static size_t recall_decode(const Dataset *d, int token, char buf[8]) {
    int half = d->vocab / 2;
    int len = token == 0 ? snprintf(buf, 8, "_") : snprintf(buf, 8, "%c%d", token < half ? 'k' : 'v', token);
    return (size_t)len;
}

static int recall_encode_byte(const Dataset *d, unsigned char byte) {
    (void)d;
    (void)byte;
    return -1;
}

// One symbol ("_", "k12", "v40") -> token id, or -1.
static int parse_symbol(const char *s, size_t len, int vocab) {
    if (len == 1 && s[0] == '_') return 0;
    if (len < 2 || len > 4 || (s[0] != 'k' && s[0] != 'v')) return -1;
    int id = 0;
    for (size_t i = 1; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        id = 10 * id + (s[i] - '0');
    }
    int half = vocab / 2;
    if (s[0] == 'k' && id >= 1 && id < half) return id;
    if (s[0] == 'v' && id >= half && id < vocab) return id;
    return -1;
}

static int recall_encode_prompt(const Dataset *d, const char *text, int *out, size_t cap, size_t *n) {
    size_t k = 0;
    const char *p = text;
    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        size_t len = (size_t)(p - start);
        int id = parse_symbol(start, len, d->vocab);
        if (id < 0)
            return err_set(ERR_USAGE,
                           "the prompt's symbol \"%.*s\" is not a recall token: expected _ (filler), "
                           "k1 .. k%d (keys) or v%d .. v%d (values), separated by spaces",
                           len > 32 ? 32 : (int)len, start, d->vocab / 2 - 1, d->vocab / 2,
                           d->vocab - 1);
        if (k == cap) return err_set(ERR_USAGE, "the prompt is longer than %zu tokens", cap);
        out[k++] = id;
    }
    *n = k;
    return 0;
}

static void recall_batch(const Dataset *d, int split, Rng *rng, size_t B, size_t T, int *inputs,
                         int *targets) {
    const RecallData *r = (const RecallData *)d;
    assert(T == r->T);
    if (split == SPLIT_TRAIN) {
        for (size_t b = 0; b < B; b++)
            recall_generate(inputs + b * T, targets + b * T, rng, d->vocab, r->pairs, T);
    } else {
        for (size_t b = 0; b < B; b++) {
            size_t e = (size_t)rng_below(rng, r->n_val);  // with replacement
            recall_to_io(r->val + e * (T + 1), r->pairs, T, inputs + b * T, targets + b * T);
        }
    }
}

static size_t recall_eval_windows(const Dataset *d, int split, size_t T) {
    const RecallData *r = (const RecallData *)d;
    assert(T == r->T);
    return split == SPLIT_VAL ? r->n_val : 0;
}

static void recall_eval_window(const Dataset *d, int split, size_t i, size_t T, int *inputs,
                               int *targets) {
    const RecallData *r = (const RecallData *)d;
    (void)split;  // only val has windows; dataset_eval_window checked i against the count
    recall_to_io(r->val + i * (T + 1), r->pairs, T, inputs, targets);
}

static size_t recall_split_tokens(const Dataset *d, int split) {
    const RecallData *r = (const RecallData *)d;
    return split == SPLIT_VAL ? r->n_val * (r->T + 1) : 0;
}

static const DatasetOps recall_ops = {
    .free = recall_free,
    .decode = recall_decode,
    .encode_byte = recall_encode_byte,
    .encode_prompt = recall_encode_prompt,
    .batch = recall_batch,
    .eval_windows = recall_eval_windows,
    .eval_window = recall_eval_window,
    .split_tokens = recall_split_tokens,
};

// ---------------------------------------------------------------------------
// open

int recall_dataset_open(const Config *c, Dataset **out) {
    // config_validate checks these too; repeated here because the generator's
    // memory safety depends on them (tokens in a byte, at most 127 keys, enough slots).
    if (c->vocab < 4 || c->vocab > 256 || c->vocab % 2)
        return err_set(ERR_USAGE, "[data] vocab: expected an even number in 4 .. 256, got %d", c->vocab);
    if (c->pairs < 1 || c->pairs > c->vocab / 2 - 1)
        return err_set(ERR_USAGE, "[data] pairs: expected 1 .. %d (vocab %d has %d keys), got %d",
                       c->vocab / 2 - 1, c->vocab, c->vocab / 2 - 1, c->pairs);
    if (c->block_size < 1 || (long long)4 * c->pairs > c->block_size)
        return err_set(ERR_USAGE, "[data] pairs: 4 * pairs = %lld exceeds [model] block_size %d",
                       (long long)4 * c->pairs, c->block_size);
    if (c->val_examples < 1)
        return err_set(ERR_USAGE, "[data] val_examples: expected an integer >= 1, got %d", c->val_examples);

    size_t T = (size_t)c->block_size, bytes;
    if (!size_mul((size_t)c->val_examples, T + 1, &bytes))
        return err_set(ERR_USAGE, "[data] val_examples: %d sequences of %zu tokens overflow memory",
                       c->val_examples, T + 1);
    // Refused here, before the allocation: the trainer's memory check runs
    // after the dataset is open, and a failed malloc names no setting.
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    double have = pages > 0 && psize > 0 ? (double)pages * (double)psize : 0;
    if (have > 0 && (double)bytes > 0.5 * have)
        return err_set(ERR_USAGE, "[data] val_examples: %d sequences of %zu tokens need about %.1f GiB of "
                       "memory, the machine has %.1f GiB; lower val_examples or block_size",
                       c->val_examples, T + 1, (double)bytes / 1073741824.0, have / 1073741824.0);

    RecallData *r = xcalloc(1, sizeof *r);
    r->base.ops = &recall_ops;
    r->base.task = TASK_RECALL;
    r->base.vocab = c->vocab;
    uint64_t settings[5] = {(uint64_t)c->vocab, (uint64_t)c->pairs, (uint64_t)c->val_examples, (uint64_t)T,
                            (uint64_t)c->seed};
    r->base.fp = (DataFingerprint){bytes, data_hash_bytes(settings, sizeof settings)};
    r->pairs = c->pairs;
    r->T = T;
    r->n_val = (size_t)c->val_examples;
    r->val = xmalloc(bytes);
    int *in = xmalloc(T * sizeof *in), *tg = xmalloc(T * sizeof *tg);  // (T) each
    Rng rng;
    rng_seed(&rng, (uint64_t)c->seed ^ RECALL_VAL_SEED_XOR);
    for (size_t e = 0; e < r->n_val; e++) {
        recall_generate(in, tg, &rng, c->vocab, c->pairs, T);
        recall_pack(r->val + e * (T + 1), in, tg, T);
    }
    free(in);
    free(tg);
    *out = &r->base;
    return 0;
}
