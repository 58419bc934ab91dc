#!/bin/sh
# baseline_check.sh OBJECT... — none of the program's baseline objects (all
# but the kernel variants: src/kernels/isa.h) holds an instruction on an AVX
# register (ymm, zmm, or an AVX-512 mask register), so the binary starts and
# runs on any x86-64 and only a chosen kernel variant runs wider code. Fails
# naming the object if one does (-march=native, -mavx2, a target attribute
# outside a kernel file).
#
# Allowed: kernels/bf16.o, whose one AVX-512 BF16 conversion is compiled with a
# function target attribute and runs only when the CPU has it and the avx512
# path was chosen (kernels/bf16.h).
objdump=${OBJDUMP:-objdump}
if ! command -v "$objdump" >/dev/null 2>&1; then
    echo "baseline: no objdump, not checked"; exit 0
fi
bad=0; n=0
for o in "$@"; do
    case $o in */src/kernels/bf16.o) continue ;; esac
    case $("$objdump" -f "$o" 2>/dev/null) in *x86-64*) ;; *) continue ;; esac
    n=$((n + 1))
    hits=$("$objdump" -d --no-show-raw-insn "$o" | grep -E '%(ymm|zmm)[0-9]|%k[1-7]\b' | head -n 3)
    if [ -n "$hits" ]; then
        echo "baseline: $o has AVX instructions (only kernel variants may):"
        printf '%s\n' "$hits" | sed 's/^/  /'
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "baseline: no AVX instruction in the $n baseline objects"
exit $bad
