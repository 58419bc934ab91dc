#!/bin/sh
# Runs every test program given as an argument and adds up their
# "N passed, M failed, K skipped" lines. A program that crashes or prints no
# summary counts as one failure, so a broken test can never look like a pass.
# Every skipped case is listed by name with what it needed (tests/test.h).
# The kernel tests run once more on each other kernel path (below).
# TEST_WRAPPER, if set, is a command each program runs under (an emulator).
#
# A program that hangs (a lost wake-up in the thread pool waits forever; it
# does not fail) would hang `make test` and whatever waits on it: each program
# gets TEST_TIMEOUT seconds (900 by default, far above any program's run here;
# 0: no limit) when coreutils' timeout is there, and one stopped by it counts
# as a failure.
limit=${TEST_TIMEOUT:-900}
run_limited() {
    if [ "$limit" -gt 0 ] && command -v timeout >/dev/null 2>&1; then
        timeout -k 10 "$limit" "$@"
    else
        "$@"
    fi
}
passed=0; failed=0; skipped=0; skips=""
# run_one NAME PROGRAM: runs it and adds its summary line to the totals
run_one() {
    name=$1; t=$2
    # shellcheck disable=SC2086 # TEST_WRAPPER is a command and its options
    out=$(run_limited ${TEST_WRAPPER:-} "$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -n 1)
    if [ "$limit" -gt 0 ] && [ "$rc" -eq 124 ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "TIMEOUT $name (still running after $limit s: stopped)"
        failed=$((failed + 1)); return
    fi
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "CRASH $name (exit $rc, no summary line)"
        failed=$((failed + 1)); return
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
    case $line in *skipped) k=${line##*, }; k=${k%% skipped};; *) k=0;; esac
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed'
    printf '%-40s %s\n' "$name" "$line"
    s=$(printf '%s\n' "$out" | grep -E '^skipped: ' | sed "s|^skipped: |  $name: |")
    [ -n "$s" ] && skips="$skips$s
"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
}
for t in "$@"; do
    run_one "${t#*/tests/}" "$t"
done

# Every kernel path of the build (LMTRAIN_ISAS, from the Makefile): the pass
# above ran every test on the path this process chose (LMTRAIN_ISA, or the
# widest the CPU has); the kernels' and attention's equivalence tests and the
# recorded bits (train/test_bits) run again on each other path, named
# "test [path]". A path the CPU cannot run is one visible skip, by name.
if [ -n "${LMTRAIN_ISAS:-}" ] && [ -n "${LMTRAIN:-}" ]; then
    chosen=$("$LMTRAIN" --version 2>/dev/null | sed -n 's/^kernels: \([a-z0-9]*\).*/\1/p')
    for isa in $LMTRAIN_ISAS; do
        [ "$isa" = "$chosen" ] && continue
        if ! why=$(LMTRAIN_ISA=$isa "$LMTRAIN" --version 2>&1 >/dev/null); then
            printf '%-40s %s\n' "[$isa] kernel tests" "skipped"
            skips="$skips  isa-$isa: ${why#lmtrain: }
"
            skipped=$((skipped + 1)); continue
        fi
        for t in "$@"; do
            case $t in */tests/kernels/test_*|*/tests/attention/test_*|*/tests/train/test_bits) ;; *) continue ;; esac
            LMTRAIN_ISA=$isa; export LMTRAIN_ISA
            run_one "${t#*/tests/} [$isa]" "$t"
            unset LMTRAIN_ISA
        done
    done
fi
if [ "$skipped" -ne 0 ]; then
    echo "skipped tests:"
    printf '%s' "$skips"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
