#!/bin/sh
# Runs a cross-built test suite under qemu-user, through tests/run.sh:
#   sh tests/qemu_run.sh BUILD_DIR [test programs...]
# e.g. an aarch64 build (CFLAGS=-O2: gcc 12's aarch64 cross compiler stops
# with an internal error on 7 test files at -O3; lmtrain itself builds at -O3):
#   CFLAGS=-O2 make -j2 BUILD=build-aarch64 CC=aarch64-linux-gnu-gcc \
#       build-aarch64/lmtrain $(find tests -name 'test_*.c' | sed 's|^\(.*\)\.c$|build-aarch64/\1|')
#   sh tests/qemu_run.sh build-aarch64
# Without test programs: every one built in BUILD_DIR/tests.
#
# The programs are not run directly: binfmt_misc may not be registered for
# the target (it is not in containers), so each gets a wrapper script in
# BUILD_DIR/qemu/ that execs $QEMU (default qemu-aarch64) on it, with the
# target's libc from $QEMU_LD_PREFIX (default /usr/aarch64-linux-gnu). The e2e
# tests exec $LMTRAIN, so that is a wrapper too; `exec` keeps the pid the e2e
# tests signal (SIGINT, SIGTERM) the emulator's, which passes signals on.
set -eu
[ $# -ge 1 ] || { echo "usage: sh tests/qemu_run.sh BUILD_DIR [test programs...]" >&2; exit 2; }
build=${1%/}; shift
QEMU=${QEMU:-qemu-aarch64}
QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
export QEMU_LD_PREFIX
command -v "$QEMU" >/dev/null 2>&1 || { echo "qemu_run.sh: $QEMU not found (Debian: apt-get install qemu-user)" >&2; exit 2; }
[ -x "$build/lmtrain" ] || { echo "qemu_run.sh: no $build/lmtrain: build it first" >&2; exit 2; }
[ $# -gt 0 ] || set -- $(find "$build/tests" -type f -name 'test_*' ! -name '*.[od]' | sort)
root=$(cd "$(dirname "$0")/.." && pwd)
wrap() {  # wrap PROGRAM WRAPPER
    mkdir -p "$(dirname "$2")"
    printf '#!/bin/sh\nexec %s %s "$@"\n' "$QEMU" "$1" > "$2"
    chmod +x "$2"
}
wrap "$root/$build/lmtrain" "$build/qemu/lmtrain"
wrappers=""
for t in "$@"; do
    w="$build/qemu/tests/${t#"$build"/tests/}"
    wrap "$root/$t" "$w"
    wrappers="$wrappers $w"
done
LMTRAIN="$root/$build/qemu/lmtrain" sh "$root/tests/run.sh" $wrappers
