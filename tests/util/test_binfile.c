// test_binfile.c — the checkpoint container: round trip, every corruption
// detected (flips, truncations, garbage, forged tables with valid checksums),
// failed writes leave the previous file intact, and CRC-32 is the standard one.
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "temp_files.h"
#include "test.h"
#include "util/binfile.h"
#include "util/err.h"
#include "util/rng.h"

// Layout constants, restated from the format description in binfile.h.
enum { HDR = 32, ENTRY = BINFILE_NAME_MAX + 24 };

static char g_dir[64];
static char g_path[256];

static const char *tpath(const char *name) {
    snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
    return g_path;
}

// plain (non-atomic) write of raw bytes, for corrupted variants
static void write_raw(const char *path, const void *data, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    if (n && fwrite(data, 1, n, fp) != n) exit(1);
    if (fclose(fp) != 0) exit(1);
}

// whole file into a malloc'd buffer (NULL if it cannot be opened)
static unsigned char *slurp(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *b = xmalloc(cap);
    size_t r;
    while ((r = fread(b + len, 1, cap - len, fp)) > 0) {
        len += r;
        if (len == cap) b = xrealloc(b, cap *= 2);
    }
    fclose(fp);
    *n = len;
    return b;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int msg_has(const char *needle) { return strstr(err_msg(), needle) != NULL; }

// ---- the small reference file used by the corruption tests ----
static const char A_DATA[] = "hello, checkpoint";  // 18 bytes incl. NUL
static float g_params[5] = {1.5f, -2.25f, 3.0f, 0.0f, 1e-7f};
static const unsigned char B_DATA[3] = {0xAA, 0x00, 0x55};

static size_t small_sections(BinSection *s) {
    s[0] = (BinSection){"meta", A_DATA, sizeof A_DATA};
    s[1] = (BinSection){"params", g_params, sizeof g_params};
    s[2] = (BinSection){"empty", NULL, 0};
    s[3] = (BinSection){"tail", B_DATA, sizeof B_DATA};
    return 4;
}

// writes the small reference file and returns its bytes
static unsigned char *make_small(const char *path, size_t *n) {
    BinSection s[4];
    size_t ns = small_sections(s);
    if (binfile_write_atomic(path, 7, s, ns) != 0) {
        fprintf(stderr, "%s\n", err_msg());
        exit(1);
    }
    return slurp(path, n);
}

// byte-wise reference CRC: one bit at a time, straight from the definition
static uint32_t crc32_bitwise(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

// After editing a header or table field: recompute both header checksums so
// only the semantic checks can catch the edit.
static void reseal(unsigned char *b, size_t count) {
    put32(b + 28, crc32(b, 28, 0));
    size_t tend = HDR + ENTRY * count + 4;
    put32(b + tend - 4, crc32(b, tend - 4, 0));
}

// ---------------------------------------------------------------------------

static void test_crc32_known_values(void) {
    CHECK(crc32("123456789", 9, 0) == 0xCBF43926u);
    CHECK(crc32("", 0, 0) == 0u);
    CHECK(crc32("a", 1, 0) == 0xE8B7BE43u);
    CHECK(crc32("The quick brown fox jumps over the lazy dog", 43, 0) == 0x414FA339u);
}

static void test_crc32_matches_bitwise_and_chains(void) {
    Rng r;
    rng_seed(&r, 11);
    unsigned char buf[1000];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)rng_u64(&r);
    for (size_t n = 0; n <= sizeof buf; n += 37) {
        CHECK(crc32(buf, n, 0) == crc32_bitwise(buf, n));
        size_t cut = n / 3;
        CHECK(crc32(buf + cut, n - cut, crc32(buf, cut, 0)) == crc32(buf, n, 0));
    }
}

static void test_round_trip(void) {
    const char *path = tpath("rt.bin");
    float big[1000];
    for (int i = 0; i < 1000; i++) big[i] = (float)i * 0.5f - 7.0f;
    uint64_t step = 123456789012345ull;
    BinSection s[] = {
        {"params", big, sizeof big},
        {"step", &step, sizeof step},
        {"empty", NULL, 0},
        {"text", "abc", 3},
        {"a_name_that_is_exactly_sixty_three_bytes_long_xxxxxxxxxxxxxxxxx", "z", 1},
    };
    CHECK(strlen(s[4].name) == 63);
    CHECK(binfile_write_atomic(path, 42, s, 5) == 0);
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);

    BinFile f;
    int rc = binfile_read(tpath("rt.bin"), &f);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "  %s\n", err_msg());
        return;
    }
    CHECK(f.version == 42);
    CHECK(f.n == 5);
    CHECK(binfile_require_version(&f, 42) == 0);
    const float *p = binfile_get(&f, "params", sizeof big);
    CHECK(p && memcmp(p, big, sizeof big) == 0);
    CHECK(p && (uintptr_t)p % BINFILE_ALIGN == 0);
    const uint64_t *st = binfile_get(&f, "step", sizeof step);
    CHECK(st && *st == step);
    CHECK(st && (uintptr_t)st % BINFILE_ALIGN == 0);
    CHECK(binfile_get(&f, "empty", 0) != NULL);
    size_t nb = 99;
    const char *t = binfile_find(&f, "text", &nb);
    CHECK(t && nb == 3 && memcmp(t, "abc", 3) == 0);
    const char *z = binfile_get(&f, s[4].name, 1);
    CHECK(z && *z == 'z');
    for (size_t i = 0; i < f.n; i++) CHECK(strcmp(f.sec[i].name, s[i].name) == 0);

    // missing section and wrong size: NULL with a message naming path and section
    CHECK(binfile_get(&f, "adam_m", 4) == NULL);
    CHECK(msg_has("rt.bin: no section 'adam_m'"));
    CHECK(binfile_get(&f, "params", 1234) == NULL);
    CHECK(msg_has("rt.bin: section 'params' has 4000 bytes, expected 1234"));
    CHECK(binfile_require_version(&f, 43) == ERR_RUNTIME);
    CHECK(msg_has("rt.bin: format version 42, this lmtrain reads version 43"));
    binfile_free(&f);
    CHECK(f.buf == NULL && f.sec == NULL && f.n == 0);
    binfile_free(&f);  // twice is harmless
}

static void test_zero_sections_and_overwrite(void) {
    const char *path = tpath("zero.bin");
    CHECK(binfile_write_atomic(path, 1, NULL, 0) == 0);
    BinFile f;
    CHECK(binfile_read(path, &f) == 0);
    CHECK(f.n == 0 && f.version == 1 && f.size == HDR + 4);
    binfile_free(&f);

    // overwriting replaces the content entirely
    int v = 5;
    BinSection s = {"v", &v, sizeof v};
    CHECK(binfile_write_atomic(path, 2, &s, 1) == 0);
    CHECK(binfile_read(path, &f) == 0);
    const int *pv = binfile_get(&f, "v", sizeof v);
    CHECK(f.version == 2 && pv && *pv == 5);
    binfile_free(&f);
}

// Byte offsets of interest in the small file, from its table.
typedef struct {
    size_t tend, data_lo[4], data_hi[4];
} SmallLayout;

static SmallLayout small_layout(const unsigned char *b) {
    SmallLayout L;
    L.tend = HDR + ENTRY * 4 + 4;
    for (int i = 0; i < 4; i++) {
        const unsigned char *e = b + HDR + ENTRY * i;
        uint64_t off = 0, bytes = 0;
        for (int k = 0; k < 8; k++) off |= (uint64_t)e[BINFILE_NAME_MAX + k] << (8 * k);
        for (int k = 0; k < 8; k++) bytes |= (uint64_t)e[BINFILE_NAME_MAX + 8 + k] << (8 * k);
        L.data_lo[i] = (size_t)off;
        L.data_hi[i] = (size_t)(off + bytes);
    }
    return L;
}

static void test_every_byte_flip_detected(void) {
    size_t n;
    unsigned char *good = make_small(tpath("flip_src.bin"), &n);
    const char *path = tpath("flip.bin");
    BinSection s[4];
    small_sections(s);
    SmallLayout L = small_layout(good);
    CHECK(L.data_hi[3] == n);
    CHECK(n > 300);  // header + 4 entries + 4 aligned sections: the test covers every region
    unsigned char *b = xmalloc(n);
    static const unsigned char masks[] = {0x01, 0x80, 0xFF, 0x5A};
    int undetected = 0, wrong_msg = 0;
    for (size_t pos = 0; pos < n; pos++) {
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(b, good, n);
            b[pos] ^= masks[m];
            write_raw(path, b, n);
            BinFile f;
            int rc = binfile_read(path, &f);
            if (rc != ERR_RUNTIME || f.buf != NULL) {
                if (undetected++ < 5) fprintf(stderr, "  flip at %zu ^%02x not detected\n", pos, masks[m]);
                if (rc == 0) binfile_free(&f);
                continue;
            }
            // the message must point at the damaged region
            int ok;
            if (pos < 8) {
                ok = msg_has("bad magic");
            } else if (pos < HDR) {
                ok = msg_has("header") || msg_has("format version");
            } else if (pos < L.tend) {
                ok = msg_has("section table");
            } else {
                ok = msg_has("padding");
                for (int i = 0; i < 4; i++)
                    if (pos >= L.data_lo[i] && pos < L.data_hi[i]) {
                        char want[96];
                        snprintf(want, sizeof want, "corrupted (checksum mismatch in section '%s')", s[i].name);
                        ok = msg_has(want);
                    }
            }
            if (!ok && wrong_msg++ < 5) fprintf(stderr, "  flip at %zu: unexpected message: %s\n", pos, err_msg());
        }
    }
    CHECK(undetected == 0);
    CHECK(wrong_msg == 0);
    free(b);
    free(good);
}

static void test_every_truncation_detected(void) {
    size_t n;
    unsigned char *good = make_small(tpath("trunc_src.bin"), &n);
    const char *path = tpath("trunc.bin");
    int undetected = 0, wrong_msg = 0;
    for (size_t len = 0; len < n; len++) {
        write_raw(path, good, len);
        BinFile f;
        int rc = binfile_read(path, &f);
        if (rc != ERR_RUNTIME) {
            undetected++;
            if (rc == 0) binfile_free(&f);
            continue;
        }
        char want[128];
        if (len == 0)
            snprintf(want, sizeof want, "trunc.bin: not an lmtrain checkpoint (empty file)");
        else if (len < HDR)
            snprintf(want, sizeof want, "trunc.bin: truncated (expected at least %d bytes, found %zu)", HDR, len);
        else
            snprintf(want, sizeof want, "trunc.bin: truncated (expected %zu bytes, found %zu)", n, len);
        if (!msg_has(want) && wrong_msg++ < 5) fprintf(stderr, "  len %zu: %s\n", len, err_msg());
    }
    CHECK(undetected == 0);
    CHECK(wrong_msg == 0);

    // and one byte too many
    unsigned char *longer = xmalloc(n + 1);
    memcpy(longer, good, n);
    longer[n] = 0;
    write_raw(path, longer, n + 1);
    BinFile f;
    CHECK(binfile_read(path, &f) == ERR_RUNTIME);
    CHECK(msg_has("trailing bytes"));
    free(longer);
    free(good);
}

static void test_random_garbage(void) {
    Rng r;
    rng_seed(&r, 2024);
    const char *path = tpath("garbage.bin");
    unsigned char *b = xmalloc(8192);
    int accepted = 0;
    for (int trial = 0; trial < 600; trial++) {
        size_t n = (size_t)rng_below(&r, 8192);
        for (size_t i = 0; i < n; i++) b[i] = (unsigned char)rng_u64(&r);
        int level = trial % 3;
        // level 0: pure noise; 1: valid magic; 2: valid magic, format, size and
        // header checksum with a random section count, so the table code runs
        if (level >= 1 && n >= 8) memcpy(b, "LMTRAIN", 8);
        if (level == 2 && n >= HDR) {
            put32(b + 8, BINFILE_FORMAT);
            put64(b + 16, n);
            uint32_t count = (uint32_t)rng_below(&r, 4) == 0 ? (uint32_t)rng_u64(&r)
                                                               : (uint32_t)rng_below(&r, 1 + (n - HDR) / ENTRY);
            put32(b + 24, count);
            put32(b + 28, crc32(b, 28, 0));
            // a valid table checksum too, half the time, to exercise the entry checks
            size_t tend = HDR + (size_t)ENTRY * count + 4;
            if (trial % 2 && count <= BINFILE_MAX_SECTIONS && tend <= n) put32(b + tend - 4, crc32(b, tend - 4, 0));
        }
        write_raw(path, b, n);
        BinFile f;
        int rc = binfile_read(path, &f);
        if (rc != ERR_RUNTIME) {
            accepted++;
            if (rc == 0) binfile_free(&f);
        }
        CHECK(f.buf == NULL && f.sec == NULL);
    }
    CHECK(accepted == 0);
    free(b);
}

// Files whose checksums are all valid but whose table lies: only the
// structural checks stand between these and an out-of-bounds read.
static void test_forged_tables(void) {
    size_t n;
    unsigned char *good = make_small(tpath("forge_src.bin"), &n);
    unsigned char *b = xmalloc(n + 64);
    const char *path = tpath("forge.bin");
    unsigned char *e1 = b + HDR + ENTRY * 1;  // entry of "params"
    struct {
        const char *what, *want;
    } cases[] = {
        {"offset overflow", "corrupted (section 'params' at offset"},
        {"size overflow", "run past the end"},
        {"size too large", "run past the end"},
        {"offset shifted", "corrupted (section 'params' at offset"},
        {"name unterminated", "section 1 has an invalid name"},
        {"name empty", "section 1 has an invalid name"},
        {"junk after name NUL", "section 1 has an invalid name"},
        {"duplicate name", "duplicate section 'meta'"},
        {"reserved set", "reserved field not zero"},
        {"padding set", "non-zero padding before section 'params'"},
        {"huge count", "sections, at most"},
        {"count too big for file", "does not fit"},
        {"format version 2", "container format version 2, this lmtrain reads version 1"},
        {"last section short", "1 trailing bytes after the last section"},
    };
    size_t nc = sizeof cases / sizeof cases[0];
    for (size_t c = 0; c < nc; c++) {
        memcpy(b, good, n);
        size_t count = 4;
        uint64_t params_off = 0;
        for (int k = 0; k < 8; k++) params_off |= (uint64_t)e1[BINFILE_NAME_MAX + k] << (8 * k);
        switch (c) {
        case 0: put64(e1 + BINFILE_NAME_MAX, UINT64_MAX - 8); break;
        case 1: put64(e1 + BINFILE_NAME_MAX + 8, UINT64_MAX - 16); break;
        case 2: put64(e1 + BINFILE_NAME_MAX + 8, n); break;
        case 3: put64(e1 + BINFILE_NAME_MAX, params_off + 4); break;
        case 4: memset(e1, 'x', BINFILE_NAME_MAX); break;
        case 5: memset(e1, 0, BINFILE_NAME_MAX); break;
        case 6: e1[BINFILE_NAME_MAX - 1] = 'q'; break;
        case 7: memcpy(e1, "meta\0\0\0", 7); break;
        case 8: e1[BINFILE_NAME_MAX + 20] = 1; break;
        case 9: {
            // a padding byte before "params", with every checksum still valid
            b[params_off - 1] = 0x33;
            break;
        }
        case 10: put32(b + 24, 0xFFFFFFFFu); put32(b + 28, crc32(b, 28, 0)); count = 0; break;
        case 11: put32(b + 24, BINFILE_MAX_SECTIONS); put32(b + 28, crc32(b, 28, 0)); count = 0; break;
        case 12: put32(b + 8, 2); break;
        case 13: {
            // "tail" claims one byte less (with a matching data checksum), so
            // the last byte of the file belongs to no section
            unsigned char *e3 = b + HDR + ENTRY * 3;
            put64(e3 + BINFILE_NAME_MAX + 8, sizeof B_DATA - 1);
            put32(e3 + BINFILE_NAME_MAX + 16, crc32(B_DATA, sizeof B_DATA - 1, 0));
            break;
        }
        }
        if (count) reseal(b, count);
        write_raw(path, b, n);
        BinFile f;
        int rc = binfile_read(path, &f);
        CHECK(rc == ERR_RUNTIME);
        if (rc == 0) binfile_free(&f);
        if (!msg_has(cases[c].want)) {
            fprintf(stderr, "  forged '%s': got \"%s\", want \"%s\"\n", cases[c].what, err_msg(), cases[c].want);
            CHECK(0);
        }
    }
    // sanity: resealing the untouched file keeps it valid (so the cases above
    // fail for the edit, not for the reseal)
    memcpy(b, good, n);
    reseal(b, 4);
    write_raw(path, b, n);
    BinFile f;
    CHECK(binfile_read(path, &f) == 0);
    binfile_free(&f);
    free(b);
    free(good);
}

static void test_missing_and_not_regular(void) {
    BinFile f;
    CHECK(binfile_read(tpath("does_not_exist.bin"), &f) == ERR_RUNTIME);
    CHECK(msg_has("does_not_exist.bin: cannot open: No such file or directory"));
    CHECK(f.buf == NULL);
    CHECK(binfile_read(g_dir, &f) == ERR_RUNTIME);
    CHECK(msg_has("not a regular file"));
}

static void test_bad_arguments_write_nothing(void) {
    const char *path = tpath("badargs.bin");
    int x = 1;
    BinSection dup[2] = {{"a", &x, sizeof x}, {"a", &x, sizeof x}};
    CHECK(binfile_write_atomic(path, 1, dup, 2) == ERR_RUNTIME);
    CHECK(msg_has("duplicate section 'a'"));
    BinSection empty = {"", &x, sizeof x};
    CHECK(binfile_write_atomic(path, 1, &empty, 1) == ERR_RUNTIME);
    char longname[80];
    memset(longname, 'n', 64);
    longname[64] = 0;
    BinSection lng = {longname, &x, sizeof x};
    CHECK(binfile_write_atomic(path, 1, &lng, 1) == ERR_RUNTIME);
    CHECK(msg_has("name must be 1..63 bytes"));
    BinSection nodata = {"d", NULL, 4};
    CHECK(binfile_write_atomic(path, 1, &nodata, 1) == ERR_RUNTIME);
    CHECK(!file_exists(path));
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);

    CHECK(binfile_write_atomic("/nonexistent_dir_for_lmtrain_test/x.bin", 1, NULL, 0) == ERR_RUNTIME);
    CHECK(msg_has("/nonexistent_dir_for_lmtrain_test/x.bin: cannot create temporary file: No such file"));
}

// A write that hits the file size limit (as a full disk would) must fail with
// a clear message and leave the previous checkpoint byte-for-byte intact.
static void test_failed_write_keeps_old_file(void) {
    const char *path_c = tpath("limit.bin");
    char path[256];
    snprintf(path, sizeof path, "%s", path_c);
    size_t n_old;
    unsigned char *old = make_small(path, &n_old);

    fflush(NULL);  // do not let the child flush our buffers twice
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);  // so write() returns EFBIG instead of killing us
        struct rlimit rl = {64 * 1024, 64 * 1024};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(10);
        size_t big = 1 << 20;
        unsigned char *data = calloc(big, 1);
        if (!data) _exit(11);
        BinSection s = {"params", data, big};
        int rc = binfile_write_atomic(path, 8, &s, 1);
        if (rc != ERR_RUNTIME) _exit(12);
        if (!strstr(err_msg(), path)) _exit(13);
        if (!strstr(err_msg(), "disk full or file size limit")) _exit(14);
        if (!strstr(err_msg(), strerror(EFBIG))) _exit(15);
        if (count_temp_files(g_dir, NULL, 0) != 0) _exit(16);  // temporary file cleaned up
        free(data);
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) fprintf(stderr, "  child failed check %d\n", WEXITSTATUS(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    size_t n_now = 0;
    unsigned char *now = slurp(path, &n_now);
    CHECK(now && n_now == n_old && memcmp(now, old, n_old) == 0);
    BinFile f;
    CHECK(binfile_read(path, &f) == 0);
    CHECK(f.version == 7);
    binfile_free(&f);
    CHECK(count_temp_files(g_dir, NULL, 0) == 0);
    free(now);
    free(old);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/test_binfile.XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    TEST(test_crc32_known_values);
    TEST(test_crc32_matches_bitwise_and_chains);
    TEST(test_round_trip);
    TEST(test_zero_sections_and_overwrite);
    TEST(test_every_byte_flip_detected);
    TEST(test_every_truncation_detected);
    TEST(test_random_garbage);
    TEST(test_forged_tables);
    TEST(test_missing_and_not_regular);
    TEST(test_bad_arguments_write_nothing);
    TEST(test_failed_write_keeps_old_file);

    // clean up the scratch directory (only files this test created)
    static const char *names[] = {"rt.bin", "zero.bin", "flip_src.bin", "flip.bin", "trunc_src.bin", "trunc.bin",
                                  "garbage.bin", "forge_src.bin", "forge.bin", "limit.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tpath(names[i]));
    if (rmdir(g_dir) != 0) fprintf(stderr, "note: could not remove %s: %s\n", g_dir, strerror(errno));
    return test_summary();
}
