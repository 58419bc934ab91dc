// isa.h — how one kernel source becomes one variant per instruction set.
//
// A kernel file (the Makefile's KERNEL_SRCS) is compiled once per path the
// target has (x86-64: avx512, avx2, portable; elsewhere: portable), each time
// with that path's -m flags and -DKERNEL_ISA=<path>. Every function such a file
// exports is named through a macro (kernels/kernel_names.h and
// attention/attn_kernel_names.h list them):
//   - in a kernel compile of the function's own folder (the Makefile defines
//     KERNEL_ISA and KERNEL_IN_<folder>), gemm becomes gemm_avx512 (gemm_avx2,
//     ...), so the variants link side by side and call each other directly;
//   - in a kernel file of another folder (attention's kernels calling gemm)
//     and everywhere else (the baseline x86-64 compile of the rest of the program
//     and of the tests), gemm becomes (*kd_gemm): a pointer that
//     kernels/dispatch.c sets once, before main, to the chosen path's variant.
// So a call from the program costs one indirect call per product or per row
// kernel, never per element, and nothing outside a kernel file contains an
// instruction the baseline lacks (tests/kernels/baseline_check.sh checks the
// objects).
//
// A dispatched function's prototype must say `extern` (in the baseline view it
// declares the pointer; without extern every includer would define one).
#pragma once

#define KERNEL_CAT_(a, b) a##_##b
#define KERNEL_CAT(a, b) KERNEL_CAT_(a, b)
#define KERNEL_PTR_(f) kd_##f
// f's variant in this kernel compile
#define KERNEL_SUFFIXED(f) KERNEL_CAT(f, KERNEL_ISA)
// f through the pointer to the chosen variant
#define KERNEL_POINTER(f) (*KERNEL_PTR_(f))
// Functions only the kernel files of one folder call among themselves:
// renamed per variant, never dispatched (a baseline caller gets a link error,
// not a wrong path).
#define KERNEL_LOCAL(f) KERNEL_CAT(f, KERNEL_ISA)
