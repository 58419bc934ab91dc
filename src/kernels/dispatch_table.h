// dispatch_table.h — KERNEL_DISPATCH_TABLE(LIST, name): for each function of
// LIST (an X-macro list: kernels/kernel_names.h, attention/attn_kernel_names.h)
// the pointer kd_f, the declarations of its variants f_avx512, f_avx2,
// f_portable, and a constructor `name` that points every kd_f at the variant
// of the path kernel_isa() chose (kernels/isa.h). One use per list.
#pragma once
#include "kernels/cpu.h"

// Before any constructor without a priority (a test's own, e.g.
// tests/gemm_counter.h, may then replace a pointer); 0-100 are the
// implementation's.
#define KERNEL_DISPATCH_PRIORITY 101

// The parameter f appears only next to ##: an argument so used is not
// macro-expanded first (gemm would otherwise become (*kd_gemm)).
#define KD_DEFINE_PTR(f) __typeof__(kd_##f) kd_##f;
#define KD_DECLARE_PORTABLE(f) extern __typeof__(*kd_##f) f##_portable;
#define KD_SET_PORTABLE(f) kd_##f = f##_portable;
#define KD_DECLARE_AVX2(f) extern __typeof__(*kd_##f) f##_avx2;
#define KD_SET_AVX2(f) kd_##f = f##_avx2;
#define KD_DECLARE_AVX512(f) extern __typeof__(*kd_##f) f##_avx512;
#define KD_SET_AVX512(f) kd_##f = f##_avx512;

#if defined(__x86_64__)
#define KERNEL_DISPATCH_TABLE(LIST, name)                                   \
    LIST(KD_DEFINE_PTR)                                                     \
    LIST(KD_DECLARE_PORTABLE)                                               \
    LIST(KD_DECLARE_AVX2)                                                   \
    LIST(KD_DECLARE_AVX512)                                                 \
    __attribute__((constructor(KERNEL_DISPATCH_PRIORITY))) static void name(void) {                 \
        switch (kernel_isa()) {                                             \
        case KERNEL_AVX512: LIST(KD_SET_AVX512) break;                      \
        case KERNEL_AVX2: LIST(KD_SET_AVX2) break;                          \
        default: LIST(KD_SET_PORTABLE) break;                               \
        }                                                                   \
    }
#else
#define KERNEL_DISPATCH_TABLE(LIST, name)                                   \
    LIST(KD_DEFINE_PTR)                                                     \
    LIST(KD_DECLARE_PORTABLE)                                               \
    __attribute__((constructor(KERNEL_DISPATCH_PRIORITY))) static void name(void) {                 \
        (void)kernel_isa();                                                 \
        LIST(KD_SET_PORTABLE)                                               \
    }
#endif
