// peak_neon.c — the FMA chains of peak.c (arithmetic there) on NEON.
#include "peak_neon.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>

float peak_neon_run_chains(long iters) {
    float32x4_t acc[PEAK_NEON_CHAINS], x = vdupq_n_f32(0.99999994f), y = vdupq_n_f32(6e-8f);
    for (int i = 0; i < PEAK_NEON_CHAINS; i++) acc[i] = vdupq_n_f32(1.0f + (float)i);
    for (long it = 0; it < iters; it++) {
#pragma GCC unroll 24
        for (int i = 0; i < PEAK_NEON_CHAINS; i++) acc[i] = vfmaq_f32(y, acc[i], x);  // y + acc*x, fused
    }
    float32x4_t s = acc[0];
    for (int i = 1; i < PEAK_NEON_CHAINS; i++) s = vaddq_f32(s, acc[i]);
    return vaddvq_f32(s);
}
#endif
