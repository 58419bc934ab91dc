// tape_shards.h — the sharded passes of a tape (tape.h: tape_set_batches),
// for tape.c.
#pragma once
#include "autograd/tape.h"

// At tape_finalize: which nodes shard, and the plan of the backward's
// parameter part. shards_free undoes it (tape_free).
void shards_plan(Tape *t);
void shards_free(Tape *t);

// The sharded forward, if it runs here (two threads or more); returns the
// nodes it ran: 0 .. the return value - 1 (0: none).
size_t shards_forward(Tape *t);

// The sharded backward, after the seed, if it runs here: the rows of nodes
// shard_bwd_from .. n_nodes - 1, then their parameters' gradients. Returns
// the nodes left for node by node: 0 .. the return value - 1.
size_t shards_backward(Tape *t);
