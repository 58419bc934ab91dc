#!/bin/sh
# Regenerates the real checkpoints in tests/fuzz/corpus_checkpoint/ with the
# current lmtrain (run from the repo root after `make`, whenever the
# checkpoint layout changes: a seed the loader rejects outright fuzzes
# nothing past the version check). The reference model must match
# FUZZ_REF_CONFIG in fuzz_targets.h.
set -e
BIN=${LMTRAIN:-./lmtrain}
OUT=tests/fuzz/corpus_checkpoint
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/ref.ini" <<'INI'
[run]
name = seed
seed = 7
threads = 1
[data]
path = data/tinyshakespeare.txt
[model]
layers = 1
heads = 2
d_model = 8
ffn_mult = 1
block_size = 8
[attention]
kind = softmax
[train]
steps = 2
batch_size = 2
eval_every = 1
eval_batches = 1
log_every = 1
checkpoint_every = 1
warmup = 0
INI
run() {  # name, then --set overrides
    name=$1; shift
    "$BIN" --config "$TMP/ref.ini" --out "$TMP/$name" "$@" > /dev/null
    cp "$TMP/$name/checkpoint.bin" "$OUT/${name}_tiny.bin"
}
run softmax
run linear --set attention.kind=linear
run linear_decay --set attention.kind=linear_decay --set attention.decay_init=0.9,0.5
run delta --set attention.kind=delta
run recall --set data.task=recall --set data.vocab=16 --set data.pairs=2 --set data.val_examples=4
echo "seeds written to $OUT"
