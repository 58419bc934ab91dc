// test_sample_replay.c — `lmtrain sample` draws what its options say, token
// for token: the temperature it is given, and with learned positions the
// context it promises (once block_size tokens are held, the newest
// block_size/2 are kept before the next token is added; docs/usage.md).
//
// The test replays the command in-process by that definition, written plainly:
// each token's logits come from a fresh generator fed the whole current
// context, and the draw from a Sampler at the given temperature with the
// given seed (the sampler's distribution is tested against softmax(l/T) in
// tests/model/test_sampler.c). The binary's tokens must equal the replay's
// exactly: same weights, same arithmetic, same seeded draws. The replay also
// shows that the test can fail: at temperature 1, or keeping the oldest half,
// it draws other tokens from the same weights and seed.
//
// The run is trained for one step, then given large random weights
// (tests/model/decisive_weights.h) with a long decay memory, so that logits
// spread over several units and depend strongly on the context.
#include <string.h>

#include "../test.h"
#include "cmd/run_load.h"
#include "e2e.h"
#include "model/decisive_weights.h"
#include "model/generate.h"
#include "model/sampler.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "util/err.h"

#define BLOCK 8
#define N_TOKENS 64
#define SEED 11
static const char *PROMPT = "the cat sat on a mat";  // 20 tokens: the context is rebuilt during it too

static char corpus[512];

// A run folder of `kind` with learned positions and block_size BLOCK, its
// checkpoint holding decisive weights. 0 on success.
static int make_run(const char *kind, const char *dir) {
    char text[2048];
    snprintf(text, sizeof text,
             "[run]\nseed = 3\nthreads = 1\n[data]\npath = %s\nval_fraction = 0.2\n"
             "[model]\nlayers = 2\nheads = 2\nd_model = 16\nblock_size = %d\npos = learned\n"
             "[attention]\nkind = %s\nchunk = 3\n"
             "[train]\nsteps = 1\nbatch_size = 2\nwarmup = 0\neval_every = 1\neval_batches = 1\n",
             corpus, BLOCK, kind);
    int rc = train_from_text(dir, text, NULL);
    if (rc) fprintf(stderr, "  training %s: %s\n", kind, e2e_out);
    if (rc) return rc;
    LoadedRun r;
    if ((rc = run_load(&r, dir))) return rc;
    decisive_weights(&r.model, 4242, 3.0f, 6.0f);  // λ 0.95 .. 0.998: a long memory
    AdamW o;
    adamw_init(&o, &r.model);
    rc = checkpoint_save(r.ckpt, &r.model, &o, &r.st);
    adamw_free(&o);
    run_unload(&r);
    return rc;
}

// The n tokens `sample` promises after the prompt (see the top of this file).
// keep_newest = 0 is the bug the test must catch: the oldest half kept.
static void replay(const Model *m, const int *prompt, size_t np, float temperature, int keep_newest,
                   int *out, size_t n) {
    Generator g;
    generator_init(&g, m);
    Sampler s;
    sampler_init(&s, m->V, temperature, 0, SEED);
    int ctx[BLOCK];
    size_t len = 0;
    for (size_t i = 0; i + 1 < np + n; i++) {  // feed token i, then draw token i + 1
        int tok = i < np ? prompt[i] : out[i - np];
        if (len == BLOCK) {
            size_t keep = BLOCK / 2;
            if (keep_newest) memmove(ctx, ctx + len - keep, keep * sizeof(int));
            len = keep;
        }
        ctx[len++] = tok;
        if (i + 1 < np) continue;
        generator_reset(&g);
        const float *logits = NULL;
        for (size_t j = 0; j < len; j++) logits = generator_step(&g, ctx[j], j);
        out[i + 1 - np] = sampler_next(&s, logits);
    }
    sampler_free(&s);
    generator_free(&g);
}

static size_t differ(const int *a, const int *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != b[i];
    return d;
}

static void check_kind(const char *kind) {
    char dir[512];
    tpath(dir, sizeof dir, kind);
    int rc = make_run(kind, dir);
    CHECK(rc == 0);
    if (rc) return;
    LoadedRun r;
    rc = run_load(&r, dir);
    CHECK(rc == 0);
    if (rc) return;
    int prompt[64];
    size_t np = 0;
    CHECK(dataset_encode_prompt(r.data, PROMPT, prompt, 64, &np) == 0 && np == strlen(PROMPT));

    const char *temps[] = {"0.5", "2"};
    for (size_t k = 0; k < 2; k++) {
        float T = strtof(temps[k], NULL);
        int want[N_TOKENS], at_one[N_TOKENS], oldest[N_TOKENS], got[N_TOKENS];
        replay(&r.model, prompt, np, T, 1, want, N_TOKENS);
        replay(&r.model, prompt, np, 1.0f, 1, at_one, N_TOKENS);
        replay(&r.model, prompt, np, T, 0, oldest, N_TOKENS);
        // the test can tell these apart (else it could not catch them)
        CHECK(differ(want, at_one, N_TOKENS) >= 5);
        CHECK(differ(want, oldest, N_TOKENS) >= 5);

        char n_tok[16], seed[16];
        snprintf(n_tok, sizeof n_tok, "%d", N_TOKENS);
        snprintf(seed, sizeof seed, "%d", SEED);
        char *argv[] = {"sample", "--run", dir, "--prompt", (char *)PROMPT, "--tokens", n_tok,
                        "--temperature", (char *)temps[k], "--seed", seed, NULL};
        rc = run_lmtrain(argv);
        CHECK(rc == 0);
        // stdout (the echoed prompt, then one byte per token) comes before the
        // statistics on stderr: the same file, flushed token by token
        size_t off = strlen(PROMPT);
        CHECK(strlen(e2e_out) >= off + N_TOKENS && !strncmp(e2e_out, PROMPT, off));
        if (rc || strlen(e2e_out) < off + N_TOKENS) {
            fprintf(stderr, "  sample %s: %s\n", kind, e2e_out);
            continue;
        }
        for (size_t i = 0; i < N_TOKENS; i++) got[i] = dataset_encode_byte(r.data, (unsigned char)e2e_out[off + i]);
        size_t bad = differ(got, want, N_TOKENS);
        if (bad)
            fprintf(stderr, "  %s at temperature %s: %zu of %d tokens differ from the replay (%zu from the "
                    "replay at temperature 1, %zu from one that keeps the oldest half)\n", kind, temps[k], bad,
                    N_TOKENS, differ(got, at_one, N_TOKENS), differ(got, oldest, N_TOKENS));
        CHECK(bad == 0);
    }
    run_unload(&r);
}

static void test_sample_softmax(void) { check_kind("softmax"); }
static void test_sample_linear_decay(void) { check_kind("linear_decay"); }
static void test_sample_delta(void) { check_kind("delta"); }

int main(void) {
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    write_corpus(corpus, 4000);
    TEST(test_sample_softmax);
    TEST(test_sample_linear_decay);
    TEST(test_sample_delta);
    e2e_teardown();
    return test_summary();
}
