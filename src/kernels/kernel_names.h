// kernel_names.h — the functions the kernel files of src/kernels export, one
// variant per instruction set (kernels/isa.h says how). KERNEL_FUNCS lists the
// ones the rest of the program calls (kernels/dispatch.c points each at the
// chosen variant); the #defines below must name the same functions (a name
// missing there links three times over and fails; one missing from
// KERNEL_FUNCS has no pointer and fails to link where it is called).
#pragma once
#include "kernels/isa.h"

// a call from this folder's kernel files goes straight to its own variant;
// any other goes through the pointer (kernels/isa.h)
#if defined(KERNEL_ISA) && defined(KERNEL_IN_kernels)
#define KNAME_K(f) KERNEL_SUFFIXED(f)
#else
#define KNAME_K(f) KERNEL_POINTER(f)
#endif

#define KERNEL_FUNCS(X) \
    X(crossentropy_forward) \
    X(crossentropy_backward) \
    X(gelu_forward) \
    X(gelu_backward) \
    X(gelu_backward_store) \
    X(gemm) \
    X(gemm_bf16) \
    X(gemm_epi) \
    X(gemm_bf16_epi) \
    X(gemm_ref) \
    X(gemm_serial) \
    X(gemm_isa) \
    X(layernorm_forward) \
    X(layernorm_row) \
    X(layernorm_backward) \
    X(matvec_f32_packed_size) \
    X(matvec_f32_pack) \
    X(matvec_f32) \
    X(matvec_bf16_packed_size) \
    X(matvec_bf16_scratch_size) \
    X(matvec_bf16_pack) \
    X(matvec_bf16_force_plain) \
    X(matvec_bf16_kernel) \
    X(matvec_bf16_in) \
    X(matvec_bf16) \
    X(matvec_i8_packed_bytes) \
    X(matvec_i8_scratch_bytes) \
    X(matvec_i8_pack) \
    X(matvec_i8_cpu_missing) \
    X(matvec_i8_force_plain) \
    X(matvec_i8_kernel) \
    X(matvec_i8_quantize_input) \
    X(matvec_i8_in) \
    X(matvec_i8) \
    X(global_norm) \
    X(adamw_update_spans) \
    X(adamw_update) \
    X(vexpf_one) \
    X(vexpf_n) \
    X(fma_chains_run) \
    X(fma_chains_shape)

#define crossentropy_forward KNAME_K(crossentropy_forward)
#define crossentropy_backward KNAME_K(crossentropy_backward)
#define gelu_forward KNAME_K(gelu_forward)
#define gelu_backward KNAME_K(gelu_backward)
#define gelu_backward_store KNAME_K(gelu_backward_store)
#define gemm KNAME_K(gemm)
#define gemm_bf16 KNAME_K(gemm_bf16)
#define gemm_epi KNAME_K(gemm_epi)
#define gemm_bf16_epi KNAME_K(gemm_bf16_epi)
#define gemm_ref KNAME_K(gemm_ref)
#define gemm_serial KNAME_K(gemm_serial)
#define gemm_isa KNAME_K(gemm_isa)
#define layernorm_forward KNAME_K(layernorm_forward)
#define layernorm_row KNAME_K(layernorm_row)
#define layernorm_backward KNAME_K(layernorm_backward)
#define matvec_f32_packed_size KNAME_K(matvec_f32_packed_size)
#define matvec_f32_pack KNAME_K(matvec_f32_pack)
#define matvec_f32 KNAME_K(matvec_f32)
#define matvec_bf16_packed_size KNAME_K(matvec_bf16_packed_size)
#define matvec_bf16_scratch_size KNAME_K(matvec_bf16_scratch_size)
#define matvec_bf16_pack KNAME_K(matvec_bf16_pack)
#define matvec_bf16_force_plain KNAME_K(matvec_bf16_force_plain)
#define matvec_bf16_kernel KNAME_K(matvec_bf16_kernel)
#define matvec_bf16_in KNAME_K(matvec_bf16_in)
#define matvec_bf16 KNAME_K(matvec_bf16)
#define matvec_i8_packed_bytes KNAME_K(matvec_i8_packed_bytes)
#define matvec_i8_scratch_bytes KNAME_K(matvec_i8_scratch_bytes)
#define matvec_i8_pack KNAME_K(matvec_i8_pack)
#define matvec_i8_cpu_missing KNAME_K(matvec_i8_cpu_missing)
#define matvec_i8_force_plain KNAME_K(matvec_i8_force_plain)
#define matvec_i8_kernel KNAME_K(matvec_i8_kernel)
#define matvec_i8_quantize_input KNAME_K(matvec_i8_quantize_input)
#define matvec_i8_in KNAME_K(matvec_i8_in)
#define matvec_i8 KNAME_K(matvec_i8)
#define global_norm KNAME_K(global_norm)
#define adamw_update_spans KNAME_K(adamw_update_spans)
#define adamw_update KNAME_K(adamw_update)
#define vexpf_one KNAME_K(vexpf_one)
#define vexpf_n KNAME_K(vexpf_n)
#define fma_chains_run KNAME_K(fma_chains_run)
#define fma_chains_shape KNAME_K(fma_chains_shape)

// called only between the kernel files (gemm.c, gemm_kernels.c, gemm_bf16.c)
#if defined(KERNEL_ISA) && defined(KERNEL_IN_kernels)
#define gemm_pack_a KERNEL_LOCAL(gemm_pack_a)
#define gemm_pack_b KERNEL_LOCAL(gemm_pack_b)
#define gemm_micro KERNEL_LOCAL(gemm_micro)
#define gemm_micro_b KERNEL_LOCAL(gemm_micro_b)
#define gemm_micro_rows KERNEL_LOCAL(gemm_micro_rows)
#define gemm_micro_rows_b KERNEL_LOCAL(gemm_micro_rows_b)
#define gemm_micro_cols KERNEL_LOCAL(gemm_micro_cols)
#define gemm_micro_cols_b KERNEL_LOCAL(gemm_micro_cols_b)
#define gemm_vec KERNEL_LOCAL(gemm_vec)
#define gemm_vec_t KERNEL_LOCAL(gemm_vec_t)
#define gemm_pack_bufs KERNEL_LOCAL(gemm_pack_bufs)
#define gemm_mc KERNEL_LOCAL(gemm_mc)
#define gemm_nc KERNEL_LOCAL(gemm_nc)
#define gemm_block_bf16 KERNEL_LOCAL(gemm_block_bf16)
#endif
