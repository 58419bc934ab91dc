// safetensors.h — the safetensors container: a float32 writer (the strict
// reader the tests use is tests/format/safetensors_read.h).
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
