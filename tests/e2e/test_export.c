// test_export.c — end to end: train tiny runs through the binary, export them,
// and read each file back with a reader written here (not tools/safetensors.c):
// header layout, the exact tensor names and shapes the README documents, the
// tensors' bytes against the checkpoint's params section, the metadata; then
// the error cases.
#include <stdint.h>

#include "../test.h"
#include "e2e.h"
#include "config/config.h"
#include "model/model.h"
#include "train/checkpoint.h"
#include "util/binfile.h"
#include "util/err.h"

static char corpus[512];

// A corpus whose vocabulary has bytes JSON must escape or cannot hold raw
// (NUL, quote, backslash, 0xC3 0xA9, 0xFF), so the vocab metadata covers them.
static void make_corpus(const char *path) {
    write_corpus(path, 20000);
    FILE *f = fopen(path, "ab");
    static const unsigned char odd[] = {0x00, '"', '\\', 0xC3, 0xA9, 0xFF, '\t'};
    for (int r = 0; r < 40; r++) fwrite(odd, 1, sizeof odd, f);
    fclose(f);
}

static void write_config(const char *path, const char *body) {
    char text[4096];
    char qcorpus[1100], *o = qcorpus;  // the corpus path as a quoted INI value
    for (const char *p = corpus; *p; p++) {
        if (*p == '"' || *p == '\\') *o++ = '\\';
        *o++ = *p;
    }
    *o = 0;
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nseed = 7\nthreads = 1\n"
             "[data]\npath = \"%s\"\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = 16\n"
             "[train]\nsteps = 12\nbatch_size = 4\nwarmup = 2\neval_every = 6\n"
             "eval_batches = 1\nlog_every = 6\ncheckpoint_every = 6\n%s",
             qcorpus, body);
    write_text(path, text);
}

static int train(const char *name, const char *body, char *dir, size_t cap) {
    char cfg[600];
    snprintf(cfg, sizeof cfg, "%s/%s.ini", e2e_dir, name);
    snprintf(dir, cap, "%s/%s", e2e_dir, name);
    write_config(cfg, body);
    char *argv[] = {"--config", cfg, "--out", dir, NULL};
    int rc = run_lmtrain(argv);
    if (rc) fprintf(stderr, "training %s failed (%d):\n%s\n", name, rc, e2e_out);
    return rc;
}

// ============================================================================
// A small reader, independent of src/format: just enough JSON for a header
// ============================================================================

typedef struct {
    char name[96];
    char dtype[8];
    size_t ndim, shape[4], begin, end;
} Entry;

typedef struct {
    size_t n, n_meta;
    Entry t[64];
    char key[8][32];
    char *val[8];      // malloc'd
    size_t val_len[8];
} Header;

static void ws(const char **p) {
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r') (*p)++;
}

static unsigned hexv(const char *s) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) v = v * 16 + (unsigned)(s[i] <= '9' ? s[i] - '0' : (s[i] | 32) - 'a' + 10);
    return v;
}

// a string literal -> UTF-8 in out (cap bytes); returns its length or -1
static long jstr(const char **p, char *out, size_t cap) {
    ws(p);
    if (**p != '"') return -1;
    (*p)++;
    size_t n = 0;
    while (**p != '"') {
        if (!**p || n + 4 >= cap) return -1;
        unsigned cp = (unsigned char)**p;
        if (cp < 0x20) return -1;
        (*p)++;
        if (cp == '\\') {
            char e = *(*p)++;
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *k = strchr(from, e);
            if (e == 'u') {
                cp = hexv(*p);
                *p += 4;
                if (cp >= 0xD800 && cp < 0xDC00) {
                    if ((*p)[0] != '\\' || (*p)[1] != 'u') return -1;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (hexv(*p + 2) - 0xDC00);
                    *p += 6;
                }
            } else if (e && k) cp = (unsigned char)to[k - from];
            else return -1;
            if (cp < 0x80) out[n++] = (char)cp;
            else if (cp < 0x800) out[n++] = (char)(0xC0 | cp >> 6), out[n++] = (char)(0x80 | (cp & 63));
            else if (cp < 0x10000)
                out[n++] = (char)(0xE0 | cp >> 12), out[n++] = (char)(0x80 | (cp >> 6 & 63)),
                out[n++] = (char)(0x80 | (cp & 63));
            else
                out[n++] = (char)(0xF0 | cp >> 18), out[n++] = (char)(0x80 | (cp >> 12 & 63)),
                out[n++] = (char)(0x80 | (cp >> 6 & 63)), out[n++] = (char)(0x80 | (cp & 63));
        } else {
            out[n++] = (char)cp;
        }
    }
    (*p)++;
    out[n] = 0;
    return (long)n;
}

static int jchar(const char **p, char c) {
    ws(p);
    if (**p != c) return 0;
    (*p)++;
    return 1;
}

static int juints(const char **p, size_t *v, size_t cap, size_t *n) {
    if (!jchar(p, '[')) return 0;
    *n = 0;
    if (jchar(p, ']')) return 1;
    do {
        ws(p);
        if (*n == cap || **p < '0' || **p > '9') return 0;
        v[(*n)++] = strtoull(*p, (char **)p, 10);
    } while (jchar(p, ','));
    return jchar(p, ']');
}

// Parses the header text h (NUL-terminated); 1 on success.
static int parse_header(const char *h, Header *H) {
    memset(H, 0, sizeof *H);
    const char *p = h;
    char key[256];
    if (!jchar(&p, '{')) return 0;
    do {
        if (jstr(&p, key, sizeof key) < 0 || !jchar(&p, ':') || !jchar(&p, '{')) return 0;
        if (strcmp(key, "__metadata__") == 0) {
            do {
                if (H->n_meta == 8) return 0;
                size_t i = H->n_meta++;
                size_t cap = strlen(p) + 1;
                H->val[i] = malloc(cap);
                long len;
                if (jstr(&p, H->key[i], sizeof H->key[i]) < 0 || !jchar(&p, ':') ||
                    (len = jstr(&p, H->val[i], cap)) < 0)
                    return 0;
                H->val_len[i] = (size_t)len;
            } while (jchar(&p, ','));
        } else {
            if (H->n == 64 || strlen(key) >= sizeof H->t[0].name) return 0;
            Entry *e = &H->t[H->n++];
            strcpy(e->name, key);
            do {
                char k[32];
                size_t off[2], n2;
                if (jstr(&p, k, sizeof k) < 0 || !jchar(&p, ':')) return 0;
                if (!strcmp(k, "dtype")) {
                    if (jstr(&p, e->dtype, sizeof e->dtype) < 0) return 0;
                } else if (!strcmp(k, "shape")) {
                    if (!juints(&p, e->shape, 4, &e->ndim)) return 0;
                } else if (!strcmp(k, "data_offsets")) {
                    if (!juints(&p, off, 2, &n2) || n2 != 2) return 0;
                    e->begin = off[0];
                    e->end = off[1];
                } else return 0;
            } while (jchar(&p, ','));
        }
        if (!jchar(&p, '}')) return 0;
    } while (jchar(&p, ','));
    if (!jchar(&p, '}')) return 0;
    while (*p == ' ') p++;  // the padding: spaces only, then the end of the header
    return *p == 0;
}

static void free_header(Header *H) {
    for (size_t i = 0; i < H->n_meta; i++) free(H->val[i]);
}

static const char *meta(const Header *H, const char *key, size_t *len) {
    for (size_t i = 0; i < H->n_meta; i++)
        if (!strcmp(H->key[i], key)) {
            if (len) *len = H->val_len[i];
            return H->val[i];
        }
    return NULL;
}

// ============================================================================
// What the file must contain
// ============================================================================

// The documented tensor table (the README's), written out here on its own:
// name and shape of every tensor, in file order, for this config.
static size_t expected(const Config *c, size_t V, Entry *out) {
    size_t n = 0, C = (size_t)c->d_model, H = (size_t)c->heads, F = (size_t)c->ffn_mult * C;
#define E1(NM, A) (snprintf(out[n].name, sizeof out[n].name, "%s", NM), out[n].ndim = 1, out[n].shape[0] = (A), n++)
#define E2(NM, A, B) \
    (snprintf(out[n].name, sizeof out[n].name, "%s", NM), out[n].ndim = 2, out[n].shape[0] = (A), out[n].shape[1] = (B), n++)
    char nm[96];
    E2("wte", V, C);
    if (c->pos == POS_LEARNED) E2("wpe", (size_t)c->block_size, C);
    for (int l = 0; l < c->layers; l++) {
#define L(s) (snprintf(nm, sizeof nm, "h.%d.%s", l, s), nm)
        E1(L("ln_1.weight"), C);
        E1(L("ln_1.bias"), C);
        // delta's β logit, then (decay = data) the gate logit: one extra row per head each
        size_t aux = (size_t)!strcmp(c->kind, "delta") + (c->decay == DECAY_DATA);
        E2(L("attn.qkv.weight"), 3 * C + H * aux, C);
        if (!strcmp(c->kind, "linear_decay") || !strcmp(c->kind, "delta")) E1(L("attn.theta"), H);
        if (c->output_norm) {
            E1(L("attn.ln_head.weight"), C / H);
            E1(L("attn.ln_head.bias"), C / H);
        }
        E2(L("attn.proj.weight"), C, C);
        if (F) {
            E1(L("ln_2.weight"), C);
            E1(L("ln_2.bias"), C);
            E2(L("mlp.fc.weight"), F, C);
            E2(L("mlp.proj.weight"), C, F);
        }
#undef L
    }
    E1("ln_f.weight", C);
    E1("ln_f.bias", C);
#undef E1
#undef E2
    return n;
}

// the corpus's distinct bytes, ascending (the text vocabulary, by data.h's definition)
static size_t corpus_vocab(const char *path, int *bytes) {
    size_t n = 0, V = 0;
    unsigned char *b = (unsigned char *)read_all(path, &n);
    int seen[256] = {0};
    for (size_t i = 0; i < n; i++) seen[b[i]] = 1;
    for (int i = 0; i < 256; i++)
        if (seen[i]) bytes[V++] = i;
    free(b);
    return V;
}

// Checks the export of run folder `run` at `file` against its checkpoint.
static void check_export(const char *run, const char *file, int recall) {
    size_t size = 0;
    unsigned char *buf = (unsigned char *)read_all(file, &size);
    CHECK(buf && size > 8);
    if (!buf || size <= 8) return;
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    CHECK(!file_exists(tmp));

    // 8-byte little-endian length, a header of a multiple of 8 bytes
    uint64_t N = 0;
    for (int i = 0; i < 8; i++) N |= (uint64_t)buf[i] << (8 * i);
    CHECK(N % 8 == 0 && N <= size - 8);
    if (N > size - 8) return;
    char *h = malloc(N + 1);
    memcpy(h, buf + 8, N);
    h[N] = 0;
    CHECK(strlen(h) == N);  // no NUL inside the header text
    for (size_t i = 0; i < N; i++) CHECK((unsigned char)h[i] >= 0x20 && (unsigned char)h[i] < 0x7F);
    Header H;
    int parsed = parse_header(h, &H);
    CHECK(parsed);
    free(h);
    const unsigned char *data = buf + 8 + N;
    size_t data_bytes = size - 8 - (size_t)N;

    // the checkpoint: its config, its parameter block, the layout from model_build
    char ck[700];
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", run);
    Config cfg;
    CHECK(checkpoint_read_config(ck, &cfg) == 0);
    int vocab[256];
    size_t V = recall ? (size_t)cfg.vocab : corpus_vocab(cfg.path, vocab);
    Model m;
    model_build(&m, &cfg, V);
    BinFile bf;
    CHECK(binfile_read(ck, &bf) == 0);
    size_t pbytes = 0, cbytes = 0;
    const unsigned char *params = binfile_find(&bf, "params", &pbytes);
    const char *ctext = binfile_find(&bf, "config", &cbytes);
    CHECK(params && pbytes == m.n_floats * sizeof(float));
    CHECK(ctext != NULL);
    // the weights were trained: an export of the initial weights would not match
    CHECK(params && memcmp(params, m.data, m.n_floats * sizeof(float)) != 0);

    Entry want[64];
    size_t n_want = expected(&cfg, V, want);
    CHECK(parsed && H.n == n_want && m.n_params == n_want);
    size_t at = 0;
    for (size_t i = 0; parsed && params && i < H.n && i < n_want && i < m.n_params; i++) {
        const Entry *e = &H.t[i];
        const Param *p = &m.params[i];
        CHECK(strcmp(e->name, want[i].name) == 0);  // names and order as documented
        CHECK(strcmp(e->name, p->t.name) == 0);      // ... and as the model has them
        CHECK(strcmp(e->dtype, "F32") == 0);
        CHECK(e->ndim == want[i].ndim);
        size_t elems = 1;
        for (size_t d = 0; d < e->ndim && d < want[i].ndim; d++) {
            CHECK(e->shape[d] == want[i].shape[d]);
            elems *= e->shape[d];
        }
        CHECK(elems == p->t.n);
        // contiguous, in model order, no padding
        CHECK(e->begin == at && e->end == at + 4 * elems && e->end <= data_bytes);
        if (e->end <= data_bytes && (p->offset + p->t.n) * 4 <= pbytes)
            CHECK(memcmp(data + e->begin, params + p->offset * sizeof(float), 4 * p->t.n) == 0);
        if (strcmp(e->name, want[i].name) != 0) fprintf(stderr, "  tensor %zu: %s, want %s\n", i, e->name, want[i].name);
        at = e->end;
    }
    CHECK(at == data_bytes);

    // metadata
    size_t len = 0;
    const char *v = meta(&H, "lmtrain_config", &len);
    CHECK(v && len == cbytes && ctext && memcmp(v, ctext, len) == 0);
    char cini[700];
    snprintf(cini, sizeof cini, "%s/config.ini", run);
    char *ini = read_all(cini, NULL);
    CHECK(v && ini && strcmp(v, ini) == 0);
    free(ini);
    v = meta(&H, "lmtrain_step", NULL);
    CHECK(v && strcmp(v, "12") == 0);
    v = meta(&H, "format", NULL);
    CHECK(v && strcmp(v, "pt") == 0);
    char list[2048] = "";
    if (recall) {
        for (size_t i = 0; i < V; i++) {
            char s[32];
            if (i == 0) snprintf(s, sizeof s, "_");
            else snprintf(s, sizeof s, ",%c%zu", i < V / 2 ? 'k' : 'v', i);
            strcat(list, s);
        }
        v = meta(&H, "vocab_symbols", NULL);
        CHECK(meta(&H, "vocab_bytes", NULL) == NULL);
    } else {
        for (size_t i = 0; i < V; i++) snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", vocab[i]);
        v = meta(&H, "vocab_bytes", NULL);
        CHECK(meta(&H, "vocab_symbols", NULL) == NULL);
    }
    CHECK(v && strcmp(v, list) == 0);
    if (!v || strcmp(v, list) != 0) fprintf(stderr, "  vocab: %s\n  want:  %s\n", v ? v : "(none)", list);
    CHECK(H.n_meta == 4);

    binfile_free(&bf);
    model_free(&m);
    free_header(&H);
    free(buf);
}

// ============================================================================
// Cases
// ============================================================================

// linear_decay with per-head output norm: every optional tensor (wpe, theta,
// ln_head, the MLP) is present. Default output path.
static void test_export_linear_decay(void) {
    char dir[512], file[700];
    if (train("ld", "[attention]\nkind = linear_decay\noutput_norm = true\n", dir, sizeof dir)) {
        CHECK(0);
        return;
    }
    char *argv[] = {"export", "--run", dir, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    CHECK(strstr(e2e_out, "model.safetensors") != NULL);
    snprintf(file, sizeof file, "%s/model.safetensors", dir);
    check_export(dir, file, 0);
}

// delta: the β row per head in the fused projection, θ per head; and with
// decay = data the gate row per head after β.
static void test_export_delta(void) {
    const char *bodies[] = {"[attention]\nkind = delta\n", "[attention]\nkind = delta\ndecay = data\n"};
    for (int i = 0; i < 2; i++) {
        char dir[512], file[700];
        if (train(i ? "dd" : "de", bodies[i], dir, sizeof dir)) {
            CHECK(0);
            return;
        }
        char *argv[] = {"export", "--run", dir, NULL};
        int rc = run_lmtrain(argv);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s\n", e2e_out);
        snprintf(file, sizeof file, "%s/model.safetensors", dir);
        check_export(dir, file, 0);
    }
}

// softmax, no positional embedding, attention-only blocks; --out elsewhere.
static void test_export_softmax_minimal(void) {
    char dir[512], file[700];
    if (train("sm", "[model]\npos = none\nffn_mult = 0\n[attention]\nkind = softmax\n", dir, sizeof dir)) {
        CHECK(0);
        return;
    }
    snprintf(file, sizeof file, "%s/elsewhere.safetensors", e2e_dir);
    char *argv[] = {"export", "--out", file, "--run", dir, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    check_export(dir, file, 0);
    char dflt[700];
    snprintf(dflt, sizeof dflt, "%s/model.safetensors", dir);
    CHECK(!file_exists(dflt));
}

// the recall task: no corpus, the vocabulary is symbols
static void test_export_recall(void) {
    char dir[512], file[700];
    if (train("rc", "[data]\ntask = recall\nvocab = 16\npairs = 2\n[attention]\nkind = linear\n", dir, sizeof dir)) {
        CHECK(0);
        return;
    }
    char *argv[] = {"export", "--run", dir, NULL};
    CHECK(run_lmtrain(argv) == 0);
    snprintf(file, sizeof file, "%s/model.safetensors", dir);
    check_export(dir, file, 1);
}

static void test_errors(void) {
    char p[600], q[700];
    // usage errors: exit 2
    char *a1[] = {"export", NULL};
    CHECK(run_lmtrain(a1) == 2 && strstr(e2e_out, "--run") != NULL);
    char *a2[] = {"export", "--run", e2e_dir, "--bogus", NULL};
    CHECK(run_lmtrain(a2) == 2 && strstr(e2e_out, "--bogus") != NULL);
    char *a3[] = {"export", "--run", NULL};
    CHECK(run_lmtrain(a3) == 2);
    // a run folder that does not exist: exit 1, naming it
    snprintf(p, sizeof p, "%s/no-such-run", e2e_dir);
    char *a4[] = {"export", "--run", p, NULL};
    CHECK(run_lmtrain(a4) == 1 && strstr(e2e_out, "no-such-run") != NULL);
    // a folder without a checkpoint: exit 1, naming checkpoint.bin, nothing written
    snprintf(p, sizeof p, "%s/empty-run", e2e_dir);
    mkdir(p, 0755);
    char *a5[] = {"export", "--run", p, NULL};
    CHECK(run_lmtrain(a5) == 1 && strstr(e2e_out, "checkpoint.bin") != NULL);
    snprintf(q, sizeof q, "%s/model.safetensors", p);
    CHECK(!file_exists(q));
    // a corrupt checkpoint: exit 1, naming it, nothing written
    snprintf(q, sizeof q, "%s/checkpoint.bin", p);
    write_text(q, "LMTRAIN\0 but not really a checkpoint");
    CHECK(run_lmtrain(a5) == 1 && strstr(e2e_out, "checkpoint.bin") != NULL);
    snprintf(q, sizeof q, "%s/model.safetensors", p);
    CHECK(!file_exists(q));
    // an output that cannot be written: exit 1, naming it
    snprintf(p, sizeof p, "%s/ld", e2e_dir);
    snprintf(q, sizeof q, "%s/no/such/dir/x.safetensors", e2e_dir);
    char *a6[] = {"export", "--run", p, "--out", q, NULL};
    CHECK(run_lmtrain(a6) == 1 && strstr(e2e_out, "x.safetensors") != NULL);
}

// The vocabulary comes from the data at export time; data whose vocabulary
// differs from the one trained on is refused, not silently mislabelled.
static void test_changed_data_is_refused(void) {
    char dir[512];
    if (train("vc", "[attention]\nkind = softmax\n", dir, sizeof dir)) {
        CHECK(0);
        return;
    }
    // same number of distinct bytes, different bytes: every 'a' becomes 'Z'
    size_t n = 0;
    char *b = read_all(corpus, &n);
    char *saved = malloc(n);
    memcpy(saved, b, n);
    for (size_t i = 0; i < n; i++)
        if (b[i] == 'a') b[i] = 'Z';
    FILE *f = fopen(corpus, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
    char *argv[] = {"export", "--run", dir, NULL};
    CHECK(run_lmtrain(argv) == 1 && strstr(e2e_out, "vocabulary") != NULL);
    char file[700];
    snprintf(file, sizeof file, "%s/model.safetensors", dir);
    CHECK(!file_exists(file));
    f = fopen(corpus, "wb");  // put it back
    fwrite(saved, 1, n, f);
    fclose(f);
    CHECK(run_lmtrain(argv) == 0);
    free(b);
    free(saved);
}

int main(void) {
    (void)metrics_without_timing;  // e2e.h helper this file does not need
    e2e_setup();
    // a corpus path that needs quoting in INI and escaping in JSON
    tpath(corpus, sizeof corpus, "co\"r\\pus \xc3\xa9 #1.txt");
    make_corpus(corpus);
    TEST(test_export_linear_decay);
    TEST(test_export_delta);
    TEST(test_export_softmax_minimal);
    TEST(test_export_recall);
    TEST(test_errors);
    TEST(test_changed_data_is_refused);
    e2e_teardown();
    return test_summary();
}
