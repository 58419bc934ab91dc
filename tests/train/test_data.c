// test_data.c — the text dataset: vocabulary, splits, batches, eval windows,
// prompts, and every error a user can hit with [data] path.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "test.h"
#include "train/data.h"
#include "util/err.h"
#include "util/rng.h"

// ---------------------------------------------------------------------------
// helpers

// The six bytes the generated corpora use, in increasing order: NUL and 0xFF
// on purpose, the file is bytes, not a C string.
static const unsigned char SYMS[6] = {0x00, '\n', 'a', 'z', 0x80, 0xFF};

static void make_tmp_file(char path[64], const unsigned char *bytes, size_t n) {
    snprintf(path, 64, "/tmp/lmtrain_test_data_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, bytes + done, n - done);
        if (w <= 0) {
            perror("write");
            exit(1);
        }
        done += (size_t)w;
    }
    close(fd);
}

// n bytes drawn uniformly from SYMS with a fixed seed
static unsigned char *random_corpus(size_t n, uint64_t seed) {
    unsigned char *b = malloc(n);
    Rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) b[i] = SYMS[rng_below(&r, 6)];
    return b;
}

static void text_config(Config *c, const char *path, int block_size, double val_fraction) {
    memset(c, 0, sizeof *c);
    c->task = TASK_TEXT;
    snprintf(c->path, sizeof c->path, "%s", path);
    c->block_size = block_size;
    c->val_fraction = val_fraction;
    c->seed = 1337;
}

// Reference token id: the rank of the byte among the distinct bytes of the file.
static void reference_ids(const unsigned char *bytes, size_t n, int *ids) {
    int present[256] = {0}, rank[256];
    for (size_t i = 0; i < n; i++) present[bytes[i]] = 1;
    for (int b = 0, k = 0; b < 256; b++) rank[b] = present[b] ? k++ : -1;
    for (size_t i = 0; i < n; i++) ids[i] = rank[bytes[i]];
}

// Opens a config that must fail; returns the exit status, message in err_msg().
static int open_fails(const Config *c) {
    Dataset *d = (Dataset *)1;
    err_clear();
    int rc = dataset_open(c, &d);
    if (rc == 0) dataset_free(d);
    else CHECK(d == NULL);
    return rc;
}

#define CHECK_MSG_HAS(s)                                                          \
    do {                                                                          \
        if (!strstr(err_msg(), (s))) {                                            \
            fprintf(stderr, "  message was: %s\n  missing: %s\n", err_msg(), (s)); \
            CHECK(!"message lacks expected text");                                \
        }                                                                         \
    } while (0)

// ---------------------------------------------------------------------------
// vocabulary

static void test_vocab_is_sorted_distinct_bytes(void) {
    size_t n = 1000;
    unsigned char *bytes = random_corpus(n, 1);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, 16, 0.1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    CHECK(dataset_task(d) == TASK_TEXT);
    CHECK(dataset_vocab_size(d) == 6);
    for (int t = 0; t < 6; t++) {
        char buf[8];
        CHECK(dataset_decode(d, t, buf) == 1);
        CHECK((unsigned char)buf[0] == SYMS[t]);  // id order = byte order, 0x00 first, 0xFF last
        CHECK(dataset_encode_byte(d, SYMS[t]) == t);
    }
    CHECK(dataset_encode_byte(d, 'b') == -1);
    CHECK(dataset_encode_byte(d, 0x01) == -1);
    CHECK(dataset_encode_byte(d, 0xFE) == -1);

    // fingerprint: same file -> same value; a file with other bytes -> different
    uint64_t fp = dataset_vocab_fingerprint(d);
    Dataset *d2;
    CHECK(dataset_open(&c, &d2) == 0);
    CHECK(dataset_vocab_fingerprint(d2) == fp);
    dataset_free(d2);
    bytes[0] = 'q';  // adds a seventh byte
    char path2[64];
    make_tmp_file(path2, bytes, n);
    text_config(&c, path2, 16, 0.1);
    CHECK(dataset_open(&c, &d2) == 0);
    CHECK(dataset_vocab_size(d2) == 7);
    CHECK(dataset_vocab_fingerprint(d2) != fp);
    dataset_free(d2);
    // same vocabulary size, one byte swapped for another: still a different fingerprint
    for (size_t i = 0; i < n; i++)
        if (bytes[i] == 'a') bytes[i] = 'b';
    bytes[0] = SYMS[0];
    char path3[64];
    make_tmp_file(path3, bytes, n);
    text_config(&c, path3, 16, 0.1);
    CHECK(dataset_open(&c, &d2) == 0);
    CHECK(dataset_vocab_size(d2) == 6);
    CHECK(dataset_vocab_fingerprint(d2) != fp);
    dataset_free(d2);

    dataset_free(d);
    unlink(path);
    unlink(path2);
    unlink(path3);
    free(bytes);
}

// ---------------------------------------------------------------------------
// splits

static void check_split(size_t n, double vf, size_t want_train) {
    unsigned char *bytes = random_corpus(n, 2);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, 8, vf);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    CHECK(dataset_split_tokens(d, SPLIT_TRAIN) == want_train);
    CHECK(dataset_split_tokens(d, SPLIT_VAL) == n - want_train);
    dataset_free(d);
    unlink(path);
    free(bytes);
}

static void test_split_sizes(void) {
    check_split(1000, 0.1, 900);
    check_split(1001, 0.25, 750);    // floor(1001 * 0.75) = floor(750.75)
    check_split(1009, 0.1, 908);     // floor(908.1): the remainder goes to validation
    check_split(200, 0.5, 100);
}

// ---------------------------------------------------------------------------
// batches

// Each row must be some window of the split: inputs = ids[s .. s+T), targets =
// ids[s+1 .. s+T] with s in [0, n_split - T - 1]. Returns the number of rows
// that are not (0 = all good).
static int rows_not_windows(const int *ids, size_t n_split, size_t B, size_t T, const int *inputs,
                            const int *targets) {
    int bad = 0;
    for (size_t b = 0; b < B; b++) {
        const int *in = inputs + b * T, *tg = targets + b * T;
        int found = 0;
        for (size_t s = 0; s + T + 1 <= n_split && !found; s++) {
            int ok = 1;
            for (size_t i = 0; i < T && ok; i++) ok = in[i] == ids[s + i] && tg[i] == ids[s + i + 1];
            found = ok;
        }
        if (!found) bad++;
    }
    return bad;
}

static void test_batches_are_windows_of_their_split(void) {
    size_t n = 1000, T = 16, B = 32;
    unsigned char *bytes = random_corpus(n, 3);
    int *ids = malloc(n * sizeof *ids);
    reference_ids(bytes, n, ids);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, (int)T, 0.1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    int *inputs = malloc(B * T * sizeof *inputs), *targets = malloc(B * T * sizeof *targets);
    Rng rng;
    rng_seed(&rng, 7);
    for (int rep = 0; rep < 5; rep++) {
        dataset_batch(d, SPLIT_TRAIN, &rng, B, T, inputs, targets);
        CHECK(rows_not_windows(ids, 900, B, T, inputs, targets) == 0);
        for (size_t b = 0; b < B; b++)  // shifted by one inside the row
            for (size_t i = 0; i + 1 < T; i++) CHECK(targets[b * T + i] == inputs[b * T + i + 1]);
        dataset_batch(d, SPLIT_VAL, &rng, B, T, inputs, targets);
        CHECK(rows_not_windows(ids + 900, 100, B, T, inputs, targets) == 0);
    }
    // T shorter than block_size is allowed (e.g. a shorter context); still windows
    dataset_batch(d, SPLIT_VAL, &rng, B, 5, inputs, targets);
    CHECK(rows_not_windows(ids + 900, 100, B, 5, inputs, targets) == 0);
    free(inputs);
    free(targets);
    free(ids);
    dataset_free(d);
    unlink(path);
    free(bytes);
}

// Bytes i % 256 make every window start readable from its first token: the
// training split is bytes 0 .. 255 (so id == byte and train start s has first
// token s), validation is bytes 0 .. 34 again. Every start in
// [0, n_split - T - 1] must occur, none outside, and about equally often.
static void test_batch_starts_cover_the_range_uniformly(void) {
    size_t n = 291, T = 32;  // floor(291 * 0.88) = 256 train (224 starts), 35 val (starts 0, 1, 2)
    unsigned char *bytes = malloc(n);
    for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(i % 256);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, (int)T, 0.12);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    CHECK(dataset_vocab_size(d) == 256);
    CHECK(dataset_split_tokens(d, SPLIT_TRAIN) == 256);
    CHECK(dataset_split_tokens(d, SPLIT_VAL) == 35);
    size_t B = 100, draws = 22400, n_starts = 224;
    int *inputs = malloc(B * T * sizeof *inputs), *targets = malloc(B * T * sizeof *targets);
    size_t count[224] = {0}, bad = 0;
    Rng rng;
    rng_seed(&rng, 11);
    for (size_t k = 0; k < draws / B; k++) {
        dataset_batch(d, SPLIT_TRAIN, &rng, B, T, inputs, targets);
        for (size_t b = 0; b < B; b++) {
            size_t s = (size_t)inputs[b * T];
            if (s >= n_starts || (size_t)targets[b * T + T - 1] != s + T) bad++;
            else count[s]++;
        }
    }
    CHECK(bad == 0);
    // Binomial(draws, 1/224): mean 100, sigma 9.98; 5 sigmas per start. An
    // off-by-one range (start 223 never drawn, or 224 drawn) fails this.
    double p = 1.0 / (double)n_starts, mean = (double)draws * p;
    double sigma = sqrt((double)draws * p * (1 - p));
    for (size_t s = 0; s < n_starts; s++) CHECK_NEAR((double)count[s], mean, 5 * sigma);

    size_t seen[3] = {0};
    bad = 0;
    for (int k = 0; k < 10; k++) {
        dataset_batch(d, SPLIT_VAL, &rng, B, T, inputs, targets);
        for (size_t b = 0; b < B; b++) {
            int s = inputs[b * T];
            if (s < 0 || s > 2 || targets[b * T + T - 1] != s + (int)T) bad++;
            else seen[s]++;
        }
    }
    CHECK(bad == 0);
    CHECK(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);  // P(missing one) ~ 3 (2/3)^1000
    free(inputs);
    free(targets);
    dataset_free(d);
    unlink(path);
    free(bytes);
}

static void test_same_seed_same_batches(void) {
    size_t n = 2000, T = 32, B = 8;
    unsigned char *bytes = random_corpus(n, 4);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, (int)T, 0.1);
    Dataset *d1, *d2;
    CHECK(dataset_open(&c, &d1) == 0);
    CHECK(dataset_open(&c, &d2) == 0);
    size_t sz = B * T * sizeof(int);
    int *i1 = malloc(sz), *t1 = malloc(sz), *i2 = malloc(sz), *t2 = malloc(sz);
    Rng a, b, other;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_seed(&other, 43);
    int differs_from_other = 0;
    for (int step = 0; step < 20; step++) {
        dataset_batch(d1, SPLIT_TRAIN, &a, B, T, i1, t1);
        // d2 also serves validation batches from its own Rng in between: the
        // dataset holds no position, so the training stream must not change
        Rng val_rng;
        rng_seed(&val_rng, (uint64_t)step);
        dataset_batch(d2, SPLIT_VAL, &val_rng, B, T, i2, t2);
        dataset_batch(d2, SPLIT_TRAIN, &b, B, T, i2, t2);
        CHECK(memcmp(i1, i2, sz) == 0 && memcmp(t1, t2, sz) == 0);
        dataset_batch(d2, SPLIT_TRAIN, &other, B, T, i2, t2);
        if (memcmp(i1, i2, sz) != 0) differs_from_other = 1;
    }
    CHECK(differs_from_other);
    CHECK(a.s == b.s);
    free(i1);
    free(t1);
    free(i2);
    free(t2);
    dataset_free(d1);
    dataset_free(d2);
    unlink(path);
    free(bytes);
}

// ---------------------------------------------------------------------------
// eval windows

static void check_eval_windows(const Dataset *d, const int *ids, int split, size_t n_split, size_t T) {
    size_t want = (n_split - 1) / T;
    CHECK(dataset_eval_windows(d, split, T) == want);
    int *in = malloc(T * sizeof *in), *tg = malloc(T * sizeof *tg);
    for (size_t w = 0; w < want; w++) {
        dataset_eval_window(d, split, w, T, in, tg);
        for (size_t j = 0; j < T; j++) {
            CHECK(in[j] == ids[w * T + j]);
            CHECK(tg[j] == ids[w * T + j + 1]);
        }
    }
    free(in);
    free(tg);
}

static void test_eval_windows(void) {
    size_t n = 1000;
    unsigned char *bytes = random_corpus(n, 5);
    int *ids = malloc(n * sizeof *ids);
    reference_ids(bytes, n, ids);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, 16, 0.1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    check_eval_windows(d, ids, SPLIT_TRAIN, 900, 16);        // 899 / 16 = 56, partial dropped
    check_eval_windows(d, ids + 900, SPLIT_VAL, 100, 16);    // 99 / 16 = 6
    check_eval_windows(d, ids + 900, SPLIT_VAL, 100, 33);    // 99 / 33 = 3: the last target is the last byte
    check_eval_windows(d, ids + 900, SPLIT_VAL, 100, 99);    // one window spanning the split
    CHECK(dataset_eval_windows(d, SPLIT_VAL, 100) == 0);     // needs 101 bytes
    CHECK(dataset_eval_windows(d, SPLIT_VAL, 16) == 6);
    free(ids);
    dataset_free(d);
    unlink(path);
    free(bytes);
}

// ---------------------------------------------------------------------------
// prompts

static void test_encode_prompt(void) {
    size_t n = 400;
    unsigned char *bytes = random_corpus(n, 6);
    char path[64];
    make_tmp_file(path, bytes, n);
    Config c;
    text_config(&c, path, 8, 0.1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    int out[16];
    size_t k = 99;
    CHECK(dataset_encode_prompt(d, "az\na", out, 16, &k) == 0);
    CHECK(k == 4);
    CHECK(out[0] == 2 && out[1] == 3 && out[2] == 1 && out[3] == 2);  // SYMS order
    CHECK(dataset_encode_prompt(d, "", out, 16, &k) == 0 && k == 0);
    CHECK(dataset_encode_prompt(d, "ab", out, 16, &k) == ERR_USAGE);
    CHECK_MSG_HAS("'b'");
    CHECK_MSG_HAS(path);
    CHECK(dataset_encode_prompt(d, "a\x01", out, 16, &k) == ERR_USAGE);
    CHECK_MSG_HAS("0x01");
    CHECK(dataset_encode_prompt(d, "aaaa", out, 3, &k) == ERR_USAGE);
    CHECK_MSG_HAS("longer than 3");
    dataset_free(d);
    unlink(path);
    free(bytes);
}

// ---------------------------------------------------------------------------
// errors

static void test_missing_file(void) {
    Config c;
    text_config(&c, "/tmp/lmtrain_test_no_such_dir/corpus.txt", 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("cannot open /tmp/lmtrain_test_no_such_dir/corpus.txt");
    CHECK_MSG_HAS(strerror(ENOENT));
    CHECK(strstr(err_msg(), "make data") == NULL);

    // the default corpus gets told how to fetch it
    text_config(&c, "/tmp/lmtrain_test_no_such_dir/data/tinyshakespeare.txt", 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("/tmp/lmtrain_test_no_such_dir/data/tinyshakespeare.txt");
    CHECK_MSG_HAS("make data");

    text_config(&c, "", 8, 0.1);
    CHECK(open_fails(&c) == ERR_USAGE);
    CHECK_MSG_HAS("[data] path");
}

static void test_directory(void) {
    char dir[] = "/tmp/lmtrain_test_dir_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    Config c;
    text_config(&c, dir, 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(dir);
    CHECK_MSG_HAS("is a directory");
    rmdir(dir);
}

static void test_unreadable(void) {
    // root reads a chmod-000 file anyway, so the case cannot be provoked there.
    if (geteuid() == 0) {
        SKIP("non-root", "running as root, chmod 000 does not block reads");
        return;
    }
    unsigned char *bytes = random_corpus(400, 7);
    char path[64];
    make_tmp_file(path, bytes, 400);
    chmod(path, 0);
    Config c;
    text_config(&c, path, 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(path);
    CHECK_MSG_HAS(strerror(EACCES));
    unlink(path);
    free(bytes);
}

// /proc/self/mem opens fine but reading offset 0 (never mapped) fails with EIO:
// a real read error, which must be reported, not taken for end of file.
static void test_read_error(void) {
    FILE *probe = fopen("/proc/self/mem", "rb");
    if (!probe) {
        SKIP("procfs", "no /proc/self/mem");
        return;
    }
    fclose(probe);
    Config c;
    text_config(&c, "/proc/self/mem", 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("error reading /proc/self/mem");
}

static void test_empty_and_too_short(void) {
    char path[64];
    make_tmp_file(path, (const unsigned char *)"", 0);
    Config c;
    text_config(&c, path, 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(path);
    CHECK_MSG_HAS("is empty");
    unlink(path);

    unsigned char *bytes = random_corpus(200, 8);
    // 100 bytes cannot hold two windows of 65 whatever val_fraction is
    make_tmp_file(path, bytes, 100);
    text_config(&c, path, 64, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(path);
    CHECK_MSG_HAS("has 100 bytes, too few for block_size 64");
    unlink(path);

    make_tmp_file(path, bytes, 200);
    // val: 200 - floor(200 * 0.75) = 50 bytes
    text_config(&c, path, 64, 0.25);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(path);
    CHECK_MSG_HAS("the validation split has 50 bytes but block_size 64 needs at least 65");
    CHECK_MSG_HAS("raise val_fraction");
    // train: floor(200 * 0.3) = 60 bytes
    text_config(&c, path, 64, 0.7);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("the training split has 60 bytes but block_size 64 needs at least 65");
    CHECK_MSG_HAS("lower val_fraction");
    // the boundary: both splits exactly block_size + 1 = 100 bytes is enough
    text_config(&c, path, 99, 0.5);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    if (d) {
        CHECK(dataset_eval_windows(d, SPLIT_VAL, 99) == 1);
        dataset_free(d);
    }
    text_config(&c, path, 100, 0.5);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    unlink(path);
    free(bytes);
}

// A sparse file just over the limit: refused from its size, without reading 2 GiB.
static void test_too_large(void) {
    char path[64];
    make_tmp_file(path, (const unsigned char *)"x", 1);
    if (truncate(path, ((off_t)2 << 30) + 1) != 0) {
        SKIP("sparse-files", "truncate: %s", strerror(errno));
        unlink(path);
        return;
    }
    Config c;
    text_config(&c, path, 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS(path);
    CHECK_MSG_HAS("at most");
    unlink(path);
}

// Not regular files: a FIFO with no writer (reading it would block for
// ever), a socket, an endless character device. Each is refused at once, with
// the kind named; a FIFO open would hang this test if the reader waited.
static void test_refuses_special_files(void) {
    char dir[] = "/tmp/lmtrain_test_special_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char fifo[80], sock[80];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(sock, sizeof sock, "%s/sock", dir);
    Config c;
    if (mkfifo(fifo, 0600) == 0) {
        text_config(&c, fifo, 8, 0.1);
        CHECK(open_fails(&c) == ERR_RUNTIME);
        CHECK_MSG_HAS("a FIFO");
        unlink(fifo);
    } else {
        CHECK(0);  // every POSIX system with a writable /tmp can make one
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    text_config(&c, sock, 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("a socket");
    if (fd >= 0) close(fd);
    unlink(sock);
    text_config(&c, "/dev/zero", 8, 0.1);
    CHECK(open_fails(&c) == ERR_RUNTIME);
    CHECK_MSG_HAS("a character device");
    rmdir(dir);
}

// ---------------------------------------------------------------------------
// the real corpus, when `make data` has been run (tests run from the repo root)

static void test_tinyshakespeare_matches_nanogpt(void) {
    const char *path = "data/tinyshakespeare.txt";
    if (access(path, R_OK) != 0) {
        SKIP("corpus", "no %s; run `make data`", path);
        return;
    }
    Config c;
    text_config(&c, path, 64, 0.1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    // nanoGPT shakespeare_char: vocab 65, train = data[:int(n*0.9)]
    CHECK(dataset_vocab_size(d) == 65);
    CHECK(dataset_split_tokens(d, SPLIT_TRAIN) == 1003854);
    CHECK(dataset_split_tokens(d, SPLIT_VAL) == 111540);
    char buf[8];
    int in[64], tg[64];
    dataset_eval_window(d, SPLIT_TRAIN, 0, 64, in, tg);
    dataset_decode(d, in[0], buf);
    CHECK(buf[0] == 'F');  // "First Citizen:"
    dataset_decode(d, 0, buf);
    CHECK(buf[0] == '\n');
    dataset_free(d);
}

int main(void) {
    TEST(test_vocab_is_sorted_distinct_bytes);
    TEST(test_split_sizes);
    TEST(test_batches_are_windows_of_their_split);
    TEST(test_batch_starts_cover_the_range_uniformly);
    TEST(test_same_seed_same_batches);
    TEST(test_eval_windows);
    TEST(test_encode_prompt);
    TEST(test_missing_file);
    TEST(test_directory);
    TEST(test_unreadable);
    TEST(test_read_error);
    TEST(test_empty_and_too_short);
    TEST(test_too_large);
    TEST(test_refuses_special_files);
    TEST(test_tinyshakespeare_matches_nanogpt);
    return test_summary();
}
