// attn_io.c — running a kind's slabs over the sequences an AttnIO names.
#include <stdio.h>
#include <stdlib.h>

#include "attention/attention.h"
#include "util/pool.h"

typedef struct {
    void (*fn)(void *ctx, size_t lo, size_t hi);
    void *ctx;
    size_t first;  // the range's first slab
} SlabRange;

// parallel_for counts from 0; the kinds' slab functions take slab numbers in
// the whole batch (their work buffers are laid out by them)
static void shifted(void *ctx, size_t lo, size_t hi) {
    const SlabRange *r = ctx;
    r->fn(r->ctx, r->first + lo, r->first + hi);
}

void attn_io_slabs_run(const AttnIO *io, size_t H, void (*fn)(void *ctx, size_t lo, size_t hi), void *ctx) {
    if (io->b0 > io->b1 || io->b1 > io->B) {
        fprintf(stderr, "lmtrain: internal error: attention sequences [%zu, %zu) of %zu\n", io->b0, io->b1, io->B);
        abort();
    }
    if (io->b0 == 0) {  // the whole batch, or its first part: no shift needed
        parallel_for(io->b1 * H, 1, fn, ctx);
        return;
    }
    SlabRange r = {fn, ctx, io->b0 * H};
    parallel_for((io->b1 - io->b0) * H, 1, shifted, &r);
}
