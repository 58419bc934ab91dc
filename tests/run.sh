#!/bin/sh
# Runs every test program given as an argument and adds up their
# "N passed, M failed" lines. A program that crashes or prints no summary
# counts as one failure, so a broken test can never look like a pass.
passed=0; failed=0
for t in "$@"; do
    name=${t#*/tests/}
    out=$("$t" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -n 20
        echo "CRASH $name (exit $rc, no summary line)"
        failed=$((failed + 1)); continue
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    [ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$'
    printf '%-40s %s\n' "$name" "$line"
    passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
