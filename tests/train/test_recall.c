// test_recall.c — the recall task (SPEC §9): the layout of every sequence, the
// distributions it is drawn from, determinism, and the fixed validation set.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "train/data.h"
#include "util/err.h"
#include "util/rng.h"

static void recall_config(Config *c, int vocab, int pairs, int block_size, int val_examples,
                          unsigned long long seed) {
    memset(c, 0, sizeof *c);
    c->task = TASK_RECALL;
    c->vocab = vocab;
    c->pairs = pairs;
    c->block_size = block_size;
    c->val_examples = val_examples;
    c->seed = seed;
    c->val_fraction = 0.1;  // unused by recall
}

// What check_row learned about one sequence, for the distribution tests.
typedef struct {
    int keys[128], values[128];  // the pairs, in order
    int query_pair[128];         // query_pair[q] = the pair index of the q-th query
    size_t query_pos[128];       // its position
} RowInfo;

// Checks one (inputs, targets) row against SPEC §9 and returns the number of
// violations (0 = a valid sequence). Layout, p = pairs, V = vocab, half = V/2:
//   in[2i] = key in 1 .. half-1, all distinct; in[2i+1] = value in half .. V-1
//   after 2p: each key exactly once at an even offset o <= T-1, followed by its
//   value (in[o+1] when o+1 < T; always the target at o); all else filler 0
//   targets: exactly the query positions are scored, with the value
static int check_row(const int *in, const int *tg, int V, int p, size_t T, RowInfo *info) {
    int bad = 0, half = V / 2;
    int pair_of_key[256];
    for (int k = 0; k < 256; k++) pair_of_key[k] = -1;
    for (int i = 0; i < p; i++) {
        int k = in[2 * i], v = in[2 * i + 1];
        if (k < 1 || k >= half) bad++;
        else if (pair_of_key[k] >= 0) bad++;  // keys must be distinct
        else pair_of_key[k] = i;
        if (v < half || v >= V) bad++;
        if (tg[2 * i] != -1 || tg[2 * i + 1] != -1) bad++;  // the pairs are not scored
        info->keys[i] = k;
        info->values[i] = v;
    }
    int seen[128] = {0}, q = 0;
    size_t t = 2 * (size_t)p;
    while (t < T) {
        if (t % 2 == 0 && in[t] != 0) {
            int k = in[t];
            int i = (k >= 0 && k < 256) ? pair_of_key[k] : -1;
            if (i < 0) {  // not one of this sequence's keys (a value, or a stray key)
                bad++;
                t++;
                continue;
            }
            if (seen[i]++) bad++;
            if (tg[t] != info->values[i]) bad++;
            if (t + 1 < T) {
                if (in[t + 1] != info->values[i]) bad++;
                if (tg[t + 1] != -1) bad++;
            }
            if (q < 128) {
                info->query_pair[q] = i;
                info->query_pos[q] = t;
            }
            q++;
            t += 2;
        } else {
            if (in[t] != 0) bad++;   // filler, including odd positions
            if (tg[t] != -1) bad++;
            t++;
        }
    }
    if (q != p) bad++;
    for (int i = 0; i < p; i++)
        if (seen[i] != 1) bad++;
    return bad;
}

// Draws `n` training sequences (plus the val set and eval windows) for one
// configuration and checks every one.
static void check_layout(int V, int p, int T, size_t n) {
    Config c;
    recall_config(&c, V, p, T, 50, 99);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    if (!d) return;
    CHECK(dataset_task(d) == TASK_RECALL);
    CHECK(dataset_vocab_size(d) == V);
    size_t B = 25;
    int *in = malloc(B * (size_t)T * sizeof *in), *tg = malloc(B * (size_t)T * sizeof *tg);
    Rng rng;
    rng_seed(&rng, 5);
    RowInfo info;
    int bad = 0;
    for (size_t k = 0; k < n / B; k++) {
        dataset_batch(d, SPLIT_TRAIN, &rng, B, (size_t)T, in, tg);
        for (size_t b = 0; b < B; b++) bad += check_row(in + b * T, tg + b * T, V, p, (size_t)T, &info);
    }
    dataset_batch(d, SPLIT_VAL, &rng, B, (size_t)T, in, tg);
    for (size_t b = 0; b < B; b++) bad += check_row(in + b * T, tg + b * T, V, p, (size_t)T, &info);
    CHECK(dataset_eval_windows(d, SPLIT_VAL, (size_t)T) == 50);
    for (size_t w = 0; w < 50; w++) {
        dataset_eval_window(d, SPLIT_VAL, w, (size_t)T, in, tg);
        bad += check_row(in, tg, V, p, (size_t)T, &info);
    }
    if (bad) fprintf(stderr, "  vocab %d pairs %d block_size %d: %d violations\n", V, p, T, bad);
    CHECK(bad == 0);
    free(in);
    free(tg);
    dataset_free(d);
}

static void test_layout_invariants(void) {
    check_layout(64, 8, 64, 2000);    // the default task
    check_layout(64, 8, 63, 2000);    // odd T: the last slot's value is only a target
    check_layout(32, 8, 32, 500);     // 4p == T: every slot is a query
    check_layout(4, 1, 4, 500);       // smallest: one key, two values
    check_layout(256, 127, 508, 100); // largest vocabulary, every key used
    check_layout(16, 3, 100, 500);    // long, mostly filler
}

// With T = 4p every slot is used, so the sequence is fully determined by the
// pairs and the query order: spot-check one by hand.
static void test_smallest_sequence_by_hand(void) {
    Config c;
    recall_config(&c, 4, 1, 4, 3, 1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    int in[4], tg[4];
    Rng rng;
    rng_seed(&rng, 3);
    for (int k = 0; k < 20; k++) {
        dataset_batch(d, SPLIT_TRAIN, &rng, 1, 4, in, tg);
        int v = in[1];
        CHECK(v == 2 || v == 3);
        CHECK(in[0] == 1 && in[2] == 1 && in[3] == v);
        CHECK(tg[0] == -1 && tg[1] == -1 && tg[2] == v && tg[3] == -1);
    }
    dataset_free(d);
}

// The draws are uniform: keys over 1 .. V/2-1, values over V/2 .. V-1, the used
// slots over the available ones, the query order over permutations. Each count
// is checked to 5 binomial sigmas; a wrong range (a key or value never drawn),
// a fixed slot or a query order tied to the pair order fails.
static void check_distributions(int V, int p, int T) {
    int half = V / 2;
    // slot j is offset 2p + 2j; the last one, T - 1 for odd T, has its value only as a target
    size_t n_slots = (size_t)(T + 1) / 2 - (size_t)p;
    Config c;
    recall_config(&c, V, p, T, 10, 7);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    size_t B = 50, N = 4000;
    int *in = malloc(B * (size_t)T * sizeof *in), *tg = malloc(B * (size_t)T * sizeof *tg);
    double key_count[256] = {0}, value_count[256] = {0}, slot_count[256] = {0}, first_query[128] = {0};
    double same_order = 0;
    Rng rng;
    rng_seed(&rng, 8);
    RowInfo info;
    int bad = 0;
    for (size_t k = 0; k < N / B; k++) {
        dataset_batch(d, SPLIT_TRAIN, &rng, B, (size_t)T, in, tg);
        for (size_t b = 0; b < B; b++) {
            bad += check_row(in + b * T, tg + b * T, V, p, (size_t)T, &info);
            for (int i = 0; i < p; i++) {
                key_count[info.keys[i]]++;
                value_count[info.values[i]]++;
                slot_count[(info.query_pos[i] - 2 * (size_t)p) / 2]++;
            }
            first_query[info.query_pair[0]]++;
            int same = 1;
            for (int q = 0; q < p; q++) same &= info.query_pair[q] == q;
            same_order += same;
        }
    }
    CHECK(bad == 0);
    double n = (double)N;
#define CHECK_BINOMIAL(count, trials, prob) \
    CHECK_NEAR((count), (trials) * (prob), 5 * sqrt((trials) * (prob) * (1 - (prob))))
    CHECK(key_count[0] == 0);
    for (int k = 1; k < half; k++) CHECK_BINOMIAL(key_count[k], n, (double)p / (half - 1));
    for (int v = 0; v < half; v++) CHECK(value_count[v] == 0);
    for (int v = half; v < V; v++) CHECK_BINOMIAL(value_count[v], n * p, 1.0 / half);
    for (size_t s = 0; s < n_slots; s++) CHECK_BINOMIAL(slot_count[s], n, (double)p / (double)n_slots);
    for (int i = 0; i < p; i++) CHECK_BINOMIAL(first_query[i], n, 1.0 / p);
    // queries in pair order: expected N / p! times (0.1 for p = 8, 5.6 for p = 6)
    double fact = 1;
    for (int i = 2; i <= p; i++) fact *= i;
    CHECK(same_order <= n / fact + 5 * sqrt(n / fact) + 2);
#undef CHECK_BINOMIAL
    free(in);
    free(tg);
    dataset_free(d);
}

static void test_distributions(void) {
    check_distributions(64, 8, 64);  // 24 slots: offsets 16, 18, ..., 62
    check_distributions(64, 8, 63);  // odd T: the same 24 slots, the last value beyond the inputs
    check_distributions(32, 6, 40);  // 14 slots, 15 keys
}

// ---------------------------------------------------------------------------
// determinism and the validation set

static void test_same_seed_same_batches(void) {
    Config c;
    recall_config(&c, 64, 8, 64, 100, 1337);
    Dataset *d1, *d2;
    CHECK(dataset_open(&c, &d1) == 0);
    CHECK(dataset_open(&c, &d2) == 0);
    size_t B = 12, T = 64, sz = B * T * sizeof(int);
    int *i1 = malloc(sz), *t1 = malloc(sz), *i2 = malloc(sz), *t2 = malloc(sz);
    Rng a, b, other;
    rng_seed(&a, 1);
    rng_seed(&b, 1);
    rng_seed(&other, 2);
    int differs = 0;
    for (int step = 0; step < 10; step++) {
        for (int split = 0; split < 2; split++) {
            dataset_batch(d1, split, &a, B, T, i1, t1);
            dataset_batch(d2, split, &b, B, T, i2, t2);
            CHECK(memcmp(i1, i2, sz) == 0 && memcmp(t1, t2, sz) == 0);
            dataset_batch(d2, split, &other, B, T, i2, t2);
            if (memcmp(i1, i2, sz) != 0) differs++;
        }
    }
    CHECK(differs == 20);
    free(i1);
    free(t1);
    free(i2);
    free(t2);
    dataset_free(d1);
    dataset_free(d2);
}

// The val set: fixed for a seed (reopening or drawing training batches does not
// change it), different for another seed, disjoint from the training stream
// that the trainer draws with an Rng seeded from the same run seed, and every
// val batch row is one of its examples.
static void test_validation_set(void) {
    size_t T = 64, n_val = 200;
    Config c;
    recall_config(&c, 64, 8, (int)T, (int)n_val, 1337);
    Dataset *d, *again, *other;
    CHECK(dataset_open(&c, &d) == 0);
    CHECK(dataset_open(&c, &again) == 0);
    c.seed = 1338;
    CHECK(dataset_open(&c, &other) == 0);
    CHECK(dataset_eval_windows(d, SPLIT_VAL, T) == n_val);
    CHECK(dataset_eval_windows(d, SPLIT_TRAIN, T) == 0);
    CHECK(dataset_split_tokens(d, SPLIT_VAL) == n_val * (T + 1));
    CHECK(dataset_split_tokens(d, SPLIT_TRAIN) == 0);

    int *val_in = malloc(n_val * T * sizeof(int)), *val_tg = malloc(n_val * T * sizeof(int));
    for (size_t w = 0; w < n_val; w++) dataset_eval_window(d, SPLIT_VAL, w, T, val_in + w * T, val_tg + w * T);

    // draw training batches from the run seed's stream, then compare
    size_t B = 50;
    int *in = malloc(B * T * sizeof(int)), *tg = malloc(B * T * sizeof(int));
    Rng train;
    rng_seed(&train, 1337);
    int collisions = 0;
    for (int k = 0; k < 20; k++) {
        dataset_batch(d, SPLIT_TRAIN, &train, B, T, in, tg);
        for (size_t b = 0; b < B; b++)
            for (size_t w = 0; w < n_val; w++)
                if (memcmp(in + b * T, val_in + w * T, T * sizeof(int)) == 0) collisions++;
    }
    CHECK(collisions == 0);

    int same_again = 1, same_other = 0, distinct = 1;
    for (size_t w = 0; w < n_val; w++) {
        dataset_eval_window(d, SPLIT_VAL, w, T, in, tg);  // after the training draws
        same_again &= memcmp(in, val_in + w * T, T * sizeof(int)) == 0 &&
                      memcmp(tg, val_tg + w * T, T * sizeof(int)) == 0;
        dataset_eval_window(again, SPLIT_VAL, w, T, in, tg);
        same_again &= memcmp(in, val_in + w * T, T * sizeof(int)) == 0;
        dataset_eval_window(other, SPLIT_VAL, w, T, in, tg);
        same_other += memcmp(in, val_in + w * T, T * sizeof(int)) == 0;
        if (w > 0) distinct &= memcmp(val_in + w * T, val_in + (w - 1) * T, T * sizeof(int)) != 0;
    }
    CHECK(same_again);
    CHECK(same_other == 0);
    CHECK(distinct);

    // val batches: every row is a val example; over many rows most examples show up
    Rng vr;
    rng_seed(&vr, 3);
    int not_found = 0;
    char hit[200] = {0};
    for (int k = 0; k < 40; k++) {
        dataset_batch(d, SPLIT_VAL, &vr, B, T, in, tg);
        for (size_t b = 0; b < B; b++) {
            size_t w = 0;
            while (w < n_val && (memcmp(in + b * T, val_in + w * T, T * sizeof(int)) != 0 ||
                                 memcmp(tg + b * T, val_tg + w * T, T * sizeof(int)) != 0))
                w++;
            if (w == n_val) not_found++;
            else hit[w] = 1;
        }
    }
    CHECK(not_found == 0);
    int n_hit = 0;
    for (size_t w = 0; w < n_val; w++) n_hit += hit[w];
    CHECK(n_hit == (int)n_val);  // 2000 draws of 200: P(some example missed) ~ 200 e^-10
    free(in);
    free(tg);
    free(val_in);
    free(val_tg);
    dataset_free(d);
    dataset_free(again);
    dataset_free(other);
}

// ---------------------------------------------------------------------------
// symbols and prompts

static void test_decode_encode(void) {
    Config c;
    recall_config(&c, 64, 8, 64, 1, 1);
    Dataset *d;
    CHECK(dataset_open(&c, &d) == 0);
    char buf[8];
    CHECK(dataset_decode(d, 0, buf) == 1 && strcmp(buf, "_") == 0);
    CHECK(dataset_decode(d, 1, buf) == 2 && strcmp(buf, "k1") == 0);
    CHECK(dataset_decode(d, 31, buf) == 3 && strcmp(buf, "k31") == 0);
    CHECK(dataset_decode(d, 32, buf) == 3 && strcmp(buf, "v32") == 0);
    CHECK(dataset_decode(d, 63, buf) == 3 && strcmp(buf, "v63") == 0);
    CHECK(dataset_encode_byte(d, 'k') == -1);
    CHECK(dataset_encode_byte(d, '_') == -1);

    // every symbol reads back as its token
    char prompt[64 * 5] = "";
    for (int t = 0; t < 64; t++) {
        dataset_decode(d, t, buf);
        strcat(prompt, buf);
        strcat(prompt, t % 3 ? " " : "\t ");
    }
    int out[64];
    size_t n = 0;
    CHECK(dataset_encode_prompt(d, prompt, out, 64, &n) == 0);
    CHECK(n == 64);
    for (int t = 0; t < 64 && t < (int)n; t++) CHECK(out[t] == t);

    CHECK(dataset_encode_prompt(d, "  k3 v40 _ k3  ", out, 64, &n) == 0);
    CHECK(n == 4 && out[0] == 3 && out[1] == 40 && out[2] == 0 && out[3] == 3);
    CHECK(dataset_encode_prompt(d, "", out, 64, &n) == 0 && n == 0);
    const char *wrong[] = {"k32", "v31", "k0", "v64", "x", "k", "k1x", "__", "K3", "k-1", "v0040", "k3v40"};
    for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
        err_clear();
        CHECK(dataset_encode_prompt(d, wrong[i], out, 64, &n) == ERR_USAGE);
        if (!strstr(err_msg(), wrong[i]) || !strstr(err_msg(), "k1 .. k31")) {
            fprintf(stderr, "  prompt \"%s\": message \"%s\"\n", wrong[i], err_msg());
            CHECK(!"message names the symbol and the valid ranges");
        }
    }
    CHECK(dataset_encode_prompt(d, "k1 k2 k3", out, 2, &n) == ERR_USAGE);

    // fingerprint: a function of the vocabulary only
    uint64_t fp = dataset_vocab_fingerprint(d);
    Dataset *d2;
    recall_config(&c, 64, 3, 20, 5, 9);
    CHECK(dataset_open(&c, &d2) == 0);
    CHECK(dataset_vocab_fingerprint(d2) == fp);
    dataset_free(d2);
    recall_config(&c, 62, 8, 64, 1, 1);
    CHECK(dataset_open(&c, &d2) == 0);
    CHECK(dataset_vocab_fingerprint(d2) != fp);
    dataset_free(d2);
    dataset_free(d);
}

// ---------------------------------------------------------------------------
// settings the generator cannot honour

static void expect_usage_error(const Config *c, const char *key) {
    Dataset *d = (Dataset *)1;
    err_clear();
    int rc = dataset_open(c, &d);
    CHECK(rc == ERR_USAGE);
    if (rc == 0) dataset_free(d);
    else CHECK(d == NULL);
    if (!strstr(err_msg(), key)) {
        fprintf(stderr, "  message \"%s\" does not name %s\n", err_msg(), key);
        CHECK(!"message names the key");
    }
}

static void test_config_errors(void) {
    Config c;
    recall_config(&c, 63, 8, 64, 10, 1);
    expect_usage_error(&c, "[data] vocab");
    recall_config(&c, 2, 1, 64, 10, 1);
    expect_usage_error(&c, "[data] vocab");
    recall_config(&c, 258, 8, 64, 10, 1);
    expect_usage_error(&c, "[data] vocab");
    recall_config(&c, 64, 0, 64, 10, 1);
    expect_usage_error(&c, "[data] pairs");
    recall_config(&c, 64, 32, 128, 10, 1);  // only 31 keys
    expect_usage_error(&c, "[data] pairs");
    recall_config(&c, 64, 8, 31, 10, 1);    // 4 * 8 > 31
    expect_usage_error(&c, "block_size 31");
    recall_config(&c, 64, 8, 64, 0, 1);
    expect_usage_error(&c, "[data] val_examples");
    // the boundaries themselves are accepted
    Dataset *d;
    recall_config(&c, 64, 31, 124, 1, 1);
    CHECK(dataset_open(&c, &d) == 0);
    dataset_free(d);
}

int main(void) {
    TEST(test_layout_invariants);
    TEST(test_smallest_sequence_by_hand);
    TEST(test_distributions);
    TEST(test_same_seed_same_batches);
    TEST(test_validation_set);
    TEST(test_decode_encode);
    TEST(test_config_errors);
    return test_summary();
}
