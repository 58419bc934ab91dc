// attn_dispatch.c — the pointers to the attention kernels' variants
// (attention/attn_kernel_names.h), set before main to the path
// kernels/dispatch.c chose: the same scheme, one layer up.
#include "attention/delta_chunk.h"
#include "attention/delta_wy.h"
#include "attention/feature_map.h"
#include "attention/softmax_cache.h"
#include "attention/softmax_rows.h"
#include "attention/wy_kernels.h"
#include "kernels/dispatch_table.h"

// kernel_isa() chooses (or refuses) on its first call, whichever constructor
// runs first
KERNEL_DISPATCH_TABLE(ATTN_KERNEL_FUNCS, attn_kernels_select)
