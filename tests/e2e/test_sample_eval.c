// test_sample_eval.c — end to end: sample, eval and inspect on tiny trained
// runs, through the real binary: determinism for a seed, streaming output,
// option and run-folder errors, the full-split eval numbers, inspect's files,
// and constant memory when a fast-weight model generates 100 000 tokens.
#define _DEFAULT_SOURCE  // wait4: the peak RSS of one child
#include <math.h>
#include <sys/resource.h>

#include "../test.h"
#include "attention/attention.h"
#include "kernels/matvec_i8.h"
#include "e2e.h"

static char corpus[512], cfg_path[512];
static char run_sm[512], run_lin[512], run_dec[512], run_delta[512];
static char run_dec_data[512], run_delta_data[512], run_delta_wy[512];  // inspect's variants
static size_t corpus_size;  // write_corpus stops at a word boundary past CORPUS_BYTES

#define CORPUS_BYTES 20000
#define VAL_FRACTION 0.2
#define BLOCK 16

// heads of d_model / heads; extra: more [attention] lines (or "")
static void train_with(const char *kind, const char *pos, int heads, int d_model, const char *extra,
                       const char *out) {
    char text[4096];
    snprintf(text, sizeof text,
             "[run]\nname = tiny\nseed = 7\nthreads = 1\n"
             "[data]\npath = %s\nval_fraction = %g\n"
             "[model]\nlayers = 2\nheads = %d\nd_model = %d\nblock_size = %d\npos = %s\n"
             "[attention]\nkind = %s\nchunk = 5\n%s"
             "[train]\nsteps = 60\nbatch_size = 4\nlr = 3e-3\nwarmup = 5\neval_every = 30\n"
             "eval_batches = 2\nlog_every = 10\ncheckpoint_every = 60\n",
             corpus, VAL_FRACTION, heads, d_model, BLOCK, pos, kind, extra);
    write_text(cfg_path, text);
    char *argv[] = {"--config", cfg_path, "--out", (char *)out, NULL};
    int rc = run_lmtrain(argv);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "training %s: %s\n", kind, e2e_out);
}

static void train(const char *kind, const char *pos, const char *out) { train_with(kind, pos, 2, 16, "", out); }

// Runs lmtrain with stdout and stderr kept apart (files out.txt, err.txt in the
// test folder); returns the exit status, and the child's peak RSS in KiB in
// *maxrss_kb when given.
static int run_split(char *const argv[], long *maxrss_kb) {
    char out[512], err[512];
    tpath(out, sizeof out, "out.txt");
    tpath(err, sizeof err, "err.txt");
    char *args[64];
    int n = 0;
    args[n++] = (char *)lmtrain_bin();
    for (int i = 0; argv[i] && n < 63; i++) args[n++] = argv[i];
    args[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0) _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        close(fo);
        close(fe);
        execv(args[0], args);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    if (maxrss_kb) *maxrss_kb = ru.ru_maxrss;
    slurp_into(err, e2e_out, sizeof e2e_out);  // stderr, for messages
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

static char *read_out(void) {
    char p[512];
    return read_all(tpath(p, sizeof p, "out.txt"), NULL);
}

// ============================================================================
// sample
// ============================================================================

static char *sample_out(const char *run, const char *seed, const char *temp, const char *tokens,
                        const char *prompt) {
    char *argv[] = {"sample", "--run", (char *)run, "--seed", (char *)seed, "--temperature", (char *)temp,
                    "--tokens", (char *)tokens, prompt ? "--prompt" : NULL, (char *)prompt, NULL};
    int rc = run_split(argv, NULL);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "sample: %s\n", e2e_out);
    return read_out();
}

static void test_sample_deterministic_for_seed(void) {
    const char *runs[] = {run_sm, run_lin, run_dec};
    for (int r = 0; r < 3; r++) {
        char *a = sample_out(runs[r], "5", "1.0", "300", "the cat");
        char *b = sample_out(runs[r], "5", "1.0", "300", "the cat");
        char *c = sample_out(runs[r], "6", "1.0", "300", "the cat");
        CHECK(a && b && c);
        if (!a || !b || !c) continue;
        CHECK(strcmp(a, b) == 0);                  // same seed, same text
        CHECK(strcmp(a, c) != 0);                  // another seed, other text
        CHECK(strncmp(a, "the cat", 7) == 0);      // the prompt is echoed
        CHECK(strlen(a) == 7 + 300);               // then exactly --tokens bytes
        // greedy ignores the seed
        char *g1 = sample_out(runs[r], "1", "0", "100", "the cat");
        char *g2 = sample_out(runs[r], "2", "0", "100", "the cat");
        CHECK(g1 && g2 && strcmp(g1, g2) == 0);
        free(a), free(b), free(c), free(g1), free(g2);
    }
    // stderr reports speed and the state in use
    char *argv[] = {"sample", "--run", run_dec, "--tokens", "50", NULL};
    CHECK(run_split(argv, NULL) == 0);
    CHECK(strstr(e2e_out, "tokens/s") && strstr(e2e_out, "fast-weight state in use"));
}

// --weights bf16 and int8: the same interface, the weights streamed in bf16 or
// int8 (said on stderr, with the KV cache's format); int8 where the CPU has AVX-512 VNNI
static void test_sample_bf16_int8_weights(void) {
    const char *runs[] = {run_sm, run_dec}, *formats[] = {"bf16", "int8"};
    for (int f = 0; f < 2; f++) {
        if (f == 1 && matvec_i8_cpu_missing()) {
            SKIP("avx512_vnni", "%s", matvec_i8_cpu_missing());
            break;
        }
        for (int r = 0; r < 2; r++) {
            char *argv[] = {"sample", "--run", (char *)runs[r], "--tokens", "80", "--prompt", "the cat", "--weights",
                            (char *)formats[f], NULL};
            int rc = run_split(argv, NULL);
            char said[32];
            snprintf(said, sizeof said, "weights in %s", formats[f]);
            CHECK(rc == 0 && strstr(e2e_out, said) != NULL);
            // softmax's KV cache: bf16 with int8 weights, else float32 (said in the memory line)
            if (runs[r] == run_sm) CHECK(strstr(e2e_out, f == 1 ? " bf16 (allocated" : " float32 (allocated") != NULL);
            char *a = read_out();
            CHECK(a && strncmp(a, "the cat", 7) == 0 && strlen(a) == 7 + 80);
            free(a);
        }
    }
}

// --weights int8 on a CPU without AVX-512 VNNI (simulated): refused, exit 2,
// with the reason, and nothing generated
static void test_sample_int8_refused_without_vnni(void) {
    setenv("LMTRAIN_CPU_NO_VNNI", "1", 1);
    char *argv[] = {"sample", "--run", run_sm, "--tokens", "20", "--weights", "int8", NULL};
    int rc = run_split(argv, NULL);
    CHECK(rc == 2 && strstr(e2e_out, "--weights int8") && strstr(e2e_out, "AVX-512 VNNI"));
    char *a = read_out();
    CHECK(a && strlen(a) == 0);
    free(a);
    unsetenv("LMTRAIN_CPU_NO_VNNI");
}

static void test_sample_errors(void) {
    char nodir[512], empty[512];
    tpath(nodir, sizeof nodir, "no-such-run");
    tpath(empty, sizeof empty, "empty-run");
    mkdir(empty, 0755);
    struct {
        char *argv[12];
        int rc;
        const char *msg;
    } cases[] = {
        {{"sample", "--run", run_sm, "--prompt", "the cat~", NULL}, 2, "'~'"},  // not in the corpus
        {{"sample", "--run", run_sm, "--bogus", NULL}, 2, "--bogus"},
        {{"sample", "--prompt", "the", NULL}, 2, "--run"},
        {{"sample", "--run", run_sm, "--tokens", "-1", NULL}, 2, "--tokens"},
        {{"sample", "--run", run_sm, "--tokens", "12x", NULL}, 2, "--tokens"},
        {{"sample", "--run", run_sm, "--temperature", "-0.5", NULL}, 2, "--temperature"},
        {{"sample", "--run", run_sm, "--temperature", "nan", NULL}, 2, "--temperature"},
        {{"sample", "--run", run_sm, "--top-k", "x", NULL}, 2, "--top-k"},
        {{"sample", "--run", run_sm, "--seed", NULL}, 2, "--seed"},
        {{"sample", "--run", run_sm, "--weights", "fp16", NULL}, 2, "--weights"},
        {{"sample", "--run", nodir, NULL}, 1, "no-such-run"},
        {{"sample", "--run", empty, NULL}, 1, "checkpoint.bin"},
        {{"eval", "--run", run_sm, "--tokens", "5", NULL}, 2, "--tokens"},
        {{"eval", NULL}, 2, "--run"},
        {{"eval", "--run", nodir, NULL}, 1, "no-such-run"},
        {{"inspect", "--run", run_sm, "--drift-tokens", "many", NULL}, 2, "--drift-tokens"},
        {{"inspect", "--run", empty, NULL}, 1, "checkpoint.bin"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = run_split(cases[i].argv, NULL);
        int ok = rc == cases[i].rc && strstr(e2e_out, cases[i].msg) != NULL;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  case %zu: exit %d, want %d with '%s': %s\n", i, rc, cases[i].rc,
                    cases[i].msg, e2e_out);
    }
    // a corrupt checkpoint is a message and exit 1, never a crash
    char ck[600], bad[512], cmd[1400];
    tpath(bad, sizeof bad, "bad-run");
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", run_sm, bad);
    CHECK(system(cmd) == 0);
    snprintf(ck, sizeof ck, "%s/checkpoint.bin", bad);
    size_t n = 0;
    char *b = read_all(ck, &n);
    if (b && n > 100) {
        b[n / 2] ^= 0x10;
        FILE *f = fopen(ck, "wb");
        fwrite(b, 1, n, f);
        fclose(f);
    }
    free(b);
    char *argv[] = {"sample", "--run", bad, NULL};
    CHECK(run_split(argv, NULL) == 1);
    CHECK(strstr(e2e_out, "checkpoint.bin") != NULL);
}

// ============================================================================
// Memory: generation at constant memory (fast weights, pos = none) and a
// KV cache bounded by its window (softmax)
// ============================================================================

static long sample_rss(const char *run, const char *tokens, char *err_copy, size_t cap) {
    char *argv[] = {"sample", "--run", (char *)run, "--tokens", (char *)tokens, "--seed", "3", NULL};
    long kb = 0;
    int rc = run_split(argv, &kb);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    size_t n = strlen(e2e_out) < cap ? strlen(e2e_out) : cap - 1;
    memcpy(err_copy, e2e_out, n);
    err_copy[n] = 0;
    return kb;
}

// the "... in use: X = ..." part of sample's stderr
static const char *in_use(const char *err) {
    const char *p = strstr(err, "in use: ");
    return p ? p : "";
}

// The least peak RSS of three identical runs: a single reading moves by up to
// ~200 KiB from run to run on a loaded machine (seen: 2724 KiB at 1 000 tokens,
// 2996 at 100 000, then equal on re-runs), which is page-level noise, not growth.
static long least_sample_rss(const char *run, const char *tokens, char *err_copy, size_t cap) {
    long least = 0;
    for (int i = 0; i < 3; i++) {
        long kb = sample_rss(run, tokens, err_copy, cap);
        if (i == 0 || kb < least) least = kb;
    }
    return least;
}

#if defined(__SANITIZE_ADDRESS__)
#define RSS_INCLUDES_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_INCLUDES_SANITIZER 1
#endif
#endif

static void test_generation_memory_is_flat(void) {
#ifdef RSS_INCLUDES_SANITIZER
    // Under AddressSanitizer the peak RSS includes its shadow memory and its
    // quarantine of freed blocks: a 348 KiB rise was seen at 100 000 tokens in
    // CI's SAN stage, where the plain builds stay flat. The plain builds run it.
    SKIP("no-sanitizer", "peak RSS under AddressSanitizer counts its own shadow memory and quarantine");
    return;
#endif
    char e1[4096], e2[4096];
    long small = least_sample_rss(run_dec, "1000", e1, sizeof e1);
    long big = least_sample_rss(run_dec, "100000", e2, sizeof e2);
    // The state is allocated once; nothing grows per token. The limit is far
    // below what one float per token would cost (390 KiB at 100 000 tokens).
    CHECK(small > 0 && big > 0);
    CHECK(big - small <= 256);
    if (!(big - small <= 256))
        fprintf(stderr, "  peak RSS %ld KiB at 1000 tokens, %ld KiB at 100000\n", small, big);
    CHECK(strcmp(in_use(e1), in_use(e2)) == 0 && strstr(e1, "fast-weight state in use"));
    char out[512];
    size_t n = 0;
    free(read_all(tpath(out, sizeof out, "out.txt"), &n));
    CHECK(n == 100000);  // pos = none: no length limit
    // softmax: the cache fills the window and stays there
    // the least of three runs each, as above: a page or two of a busy machine's
    // transient allocations (seen once in a loaded make test -j2) is not growth
    long s1 = least_sample_rss(run_sm, "200", e1, sizeof e1);
    long s2 = least_sample_rss(run_sm, "20000", e2, sizeof e2);
    CHECK(s2 - s1 <= 256);
    if (!(s2 - s1 <= 256)) fprintf(stderr, "  softmax peak RSS %ld KiB at 200 tokens, %ld KiB at 20000\n", s1, s2);
    // learned positions: the cache is rebuilt from the last half window when
    // it fills, so what it holds moves between BLOCK/2 and BLOCK tokens; what
    // is allocated stays the same
    const char *a1 = strstr(e1, "(allocated"), *a2 = strstr(e2, "(allocated");
    CHECK(strstr(e1, "KV cache in use") && a1 && a2 &&
          strcspn(a1, "\n") == strcspn(a2, "\n") && strncmp(a1, a2, strcspn(a1, "\n")) == 0);
    char want[64];
    snprintf(want, sizeof want, " of %d tokens", BLOCK);
    CHECK(strstr(e2, want) != NULL && strstr(e2, "context was rebuilt") != NULL);
}

// ============================================================================
// eval
// ============================================================================

static void test_eval_whole_split(void) {
    char *argv[] = {"eval", "--run", run_lin, NULL};
    int rc = run_split(argv, NULL);
    CHECK(rc == 0);
    char *o = read_out();
    if (rc || !o) {
        fprintf(stderr, "%s\n", e2e_out);
        free(o);
        return;
    }
    double loss = NAN, bits = NAN;
    size_t scored = 0;
    char *p = strstr(o, "val loss");
    if (p) sscanf(p, "val loss %lf", &loss);
    p = strstr(o, "bits/char");
    if (p) sscanf(p, "bits/char %lf", &bits);
    p = strstr(o, "tokens scored");
    if (p) sscanf(p, "tokens scored %zu", &scored);
    // every window of the split: (n_val - 1) / T of them, every position scored
    size_t n_val = corpus_size - (size_t)floor((double)corpus_size * (1.0 - VAL_FRACTION));
    CHECK(scored == (n_val - 1) / BLOCK * BLOCK);
    CHECK(loss > 0.5 && loss < 4.0);
    CHECK_NEAR(bits, loss / log(2.0), 1e-3);
    free(o);
    // the CSV: one row per position, each with every window, averaging to the loss
    char csv[600], svg[600];
    snprintf(csv, sizeof csv, "%s/eval/loss_by_position.csv", run_lin);
    snprintf(svg, sizeof svg, "%s/eval/loss_by_position.svg", run_lin);
    CHECK(file_exists(svg));
    char *t = read_all(csv, NULL);
    CHECK(t && !strncmp(t, "position,loss,bits,count\n", 25));
    double sum = 0;
    size_t rows = 0, count = 0;
    for (char *line = t ? strchr(t, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
        size_t pos, c;
        double l, b;
        if (sscanf(line + 1, "%zu,%lf,%lf,%zu", &pos, &l, &b, &c) == 4) {
            CHECK(pos == rows);
            sum += l * (double)c;
            count += c;
            rows++;
        }
    }
    CHECK(rows == BLOCK);
    CHECK(count == scored);
    CHECK_NEAR(sum / (double)(count ? count : 1), loss, 1e-4);
    free(t);
}

// `eval --weights W`'s "val loss" line, NAN if it failed
static double eval_loss(const char *run, const char *weights) {
    char *argv[] = {"eval", "--run", (char *)run, "--weights", (char *)weights, NULL};
    char *plain[] = {"eval", "--run", (char *)run, NULL};
    int rc = run_split(weights ? argv : plain, NULL);
    char *o = read_out();
    double loss = NAN;
    char *p = o ? strstr(o, "val loss") : NULL;
    if (!rc && p) sscanf(p, "val loss %lf", &loss);
    free(o);
    return loss;
}

// --weights: the split through the generation path. fp32 is the same function
// as the training graph (only attention's form differs): the same loss to the
// printed 4 decimals (1e-4 for the two printings' rounding plus float
// rounding). bf16 and int8: a sanity bound only (within 1 % of fp32; the
// kernel and generator tests hold the derived bounds). Writes no file; a
// bad --weights or int8 without VNNI is refused with exit 2.
static void test_eval_generation_path(void) {
    const char *runs[] = {run_sm, run_lin, run_dec};
    for (int r = 0; r < 3; r++) {
        double graph = eval_loss(runs[r], NULL);
        char sum_path[600];
        snprintf(sum_path, sizeof sum_path, "%s/eval/summary.txt", runs[r]);
        char *before = read_all(sum_path, NULL);
        double f = eval_loss(runs[r], "fp32"), b = eval_loss(runs[r], "bf16");
        CHECK(isfinite(graph) && fabs(f - graph) <= 1e-4 + 1e-6);
        CHECK(fabs(b - f) <= 0.01 * f);
        char *after = read_all(sum_path, NULL);
        CHECK(before && after && !strcmp(before, after));
        free(before), free(after);
    }
    char *bad[] = {"eval", "--run", run_sm, "--weights", "fp16", NULL};
    CHECK(run_split(bad, NULL) == 2 && strstr(e2e_out, "--weights"));
    setenv("LMTRAIN_CPU_NO_VNNI", "1", 1);
    char *no[] = {"eval", "--run", run_sm, "--weights", "int8", NULL};
    CHECK(run_split(no, NULL) == 2 && strstr(e2e_out, "AVX-512 VNNI"));
    unsetenv("LMTRAIN_CPU_NO_VNNI");
}

// --weights int8 within 1 % of fp32, where the CPU has AVX-512 VNNI: a case of
// its own, so a CPU without it shows the skip by name in the summary
static void test_eval_int8_weights(void) {
    if (matvec_i8_cpu_missing()) {
        SKIP("avx512_vnni", "%s", matvec_i8_cpu_missing());
        return;
    }
    const char *runs[] = {run_sm, run_lin, run_dec};
    for (int r = 0; r < 3; r++) {
        double f = eval_loss(runs[r], "fp32"), i = eval_loss(runs[r], "int8");
        CHECK(isfinite(f) && fabs(i - f) <= 0.01 * f);
    }
}

// --length: windows longer than block_size for pos = none, refused with the
// reason for learned positions (and nothing written), shorter windows for any run
static void test_eval_length(void) {
    char *argv[] = {"eval", "--run", run_dec, "--length", "48", NULL};  // 3 x block_size
    int rc = run_split(argv, NULL);
    CHECK(rc == 0);
    char *o = read_out();
    double loss = NAN;
    char *p = o ? strstr(o, "val loss") : NULL;
    if (p) sscanf(p, "val loss %lf", &loss);
    if (rc) fprintf(stderr, "%s\n", e2e_out);
    free(o);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/eval/loss_by_position_48.csv", run_dec);
    char *t = read_all(csv, NULL);
    CHECK(t != NULL);
    size_t n_val = corpus_size - (size_t)floor((double)corpus_size * (1.0 - VAL_FRACTION));
    size_t rows = 0, bad = 0;
    double sum = 0, count = 0;
    for (char *line = t ? strchr(t, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
        size_t pos, c;
        double l, b;
        if (sscanf(line + 1, "%zu,%lf,%lf,%zu", &pos, &l, &b, &c) != 4) continue;
        bad += pos != rows || c != (n_val - 1) / 48;  // every window of 48 scores every position
        sum += l * (double)c;
        count += (double)c;
        rows++;
    }
    CHECK(rows == 48 && bad == 0);
    CHECK_NEAR(sum / (count > 0 ? count : 1), loss, 1e-4);
    free(t);
    snprintf(csv, sizeof csv, "%s/eval/loss_by_position_48.svg", run_dec);
    CHECK(file_exists(csv));

    // learned positions: refused, exit 2, the reason named, no file written
    char *bad_argv[] = {"eval", "--run", run_lin, "--length", "48", NULL};
    CHECK(run_split(bad_argv, NULL) == 2);
    CHECK(strstr(e2e_out, "pos = none") != NULL && strstr(e2e_out, "block_size 16") != NULL);
    snprintf(csv, sizeof csv, "%s/eval/loss_by_position_48.csv", run_lin);
    CHECK(!file_exists(csv));
    char *zero[] = {"eval", "--run", run_lin, "--length", "0", NULL};
    CHECK(run_split(zero, NULL) == 2);
    // shorter than block_size is fine for any run
    char *short_argv[] = {"eval", "--run", run_lin, "--length", "8", NULL};
    CHECK(run_split(short_argv, NULL) == 0);
    snprintf(csv, sizeof csv, "%s/eval/loss_by_position_8.csv", run_lin);
    CHECK(file_exists(csv));
}

// ============================================================================
// inspect
// ============================================================================

// reconstruction column of section 8 for every head: the implied attention
// matrix must give back the kind's own output; returns the largest, or NaN
static double max_reconstruction(const char *o) {
    const char *p = strstr(o, "reconstruction\n");
    double worst = NAN;
    if (!p) return NAN;
    for (p = strchr(p, '\n'); p && p[1] && p[1] != '('; p = strchr(p + 1, '\n')) {
        size_t h;
        double lam, self, near, dist, rec;
        if (sscanf(p + 1, "%zu %lf %lf %lf %lf %lf", &h, &lam, &self, &near, &dist, &rec) != 6) return NAN;
        if (!(rec <= worst)) worst = rec;  // NaN-safe max
    }
    return worst;
}

// Every section of inspect for every registered kind and its variants: what
// each run has (a fast-weight state, a normaliser z, a decay λ) and the words
// of its training form.
static void test_inspect_writes_report(void) {
    const struct {
        const char *run;
        int state, z, lambda;
        const char *form;
    } runs[] = {
        {run_sm, 0, 0, 0, "training form: tiled"},
        {run_lin, 1, 1, 0, "training form: chunkwise-parallel"},
        {run_dec, 1, 1, 1, "training form: chunkwise-parallel"},
        {run_delta, 1, 0, 1, "training form: exact token recurrence"},
        {run_dec_data, 1, 1, 1, "training form: chunkwise-parallel"},
        {run_delta_data, 1, 0, 1, "training form: exact token recurrence"},
        {run_delta_wy, 1, 0, 1, "training form: exact token recurrence"},  // the words cover both forms
    };
    int kinds_seen[8] = {0};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char *argv[] = {"inspect", "--run", (char *)runs[r].run, "--drift-tokens", "3000", "--stretch", "500",
                        "--fp16-tokens", "2000", "--layer", "1", "--head", "1", NULL};
        int rc = run_split(argv, NULL);
        CHECK(rc == 0);
        char *o = read_out();
        if (rc || !o) {
            fprintf(stderr, "%s\n", e2e_out);
            free(o);
            continue;
        }
        for (int k = 0; attn_kinds[k] && k < 8; k++) {
            char head[64];
            snprintf(head, sizeof head, ": %s attention,", attn_kinds[k]->name);
            kinds_seen[k] |= strstr(o, head) != NULL;
        }
        // training vs generation form: the whole model's logits agree to float rounding
        double abs_d = NAN, ref = NAN, rel = NAN;
        char *p = strstr(o, "\nlogits");
        CHECK(p && sscanf(p, "\nlogits %lf %lf %lf", &abs_d, &ref, &rel) == 3);
        CHECK(rel <= 1e-5);
        // the attention matrix every kind implies reproduces its output
        double rec = max_reconstruction(o);
        CHECK(rec <= 1e-4);
        if (!(rec <= 1e-4)) fprintf(stderr, "  %s: reconstruction %.3g\n", runs[r].run, rec);
        const char *files[] = {"report.txt", "memory.csv", "memory.svg", "attention.csv", "attention.svg",
                               "state_norm.csv", "state_norm_S.svg", "fp16_drift.csv", "fp16_drift.svg",
                               "fp16_loss.csv", "state_heatmap.csv", "state_heatmap.svg", "state_norm_z.svg",
                               "lambda.csv", "lambda_horizon.svg"};
        for (int f = 0; f < 15; f++) {
            char path[700];
            snprintf(path, sizeof path, "%s/inspect/%s", runs[r].run, files[f]);
            int want = f < 5 || (f < 12 && runs[r].state) || (f == 12 && runs[r].z) || (f > 12 && runs[r].lambda);
            CHECK(file_exists(path) == want);
            if (file_exists(path) != want)
                fprintf(stderr, "  %s: %s\n", path, want ? "missing" : "unexpected");
        }
        if (runs[r].lambda) CHECK(strstr(o, "horizon") != NULL);
        if (!runs[r].state) CHECK(strstr(o, "skipped") != NULL);
        // each kind's own training form, not a label borrowed from another kind
        CHECK(strstr(o, runs[r].form) != NULL);
        free(o);
    }
    for (int k = 0; attn_kinds[k]; k++) {  // every registered kind was inspected
        CHECK(k < 8 && kinds_seen[k]);
        if (!(k < 8 && kinds_seen[k])) fprintf(stderr, "  kind %s: no inspect run\n", attn_kinds[k]->name);
    }
    // a layer or head the model does not have: refused before anything is written
    char *bad[] = {"inspect", "--run", run_lin, "--head", "2", NULL};
    char dir[600];
    snprintf(dir, sizeof dir, "%s/inspect/report.txt", run_lin);
    remove(dir);
    CHECK(run_split(bad, NULL) == 2);
    CHECK(strstr(e2e_out, "2 heads") != NULL);
    CHECK(!file_exists(dir));
}

int main(void) {
    (void)metrics_without_timing;  // e2e.h's, not needed here
    e2e_setup();
    tpath(corpus, sizeof corpus, "corpus.txt");
    tpath(cfg_path, sizeof cfg_path, "tiny.ini");
    tpath(run_sm, sizeof run_sm, "run_softmax");
    tpath(run_lin, sizeof run_lin, "run_linear");
    tpath(run_dec, sizeof run_dec, "run_linear_decay");
    tpath(run_delta, sizeof run_delta, "run_delta");
    write_corpus(corpus, CORPUS_BYTES);
    struct stat st;
    corpus_size = stat(corpus, &st) == 0 ? (size_t)st.st_size : 0;
    train("softmax", "learned", run_sm);
    train("linear", "learned", run_lin);
    train("linear_decay", "none", run_dec);
    train("delta", "learned", run_delta);
    tpath(run_dec_data, sizeof run_dec_data, "run_linear_decay_data");
    tpath(run_delta_data, sizeof run_delta_data, "run_delta_data");
    tpath(run_delta_wy, sizeof run_delta_wy, "run_delta_wy");
    train_with("linear_decay", "learned", 2, 16, "decay = data\n", run_dec_data);
    train_with("delta", "learned", 2, 16, "decay = data\nkey_norm = sum\nfeature_map = elu1\n", run_delta_data);
    train_with("delta", "none", 2, 128, "decay = data\nkey_norm = l2\n", run_delta_wy);  // head size 64: the WY form
    TEST(test_sample_deterministic_for_seed);
    TEST(test_sample_errors);
    TEST(test_sample_bf16_int8_weights);
    TEST(test_sample_int8_refused_without_vnni);
    TEST(test_eval_generation_path);
    TEST(test_eval_int8_weights);
    TEST(test_generation_memory_is_flat);
    TEST(test_eval_whole_split);
    TEST(test_eval_length);
    TEST(test_inspect_writes_report);
    e2e_teardown();
    return test_summary();
}
