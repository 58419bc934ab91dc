// safetensors_read.h — a minimal, strict reader of the container that
// format/safetensors.h describes and writes. Test-only: linked into the tests.
#pragma once
#include <stddef.h>

#include "format/safetensors.h"

// ---- reading ----------------------------------------------------------------

typedef struct {
    char *name;
    char dtype[8];              // "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL"
    size_t ndim, shape[ST_MAX_DIMS];
    size_t begin, end;          // byte range inside the data section
} StEntry;

typedef struct {
    char *key, *value;          // value: `len` decoded UTF-8 bytes, NUL-terminated
    size_t len;
} StKV;

typedef struct {
    unsigned char *buf;         // the whole file
    size_t size;
    size_t header_bytes;        // N
    const unsigned char *data;  // the data section, buf + 8 + N
    size_t data_bytes;
    StEntry *t;                 // (n) in header order
    size_t n;
    StKV *meta;                 // (n_meta) the __metadata__ entries
    size_t n_meta;
} StFile;

// Validates everything before returning: the length prefix against the file
// size, JSON syntax (nothing but whitespace after the object), no duplicate
// names or keys, metadata values are strings, known dtypes, each tensor's byte
// range matches its shape and dtype, and the ranges tile the data section
// exactly (from 0, no gaps, no overlaps, nothing left over). 0, or
// ERR_RUNTIME "ORIGIN: ..." with *f left empty.
int safetensors_parse(const void *bytes, size_t size, const char *origin, StFile *f);  // copies bytes
int safetensors_read(const char *path, StFile *f);
const StEntry *safetensors_find(const StFile *f, const char *name);  // NULL if absent
const char *safetensors_meta(const StFile *f, const char *key, size_t *len);  // NULL if absent
// Safe on a zeroed or already freed StFile.
void safetensors_free(StFile *f);
