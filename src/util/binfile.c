// binfile.c — the checksummed section container described in binfile.h.
#include "binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "err.h"
#include "file_check.h"

static const unsigned char MAGIC[8] = {'L', 'M', 'T', 'R', 'A', 'I', 'N', 0};
enum {
    HEADER_BYTES = 32,       // magic, format, version, file size, count, header crc
    HEADER_CRC_AT = 28,
    ENTRY_BYTES = BINFILE_NAME_MAX + 8 + 8 + 4 + 4,
};

// ---------------------------------------------------------------------------
// CRC-32

static uint32_t g_crc_table[256];
static pthread_once_t g_crc_once = PTHREAD_ONCE_INIT;

// table[b] = the CRC register after shifting byte b through 8 bit-steps
static void crc_table_init(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        g_crc_table[b] = c;
    }
}

uint32_t crc32(const void *data, size_t n, uint32_t seed) {
    pthread_once(&g_crc_once, crc_table_init);
    const unsigned char *p = data;
    uint32_t c = ~seed;  // pre- and post-inversion make the chaining seed the previous result
    for (size_t i = 0; i < n; i++) c = g_crc_table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return ~c;
}

// ---------------------------------------------------------------------------
// little-endian fields, byte by byte (no struct layout, no alignment assumptions)

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// x rounded up to BINFILE_ALIGN; 0 (and *out untouched) on overflow
static int align_up(size_t x, size_t *out) {
    if (x > SIZE_MAX - (BINFILE_ALIGN - 1)) return 0;
    *out = (x + (BINFILE_ALIGN - 1)) / BINFILE_ALIGN * BINFILE_ALIGN;
    return 1;
}

static size_t table_end_for(size_t count) { return HEADER_BYTES + ENTRY_BYTES * count + 4; }

// ---------------------------------------------------------------------------
// writing

int binfile_write_atomic(const char *path, uint32_t version, const BinSection *s, size_t n) {
    if (n > BINFILE_MAX_SECTIONS)
        return err_set(ERR_RUNTIME, "%s: %zu sections, at most %d allowed", path, n, BINFILE_MAX_SECTIONS);
    for (size_t i = 0; i < n; i++) {
        size_t len = s[i].name ? strlen(s[i].name) : 0;
        if (len == 0 || len >= BINFILE_NAME_MAX)
            return err_set(ERR_RUNTIME, "%s: section %zu: name must be 1..%d bytes", path, i, BINFILE_NAME_MAX - 1);
        if (s[i].bytes > 0 && !s[i].data)
            return err_set(ERR_RUNTIME, "%s: section '%s' has %zu bytes but no data", path, s[i].name, s[i].bytes);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s[i].name, s[j].name) == 0)
                return err_set(ERR_RUNTIME, "%s: duplicate section '%s'", path, s[i].name);
    }

    // Offsets are canonical: each section at the next aligned position.
    size_t head_bytes = table_end_for(n);
    unsigned char *head = xcalloc(head_bytes, 1);  // zeroed: name padding and reserved fields
    size_t *offs = xcalloc(n ? n : 1, sizeof *offs);
    size_t end = head_bytes;
    for (size_t i = 0; i < n; i++) {
        if (!align_up(end, &offs[i]) || s[i].bytes > SIZE_MAX - offs[i]) {
            free(head);
            free(offs);
            return err_set(ERR_RUNTIME, "%s: total size overflows", path);
        }
        end = offs[i] + s[i].bytes;
    }

    memcpy(head, MAGIC, 8);
    put_u32(head + 8, BINFILE_FORMAT);
    put_u32(head + 12, version);
    put_u64(head + 16, (uint64_t)end);
    put_u32(head + 24, (uint32_t)n);
    put_u32(head + HEADER_CRC_AT, crc32(head, HEADER_CRC_AT, 0));
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = head + HEADER_BYTES + ENTRY_BYTES * i;
        memcpy(e, s[i].name, strlen(s[i].name));
        put_u64(e + BINFILE_NAME_MAX, (uint64_t)offs[i]);
        put_u64(e + BINFILE_NAME_MAX + 8, (uint64_t)s[i].bytes);
        put_u32(e + BINFILE_NAME_MAX + 16, crc32(s[i].data, s[i].bytes, 0));
    }
    put_u32(head + head_bytes - 4, crc32(head, head_bytes - 4, 0));

    // header+table, then (padding, data) per section, straight from the caller's memory
    static const unsigned char zeros[BINFILE_ALIGN];
    AtomicChunk *chunks = xcalloc(2 * n + 1, sizeof *chunks);
    size_t nc = 0, pos = head_bytes;
    chunks[nc++] = (AtomicChunk){head, head_bytes};
    for (size_t i = 0; i < n; i++) {
        chunks[nc++] = (AtomicChunk){zeros, offs[i] - pos};
        chunks[nc++] = (AtomicChunk){s[i].data, s[i].bytes};
        pos = offs[i] + s[i].bytes;
    }
    int rc = atomic_write_chunks(path, chunks, nc);
    free(chunks);
    free(offs);
    free(head);
    return rc;
}

// ---------------------------------------------------------------------------
// reading

// pread until `n` bytes or end of file; *got = bytes read. -1 (errno set) on error.
static int read_at(int fd, void *buf, size_t n, size_t off, size_t *got) {
    char *p = buf;
    *got = 0;
    while (*got < n) {
        ssize_t r = pread(fd, p + *got, n - *got, (off_t)(off + *got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        *got += (size_t)r;
    }
    return 0;
}

// Checks the fixed header (`have` bytes of it are available; the file has
// `file_size` bytes) and returns the trusted count and content version.
static int check_header(const char *path, const unsigned char *h, size_t have, size_t file_size,
                        size_t *count, uint32_t *version) {
    if (have == 0) return err_set(ERR_RUNTIME, "%s: not an lmtrain checkpoint (empty file)", path);
    if (memcmp(h, MAGIC, have < 8 ? have : 8) != 0)
        return err_set(ERR_RUNTIME, "%s: not an lmtrain checkpoint (bad magic)", path);
    if (have < HEADER_BYTES)
        return err_set(ERR_RUNTIME, "%s: truncated (expected at least %d bytes, found %zu)", path, HEADER_BYTES, have);
    int crc_ok = crc32(h, HEADER_CRC_AT, 0) == get_u32(h + HEADER_CRC_AT);
    uint32_t format = get_u32(h + 8);
    // A different format version may lay out its header differently, so say
    // that rather than "corrupted" -- unless the checksum says the field itself is damaged.
    if (format != BINFILE_FORMAT)
        return err_set(ERR_RUNTIME, "%s: container format version %u, this lmtrain reads version %u%s", path,
                       format, BINFILE_FORMAT, crc_ok ? "" : " (or the header is corrupted)");
    if (!crc_ok) return err_set(ERR_RUNTIME, "%s: corrupted (checksum mismatch in header)", path);
    uint64_t declared = get_u64(h + 16);
    if (declared > file_size)
        return err_set(ERR_RUNTIME, "%s: truncated (expected %llu bytes, found %zu)", path,
                       (unsigned long long)declared, file_size);
    if (declared < file_size)
        return err_set(ERR_RUNTIME, "%s: corrupted (%zu bytes, but the header says %llu: trailing bytes)", path,
                       file_size, (unsigned long long)declared);
    uint32_t n = get_u32(h + 24);
    if (n > BINFILE_MAX_SECTIONS)
        return err_set(ERR_RUNTIME, "%s: corrupted (%u sections, at most %d allowed)", path, n, BINFILE_MAX_SECTIONS);
    if (table_end_for(n) > file_size)
        return err_set(ERR_RUNTIME, "%s: corrupted (a table of %u sections does not fit in %zu bytes)", path, n,
                       file_size);
    *count = n;
    *version = get_u32(h + 12);
    return 0;
}

static int all_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

// Validates the table and data of a complete in-memory file (header already
// checked) and fills f->sec.
static int check_body(const char *path, const unsigned char *b, size_t size, size_t n, BinSectionInfo *sec) {
    size_t tend = table_end_for(n);
    if (crc32(b, tend - 4, 0) != get_u32(b + tend - 4))
        return err_set(ERR_RUNTIME, "%s: corrupted (checksum mismatch in section table)", path);
    size_t end = tend;  // end of the previous section's data
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = b + HEADER_BYTES + ENTRY_BYTES * i;
        const unsigned char *nul = memchr(e, 0, BINFILE_NAME_MAX);
        if (!nul || nul == e || !all_zero(nul, (size_t)(e + BINFILE_NAME_MAX - nul)))
            return err_set(ERR_RUNTIME, "%s: corrupted (section %zu has an invalid name)", path, i);
        memcpy(sec[i].name, e, BINFILE_NAME_MAX);
        const char *name = sec[i].name;
        for (size_t j = 0; j < i; j++)
            if (strcmp(sec[j].name, name) == 0)
                return err_set(ERR_RUNTIME, "%s: corrupted (duplicate section '%s')", path, name);
        uint64_t off = get_u64(e + BINFILE_NAME_MAX), bytes = get_u64(e + BINFILE_NAME_MAX + 8);
        if (get_u32(e + BINFILE_NAME_MAX + 20) != 0)
            return err_set(ERR_RUNTIME, "%s: corrupted (section '%s': reserved field not zero)", path, name);
        size_t want = 0;
        if (!align_up(end, &want) || off != (uint64_t)want)
            return err_set(ERR_RUNTIME, "%s: corrupted (section '%s' at offset %llu, expected %zu)", path, name,
                           (unsigned long long)off, want);
        // off <= size is not yet known when `want` ran past the end; compare without overflow
        if (off > size || bytes > size - off)
            return err_set(ERR_RUNTIME, "%s: corrupted (section '%s': %llu bytes at offset %llu run past the end "
                           "of the %zu-byte file)", path, name, (unsigned long long)bytes,
                           (unsigned long long)off, size);
        if (!all_zero(b + end, want - end))
            return err_set(ERR_RUNTIME, "%s: corrupted (non-zero padding before section '%s')", path, name);
        if (crc32(b + off, (size_t)bytes, 0) != get_u32(e + BINFILE_NAME_MAX + 16))
            return err_set(ERR_RUNTIME, "%s: corrupted (checksum mismatch in section '%s')", path, name);
        sec[i].off = (size_t)off;
        sec[i].bytes = (size_t)bytes;
        end = (size_t)(off + bytes);
    }
    if (end != size)
        return err_set(ERR_RUNTIME, "%s: corrupted (%zu trailing bytes after the last section)", path, size - end);
    return 0;
}

int binfile_read(const char *path, BinFile *f) {
    memset(f, 0, sizeof *f);
    // stat before open and open non-blocking: a FIFO or device is refused, never waited on
    struct stat pre;
    if (stat(path, &pre) != 0) return err_set(ERR_RUNTIME, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(pre.st_mode))
        return err_set(ERR_RUNTIME, "%s: not a regular file (it is %s)", path, file_kind(pre.st_mode));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return err_set(ERR_RUNTIME, "%s: cannot open: %s", path, strerror(errno));

    int rc = 0;
    unsigned char *buf = NULL;
    BinSectionInfo *sec = NULL;
    struct stat st;
    unsigned char h[HEADER_BYTES];
    size_t size = 0, got = 0, n = 0, cap = 0;
    uint32_t version = 0;
    if (fstat(fd, &st) != 0) {
        rc = err_set(ERR_RUNTIME, "%s: cannot stat: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = err_set(ERR_RUNTIME, "%s: not a regular file (it is %s)", path, file_kind(st.st_mode));
        goto done;
    }
    if (st.st_size < 0 || (uintmax_t)st.st_size > SIZE_MAX - BINFILE_ALIGN) {
        rc = err_set(ERR_RUNTIME, "%s: file too large", path);
        goto done;
    }
    size = (size_t)st.st_size;

    // The header alone first: the size and count it declares are checked
    // against the real file size before anything is allocated from them.
    if (read_at(fd, h, size < HEADER_BYTES ? size : HEADER_BYTES, 0, &got) != 0) {
        rc = err_set(ERR_RUNTIME, "%s: read failed: %s", path, strerror(errno));
        goto done;
    }
    if ((rc = check_header(path, h, got, size, &n, &version))) goto done;

    // size is the real file size, so this allocation is as large as the file, never more
    align_up(size, &cap);  // cannot overflow: size <= SIZE_MAX - BINFILE_ALIGN
    buf = aligned_alloc(BINFILE_ALIGN, cap);
    if (!buf) {
        rc = err_set(ERR_RUNTIME, "%s: out of memory reading %zu bytes", path, size);
        goto done;
    }
    if (read_at(fd, buf, size, 0, &got) != 0) {
        rc = err_set(ERR_RUNTIME, "%s: read failed: %s", path, strerror(errno));
        goto done;
    }
    if (got != size) {  // shrank while we were reading
        rc = err_set(ERR_RUNTIME, "%s: truncated (expected %zu bytes, found %zu)", path, size, got);
        goto done;
    }
    // Validate the header again from the bytes we actually use: the file may
    // have been replaced between the two reads.
    if ((rc = check_header(path, buf, HEADER_BYTES, size, &n, &version))) goto done;
    sec = xcalloc(n ? n : 1, sizeof *sec);
    if ((rc = check_body(path, buf, size, n, sec))) goto done;

    f->path = xstrdup(path);
    f->buf = buf;
    f->size = size;
    f->version = version;
    f->n = n;
    f->sec = sec;
    buf = NULL;
    sec = NULL;
done:
    close(fd);
    free(buf);
    free(sec);
    return rc;
}

int binfile_require_version(const BinFile *f, uint32_t want) {
    if (f->version == want) return 0;
    return err_set(ERR_RUNTIME, "%s: format version %u, this lmtrain reads version %u", f->path, f->version, want);
}

const void *binfile_find(const BinFile *f, const char *name, size_t *bytes) {
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->sec[i].name, name) == 0) {
            *bytes = f->sec[i].bytes;
            return (const char *)f->buf + f->sec[i].off;
        }
    err_set(ERR_RUNTIME, "%s: no section '%s'", f->path ? f->path : "(not loaded)", name);
    return NULL;
}

const void *binfile_get(const BinFile *f, const char *name, size_t expected_bytes) {
    size_t bytes = 0;
    const void *p = binfile_find(f, name, &bytes);
    if (!p) return NULL;
    if (bytes != expected_bytes) {
        err_set(ERR_RUNTIME, "%s: section '%s' has %zu bytes, expected %zu", f->path, name, bytes, expected_bytes);
        return NULL;
    }
    return p;
}

void binfile_free(BinFile *f) {
    free(f->path);
    free(f->buf);
    free(f->sec);
    memset(f, 0, sizeof *f);
}
