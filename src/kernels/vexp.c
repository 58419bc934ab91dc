// vexp.c — vexpf out of line, for the code outside the kernel files (a kernel
// file inlines vexp.h's; its bits depend on the path, so the rest of the
// program reaches it through these, the chosen path's variant).
#include "kernels/vexp.h"

float vexpf_one(float x) { return vexpf(x); }

void vexpf_n(float *y, const float *x, size_t n) {
    size_t i = 0;
#if defined(__AVX512F__) && defined(FP_FAST_FMAF)
    // vexpf16 gives vexpf's bits lane by lane (tests/kernels/test_vexp.c)
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, vexpf16(_mm512_loadu_ps(x + i)));
#elif defined(__AVX2__) && defined(FP_FAST_FMAF)
    // vexpf8 likewise
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, vexpf8(_mm256_loadu_ps(x + i)));
#elif defined(VEXP_HAVE_4)
    // vexpf4 likewise (the portable path without fast FMA)
    for (; i + 4 <= n; i += 4) v4f_store(y + i, vexpf4(v4f_load(x + i)));
#endif
    for (; i < n; i++) y[i] = vexpf(x[i]);
}
