// attn_kernel_names.h — the functions the kernel files of src/attention
// export (delta_chunk.c, delta_wy.c, wy_kernels.c, feature_map.c, softmax_cache.c,
// softmax_rows.c), one variant per instruction set: the same scheme as
// kernels/kernel_names.h, the pointers in attention/attn_dispatch.c.
#pragma once
#include "kernels/isa.h"

// a call from this folder's kernel files goes straight to its own variant;
// any other goes through the pointer (kernels/isa.h)
#if defined(KERNEL_ISA) && defined(KERNEL_IN_attention)
#define KNAME_A(f) KERNEL_SUFFIXED(f)
#else
#define KNAME_A(f) KERNEL_POINTER(f)
#endif

#define ATTN_KERNEL_FUNCS(X) \
    X(delta_features) \
    X(delta_normalize_n) \
    X(delta_beta) \
    X(delta_token_inplace) \
    X(delta_saved_floats) \
    X(delta_scratch_floats) \
    X(delta_prefetch_rows) \
    X(delta_ahead) \
    X(delta_chunk_forward) \
    X(delta_features_backward) \
    X(delta_chunk_backward) \
    X(delta_wy_scratch_floats) \
    X(delta_wy_forward) \
    X(delta_wy_backward) \
    X(delta_wy_flops) \
    X(wy_forward_subst) \
    X(wy_back_subst) \
    X(wy_dotd_rows) \
    X(wy_pairs_db) \
    X(wy_dbeta_rows) \
    X(wy_gemm_lower) \
    X(wy_gemm_lower_flops) \
    X(fmap_forward) \
    X(fmap_backward) \
    X(fmap_backward_phi) \
    X(fmap_backward_phi_rows) \
    X(sm_cache_floats) \
    X(sm_cache_reset) \
    X(sm_cache_step) \
    X(sm_cache_extend) \
    X(row_max) \
    X(row_exp_sum) \
    X(row_dots) \
    X(tile_transpose)

#define delta_features KNAME_A(delta_features)
#define delta_normalize_n KNAME_A(delta_normalize_n)
#define delta_beta KNAME_A(delta_beta)
#define delta_token_inplace KNAME_A(delta_token_inplace)
#define delta_saved_floats KNAME_A(delta_saved_floats)
#define delta_scratch_floats KNAME_A(delta_scratch_floats)
#define delta_prefetch_rows KNAME_A(delta_prefetch_rows)
#define delta_ahead KNAME_A(delta_ahead)
#define delta_chunk_forward KNAME_A(delta_chunk_forward)
#define delta_features_backward KNAME_A(delta_features_backward)
#define delta_chunk_backward KNAME_A(delta_chunk_backward)
#define delta_wy_scratch_floats KNAME_A(delta_wy_scratch_floats)
#define delta_wy_forward KNAME_A(delta_wy_forward)
#define delta_wy_backward KNAME_A(delta_wy_backward)
#define delta_wy_flops KNAME_A(delta_wy_flops)
#define wy_forward_subst KNAME_A(wy_forward_subst)
#define wy_back_subst KNAME_A(wy_back_subst)
#define wy_dotd_rows KNAME_A(wy_dotd_rows)
#define wy_pairs_db KNAME_A(wy_pairs_db)
#define wy_dbeta_rows KNAME_A(wy_dbeta_rows)
#define wy_gemm_lower KNAME_A(wy_gemm_lower)
#define wy_gemm_lower_flops KNAME_A(wy_gemm_lower_flops)
#define fmap_forward KNAME_A(fmap_forward)
#define fmap_backward KNAME_A(fmap_backward)
#define fmap_backward_phi KNAME_A(fmap_backward_phi)
#define fmap_backward_phi_rows KNAME_A(fmap_backward_phi_rows)
#define sm_cache_floats KNAME_A(sm_cache_floats)
#define sm_cache_reset KNAME_A(sm_cache_reset)
#define sm_cache_step KNAME_A(sm_cache_step)
#define sm_cache_extend KNAME_A(sm_cache_extend)
#define row_max KNAME_A(row_max)
#define row_exp_sum KNAME_A(row_exp_sum)
#define row_dots KNAME_A(row_dots)
#define tile_transpose KNAME_A(tile_transpose)
