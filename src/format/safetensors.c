// safetensors.c — write float32 tensors as safetensors (the strict reader the
// tests use is tests/format/safetensors_read.c).
#include "format/safetensors.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/json.h"
#include "util/atomic_file.h"
#include "util/err.h"

// The tensors are written straight from memory: that is little-endian float32
// only on a little-endian host (every machine lmtrain targets).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c writes floats in host order, which must be little-endian"
#endif

// ============================================================================
// Writing
// ============================================================================

static int tensor_elems(const StTensor *t, size_t *out) {
    size_t n = 1;
    for (size_t d = 0; d < t->ndim; d++)
        if (!size_mul(n, t->shape[d], &n)) return -1;
    return size_mul(n, sizeof(float), out) ? 0 : -1;  // *out in bytes
}

static int check_inputs(const StMeta *meta, size_t n_meta, const StTensor *t, size_t n) {
    for (size_t i = 0; i < n_meta; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(meta[i].key, meta[j].key) == 0)
                return err_set(ERR_RUNTIME, "safetensors: metadata key '%s' given twice", meta[i].key);
    for (size_t i = 0; i < n; i++) {
        if (!t[i].name[0] || strcmp(t[i].name, "__metadata__") == 0)
            return err_set(ERR_RUNTIME, "safetensors: tensor %zu has the reserved name '%s'", i, t[i].name);
        if (t[i].ndim < 1 || t[i].ndim > ST_MAX_DIMS)
            return err_set(ERR_RUNTIME, "safetensors: tensor '%s' has rank %zu (1..%d supported)", t[i].name,
                           t[i].ndim, ST_MAX_DIMS);
        for (size_t j = 0; j < i; j++)
            if (strcmp(t[i].name, t[j].name) == 0)
                return err_set(ERR_RUNTIME, "safetensors: tensor name '%s' given twice", t[i].name);
    }
    return 0;
}

int safetensors_header(char **out, size_t *len, const StMeta *meta, size_t n_meta, const StTensor *t,
                       size_t n) {
    int rc = check_inputs(meta, n_meta, t, n);
    if (rc) return rc;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) return err_set(ERR_RUNTIME, "safetensors: cannot allocate the header");
    fputs("        {", f);  // 8 placeholder bytes for the length
    const char *sep = "";
    if (n_meta) {
        fputs("\"__metadata__\":{", f);
        for (size_t i = 0; i < n_meta; i++) {
            fputs(i ? "," : "", f);
            json_write_string(f, meta[i].key, strlen(meta[i].key));
            fputc(':', f);
            json_write_string(f, meta[i].value, meta[i].len);
        }
        fputc('}', f);
        sep = ",";
    }
    size_t off = 0;  // byte offset of the next tensor in the data section
    for (size_t i = 0; i < n && !rc; i++) {
        size_t bytes;
        if (tensor_elems(&t[i], &bytes) || off + bytes < off) {
            rc = err_set(ERR_RUNTIME, "safetensors: tensor '%s' is too large", t[i].name);
            break;
        }
        fputs(sep, f);
        sep = ",";
        json_write_string(f, t[i].name, strlen(t[i].name));
        fputs(":{\"dtype\":\"F32\",\"shape\":[", f);
        for (size_t d = 0; d < t[i].ndim; d++) fprintf(f, "%s%zu", d ? "," : "", t[i].shape[d]);
        fprintf(f, "],\"data_offsets\":[%zu,%zu]}", off, off + bytes);
        off += bytes;
    }
    fputc('}', f);
    // pad with spaces so that the data section starts at a multiple of 8
    long pos = ftell(f);
    while (pos >= 0 && pos % 8 != 0) {
        fputc(' ', f);
        pos++;
    }
    if (fclose(f) != 0 || pos < 0) {
        free(buf);
        return rc ? rc : err_set(ERR_RUNTIME, "safetensors: cannot allocate the header");
    }
    if (rc) {
        free(buf);
        return rc;
    }
    uint64_t hn = (uint64_t)size - 8;
    for (int b = 0; b < 8; b++) buf[b] = (char)(unsigned char)(hn >> (8 * b));
    *out = buf;
    *len = size;
    return 0;
}

int safetensors_write(const char *path, const StMeta *meta, size_t n_meta, const StTensor *t, size_t n) {
    char *header;
    size_t hlen;
    int rc = safetensors_header(&header, &hlen, meta, n_meta, t, n);
    if (rc) return rc;
    AtomicChunk *c = xcalloc(n + 1, sizeof *c);
    c[0] = (AtomicChunk){header, hlen};
    for (size_t i = 0; i < n; i++) {
        size_t bytes = 0;
        tensor_elems(&t[i], &bytes);  // cannot fail: the header checked it
        c[i + 1] = (AtomicChunk){t[i].data, bytes};
    }
    rc = atomic_write_chunks(path, c, n + 1);
    free(c);
    free(header);
    return rc;
}
