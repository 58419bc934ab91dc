// test_bits.c — fp32 numerics pinned bit for bit: a few training steps and a
// few generated tokens of every kind and variant hash to recorded values.
//
// test_golden checks the recipe against an independent float64 implementation
// within tolerances; it cannot see a change of rounding (a sum taken in another
// order, an FMA where there was a multiply and an add). Speed work must not
// make one: every fp32 run, evaluation and sample stays what it was, so old
// results and new ones compare, and a resumed run continues the same run. This
// test is that promise in `make test`: each variant below trains STEPS AdamW
// steps from its initial weights on fixed batches (train_step, the loop's own
// step), then generates GEN_TOKENS tokens in fp32 (generator_step), and the
// FNV-1a hash of every parameter, every step's loss and gradient norm and every
// logit must equal the one recorded for this build's kernel set.
//
// The bits depend on the kernel path the process runs (gemm_isa(): the
// avx512, avx2 and portable paths, LMTRAIN_ISA, sum in different orders;
// tests/run.sh runs this test on each path the CPU has), not on the
// machine or the thread count (gemm.h, pool.h: results are the same for any
// split). A kernel set with no recorded hash is a visible skip.
//
// A change that means to alter fp32 numerics updates RECORDED from the
// "got" lines this test prints, and says why in its commit.
#include <stdint.h>
#include <string.h>

#include "../test.h"
#include "../small_model.h"
#include "config/config.h"
#include "kernels/gemm.h"
#include "model/generate.h"
#include "model/model.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "util/err.h"
#include "util/pool.h"

enum { STEPS = 3, GEN_TOKENS = 8, V = 65, B = 3, MAX_SETS = 4 };

// The shape every variant starts from: two layers, d_model 128 (so the MLP's
// K of 512 spans two of gemm's K blocks), T = 32 in chunks of 16 (a state
// carried across a chunk boundary).
static const char *const COMMON[] = {"model.layers=2", "model.heads=4", "model.d_model=128", "model.block_size=32",
                                     "attention.chunk=16", "run.seed=7"};

typedef struct {
    const char *name;
    const char *sets[MAX_SETS];  // on top of COMMON, NULL-terminated
} Variant;

static const Variant VARIANTS[] = {
    {"softmax", {"attention.kind=softmax"}},
    {"linear", {"attention.kind=linear"}},
    {"linear_decay", {"attention.kind=linear_decay"}},
    {"linear_decay_data", {"attention.kind=linear_decay", "attention.decay=data"}},
    {"linear_chunk11", {"attention.kind=linear", "attention.chunk=11"}},
    {"delta", {"attention.kind=delta"}},
    {"delta_sum", {"attention.kind=delta", "attention.key_norm=sum"}},
    {"delta_data", {"attention.kind=delta", "attention.decay=data"}},
    {"delta_wy_chunk11", {"attention.kind=delta", "model.heads=2", "attention.chunk=11"}},
    {"delta_dh16", {"attention.kind=delta", "model.heads=8"}},  // (the token form's chunk changes no bit)
    {"delta_wy", {"attention.kind=delta", "model.heads=2"}},  // head size 64: the WY form
    {"softmax_nopos", {"attention.kind=softmax", "model.pos=none"}},
    // the default chunk of 64 at T = 64 (the baby model's): the lower
    // triangles' second row block (wy_kernels.h) and the masked products'
    // blocks past 32 (fastweight_tri.h), which chunks of 11 and 16 never reach
    {"linear_decay_chunk64", {"attention.kind=linear_decay", "model.block_size=64", "attention.chunk=64"}},
    {"delta_chunk64", {"attention.kind=delta", "model.block_size=64", "attention.chunk=64"}},
    {"delta_wy_chunk64", {"attention.kind=delta", "model.heads=2", "model.block_size=64", "attention.chunk=64"}},
    // generation past the context: the KV cache's ring overwrites its oldest
    // slots (window 4, 8 tokens generated)
    {"softmax_window4", {"attention.kind=softmax", "model.block_size=4", "attention.chunk=4"}},
    // the key shift (the attention op's slab route, which the sharded passes
    // stop at), and a per-head output LayerNorm with an identity initial state
    {"softmax_key_shift", {"attention.kind=softmax", "attention.key_shift=true"}},
    {"linear_decay_onorm_id", {"attention.kind=linear_decay", "attention.output_norm=true",
                               "attention.state_init=identity"}},
    // delta with the feature maps other than its identity
    {"delta_elu1", {"attention.kind=delta", "attention.feature_map=elu1"}},
    {"delta_relu", {"attention.kind=delta", "attention.feature_map=relu"}},
};
enum { N_VARIANTS = sizeof VARIANTS / sizeof VARIANTS[0] };

// The recorded hashes, per kernel set, in VARIANTS' order.
typedef struct {
    const char *isa;
    uint64_t hash[N_VARIANTS];
} Recorded;

static const Recorded RECORDED[] = {
    // the native build on an AVX-512 CPU (SAN=1 too)
    {"avx512",
     {
      0x196f5dc08be588b9ull, 0x18d5e6f359f36593ull, 0x47fc212db52e8b7dull,
      0xb232e61bf8ad6aa7ull, 0x467f20ba899b5548ull, 0xe3d109b698c24b51ull,
      0xa1de4d6e3f493312ull, 0xdc6f253800da4c2dull, 0x8a9297948872dab3ull,
      0xc9e560923c2d8b37ull, 0x8440667f0eec85edull, 0xdc7254da16551983ull,
      0xebedb7d79236ddb5ull, 0x091fc73af891e61bull, 0x48d5721e3a5e2715ull,
      0x2ab908db86b66b9eull, 0x27c06bc7ec0b6aa6ull, 0x5f24319f3ede8614ull,
      0x30336df0a239b635ull, 0x65e70539f71d6ac3ull}},
    // KERNELS=avx2, or native on an AVX2 CPU: only softmax's row sums differ from avx512
    {"avx2",
     {
      0x18160e1194cb24b0ull, 0x18d5e6f359f36593ull, 0x47fc212db52e8b7dull,
      0xb232e61bf8ad6aa7ull, 0x467f20ba899b5548ull, 0xe3d109b698c24b51ull,
      0xa1de4d6e3f493312ull, 0xdc6f253800da4c2dull, 0x8a9297948872dab3ull,
      0xc9e560923c2d8b37ull, 0x8440667f0eec85edull, 0x8e520c4fd79c7d71ull,
      0xebedb7d79236ddb5ull, 0x091fc73af891e61bull, 0x48d5721e3a5e2715ull,
      0xa702ce12b1bf5ed4ull, 0x9d31f0d4678301a8ull, 0x5f24319f3ede8614ull,
      0x30336df0a239b635ull, 0x65e70539f71d6ac3ull}},
    // KERNELS=portable: no FMA
    {"plain-c",
     {
      0xfb9821e5370c8248ull, 0x4ebbca1283d1f38aull, 0xac2c64eca04d2563ull,
      0x08a0a237b2480765ull, 0x286fafb2fa337076ull, 0x3f8cc724bdd23aebull,
      0x987b766e3e9a969dull, 0x779210d7c07ea5b2ull, 0xea98c75878442d47ull,
      0xae2f098e66ca6491ull, 0xb56fd4005de7f67full, 0xe6d8be75e608ddc4ull,
      0xa68ea5b0ebd544d6ull, 0x0f76eddc0c857b9bull, 0xc142bb6cd28f9b11ull,
      0x9d10a0ebfbda1d1aull, 0x4e9e06097c11dd85ull, 0x7af4afa747f3b006ull,
      0x9bc442bb67e285d4ull, 0xef4294acaa7dad56ull}},
    // an aarch64 build (NEON; recorded under qemu-aarch64): avx2's bits exactly: the
    // products' FMA chains are the contract's, and the kernels that sum otherwise
    // on AVX-512 (softmax's) take the same non-AVX-512 form on both
    {"neon",
     {
      0x18160e1194cb24b0ull, 0x18d5e6f359f36593ull, 0x47fc212db52e8b7dull,
      0xb232e61bf8ad6aa7ull, 0x467f20ba899b5548ull, 0xe3d109b698c24b51ull,
      0xa1de4d6e3f493312ull, 0xdc6f253800da4c2dull, 0x8a9297948872dab3ull,
      0xc9e560923c2d8b37ull, 0x8440667f0eec85edull, 0x8e520c4fd79c7d71ull,
      0xebedb7d79236ddb5ull, 0x091fc73af891e61bull, 0x48d5721e3a5e2715ull,
      0xa702ce12b1bf5ed4ull, 0x9d31f0d4678301a8ull, 0x5f24319f3ede8614ull,
      0x30336df0a239b635ull, 0x65e70539f71d6ac3ull}},
};

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static int build_config(Config *c, const Variant *v) {
    config_defaults(c);
    for (size_t i = 0; i < sizeof COMMON / sizeof COMMON[0]; i++)
        if (config_set(c, COMMON[i])) return -1;
    for (int i = 0; i < MAX_SETS && v->sets[i]; i++)
        if (config_set(c, v->sets[i])) return -1;
    return 0;
}

// The variant's hash: STEPS steps on `threads` threads, then GEN_TOKENS
// greedy-free steps of the fp32 generator (the token fed back is fixed, so
// the hash does not depend on a sampler). 0 if a step failed.
static uint64_t run_variant(const Variant *v, int threads) {
    Config c;
    if (build_config(&c, v)) {
        fprintf(stderr, "  %s: %s\n", v->name, err_msg());
        return 0;
    }
    pool_init(threads);
    Model m;
    model_build(&m, &c, V);
    AdamW o;
    adamw_init(&o, &m);
    Graph g;
    graph_build(&g, &m, B, (size_t)c.block_size);
    uint64_t h = 0xcbf29ce484222325ull;
    int ok = 1;
    for (long s = 0; s < STEPS && ok; s++) {
        small_batch(&g, V, (uint32_t)(11 + s));
        StepStats st;
        ok = train_step(&g, &m, &o, s, &st);
        h = fnv1a(h, &st.loss, sizeof st.loss);
        h = fnv1a(h, &st.grad_norm, sizeof st.grad_norm);
    }
    h = fnv1a(h, m.data, m.n_floats * sizeof(float));
    Generator gen;
    generator_init_weights(&gen, &m, GEN_WEIGHTS_FP32);
    for (size_t t = 0; t < GEN_TOKENS; t++) {
        const float *logits = generator_step(&gen, (int)(t * 7 % V), t);
        h = fnv1a(h, logits, V * sizeof(float));
    }
    generator_free(&gen);
    graph_free(&g);
    adamw_free(&o);
    model_free(&m);
    pool_init(1);
    return ok ? h : 0;
}

static const Recorded *recorded_for_this_build(void) {
    // by gemm_isa(): "neon" on aarch64, whose plain C fuses (vexpf) as avx2 does
    for (size_t r = 0; r < sizeof RECORDED / sizeof RECORDED[0]; r++)
        if (strcmp(RECORDED[r].isa, gemm_isa()) == 0) return &RECORDED[r];
    return NULL;
}

static void test_recorded_bits(void) {
    const Recorded *rec = recorded_for_this_build();
    uint64_t got[N_VARIANTS];
    for (size_t i = 0; i < N_VARIANTS; i++) got[i] = run_variant(&VARIANTS[i], 1);
    if (!rec) {
        for (size_t i = 0; i < N_VARIANTS; i++)
            printf("  got %-18s %s 0x%016llxull\n", VARIANTS[i].name, gemm_isa(), (unsigned long long)got[i]);
        SKIP("recorded-bits", "no hashes recorded for the %s kernel set (the values above)", gemm_isa());
        return;
    }
    for (size_t i = 0; i < N_VARIANTS; i++) {
        CHECK(got[i] != 0 && got[i] == rec->hash[i]);
        if (got[i] != rec->hash[i])
            fprintf(stderr, "  %s (%s): got 0x%016llxull, recorded 0x%016llxull\n", VARIANTS[i].name, gemm_isa(),
                    (unsigned long long)got[i], (unsigned long long)rec->hash[i]);
    }
}

// The same bits on 3 threads as on 1 (the pool's determinism rule, end to end).
static void test_threads_do_not_change_bits(void) {
    // softmax, linear_decay, delta, delta's WY form, the key shift (its slab route is not
    // sharded: the sharded forward stops before it, the backward after it), output norm
    const size_t pick[] = {0, 2, 5, 10, 16, 17};
    for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++) {
        const Variant *v = &VARIANTS[pick[i]];
        uint64_t one = run_variant(v, 1), three = run_variant(v, 3);
        CHECK(one != 0 && one == three);
        if (one != three) fprintf(stderr, "  %s: 1 thread 0x%016llx, 3 threads 0x%016llx\n", v->name,
                                  (unsigned long long)one, (unsigned long long)three);
    }
}

int main(void) {
    TEST(test_recorded_bits);
    TEST(test_threads_do_not_change_bits);
    return test_summary();
}
