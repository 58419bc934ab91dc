#!/bin/sh
# bf16_agreement.sh RUN [N [LEN [W]]] — how often generation with rounded
# weights (`sample --weights W`, W = bf16 by default, or int8) picks the same
# greedy next token as with fp32.
#
# N prompts (default 200) of LEN bytes (default 48, under the baby model's
# block_size of 64) are taken at even steps through the validation split of
# the run's text (its last 10 %: val_fraction 0.1); each is continued by one
# token at --temperature 0, once with each weight format. Prints the count
# that agree. Not part of `make test`: it needs a trained run (e.g. one of the
# ablation's), and about 2 N runs of `lmtrain sample`.
# Run from the repository root (the run's [data] path is relative to it).
set -eu
run=$1
n=${2:-200}
len=${3:-48}
w=${4:-bf16}
lm=${LMTRAIN:-./lmtrain}
text=$(sed -n 's/^path *= *//p' "$run/config.ini")
size=$(wc -c < "$text")
start=$((size - size / 10))
span=$((size / 10 - len - 1))
agree=0
i=0
while [ "$i" -lt "$n" ]; do
    prompt=$(dd if="$text" bs=1 skip=$((start + i * span / n)) count="$len" 2>/dev/null)
    # the trailing x keeps a generated newline from being stripped
    a=$("$lm" sample --run "$run" --prompt "$prompt" --tokens 1 --temperature 0 --weights fp32 2>/dev/null; echo x)
    b=$("$lm" sample --run "$run" --prompt "$prompt" --tokens 1 --temperature 0 --weights "$w" 2>/dev/null; echo x)
    [ "$a" = "$b" ] && agree=$((agree + 1))
    i=$((i + 1))
done
echo "$run: $w weights pick fp32's greedy next token at $agree of $n validation prompts ($len bytes each)"
