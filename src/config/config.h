// config.h — every setting of a run, typed, validated, with defaults (SPEC §3).
//
// A Config is filled in three layers: defaults, then the INI file, then each
// `--set section.key=value` override, each layer validated as it is applied.
// config_write() emits every key (defaults included) so a run folder always
// records exactly what ran. Records older than a key lack it and read as what
// those versions did: [train] precision as fp32 (its default), [attention]
// key_norm as sum (config_defaults_record).
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "attention/attention.h"
#include "kernels/bf16.h"

#define CFG_MAX_HEADS 64

typedef enum { TASK_TEXT, TASK_RECALL } Task;
typedef enum { POS_LEARNED, POS_NONE } PosKind;
typedef enum { STATE_ZERO, STATE_IDENTITY } StateInit;
// the decay λ of linear_decay and delta: sigmoid(θ_h) with θ fixed at
// logit(decay_init) or learned, or per token from the block input,
// λ_t = sigmoid(w_hᵀx_t + θ_h) (θ_h the learned bias)
typedef enum { DECAY_LEARNED, DECAY_FIXED, DECAY_DATA } DecayMode;

typedef struct {
    // [run]
    char name[128];       // default: config file name without directory and ".ini"
    char out_dir[1024];   // default "runs"
    unsigned long long seed;  // 1337
    int threads;          // 0 = all cores
    int seeds;            // 1: `ablate` trains each config with seeds seed .. seed+seeds-1
    // [data]
    Task task;            // text
    char path[1024];      // text: the corpus (required for task = text)
    double val_fraction;  // 0.1, in (0, 1)
    int vocab;            // recall: 64 (>= 4, even, <= 256)
    int pairs;            // recall: 8 (>= 1; 4*pairs <= block_size; pairs <= vocab/2 - 1)
    int val_examples;     // recall: 1000 (>= 1)
    // [model]
    int layers;           // 4 (>= 1)
    int heads;            // 4 (1..CFG_MAX_HEADS, divides d_model)
    int d_model;          // 128 (>= 1)
    int ffn_mult;         // 4 (>= 0; 0 = attention-only blocks)
    int block_size;       // 64 (>= 1)
    PosKind pos;          // learned
    // [attention]
    char kind[32];        // "softmax" (must name a registered attention kind)
    FeatureMap feature_map;  // the kind's (attn_default_feature_map): identity with l2 keys, else elu1
    double eps;           // 1e-6 (> 0)
    int normalize;        // true
    int allow_identity_normalize;  // false: identity φ with normalize = true is refused
    double decay_init[CFG_MAX_HEADS];  // 0.99; one value or one per head, each in (0, 1)
    int n_decay_init;     // 1 if one value given (applies to all heads), else == heads
    int decay_learnable;  // true; kept equal to decay != fixed (the older spelling of it)
    DecayMode decay;      // learned
    KeyNorm key_norm;     // the kind's (attn_default_key_norm): delta l2, others sum
                          // (l2 is refused for kinds without uses_key_norm)
    int chunk;            // 64 (>= 1)
    StateInit state_init; // zero
    int output_norm;      // false
    int key_shift;        // false
    // [train]
    int steps;            // 2000 (>= 1)
    int batch_size;       // 12 (>= 1)
    double lr;            // 1e-3 (> 0)
    double min_lr;        // 1e-4 (>= 0, <= lr)
    int warmup;           // 100 (>= 0)
    double weight_decay;  // 0.1 (>= 0)
    double beta1;         // 0.9, [0, 1)
    double beta2;         // 0.99, [0, 1)
    double grad_clip;     // 1.0 (>= 0; 0 = off)
    int eval_every;       // 250 (>= 1)
    int eval_batches;     // 20 (>= 1)
    int log_every;        // 10 (>= 1)
    int checkpoint_every; // 500 (>= 1)
    double cpu_seconds;   // 0 = none; > 0: stop when training's CPU time reaches it (steps: the cap
                          // and the schedule's length, and then it must be given explicitly)
    Precision precision;  // fp32; bf16: the matmuls' operands in bf16 (refused on a CPU without AVX-512 BF16)

    // Whether the file or a --set named [attention] key_norm and feature_map.
    // A key not named follows the kind's default (attn_default_key_norm,
    // attn_default_feature_map), re-applied after each layer, so the fields
    // above always hold the effective value and config_write records it.
    int key_norm_given, feature_map_given;
    // Whether a layer named [train] steps / cpu_seconds (a CPU budget needs an explicit steps).
    int steps_given, cpu_seconds_given;
} Config;

// Fills every field with its default (name empty, path empty).
void config_defaults(Config *c);

// The defaults for reading a configuration that a run recorded (its
// config.ini, the copy in its checkpoint) rather than one a person wrote:
// every key counts as given, so a key the record lacks keeps the value it had
// before the key existed (key_norm: sum, as every run trained before it was
// added), never a kind's default of today. A record written by config_write
// names every key, so only records older than a key ever lack it.
void config_defaults_record(Config *c);

// Reads an INI file into c (on top of what c holds). Errors (exit status 2,
// message via err_set): "FILE:LINE: ..." for unknown section or key, duplicate
// key, malformed line, unparsable or out-of-range value. Also sets c->name from
// the file name if the file has no [run] name. Returns 0 or ERR_USAGE/ERR_RUNTIME
// (ERR_RUNTIME if the file cannot be read).
int config_load(Config *c, const char *path);

// Parses one "section.key=value" override with the same validation;
// errors read "--set section.key=value: ...".
int config_set(Config *c, const char *assignment);

// Cross-field checks after all layers are applied (d_model % heads, decay_init
// count vs heads, 4*pairs <= block_size, min_lr <= lr, text task needs a path,
// kind is registered ...). `origin` names the config file for messages.
int config_validate(const Config *c, const char *origin);

// The same, blaming each problem on the `--set section.key=value` that gave a
// key involved (else on `origin`), and reporting every problem (up to 20) in
// one message rather than the first.
int config_validate_sets(const Config *c, const char *origin, const char *const *sets, int n_sets);

// The command line's configuration in one go: the file, each --set, then
// validation (config_validate_sets). Every error found (up to 20: all the bad
// lines of the file, all the bad --set options, or all the failed checks) is
// reported at once; ERR_USAGE.
int config_load_all(Config *c, const char *path, const char *const *sets, int n_sets);

// Writes the resolved configuration as INI (every section and key). Returns 0
// or ERR_RUNTIME on an I/O error.
int config_write(const Config *c, FILE *f);

// Lists the keys whose values differ between a and b (for --resume checks),
// as "section.key" names separated by ", " into buf. Returns the count.
int config_diff(const Config *a, const Config *b, char *buf, size_t cap, int model_keys_only);

// Like config_load, from INI text in memory (n bytes, not NUL-terminated);
// `origin` stands for the file name in messages. Used to read the
// configuration stored inside a checkpoint.
int config_load_text(Config *c, const char *text, size_t n, const char *origin);

// The AttnConfig every layer of a run gets from its configuration (dh =
// d_model / heads): the model and the memory checks use this one mapping.
AttnConfig config_attention(const Config *c);
