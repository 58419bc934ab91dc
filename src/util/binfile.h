// binfile.h — a checksummed, versioned container of named binary sections,
// written atomically (used for checkpoint.bin; what goes inside is the caller's).
//
// On-disk layout, every integer little-endian, written byte by byte:
//
//   offset  size
//   0       8     magic "LMTRAIN\0"
//   8       4     container format version (BINFILE_FORMAT, the layout described here)
//   12      4     content version (the caller's, e.g. the checkpoint layout version)
//   16      8     total file size in bytes
//   24      4     section count n (<= BINFILE_MAX_SECTIONS)
//   28      4     crc32 of bytes 0..27 (so the size and count are trusted before use)
//   32      88*n  section table, one entry per section:
//                   64  name, NUL-terminated, zero-padded (1..63 bytes of text)
//                   8   offset of the data from the start of the file
//                   8   size of the data in bytes
//                   4   crc32 of the data
//                   4   reserved, zero
//   32+88n  4     crc32 of bytes 0 .. 32+88n-1 (header and table)
//   then the sections' data in table order, each starting at the next multiple
//   of 64 (so a float array can be used in place), gaps filled with zeros, and
//   nothing after the last section.
//
// The layout is canonical (offsets are fully determined by the sizes), so the
// reader can demand exact offsets, zero padding and no trailing bytes: every
// byte of the file is covered by a checksum or a check.
//
// Section data is stored as the caller's raw bytes: floats and integers go in
// host order, which is little-endian on every machine lmtrain targets.
#pragma once
#include <stddef.h>
#include <stdint.h>

#define BINFILE_FORMAT 1u
#define BINFILE_NAME_MAX 64       // including the terminating NUL
#define BINFILE_MAX_SECTIONS 4096
#define BINFILE_ALIGN 64

// standard CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), table-driven.
// Chainable like zlib: crc32(b, nb, crc32(a, na, 0)) == crc32(a‖b, na+nb, 0).
uint32_t crc32(const void *data, size_t n, uint32_t seed);

typedef struct {
    const char *name;  // 1..63 bytes, unique within the file
    const void *data;
    size_t bytes;
} BinSection;

// Writes the sections to `path` atomically (see atomic_file.h). 0 or ERR_RUNTIME.
int binfile_write_atomic(const char *path, uint32_t version, const BinSection *s, size_t n);

typedef struct {
    char name[BINFILE_NAME_MAX];
    size_t off, bytes;  // data is buf + off, `bytes` long
} BinSectionInfo;

typedef struct {
    char *path;        // as given to binfile_read, for error messages
    void *buf;         // the whole file, BINFILE_ALIGN-aligned
    size_t size;
    uint32_t version;  // content version as written
    size_t n;
    BinSectionInfo *sec;  // (n,)
} BinFile;

// Reads and validates the whole file before returning anything: magic, format
// version, both header checksums, sizes, exact offsets, zero padding, no
// trailing bytes, every section's checksum. 0, or ERR_RUNTIME with a message
// ("PATH: truncated (expected N bytes, found M)"); on error *f is left empty.
int binfile_read(const char *path, BinFile *f);
// ERR_RUNTIME "PATH: format version V, this lmtrain reads version W" unless
// f->version == want.
int binfile_require_version(const BinFile *f, uint32_t want);
// Section data, or NULL with err_set if missing ("PATH: no section 'adam_m'")
// or not exactly `expected_bytes` long ("PATH: section 'adam_m' has 1234 bytes,
// expected 5678"). The pointer is BINFILE_ALIGN-aligned and lives until binfile_free.
const void *binfile_get(const BinFile *f, const char *name, size_t expected_bytes);
// For sections whose size is not known in advance: NULL with err_set if
// missing, otherwise the data with its size in *bytes.
const void *binfile_find(const BinFile *f, const char *name, size_t *bytes);
// Safe on an empty (zeroed) or already-freed BinFile.
void binfile_free(BinFile *f);
