// sample.c — `lmtrain sample`: generate text from a trained run (SPEC §2).
//
//   lmtrain sample --run DIR [--prompt TEXT] [--tokens N] [--temperature T] [--top-k K] [--seed S]
//                  [--weights fp32|bf16|int8]
//
// The prompt is echoed, then each generated token is written to stdout as soon
// as it is sampled (text: its byte; recall: its symbol, space-separated).
// Generation is incremental (model/generate.h): a KV cache for softmax, the
// recurrent fast-weight state for the linear kinds, so the cost per token does
// not grow with the length. At the end stderr gets tokens/s and the attention
// cache/state bytes in use.
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/matvec.h"
#include "kernels/matvec_i8.h"
#include "model/generate.h"
#include "model/sampler.h"
#include "cmd/commands.h"
#include "cmd/args.h"
#include "cmd/run_load.h"
#include "util/err.h"
#include "util/format_bytes.h"

#define MAX_TOKENS ((size_t)1000000000)

typedef struct {
    const char *run, *prompt, *weights;
    size_t tokens, top_k;
    double temperature;
    uint64_t seed;
} SampleOpts;

static int parse(int argc, char **argv, SampleOpts *o) {
    *o = (SampleOpts){.tokens = 500, .temperature = 1.0, .seed = 1337, .weights = "fp32"};
    const ArgOpt opts[] = {
        {"--run", ARG_STRING, &o->run, "DIR", .help = "the run folder (with checkpoint.bin)", .required = 1},
        {"--prompt", ARG_STRING, &o->prompt, "TEXT", .help = "text to continue", .shown_default = "none: start from a newline"},
        {"--tokens", ARG_SIZE, &o->tokens, "N", .help = "tokens to generate", .lo = 0, .hi = (double)MAX_TOKENS},
        {"--temperature", ARG_DOUBLE, &o->temperature, "T", .help = "softmax temperature; 0 = always the likeliest", .lo = 0, .hi = 1e6},
        {"--top-k", ARG_SIZE, &o->top_k, "K", .help = "sample among the K likeliest tokens; 0 = all", .lo = 0, .hi = 1 << 20},
        {"--seed", ARG_U64, &o->seed, "S", .help = "random seed of the sampler"},
        {"--weights", ARG_STRING, &o->weights, "W",
         .help = "the weight matrices as generation reads them: fp32 (exact), bf16 (half the bytes, rounded) or "
                 "int8 (a quarter, quantised per row; needs AVX-512 VNNI)"},
    };
    const ArgSpec spec = {"sample", "--run DIR [options]",
                          "Generate text from a trained run, one token at a time (KV cache or recurrent state).",
                          ARGS_TABLE(opts)};
    int rc = args_parse(&spec, argc, argv);
    if (!rc && gen_weights_from_name(o->weights) < 0)
        rc = err_set(ERR_USAGE, "sample: --weights must be fp32, bf16 or int8, not \"%s\"", o->weights);
    const char *missing = !rc && gen_weights_from_name(o->weights) == GEN_WEIGHTS_INT8 ? matvec_i8_cpu_missing() : NULL;
    if (missing) rc = err_set(ERR_USAGE, "sample: --weights int8: %s; use bf16 or fp32", missing);
    return rc;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Writes one token: text tokens are raw bytes; recall symbols get a space
// before every symbol but the first. *last: the last byte written.
static void emit(const Dataset *d, int token, size_t *written, int *last, FILE *out) {
    char buf[8];
    size_t n = dataset_decode(d, token, buf);
    if (dataset_task(d) == TASK_RECALL && *written) fputc(' ', out);
    fwrite(buf, 1, n, out);
    if (n) *last = (unsigned char)buf[n - 1];
    (*written)++;
}

// The prompt as tokens. Without one (or an empty one), generation starts from
// a newline if the vocabulary has one (a text's natural boundary), else from
// token 0 (the recall task's filler); that start token is not echoed.
static int prompt_tokens(const Dataset *d, const char *prompt, int **out, size_t *n, int *echo) {
    size_t cap = (prompt ? strlen(prompt) : 0) + 1;
    *out = xcalloc(cap, sizeof(int));
    *n = 0;
    *echo = 1;
    if (prompt) {
        int rc = dataset_encode_prompt(d, prompt, *out, cap, n);
        if (rc) {
            free(*out);
            *out = NULL;
            return err_wrap(rc, "sample: --prompt: ");
        }
    }
    if (*n == 0) {
        int nl = dataset_encode_byte(d, '\n');
        (*out)[0] = nl >= 0 ? nl : 0;
        *n = 1;
        *echo = 0;
    }
    return 0;
}

static void report(const LoadedRun *r, const Generator *g, size_t n_prompt, size_t n_gen, double secs,
                   size_t rebuilds) {
    const Model *m = &r->model;
    char used[32], alloc[32];
    format_bytes(used, sizeof used, (double)generator_state_bytes_used(g));
    format_bytes(alloc, sizeof alloc, (double)generator_state_bytes_allocated(g));
    fprintf(stderr, "sample: %zu tokens generated in %.3f s (%.0f tokens/s) after a %zu-token prompt\n",
            n_gen, secs, secs > 0 ? (double)n_gen / secs : 0.0, n_prompt);
    if (model_inference_bytes(m, 1) != model_inference_bytes(m, 2)) {
        size_t held = g->pos < g->window ? g->pos : g->window;
        fprintf(stderr,
                "sample: KV cache in use: %s = %zu of %zu tokens x %zu layers x %zu heads x 2 x %zu "
                "%s (allocated for the full window: %s)\n",
                used, held, g->window, m->L, m->H, m->dh, g->acfg.kv_bf16 ? "bf16" : "float32", alloc);
    } else {
        fprintf(stderr, "sample: fast-weight state in use: %s = %zu layers x %zu float32, the same at any "
                        "length\n", used, m->L, g->state_floats);
    }
    if (rebuilds)  // one line: what happened and why
        fprintf(stderr, "sample: the context was rebuilt %zu times from its last %zu tokens: this run learned "
                        "positions 0..%zu only (pos = learned), so each time the text reached block_size %zu the "
                        "state was recomputed (a pos = none run never needs this)\n", rebuilds, m->Tmax / 2,
                m->Tmax - 1, m->Tmax);
}

// With learned positions the model only ever saw positions 0 .. block_size-1.
// nanoGPT keeps every token inside that range by re-running the last
// block_size tokens for each new one. We do the same, amortised: when the
// context is full, the state (KV cache or fast weights) is rebuilt from the
// most recent half window, so each token is predicted from between
// block_size/2 and block_size tokens of context, at about twice the cost of
// plain incremental decoding. With pos = none nothing is rebuilt: fast-weight
// kinds run on without limit, softmax slides its KV cache window.
typedef struct {
    Generator *g;
    const Model *m;
    int *hist;     // (block_size) the tokens the current state holds, in order
    size_t n, rebuilds;
} Context;

static const float *feed(Context *c, int tok) {
    if (c->m->wpe && c->g->pos == c->m->Tmax) {
        size_t keep = c->m->Tmax / 2;
        generator_reset(c->g);
        memmove(c->hist, c->hist + c->n - keep, keep * sizeof(int));
        c->n = keep;
        for (size_t i = 0; i < keep; i++) generator_step(c->g, c->hist[i], c->g->pos);
        c->rebuilds++;
    }
    if (c->m->wpe) c->hist[c->n++] = tok;
    return generator_step(c->g, tok, c->g->pos);
}

static int generate(const LoadedRun *r, const SampleOpts *o, const int *prompt, size_t n_prompt,
                    int echo) {
    const Model *m = &r->model;
    FILE *out = stdout;
    Generator g;
    generator_init_weights(&g, m, (GenWeights)gen_weights_from_name(o->weights));
    Sampler s;
    sampler_init(&s, m->V, (float)o->temperature, o->top_k, o->seed);
    size_t written = 0;
    int rc = 0, last = '\n';
    const float *logits = NULL;
    Context ctx = {&g, m, xcalloc(m->Tmax, sizeof(int)), 0, 0};
    // the prompt: absorbed one token at a time, the same path as generation
    for (size_t i = 0; i < n_prompt; i++) {
        logits = feed(&ctx, prompt[i]);
        if (echo) emit(r->data, prompt[i], &written, &last, out);
    }
    fflush(out);
    double t0 = now_s();
    size_t n = 0;
    for (; n < o->tokens; n++) {
        if (!logits_finite(logits, m->V)) {
            rc = err_set(ERR_RUNTIME, "sample: the model produced non-finite logits at position %zu "
                                      "(a checkpoint of a diverged run?)", g.pos);
            break;
        }
        int tok = sampler_next(&s, logits);
        emit(r->data, tok, &written, &last, out);
        fflush(out);  // stream: each token appears as soon as it exists
        if (n + 1 < o->tokens) logits = feed(&ctx, tok);
    }
    double secs = now_s() - t0;
    if (dataset_task(r->data) == TASK_RECALL) fputc('\n', out);
    errno = 0;
    if (fflush(out) != 0 || ferror(out)) {
        int e = errno;
        if (!rc)
            rc = err_set(ERR_RUNTIME, "sample: writing the generated text to stdout failed%s%s", e ? ": " : "",
                         e ? strerror(e) : "");
    }
    if (!rc) {
        // the status lines start on a line of their own, on a terminal or where stdout and stderr are one
        // file, while stdout keeps exactly the text (a line break there would be a token never generated)
        if (dataset_task(r->data) == TASK_TEXT && last != '\n') fputc('\n', stderr);
        report(r, &g, n_prompt, n, secs, ctx.rebuilds);
        if (g.weights == GEN_WEIGHTS_BF16)
            fprintf(stderr, "sample: weights in bf16 (kernel %s): rounded once at start, sums in fp32\n",
                    matvec_bf16_kernel());
        if (g.weights == GEN_WEIGHTS_INT8)
            fprintf(stderr, "sample: weights in int8 (kernel %s): quantised per row once at start, each product's "
                            "input per vector, sums in int32\n", matvec_i8_kernel());
    }
    free(ctx.hist);
    sampler_free(&s);
    generator_free(&g);
    return rc;
}

int cmd_sample(int argc, char **argv) {
    SampleOpts o;
    int rc = parse(argc, argv, &o);
    if (rc) return args_status(rc);
    LoadedRun r;
    if ((rc = run_load(&r, o.run))) return rc;
    // Generation runs one token at a time: the per-token products are far
    // below the size at which the thread pool helps, so no pool is started.
    int *prompt = NULL;
    size_t n_prompt = 0;
    int echo = 1;
    if (!(rc = prompt_tokens(r.data, o.prompt, &prompt, &n_prompt, &echo)))
        rc = generate(&r, &o, prompt, n_prompt, echo);
    free(prompt);
    run_unload(&r);
    return rc;
}
