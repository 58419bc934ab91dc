// checkpoint.c — save/load of weights, optimizer and training state.
#include "checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/binfile.h"
#include "util/err.h"

// TrainState as explicit little-endian 8-byte fields (never a raw struct dump:
// padding and field order would then be part of the file format).
#define STATE_FIELDS 14
#define STATE_FIELDS_V3 13
#define STATE_FIELDS_V2 11
static void state_pack(const TrainState *s, unsigned char out[STATE_FIELDS * 8]) {
    uint64_t f[STATE_FIELDS];
    f[0] = s->step;
    f[1] = s->rng;
    f[2] = s->vocab_hash;
    f[3] = s->n_floats;
    memcpy(&f[4], &s->best_val, 8);
    f[5] = s->best_step;
    memcpy(&f[6], &s->elapsed_s, 8);
    memcpy(&f[7], &s->loss_sum, 8);
    f[8] = s->loss_count;
    f[9] = s->tokens;
    f[10] = s->batch_hash;
    f[11] = s->data_bytes;
    f[12] = s->data_hash;
    memcpy(&f[13], &s->cpu_s, 8);
    for (int i = 0; i < STATE_FIELDS; i++)
        for (int b = 0; b < 8; b++) out[i * 8 + b] = (unsigned char)(f[i] >> (8 * b));
}

// `fields`: STATE_FIELDS, or STATE_FIELDS_V3 / _V2 for an older checkpoint (the fields it lacks are 0)
static void state_unpack(const unsigned char *in, int fields, TrainState *s) {
    uint64_t f[STATE_FIELDS] = {0};
    for (int i = 0; i < fields; i++) {
        f[i] = 0;
        for (int b = 0; b < 8; b++) f[i] |= (uint64_t)in[i * 8 + b] << (8 * b);
    }
    s->step = f[0];
    s->rng = f[1];
    s->vocab_hash = f[2];
    s->n_floats = f[3];
    memcpy(&s->best_val, &f[4], 8);
    s->best_step = f[5];
    memcpy(&s->elapsed_s, &f[6], 8);
    memcpy(&s->loss_sum, &f[7], 8);
    s->loss_count = f[8];
    s->tokens = f[9];
    s->batch_hash = f[10];
    s->data_bytes = f[11];
    s->data_hash = f[12];
    memcpy(&s->cpu_s, &f[13], 8);
}

static char *config_text(const Config *c, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) return NULL;
    config_write(c, f);
    fclose(f);
    return buf;
}

int checkpoint_save(const char *path, const Model *m, const AdamW *o, const TrainState *s) {
    size_t cfg_len = 0;
    char *cfg = config_text(&m->cfg, &cfg_len);
    if (!cfg) return err_set(ERR_RUNTIME, "%s: cannot format the configuration", path);
    unsigned char st[STATE_FIELDS * 8];
    TrainState s2 = *s;
    s2.n_floats = m->n_floats;
    state_pack(&s2, st);
    size_t nb = m->n_floats * sizeof(float);
    BinSection sec[] = {
        {"config", cfg, cfg_len}, {"params", m->data, nb}, {"adam_m", o->m, nb},
        {"adam_v", o->v, nb},     {"state", st, sizeof st},
    };
    int rc = binfile_write_atomic(path, CHECKPOINT_VERSION, sec, sizeof sec / sizeof sec[0]);
    free(cfg);
    return rc;
}

static int open_checked(const char *path, BinFile *f) {
    int rc = binfile_read(path, f);
    if (rc) return rc;
    if (f->version >= CHECKPOINT_OLDEST && f->version <= CHECKPOINT_VERSION) return 0;
    rc = err_set(ERR_RUNTIME, "%s: checkpoint format version %u, this lmtrain reads versions %u to %u", path,
                 f->version, CHECKPOINT_OLDEST, CHECKPOINT_VERSION);
    binfile_free(f);
    return rc;
}

// The state section of an open checkpoint, unpacked; NULL (err_set) if it is
// missing or has the wrong size for the file's version.
static int get_state(const BinFile *f, TrainState *s) {
    int fields = f->version == 2 ? STATE_FIELDS_V2 : f->version == 3 ? STATE_FIELDS_V3 : STATE_FIELDS;
    const unsigned char *st = binfile_get(f, "state", (size_t)fields * 8);
    if (!st) return 0;
    memset(s, 0, sizeof *s);
    state_unpack(st, fields, s);
    return 1;
}

int checkpoint_read_config(const char *path, Config *cfg) {
    BinFile f;
    int rc = open_checked(path, &f);
    if (rc) return rc;
    size_t n = 0;
    const char *text = binfile_find(&f, "config", &n);
    if (!text) {
        binfile_free(&f);
        return ERR_RUNTIME;
    }
    config_defaults_record(cfg);  // a record: a key it lacks means what it meant when written
    char origin[1100];
    snprintf(origin, sizeof origin, "%s [config]", path);
    rc = config_load_text(cfg, text, n, origin);
    if (!rc) rc = config_validate(cfg, origin);
    binfile_free(&f);
    return rc ? ERR_RUNTIME : 0;
}

int checkpoint_load(const char *path, Model *m, AdamW *o, TrainState *s) {
    BinFile f;
    int rc = open_checked(path, &f);
    if (rc) return rc;
    size_t nb = m->n_floats * sizeof(float);
    // The state first: its parameter count explains a size mismatch better
    // than "section 'params' has N bytes" would.
    TrainState tmp = {0};
    int st = get_state(&f, &tmp);
    if (st && tmp.n_floats != m->n_floats) {
        binfile_free(&f);
        return err_set(ERR_RUNTIME, "%s: holds %llu parameter floats, the model has %zu (other model "
                       "settings, or data with a different vocabulary)", path,
                       (unsigned long long)tmp.n_floats, m->n_floats);
    }
    const void *p = st ? binfile_get(&f, "params", nb) : NULL;
    const void *am = p && o ? binfile_get(&f, "adam_m", nb) : p;
    const void *av = am && o ? binfile_get(&f, "adam_v", nb) : am;
    if (!st || !p || !am || !av) {
        binfile_free(&f);
        return err_wrap(ERR_RUNTIME, "checkpoint does not match the model (was it written by another "
                                     "configuration?): ");
    }
    memcpy(m->data, p, nb);
    if (o) {
        memcpy(o->m, am, nb);
        memcpy(o->v, av, nb);
    }
    if (s) *s = tmp;
    binfile_free(&f);
    return 0;
}

int checkpoint_read_state(const char *path, TrainState *s) {
    BinFile f;
    int rc = open_checked(path, &f);
    if (rc) return rc;
    int st = get_state(&f, s);
    binfile_free(&f);
    return st ? 0 : ERR_RUNTIME;
}

uint64_t batch_hash_update(uint64_t h, const int *inputs, const int *targets, size_t n) {
    if (h == 0) h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uint32_t)inputs[i]) * 0x100000001b3ull;
        h = (h ^ (uint64_t)(uint32_t)targets[i]) * 0x100000001b3ull;
    }
    return h;
}
