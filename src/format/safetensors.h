// safetensors.h — the safetensors container: a float32 writer and a minimal,
// strict reader (the reader serves the tests and anyone checking a file).
//
// Layout (all of it little-endian):
//   8 bytes   N, the header length, unsigned 64-bit
//   N bytes   a JSON object: {"__metadata__": {"key": "value", ...},
//               "<name>": {"dtype": "F32", "shape": [d0, d1], "data_offsets": [begin, end]}, ...}
//             padded with spaces so that N is a multiple of 8 (the data then
//             starts 8-aligned)
//   the data  each tensor's elements, row-major, back to back in the order
//             given, no padding; [begin, end) are byte offsets from the start
//             of the data section, so the first tensor begins at 0 and the last
//             ends at the file's end.
// __metadata__ maps strings to strings only. Names and values are escaped by
// json_write_string (tools/json.h), so the header is pure ASCII.
#pragma once
#include <stddef.h>

#define ST_MAX_DIMS 8

// ---- writing ----------------------------------------------------------------

typedef struct {
    const char *name;           // unique, non-empty, not "__metadata__"
    size_t ndim;                // 1..ST_MAX_DIMS
    size_t shape[ST_MAX_DIMS];  // row-major: shape[ndim-1] varies fastest
    const float *data;          // (shape[0] * ... * shape[ndim-1]) floats
} StTensor;

typedef struct {
    const char *key;    // NUL-terminated, unique
    const char *value;  // `len` bytes, any bytes (escaped on the way out)
    size_t len;
} StMeta;

// The first part of the file: the 8-byte length and the padded JSON header,
// malloc'd into *out, its size (a multiple of 8) in *len. ERR_RUNTIME with a
// message if a name is empty, reserved or repeated, a key is repeated, a rank
// is out of range or a size overflows.
int safetensors_header(char **out, size_t *len, const StMeta *meta, size_t n_meta, const StTensor *t,
                       size_t n);
// Header plus every tensor's floats, written atomically (util/atomic_file.h)
// straight from the tensors' memory. 0 or ERR_RUNTIME.
int safetensors_write(const char *path, const StMeta *meta, size_t n_meta, const StTensor *t, size_t n);

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
