// safetensors_read.c — a minimal, strict safetensors reader. Only the tests
// use it (lmtrain itself only writes the format), so it is linked into the
// tests and not the binary.
#include "format/safetensors_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/json_read.h"
#include "util/err.h"

// ============================================================================
// Reading: a recursive-descent parser for exactly the shape of a header
// ============================================================================

typedef struct {
    const char *p, *end, *base;  // cursor, end of the header, start of the header
    const char *origin;
} Cursor;

static int perr(const Cursor *c, const char *what) {
    return err_set(ERR_RUNTIME, "%s: header byte %td: %s", c->origin, c->p - c->base, what);
}

static void skip_ws(Cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int expect(Cursor *c, char ch) {
    skip_ws(c);
    if (c->p >= c->end || *c->p != ch) {
        char what[32];
        snprintf(what, sizeof what, "expected '%c'", ch);
        return perr(c, what);
    }
    c->p++;
    return 0;
}

// after a member: 1 if another follows (','), 0 at the closing bracket, -1 on error
static int more(Cursor *c, char close) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ',') return c->p++, 1;
    if (c->p < c->end && *c->p == close) return c->p++, 0;
    char what[40];
    snprintf(what, sizeof what, "expected ',' or '%c'", close);
    perr(c, what);
    return -1;
}

static int string(Cursor *c, char **out, size_t *len) {
    skip_ws(c);
    if (json_read_string(&c->p, c->end, c->base, out, len))
        return err_wrap(ERR_RUNTIME, "%s: header: ", c->origin);
    return 0;
}

// a JSON number that is a non-negative integer fitting size_t
static int uint_value(Cursor *c, size_t *v) {
    skip_ws(c);
    const char *s = c->p;
    size_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        size_t d = (size_t)(*c->p - '0');
        if (x > (SIZE_MAX - d) / 10) return perr(c, "integer too large");
        x = x * 10 + d;
        c->p++;
    }
    if (c->p == s) return perr(c, "expected a non-negative integer");
    if (c->p - s > 1 && *s == '0') return perr(c, "leading zero in a number");
    if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E')) return perr(c, "expected an integer");
    *v = x;
    return 0;
}

// [u, u, ...] with at most cap elements; count in *n
static int uint_array(Cursor *c, size_t *v, size_t cap, size_t *n) {
    if (expect(c, '[')) return ERR_RUNTIME;
    *n = 0;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') return c->p++, 0;
    int m;
    do {
        if (*n == cap) return perr(c, "too many elements");
        if (uint_value(c, &v[(*n)++])) return ERR_RUNTIME;
    } while ((m = more(c, ']')) == 1);
    return m < 0 ? ERR_RUNTIME : 0;
}

static size_t dtype_size(const char *d) {
    static const struct {
        const char *name;
        size_t size;
    } T[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
             {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strcmp(d, T[i].name) == 0) return T[i].size;
    return 0;
}

// {"dtype": ..., "shape": [...], "data_offsets": [b, e]}, each key exactly once
static int tensor_entry(Cursor *c, StEntry *e) {
    if (expect(c, '{')) return ERR_RUNTIME;
    int seen[3] = {0, 0, 0};
    int m;
    do {
        char *key, *val;
        size_t klen, vlen, off[2], n;
        if (string(c, &key, &klen)) return ERR_RUNTIME;
        int k = !strcmp(key, "dtype") ? 0 : !strcmp(key, "shape") ? 1 : !strcmp(key, "data_offsets") ? 2 : -1;
        free(key);
        if (k < 0) return perr(c, "unknown key in a tensor entry");
        if (seen[k]++) return perr(c, "key repeated in a tensor entry");
        if (expect(c, ':')) return ERR_RUNTIME;
        if (k == 0) {
            if (string(c, &val, &vlen)) return ERR_RUNTIME;
            int ok = vlen < sizeof e->dtype && strlen(val) == vlen && dtype_size(val);
            if (ok) memcpy(e->dtype, val, vlen + 1);
            free(val);
            if (!ok) return perr(c, "unknown dtype");
        } else if (k == 1) {
            if (uint_array(c, e->shape, ST_MAX_DIMS, &e->ndim)) return ERR_RUNTIME;
        } else {
            if (uint_array(c, off, 2, &n)) return ERR_RUNTIME;
            if (n != 2 || off[0] > off[1]) return perr(c, "data_offsets must be [begin, end] with begin <= end");
            e->begin = off[0];
            e->end = off[1];
        }
    } while ((m = more(c, '}')) == 1);
    if (m < 0) return ERR_RUNTIME;
    if (!seen[0] || !seen[1] || !seen[2]) return perr(c, "tensor entry lacks dtype, shape or data_offsets");
    return 0;
}

static int meta_object(Cursor *c, StFile *f) {
    if (expect(c, '{')) return ERR_RUNTIME;
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') return c->p++, 0;
    int m;
    do {
        StKV kv = {0};
        size_t klen;
        if (string(c, &kv.key, &klen)) return ERR_RUNTIME;
        if (safetensors_meta(f, kv.key, NULL)) {
            free(kv.key);
            return perr(c, "metadata key repeated");
        }
        if (expect(c, ':')) {
            free(kv.key);
            return ERR_RUNTIME;
        }
        skip_ws(c);
        if (c->p >= c->end || *c->p != '"') {
            free(kv.key);
            return perr(c, "metadata values must be strings");
        }
        if (string(c, &kv.value, &kv.len)) {
            free(kv.key);
            return ERR_RUNTIME;
        }
        f->meta = xrealloc(f->meta, (f->n_meta + 1) * sizeof *f->meta);
        f->meta[f->n_meta++] = kv;
    } while ((m = more(c, '}')) == 1);
    return m < 0 ? ERR_RUNTIME : 0;
}

static int header_object(Cursor *c, StFile *f) {
    if (expect(c, '{')) return ERR_RUNTIME;
    skip_ws(c);
    int m = 0, seen_meta = 0;
    if (c->p < c->end && *c->p == '}') c->p++;
    else
        do {
            char *name;
            size_t nlen;
            if (string(c, &name, &nlen)) return ERR_RUNTIME;
            if (strlen(name) != nlen || !nlen) {
                free(name);
                return perr(c, "empty name or NUL in a name");
            }
            int dup = strcmp(name, "__metadata__") == 0 ? seen_meta++ : safetensors_find(f, name) != NULL;
            if (dup) {
                free(name);
                return perr(c, "name repeated");
            }
            if (expect(c, ':')) {
                free(name);
                return ERR_RUNTIME;
            }
            if (strcmp(name, "__metadata__") == 0) {
                free(name);
                if (meta_object(c, f)) return ERR_RUNTIME;
            } else {
                f->t = xrealloc(f->t, (f->n + 1) * sizeof *f->t);
                StEntry *e = &f->t[f->n++];
                memset(e, 0, sizeof *e);
                e->name = name;
                if (tensor_entry(c, e)) return ERR_RUNTIME;
            }
        } while ((m = more(c, '}')) == 1);
    if (m < 0) return ERR_RUNTIME;
    skip_ws(c);
    if (c->p != c->end) return perr(c, "trailing bytes after the header object");
    return 0;
}

static int cmp_begin(const void *a, const void *b) {
    const StEntry *x = *(const StEntry *const *)a, *y = *(const StEntry *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;  // empty tensors first at a shared offset
}

// every byte range matches its shape, and the ranges tile [0, data_bytes)
static int check_layout(const StFile *f, const char *origin) {
    for (size_t i = 0; i < f->n; i++) {
        const StEntry *e = &f->t[i];
        size_t bytes = dtype_size(e->dtype);
        for (size_t d = 0; d < e->ndim; d++)
            if (!size_mul(bytes, e->shape[d], &bytes))
                return err_set(ERR_RUNTIME, "%s: tensor '%s': shape overflows", origin, e->name);
        if (bytes != e->end - e->begin)
            return err_set(ERR_RUNTIME, "%s: tensor '%s': shape and dtype need %zu bytes, data_offsets give %zu",
                           origin, e->name, bytes, e->end - e->begin);
    }
    const StEntry **s = xcalloc(f->n, sizeof *s);
    for (size_t i = 0; i < f->n; i++) s[i] = &f->t[i];
    if (f->n) qsort(s, f->n, sizeof *s, cmp_begin);
    size_t at = 0;
    int rc = 0;
    for (size_t i = 0; i < f->n && !rc; i++) {
        if (s[i]->begin != at)
            rc = err_set(ERR_RUNTIME, "%s: tensor '%s' starts at data byte %zu, expected %zu (gap or overlap)",
                         origin, s[i]->name, s[i]->begin, at);
        at = s[i]->end;
    }
    free(s);
    if (!rc && at != f->data_bytes)
        rc = err_set(ERR_RUNTIME, "%s: the tensors cover %zu data bytes, the file holds %zu", origin, at,
                     f->data_bytes);
    return rc;
}

int safetensors_parse(const void *bytes, size_t size, const char *origin, StFile *out) {
    StFile f;
    memset(&f, 0, sizeof f);
    memset(out, 0, sizeof *out);
    if (size < 8) return err_set(ERR_RUNTIME, "%s: %zu bytes, too short for a safetensors file", origin, size);
    const unsigned char *b = bytes;
    uint64_t hn = 0;
    for (int i = 0; i < 8; i++) hn |= (uint64_t)b[i] << (8 * i);
    if (hn > size - 8)
        return err_set(ERR_RUNTIME, "%s: header length %llu exceeds the file (%zu bytes)", origin,
                       (unsigned long long)hn, size);
    f.buf = xmalloc(size);
    memcpy(f.buf, bytes, size);
    f.size = size;
    f.header_bytes = (size_t)hn;
    f.data = f.buf + 8 + f.header_bytes;
    f.data_bytes = size - 8 - f.header_bytes;
    const char *h = (const char *)f.buf + 8;
    Cursor c = {h, h + f.header_bytes, h, origin};
    int rc = header_object(&c, &f);
    if (!rc) rc = check_layout(&f, origin);
    if (rc) {
        safetensors_free(&f);
        return rc;
    }
    *out = f;
    return 0;
}

int safetensors_read(const char *path, StFile *f) {
    memset(f, 0, sizeof *f);
    FILE *in = fopen(path, "rb");
    if (!in) return err_set(ERR_RUNTIME, "%s: cannot open", path);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) buf = xrealloc(buf, cap = cap ? 2 * cap : 1 << 16);
        size_t got = fread(buf + n, 1, cap - n, in);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(in);
    fclose(in);
    int rc = bad ? err_set(ERR_RUNTIME, "%s: read error", path) : safetensors_parse(buf, n, path, f);
    free(buf);
    return rc;
}

const StEntry *safetensors_find(const StFile *f, const char *name) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->t[i].name, name) == 0) return &f->t[i];
    return NULL;
}

const char *safetensors_meta(const StFile *f, const char *key, size_t *len) {
    for (size_t i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta[i].key, key) == 0) {
            if (len) *len = f->meta[i].len;
            return f->meta[i].value;
        }
    return NULL;
}

void safetensors_free(StFile *f) {
    for (size_t i = 0; i < f->n; i++) free(f->t[i].name);
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->t);
    free(f->meta);
    free(f->buf);
    memset(f, 0, sizeof *f);
}
