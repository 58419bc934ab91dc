// text_data.c — task = text: any file, read as bytes (SPEC §3).
//
// Vocabulary: the sorted set of distinct bytes in the whole file (train and
// validation together, as nanoGPT's shakespeare_char does), so token ids depend
// only on the file and every byte of it can be encoded and decoded. Any bytes
// are fine, NUL and 0xFF included: the file is data, not a C string.
//
// Split: the first n_train = floor(n * (1 - val_fraction)) bytes are training
// data, the remaining n - n_train validation. That is nanoGPT's
// `train = data[:int(n*0.9)]`; for tinyshakespeare at val_fraction 0.1 it gives
// the same 1003854 / 111540 bytes.
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "train/data_internal.h"
#include "util/err.h"
#include "util/file_check.h"

// Largest corpus we read. Tokens are held in memory one byte each; the cap
// turns a wrong path (a disk image, a weights file) into a message, not a swap storm.
#define TEXT_MAX_BYTES ((size_t)2 << 30)  // 2 GiB

typedef struct {
    Dataset base;
    char path[1024];         // for messages
    uint8_t *tok;            // (n) token ids of the whole file: train, then val
    size_t n, n_train;       // val = tok[n_train .. n)
    unsigned char byte_of[256];  // token id -> byte (first `vocab` entries used)
    int id_of[256];              // byte -> token id, -1 if the byte never occurs
} TextData;

static const uint8_t *split_tokens_ptr(const TextData *t, int split, size_t *n) {
    if (split == SPLIT_TRAIN) {
        *n = t->n_train;
        return t->tok;
    }
    *n = t->n - t->n_train;
    return t->tok + t->n_train;
}

// ---------------------------------------------------------------------------
// reading the file

static int ends_with(const char *s, const char *suffix) {
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static int too_big(const char *path, const char *what, uintmax_t bytes) {
    return err_set(ERR_RUNTIME, "%s is %s%ju bytes; lmtrain reads corpora of at most %zu bytes (2 GiB)",
                   path, what, bytes, TEXT_MAX_BYTES);
}

// Reads the whole file into *out (*n bytes). Only a regular file: a FIFO, a
// socket or a device is refused before it is opened (it could block, or never
// end); the size is checked against the cap before anything is read.
static int read_all(const char *path, uint8_t **out, size_t *n_out) {
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        if (e == ENOENT && ends_with(path, "tinyshakespeare.txt"))
            return err_set(ERR_RUNTIME, "cannot open %s: %s (run `make data` to download it)",
                           path, strerror(e));
        return err_set(ERR_RUNTIME, "cannot open %s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) return err_set(ERR_RUNTIME, "%s is a directory; [data] path must name a file", path);
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > (uintmax_t)TEXT_MAX_BYTES)
        return too_big(path, "", (uintmax_t)st.st_size);
    char *buf = NULL;
    int rc = read_regular(path, "corpus", TEXT_MAX_BYTES, &buf, n_out);
    if (rc) return rc;
    *out = (uint8_t *)buf;
    return 0;
}

// ---------------------------------------------------------------------------
// the task's operations

static void text_free(Dataset *d) {
    TextData *t = (TextData *)d;
    free(t->tok);
    free(t);
}

static size_t text_decode(const Dataset *d, int token, char buf[8]) {
    const TextData *t = (const TextData *)d;
    buf[0] = (char)t->byte_of[token];
    buf[1] = 0;
    return 1;
}

static int text_encode_byte(const Dataset *d, unsigned char byte) {
    return ((const TextData *)d)->id_of[byte];
}

static int text_encode_prompt(const Dataset *d, const char *text, int *out, size_t cap, size_t *n) {
    const TextData *t = (const TextData *)d;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        int id = t->id_of[*p];
        if (id < 0) {
            if (isprint(*p))
                return err_set(ERR_USAGE, "the prompt's character '%c' never occurs in %s, so it has no token",
                               *p, t->path);
            return err_set(ERR_USAGE, "the prompt's byte 0x%02x never occurs in %s, so it has no token",
                           *p, t->path);
        }
        if (k == cap) return err_set(ERR_USAGE, "the prompt is longer than %zu tokens", cap);
        out[k++] = id;
    }
    *n = k;
    return 0;
}

static void text_batch(const Dataset *d, int split, Rng *rng, size_t B, size_t T, int *inputs,
                       int *targets) {
    size_t n = 0;
    const uint8_t *x = split_tokens_ptr((const TextData *)d, split, &n);
    assert(T >= 1 && T + 1 <= n);
    for (size_t b = 0; b < B; b++) {
        // n - T starts: s in [0, n - T - 1], so the last target x[s + T] is in the split
        size_t s = (size_t)rng_below(rng, n - T);
        int *in = inputs + b * T, *tg = targets + b * T;  // (T) each
        for (size_t i = 0; i < T; i++) {
            in[i] = x[s + i];
            tg[i] = x[s + i + 1];
        }
    }
}

static size_t text_eval_windows(const Dataset *d, int split, size_t T) {
    size_t n = 0;
    split_tokens_ptr((const TextData *)d, split, &n);
    assert(T >= 1);
    return n >= 1 ? (n - 1) / T : 0;  // window i needs x[iT + T], i.e. iT + T <= n - 1
}

static void text_eval_window(const Dataset *d, int split, size_t i, size_t T, int *inputs,
                             int *targets) {
    size_t n = 0;
    const uint8_t *x = split_tokens_ptr((const TextData *)d, split, &n) + i * T;
    for (size_t j = 0; j < T; j++) {
        inputs[j] = x[j];
        targets[j] = x[j + 1];
    }
}

static size_t text_split_tokens(const Dataset *d, int split) {
    size_t n = 0;
    split_tokens_ptr((const TextData *)d, split, &n);
    return n;
}

static const DatasetOps text_ops = {
    .free = text_free,
    .decode = text_decode,
    .encode_byte = text_encode_byte,
    .encode_prompt = text_encode_prompt,
    .batch = text_batch,
    .eval_windows = text_eval_windows,
    .eval_window = text_eval_window,
    .split_tokens = text_split_tokens,
};

// ---------------------------------------------------------------------------
// open

int text_dataset_open(const Config *c, Dataset **out) {
    const char *path = c->path;
    if (!path[0]) return err_set(ERR_USAGE, "[data] path: task = text needs a corpus file");
    if (!(c->val_fraction > 0 && c->val_fraction < 1))
        return err_set(ERR_USAGE, "[data] val_fraction: expected a number in (0, 1), got %g",
                       c->val_fraction);
    if (c->block_size < 1)
        return err_set(ERR_USAGE, "[model] block_size: expected an integer >= 1, got %d", c->block_size);

    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = read_all(path, &buf, &n);
    if (rc) return rc;
    DataFingerprint fp = {n, data_hash_bytes(buf, n)};  // before the bytes become token ids

    // Every split must hold at least one window: block_size inputs + 1 target.
    size_t need = (size_t)c->block_size + 1;
    size_t n_train = (size_t)floor((double)n * (1.0 - c->val_fraction));
    if (n_train > n) n_train = n;  // cannot happen for val_fraction in (0, 1); keeps the split sane
    size_t n_val = n - n_train;
    if (n == 0) {
        rc = err_set(ERR_RUNTIME, "%s is empty: the text task needs a corpus", path);
    } else if (n < 2 * need) {
        rc = err_set(ERR_RUNTIME,
                     "%s has %zu bytes, too few for block_size %d: the training and validation splits "
                     "each need at least %zu (block_size + 1); use a longer file or lower block_size",
                     path, n, c->block_size, need);
    } else if (n_train < need) {
        rc = err_set(ERR_RUNTIME,
                     "%s: the training split has %zu bytes but block_size %d needs at least %zu; "
                     "lower val_fraction (now %g) or block_size",
                     path, n_train, c->block_size, need, c->val_fraction);
    } else if (n_val < need) {
        rc = err_set(ERR_RUNTIME,
                     "%s: the validation split has %zu bytes but block_size %d needs at least %zu; "
                     "raise val_fraction (now %g) or lower block_size",
                     path, n_val, c->block_size, need, c->val_fraction);
    }
    if (rc) {
        free(buf);
        return rc;
    }

    TextData *t = xcalloc(1, sizeof *t);
    t->base.ops = &text_ops;
    t->base.task = TASK_TEXT;
    t->base.fp = fp;
    snprintf(t->path, sizeof t->path, "%s", path);
    t->n = n;
    t->n_train = n_train;

    // Vocabulary: ids in increasing byte order, then bytes -> ids in place.
    unsigned char present[256] = {0};
    for (size_t i = 0; i < n; i++) present[buf[i]] = 1;
    int vocab = 0;
    for (int b = 0; b < 256; b++) {
        t->id_of[b] = present[b] ? vocab : -1;
        if (present[b]) t->byte_of[vocab++] = (unsigned char)b;
    }
    // Any bytes are data to a byte-level model, but a NUL byte usually means
    // the wrong file was named: say so, then train on it as it is.
    if (present[0])
        fprintf(stderr, "lmtrain: note: %s contains NUL bytes (a binary file?); it is modelled as raw "
                        "bytes, %d distinct\n", path, vocab);
    for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)t->id_of[buf[i]];
    t->base.vocab = vocab;
    t->tok = buf;
    *out = &t->base;
    return 0;
}
