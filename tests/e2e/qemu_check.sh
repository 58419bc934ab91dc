#!/bin/sh
# qemu_check.sh CPU-MODEL PATH — the one binary on an x86-64 CPU we don't have,
# under Debian's qemu-user (.ci/run). Under `qemu-x86_64 -cpu CPU-MODEL`,
# lmtrain must:
#   - choose PATH (its --version), and refuse a wider LMTRAIN_ISA with exit 2;
#   - train each kind, resume it, and sample from it, with the bits a native
#     run forced to the same path gives (LMTRAIN_ISA=PATH on this machine):
#     the weights (export), the metrics (timing columns aside) and the sampled
#     text must be equal.
# A tiny model (2 layers, d_model 16, block 16): qemu's TCG runs the AVX2
# kernels over 100x slower than the CPU (a 4-step baby run: 0.3 s native,
# over 30 CPU-s emulated), so the full e2e tests would take hours here.
# Needs the corpus (make data). LMTRAIN: the binary (default ./lmtrain).
set -eu
# metrics.csv without its timing columns, found by name (tokens_per_s, elapsed_s, cpu_s)
untimed() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) t[i] = ($i == "tokens_per_s" || $i == "elapsed_s" || $i == "cpu_s") }
             { s = ""; for (i = 1; i <= NF; i++) if (!t[i]) s = s $i ","; print s }' "$1"
}
cpu=$1; want=$2
bin=$(cd "$(dirname "${LMTRAIN:-./lmtrain}")" && pwd)/$(basename "${LMTRAIN:-./lmtrain}")
emu="qemu-x86_64 -cpu $cpu"
dir=$(mktemp -d /tmp/lmtrain-qemu-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "qemu $cpu: FAIL: $*"; exit 1; }

out=$($emu "$bin" --version) || fail "--version exited $?"
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "^kernels: $want " || fail "expected the $want kernels"
case $want in portable) wider=avx2 ;; avx2) wider=avx512 ;; *) wider="" ;; esac
if [ -n "$wider" ]; then
    rc=0; LMTRAIN_ISA=$wider $emu "$bin" --version > "$dir/wider.log" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] && grep -q "cannot run the $wider kernels" "$dir/wider.log" ||
        fail "LMTRAIN_ISA=$wider: exit $rc, not a refusal: $(cat "$dir/wider.log")"
    echo "qemu $cpu: LMTRAIN_ISA=$wider refused (exit 2)"
fi

SETS="--set run.threads=2 --set model.layers=2 --set model.heads=2 --set model.d_model=16
      --set model.block_size=16 --set train.batch_size=2 --set train.warmup=1 --set train.eval_every=2
      --set train.eval_batches=2 --set train.log_every=1 --set train.checkpoint_every=1 --set attention.chunk=5"
n=0
for k in softmax linear linear_decay delta; do
    # native, the same path forced: 4 steps straight
    # shellcheck disable=SC2086
    LMTRAIN_ISA=$want "$bin" --config configs/$k.ini --out "$dir/native-$k" $SETS --set train.steps=4 > /dev/null
    # emulated: 2 steps, then resumed to 4
    # shellcheck disable=SC2086
    $emu "$bin" --config configs/$k.ini --out "$dir/emu-$k" $SETS --set train.steps=2 > /dev/null ||
        fail "$k: training exited $?"
    # shellcheck disable=SC2086
    $emu "$bin" --config configs/$k.ini --out "$dir/emu-$k" $SETS --set train.steps=4 --resume > /dev/null 2>&1 ||
        fail "$k: resume exited $?"
    a=$(untimed "$dir/native-$k/metrics.csv"); b=$(untimed "$dir/emu-$k/metrics.csv")
    [ "$a" = "$b" ] || fail "$k: the emulated run's metrics differ from the native $want run's"
    # the weights, bit for bit (the checkpoint also holds the wall clock; the export does not)
    "$bin" export --run "$dir/native-$k" --out "$dir/native-$k.st" > /dev/null
    "$bin" export --run "$dir/emu-$k" --out "$dir/emu-$k.st" > /dev/null
    cmp -s "$dir/native-$k.st" "$dir/emu-$k.st" || fail "$k: the emulated run's weights differ from the native $want run's"
    LMTRAIN_ISA=$want "$bin" sample --run "$dir/native-$k" --prompt "ROMEO:" --tokens 40 --seed 7 > "$dir/native-$k.txt" 2> "$dir/sample.log"
    $emu "$bin" sample --run "$dir/emu-$k" --prompt "ROMEO:" --tokens 40 --seed 7 > "$dir/emu-$k.txt" 2> "$dir/sample.log" ||
        fail "$k: sample exited $?"
    cmp -s "$dir/native-$k.txt" "$dir/emu-$k.txt" || fail "$k: the sampled text differs from the native $want run's"
    n=$((n + 1))
    echo "qemu $cpu: $k trained, resumed and sampled: the native $want bits"
done
echo "qemu $cpu: $n kinds, path $want"
