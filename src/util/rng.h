// rng.h — a small, explicit, seedable RNG (xorshift64*), passed by pointer.
// Every random draw in lmtrain goes through one of these so that a run is a
// pure function of its seed, whatever the thread count.
#pragma once
#include <math.h>
#include <stdint.h>

typedef struct { uint64_t s; } Rng;

static inline void rng_seed(Rng *r, uint64_t seed) {
    // splitmix64 scramble so that nearby seeds give unrelated streams
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    r->s = z ? z : 0x2545F4914F6CDD1Dull;
}

static inline uint64_t rng_u64(Rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

// uniform in [0, 1) with 24 random bits (exactly representable as float)
static inline float rng_f32(Rng *r) { return (float)(rng_u64(r) >> 40) * (1.0f / 16777216.0f); }

// uniform integer in [0, n) (n > 0); the modulo bias is < 2^-40 for our n
static inline uint64_t rng_below(Rng *r, uint64_t n) { return rng_u64(r) % n; }

// standard normal via Box-Muller (one value per call, the second is dropped
// so the stream position does not depend on call parity)
static inline float rng_normal(Rng *r) {
    double u1 = ((double)(rng_u64(r) >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    double u2 = (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
