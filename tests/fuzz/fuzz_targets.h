// fuzz_targets.h — the bodies of the two fuzz targets, shared by the libFuzzer
// harnesses (fuzz_config.c, fuzz_checkpoint.c) and the regression replayer
// (tests/regress/test_regressions.c), so a crash input found by the fuzzer is
// replayed through exactly the same code by `make test`.
//
// A target returns 0; anything wrong that is not a sanitizer report (a broken
// invariant such as "a written config reads back equal") calls fuzz_fail(),
// which prints what broke and aborts, so libFuzzer records the input.
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "model/model.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "util/binfile.h"
#include "util/err.h"

static void fuzz_fail(const char *what) {
    fprintf(stderr, "fuzz invariant broken: %s\n(last error: %s)\n", what, err_msg());
    abort();
}

// ---------------------------------------------------------------------------
// Config: INI text plus --set overrides
//
// Input layout: NUL-separated parts. Part 0 is the INI text; parts 1.. (at
// most FUZZ_MAX_SETS) are `section.key=value` overrides. The whole input,
// NULs included, is also read once as INI text (the reader must report a NUL
// byte, not stop at it).
//
// Invariants checked beyond "no crash, no leak, no UB":
//   - a failed load or --set leaves the Config as it was;
//   - a config that validates, written with config_write and read back,
//     validates again and is equal in every key (config_diff == 0);
//   - model_estimate_bytes of a valid config does not overflow.

#define FUZZ_MAX_SETS 16

static char *fuzz_written(const Config *c, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) fuzz_fail("open_memstream");
    if (config_write(c, f) != 0) fuzz_fail("config_write failed on a valid config");
    fclose(f);
    return buf;
}

static inline int fuzz_config_one(const uint8_t *data, size_t size) {
    Config a, before;
    config_defaults(&a);
    before = a;
    if (config_load_text(&a, (const char *)data, size, "fuzz.ini") != 0 &&
        memcmp(&a, &before, sizeof a) != 0)
        fuzz_fail("a failed config_load_text changed the Config");

    // Split into NUL-terminated parts (a copy: the input is read-only).
    char *buf = malloc(size + 1);
    if (!buf) fuzz_fail("malloc");
    memcpy(buf, data, size);
    buf[size] = 0;
    size_t n0 = strlen(buf);  // part 0 ends at the first NUL (or the end)
    Config c;
    config_defaults(&c);
    int rc = config_load_text(&c, buf, n0, "fuzz.ini");
    for (size_t at = n0 + 1, k = 0; rc == 0 && at <= size && k < FUZZ_MAX_SETS; k++) {
        const char *set = buf + at;
        before = c;
        rc = config_set(&c, set);
        if (rc != 0 && memcmp(&c, &before, sizeof c) != 0) fuzz_fail("a failed config_set changed the Config");
        at += strlen(set) + 1;
    }
    if (rc == 0 && config_validate(&c, "fuzz.ini") == 0) {
        size_t len = 0;
        char *text = fuzz_written(&c, &len);
        Config back;
        config_defaults(&back);
        if (config_load_text(&back, text, len, "written.ini") != 0) fuzz_fail("a written config does not read back");
        if (config_validate(&back, "written.ini") != 0) fuzz_fail("a written config does not validate");
        char diff[2048];
        if (config_diff(&c, &back, diff, sizeof diff, 0) != 0) {
            fprintf(stderr, "keys that changed in the round trip: %s\n", diff);
            fuzz_fail("config_write + config_load_text is not the identity");
        }
        config_diff(&a, &c, diff, sizeof diff, 1);
        size_t V = c.task == TASK_RECALL ? (size_t)c.vocab : 256;
        if (model_estimate_bytes(&c, V, (size_t)c.batch_size, (size_t)c.block_size) == 0 &&
            c.layers * (double)c.d_model * c.d_model < 1e12)
            fuzz_fail("model_estimate_bytes overflowed for a modest valid config");
        free(text);
    }
    free(buf);
    err_clear();
    return 0;
}

// ---------------------------------------------------------------------------
// Checkpoint loader
//
// The input is the whole checkpoint file. It goes through:
//   1. binfile_read (the container) and a walk over whatever sections it has;
//   2. checkpoint_read_config and, if the stored config is valid and small,
//      model_build from it + checkpoint_load (what --resume / sample do);
//   3. checkpoint_load into a fixed reference model (FUZZ_REF_CONFIG, V 65),
//      so the weight-loading path is fuzzed even when the config section is
//      damaged. The seed corpus holds real checkpoints of that model.
// A successful load must also give finite-or-not floats without touching
// memory outside the model (ASan checks that).

#define FUZZ_REF_V 65
static const char FUZZ_REF_CONFIG[] =
    "[run]\nname = seed\nseed = 7\nthreads = 1\n"
    "[data]\npath = data/tinyshakespeare.txt\n"
    "[model]\nlayers = 1\nheads = 2\nd_model = 8\nffn_mult = 1\nblock_size = 8\n"
    "[attention]\nkind = softmax\n"
    "[train]\nsteps = 2\nbatch_size = 2\neval_every = 1\neval_batches = 1\nlog_every = 1\n"
    "checkpoint_every = 1\nwarmup = 0\n";

// Models built from a fuzzed config are capped so one input cannot make
// the fuzzer allocate gigabytes (the trainer refuses those with check_memory).
#define FUZZ_MAX_MODEL_BYTES ((size_t)64 << 20)

static char fuzz_ckpt_path[256];

static const char *fuzz_tmp_path(void) {
    if (!fuzz_ckpt_path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fuzz_ckpt_path, sizeof fuzz_ckpt_path, "%s/lmtrain-fuzz-%ld.bin", dir, (long)getpid());
    }
    return fuzz_ckpt_path;
}

static void fuzz_write_file(const char *path, const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) fuzz_fail("cannot create the temporary checkpoint file");
    if (size && fwrite(data, 1, size, f) != size) fuzz_fail("cannot write the temporary checkpoint file");
    if (fclose(f) != 0) fuzz_fail("cannot close the temporary checkpoint file");
}

static void fuzz_load_into(const char *path, const Config *cfg, size_t V) {
    Model m;
    AdamW o;
    TrainState s;
    model_build(&m, cfg, V);
    adamw_init(&o, &m);
    if (checkpoint_load(path, &m, &o, &s) == 0 && s.n_floats != m.n_floats)
        fuzz_fail("checkpoint_load accepted a state whose n_floats differs from the model's");
    // The model-only path (`sample` loads weights without the optimizer).
    checkpoint_load(path, &m, NULL, NULL);
    adamw_free(&o);
    model_free(&m);
}

// Random mutations almost never get past the checksums, so every input is
// also tried with its checksums recomputed (as binfile.h lays them out): that
// lets the fuzzer reach the section table, the offsets, the stored config
// text and the state fields. Returns a malloc'd copy, or NULL if the input is
// too short to have a header.
static uint32_t fuzz_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t fuzz_get_u64(const uint8_t *p) { return fuzz_get_u32(p) | (uint64_t)fuzz_get_u32(p + 4) << 32; }
static void fuzz_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *fuzz_fix_checksums(const uint8_t *data, size_t size) {
    enum { HEAD = 32, ENTRY = BINFILE_NAME_MAX + 8 + 8 + 4 + 4 };
    if (size < HEAD) return NULL;
    uint8_t *b = malloc(size);
    if (!b) fuzz_fail("malloc");
    memcpy(b, data, size);
    fuzz_put_u32(b + 28, crc32(b, 28, 0));
    uint64_t n = fuzz_get_u32(b + 24);
    if (n > BINFILE_MAX_SECTIONS || HEAD + ENTRY * n + 4 > size) return b;
    size_t tend = HEAD + ENTRY * (size_t)n + 4;
    for (size_t i = 0; i < n; i++) {
        uint8_t *e = b + HEAD + ENTRY * i;
        uint64_t off = fuzz_get_u64(e + BINFILE_NAME_MAX), bytes = fuzz_get_u64(e + BINFILE_NAME_MAX + 8);
        if (off <= size && bytes <= size - off)
            fuzz_put_u32(e + BINFILE_NAME_MAX + 16, crc32(b + off, (size_t)bytes, 0));
    }
    fuzz_put_u32(b + tend - 4, crc32(b, tend - 4, 0));
    return b;
}

static void fuzz_checkpoint_file(const uint8_t *data, size_t size);

static inline int fuzz_checkpoint_one(const uint8_t *data, size_t size) {
    fuzz_checkpoint_file(data, size);
    uint8_t *fixed = fuzz_fix_checksums(data, size);
    if (fixed) {
        if (memcmp(fixed, data, size) != 0) fuzz_checkpoint_file(fixed, size);
        free(fixed);
    }
    return 0;
}

static void fuzz_checkpoint_file(const uint8_t *data, size_t size) {
    const char *path = fuzz_tmp_path();
    fuzz_write_file(path, data, size);

    BinFile f;
    if (binfile_read(path, &f) == 0) {
        // every section must be inside the buffer (ASan checks the reads)
        unsigned sum = 0;
        for (size_t i = 0; i < f.n; i++) {
            size_t bytes = 0;
            const unsigned char *p = binfile_find(&f, f.sec[i].name, &bytes);
            if (!p || bytes != f.sec[i].bytes) fuzz_fail("binfile_find disagrees with the section table");
            if (bytes) sum += p[0] + p[bytes - 1];
        }
        (void)sum;
        binfile_free(&f);
    } else if (f.buf || f.sec || f.n) {
        fuzz_fail("binfile_read failed but left data in the BinFile");
    }

    Config cfg;
    if (checkpoint_read_config(path, &cfg) == 0) {
        if (config_validate(&cfg, "stored") != 0) fuzz_fail("checkpoint_read_config returned an invalid config");
        size_t V = cfg.task == TASK_RECALL ? (size_t)cfg.vocab : FUZZ_REF_V;
        size_t need = model_estimate_bytes(&cfg, V, 1, 1);
        if (need != 0 && need <= FUZZ_MAX_MODEL_BYTES) fuzz_load_into(path, &cfg, V);
    }

    static Config ref;
    static int have_ref;
    if (!have_ref) {
        config_defaults(&ref);
        if (config_load_text(&ref, FUZZ_REF_CONFIG, sizeof FUZZ_REF_CONFIG - 1, "ref.ini") ||
            config_validate(&ref, "ref.ini"))
            fuzz_fail("the reference config does not load");
        have_ref = 1;
    }
    fuzz_load_into(path, &ref, FUZZ_REF_V);
    unlink(path);
    err_clear();
}
