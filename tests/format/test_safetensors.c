// test_safetensors.c — the JSON string escaper/reader and the safetensors
// writer/reader: exact escapes, round trips, header layout, and rejection of
// malformed input (each with a valid control so a rejection is for the reason
// the case names).
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../temp_files.h"
#include "../test.h"
#include "format/json.h"
#include "format/json_read.h"
#include "format/safetensors.h"
#include "format/safetensors_read.h"
#include "util/err.h"
#include "util/rng.h"

static char dir[64];

// json_write_string into a malloc'd NUL-terminated string
static char *escape(const char *s, size_t n) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_write_string(f, s, n);
    fclose(f);
    return buf;
}

static int all_ascii(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return 0;
    return 1;
}

// ============================================================================
// JSON strings
// ============================================================================

static void test_escape_exact(void) {
    static const struct {
        const char *in;
        size_t n;
        const char *want;
    } cases[] = {
        {"plain text / ok", 15, "\"plain text / ok\""},
        {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
        {"\n\t\r\b\f", 5, "\"\\n\\t\\r\\b\\f\""},
        {"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\""},
        {"a\0b", 3, "\"a\\u0000b\""},
        {"", 0, "\"\""},
        {"\xc3\xa9", 2, "\"\\u00e9\""},                   // é, valid UTF-8
        {"\xe2\x82\xac", 3, "\"\\u20ac\""},               // €
        {"\xf0\x9f\x98\x80", 4, "\"\\ud83d\\ude00\""},    // U+1F600, a surrogate pair
        {"\xf4\x8f\xbf\xbf", 4, "\"\\udbff\\udfff\""},    // U+10FFFF, the last code point
        {"\xff", 1, "\"\\u00ff\""},                       // never valid: Latin-1
        {"\xc3", 1, "\"\\u00c3\""},                       // truncated sequence
        {"\xc3(", 2, "\"\\u00c3(\""},                     // bad continuation
        {"\xc0\x80", 2, "\"\\u00c0\\u0080\""},            // overlong NUL
        {"\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\""}, // overlong '/'
        {"\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\""}, // encoded surrogate U+D800
        {"\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\""},  // above U+10FFFF
        {"\x80", 1, "\"\\u0080\""},                       // lone continuation byte
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = escape(cases[i].in, cases[i].n);
        CHECK(strcmp(got, cases[i].want) == 0);
        CHECK(all_ascii(got));
        if (strcmp(got, cases[i].want) != 0) fprintf(stderr, "  case %zu: got %s want %s\n", i, got, cases[i].want);
        free(got);
    }
}

// escape, then read back with json_read_string
static int roundtrip(const char *s, size_t n, char **out, size_t *len) {
    char *e = escape(s, n);
    const char *p = e, *end = e + strlen(e);
    int rc = json_read_string(&p, end, e, out, len);
    if (!rc && p != end) rc = -1;  // the whole literal, quotes included, is consumed
    free(e);
    return rc;
}

// Encodes code point cp as UTF-8 (the test's own encoder).
static size_t enc(uint32_t cp, unsigned char *o) {
    if (cp < 0x80) return o[0] = (unsigned char)cp, 1;
    if (cp < 0x800) return o[0] = (unsigned char)(0xC0 | cp >> 6), o[1] = (unsigned char)(0x80 | (cp & 63)), 2;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 63));
        o[2] = (unsigned char)(0x80 | (cp & 63));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 63));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 63));
    o[3] = (unsigned char)(0x80 | (cp & 63));
    return 4;
}

static void test_escape_roundtrip(void) {
    // every single byte: ASCII comes back as itself, a lone high byte as the
    // UTF-8 of the Latin-1 character of that value
    for (int b = 0; b < 256; b++) {
        char in = (char)b, *out = NULL;
        size_t len = 0;
        unsigned char want[4];
        size_t wn = enc((uint32_t)b, want);
        CHECK(roundtrip(&in, 1, &out, &len) == 0);
        CHECK(out && len == wn && memcmp(out, want, wn) == 0);
        free(out);
    }
    // random valid UTF-8 strings (every range: controls, quotes, BMP, astral) come back exactly
    Rng r;
    rng_seed(&r, 42);
    for (int t = 0; t < 300; t++) {
        unsigned char s[400];
        size_t n = 0;
        int count = (int)(rng_below(&r, 60));
        for (int i = 0; i < count; i++) {
            uint32_t cp;
            switch (rng_below(&r, 5)) {
            case 0: cp = (uint32_t)(rng_below(&r, 0x20)); break;   // controls, NUL included
            case 1: cp = (uint32_t)(0x20 + rng_below(&r, 0x60)); break;  // printable ASCII, DEL
            case 2: cp = (uint32_t)(0x80 + rng_below(&r, 0x780)); break;
            case 3: cp = (uint32_t)(0x800 + rng_below(&r, 0xF800)); break;
            default: cp = (uint32_t)(0x10000 + rng_below(&r, 0x100000)); break;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = '"';  // surrogates are not characters
            n += enc(cp, s + n);
        }
        char *out = NULL;
        size_t len = 0;
        CHECK(roundtrip((const char *)s, n, &out, &len) == 0);
        CHECK(out && len == n && memcmp(out, s, n) == 0);
        free(out);
    }
}

static void test_read_string_strict(void) {
    // accepted: escapes the writer never emits but JSON allows
    static const struct {
        const char *in, *want;
    } ok[] = {
        {"\"a\\/b\"", "a/b"},
        {"\"\\u00E9\"", "\xc3\xa9"},
        {"\"\\uD83D\\uDE00\"", "\xf0\x9f\x98\x80"},
        {"\"raw \xc3\xa9\"", "raw \xc3\xa9"},
        {"\"\\\\\"", "\\"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *p = ok[i].in;
        char *out = NULL;
        size_t len = 0;
        CHECK(json_read_string(&p, ok[i].in + strlen(ok[i].in), ok[i].in, &out, &len) == 0);
        CHECK(out && len == strlen(ok[i].want) && strcmp(out, ok[i].want) == 0);
        CHECK(p == ok[i].in + strlen(ok[i].in));
        free(out);
    }
    // rejected
    const char *bad[] = {
        "\"tab\there\"",     // raw control character
        "\"nl\nhere\"",
        "\"\\x41\"",         // unknown escape
        "\"\\u12\"",         // short \u
        "\"\\u12g4\"",       // bad hex digit
        "\"\\udc00\"",       // lone low surrogate
        "\"\\ud800\"",       // high surrogate at the end
        "\"\\ud800x\"",      // high surrogate followed by text
        "\"\\ud800\\u0041\"",  // high surrogate followed by a non-surrogate
        "\"\\ud800\\ue000\"",  // ... by a code point just above the low surrogates
        "\"\\ud800\\ud800\"",  // ... by another high surrogate
        "\"unterminated",
        "\"ends in backslash\\",
        "\"escaped quote\\\"",
        "nostring",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = bad[i];
        char *out = NULL;
        size_t len = 0;
        int rc = json_read_string(&p, bad[i] + strlen(bad[i]), bad[i], &out, &len);
        CHECK(rc == ERR_RUNTIME);
        CHECK(out == NULL && p == bad[i]);
        if (rc != ERR_RUNTIME) fprintf(stderr, "  accepted bad case %zu: %s\n", i, bad[i]);
        free(out);
    }
}

// ============================================================================
// safetensors
// ============================================================================

static uint64_t le64(const void *p) {
    const unsigned char *b = p;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static void test_header_alignment(void) {
    float x[3] = {1, 2, 3};
    char val[32];
    memset(val, 'v', sizeof val);
    // every header length mod 8 is reached by varying one metadata value
    int seen[8] = {0};
    for (size_t vl = 0; vl < 24; vl++) {
        StMeta m = {"k", val, vl};
        StTensor t = {.name = "x", .ndim = 1, .shape = {3}, .data = x};
        char *h = NULL;
        size_t n = 0;
        CHECK(safetensors_header(&h, &n, &m, 1, &t, 1) == 0);
        if (!h) continue;
        CHECK(n % 8 == 0);
        CHECK(le64(h) == n - 8);
        CHECK(h[8] == '{');
        // the JSON text ends at the last '}', after it only spaces, fewer than 8
        size_t last = n - 1;
        while (h[last] == ' ') last--;
        CHECK(h[last] == '}');
        CHECK(n - 1 - last < 8);
        seen[(last + 1) % 8] = 1;
        free(h);
    }
    for (int r = 0; r < 8; r++) CHECK(seen[r]);  // padding 0..7 all exercised
}

static void test_roundtrip_file(void) {
    float a[6], b[4], c[24], d[1];
    for (int i = 0; i < 6; i++) a[i] = (float)i - 2.5f;
    for (int i = 0; i < 4; i++) b[i] = 1.0f / (float)(i + 1);
    for (int i = 0; i < 24; i++) c[i] = (float)(i * i);
    d[0] = NAN;  // raw bits travel unchanged, non-finite values included
    b[3] = -INFINITY;
    const char tricky[] = "line1\nq\"uote\\back\x01\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \0after-nul";
    StMeta meta[] = {
        {"plain", "hello", 5},
        {"tricky", tricky, sizeof tricky - 1},
        {"empty", "", 0},
        {"k\"ey\n\xc3\xa9", "v", 1},
    };
    StTensor t[] = {
        {.name = "a.weight", .ndim = 2, .shape = {2, 3}, .data = a},
        {.name = "b", .ndim = 1, .shape = {4}, .data = b},
        {.name = "c \"odd\" name\t\xc3\xa9", .ndim = 3, .shape = {2, 3, 4}, .data = c},
        {.name = "d", .ndim = 1, .shape = {1}, .data = d},
        {.name = "zero", .ndim = 2, .shape = {0, 5}, .data = d},
    };
    size_t nt = sizeof t / sizeof t[0], nm = sizeof meta / sizeof meta[0];
    char path[128];
    snprintf(path, sizeof path, "%s/rt.safetensors", dir);
    CHECK(safetensors_write(path, meta, nm, t, nt) == 0);
    CHECK(count_temp_files(dir, NULL, 0) == 0);  // the temporary file is gone after the rename
    StFile f;
    int rc = safetensors_read(path, &f);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "  %s\n", err_msg());
        return;
    }
    CHECK(f.header_bytes % 8 == 0);
    CHECK(f.n == nt && f.n_meta == nm);
    size_t off = 0;
    for (size_t i = 0; i < nt && i < f.n; i++) {
        const StEntry *e = &f.t[i];  // header order = the order written
        CHECK(strcmp(e->name, t[i].name) == 0);
        CHECK(strcmp(e->dtype, "F32") == 0);
        CHECK(e->ndim == t[i].ndim);
        size_t elems = 1;
        for (size_t k = 0; k < t[i].ndim; k++) {
            CHECK(e->shape[k] == t[i].shape[k]);
            elems *= t[i].shape[k];
        }
        CHECK(e->begin == off && e->end == off + 4 * elems);  // contiguous, in order, no padding
        CHECK(memcmp(f.data + e->begin, t[i].data, 4 * elems) == 0);
        CHECK(safetensors_find(&f, t[i].name) == e);
        off = e->end;
    }
    CHECK(off == f.data_bytes);
    CHECK(f.size == 8 + f.header_bytes + off);
    for (size_t i = 0; i < nm; i++) {
        size_t len = 0;
        const char *v = safetensors_meta(&f, meta[i].key, &len);
        CHECK(v && len == meta[i].len && memcmp(v, meta[i].value, len) == 0);
    }
    CHECK(safetensors_find(&f, "nope") == NULL && safetensors_meta(&f, "nope", NULL) == NULL);
    safetensors_free(&f);
    safetensors_free(&f);  // idempotent
}

static void test_writer_rejects(void) {
    float x[4] = {0};
    StTensor ok = {.name = "x", .ndim = 1, .shape = {4}, .data = x};
    char *h = NULL;
    size_t n = 0;
    CHECK(safetensors_header(&h, &n, NULL, 0, &ok, 1) == 0);  // control
    free(h);
    StTensor dup[] = {ok, ok};
    StTensor empty = ok, reserved = ok, rank0 = ok, rank9 = ok, huge = ok;
    empty.name = "";
    reserved.name = "__metadata__";
    rank0.ndim = 0;
    rank9.ndim = ST_MAX_DIMS + 1;
    huge.ndim = 2;
    huge.shape[0] = huge.shape[1] = SIZE_MAX / 2;
    const StTensor *one[] = {&empty, &reserved, &rank0, &rank9, &huge};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        h = NULL;
        CHECK(safetensors_header(&h, &n, NULL, 0, one[i], 1) == ERR_RUNTIME);
        CHECK(h == NULL);
    }
    CHECK(safetensors_header(&h, &n, NULL, 0, dup, 2) == ERR_RUNTIME);
    CHECK(strstr(err_msg(), "twice") != NULL);
    StMeta m2[] = {{"k", "a", 1}, {"k", "b", 1}};
    CHECK(safetensors_header(&h, &n, m2, 2, &ok, 1) == ERR_RUNTIME);
    // a write that cannot happen leaves nothing behind
    char path[128];
    snprintf(path, sizeof path, "%s/no/such/dir/x.safetensors", dir);
    CHECK(safetensors_write(path, NULL, 0, &ok, 1) == ERR_RUNTIME);
    CHECK(access(path, F_OK) != 0);
}

// A file from a header text and `data` zero bytes of data; the header is
// taken as is (no padding), its length prefix may be overridden.
static int parse_raw(const char *json, size_t data, long long len_override) {
    size_t hn = strlen(json), size = 8 + hn + data;
    unsigned char *b = calloc(size, 1);
    uint64_t n = len_override >= 0 ? (uint64_t)len_override : hn;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(n >> (8 * i));
    memcpy(b + 8, json, hn);
    StFile f;
    int rc = safetensors_parse(b, size, "mem", &f);
    if (rc == 0) safetensors_free(&f);
    else CHECK(f.t == NULL && f.buf == NULL);  // left empty on error
    free(b);
    return rc;
}

static void test_reader_rejects(void) {
    // controls that must parse
    const char *A = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                    "\"b\":{\"dtype\":\"F32\",\"shape\":[1,1],\"data_offsets\":[8,12]}}";
    CHECK(parse_raw(A, 12, -1) == 0);
    CHECK(parse_raw("{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]},"
                    "\"a\":{\"shape\":[2],\"data_offsets\":[0,8],\"dtype\":\"F32\"}}  \n ",
                    12, -1) == 0);  // any header order, any key order, trailing whitespace
    CHECK(parse_raw("{}", 0, -1) == 0);
    CHECK(parse_raw("{\"__metadata__\":{},\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]}}", 1, -1) ==
          0);  // a scalar
    CHECK(parse_raw("{ \"__metadata__\" : { \"k\" : \"v\" } , \"e\" : { \"dtype\" : \"I64\" , \"shape\" : [ 0 ] ,"
                    " \"data_offsets\" : [ 0 , 0 ] } }",
                    0, -1) == 0);
    static const struct {
        const char *json;
        size_t data;
        long long len;
        const char *why;
    } bad[] = {
        {"{}", 0, 100, "exceeds"},                       // length prefix past the end
        {"[]", 0, -1, "expected '{'"},
        {"{} x", 0, -1, "trailing"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, -1, "cover"},  // data left over
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, -1, "gap"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, -1, "overlap"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, -1, "shape and dtype"},
        {"{\"a\":{\"dtype\":\"F33\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1, "dtype"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, -1, "begin <= end"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 8, -1, "begin <= end"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, -1, "integer"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[02],\"data_offsets\":[0,8]}}", 8, -1, "leading zero"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", 8, -1, "integer"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999],\"data_offsets\":[0,8]}}", 8, -1, "large"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, -1, "lacks"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, -1, "unknown key"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1, "repeated"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]}}", 8, -1, "repeated"},
        {"{\"__metadata__\":{\"k\":1}}", 0, -1, "strings"},
        {"{\"__metadata__\":{\"k\":\"a\",\"k\":\"b\"}}", 0, -1, "repeated"},
        {"{\"__metadata__\":{},\"__metadata__\":{}}", 0, -1, "repeated"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},}", 8, -1, "expected a string"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, -1, "expected ','"},
        {"{\"\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, -1, "empty name"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4, -1, "too many"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = parse_raw(bad[i].json, bad[i].data, bad[i].len);
        int named = rc && strstr(err_msg(), bad[i].why) && strstr(err_msg(), "mem");
        CHECK(rc == ERR_RUNTIME);
        CHECK(named);
        if (rc != ERR_RUNTIME || !named)
            fprintf(stderr, "  case %zu (%s): rc %d, message: %s\n", i, bad[i].why, rc, err_msg());
    }
    StFile f;
    CHECK(safetensors_parse("1234567", 7, "mem", &f) == ERR_RUNTIME);  // shorter than the prefix
    CHECK(safetensors_read("/nonexistent/x.safetensors", &f) == ERR_RUNTIME);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/lmtrain-st-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    TEST(test_escape_exact);
    TEST(test_escape_roundtrip);
    TEST(test_read_string_strict);
    TEST(test_header_alignment);
    TEST(test_roundtrip_file);
    TEST(test_writer_rejects);
    TEST(test_reader_rejects);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
    return test_summary();
}
