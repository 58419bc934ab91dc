#!/bin/sh
# tour_check.sh LMTRAIN [OUT_PNG] — the tour's page in a real browser (make test-html).
#
# Builds a reduced tour (`lmtrain tour --quick`: tiny models, a few steps) with
# the binary LMTRAIN, then opens runs/tour/index.html in headless Chromium:
#   - the DOM the browser built holds every inline chart the file has (at least
#     one per each of the ten sections) and no XML parse error;
#   - the page names no network address and loads nothing (no script, no
#     src=, no stylesheet link, no @import), so it renders offline;
#   - a full-page screenshot is not blank.
# Exits 1 naming what failed; 0 prints what it counted.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out_png=${2:-}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "tour_check: chromium not found (Debian: apt-get install chromium)"; exit 1; }
tmp=$(mktemp -d /tmp/lmtrain-tour-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ -f "$here/data/tinyshakespeare.txt" ]; then
    head -c 200000 "$here/data/tinyshakespeare.txt" > "$tmp/corpus.txt"
else
    awk 'BEGIN { for (i = 0; i < 6000; i++) printf "line %d: the quick brown fox %d jumps over the lazy dog.\n", i, i % 97 }' > "$tmp/corpus.txt"
fi
# the tour reads configs/ from the folder it runs in
(cd "$here" && "$bin" tour --quick --data "$tmp/corpus.txt" --out "$tmp/tour") > "$tmp/tour.log" 2>&1 ||
    { tail -20 "$tmp/tour.log"; echo "tour_check: the tour failed"; exit 1; }
page="$tmp/tour/index.html"
[ -s "$page" ] || { echo "tour_check: no index.html"; exit 1; }

run_browser() {  # run_browser ARGS... : headless, its own profile, bounded in time
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$tmp/profile" "$@" 2> "$tmp/browser.log"
}
fail=0
run_browser --dump-dom "file://$page" > "$tmp/dom.html" || { cat "$tmp/browser.log"; echo "tour_check: chromium failed"; exit 1; }
svgs=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
want_svgs=$(grep -o '<svg' "$page" | wc -l)
sections=$(grep -o '<h2 id=' "$tmp/dom.html" | wc -l)
[ "$sections" -eq 10 ] || { echo "tour_check: $sections sections rendered (want 10)"; fail=1; }
[ "$svgs" -eq "$want_svgs" ] && [ "$svgs" -ge 10 ] || { echo "tour_check: $svgs charts rendered, the file has $want_svgs (want 10 or more)"; fail=1; }
if grep -q parsererror "$tmp/dom.html"; then echo "tour_check: parse error"; fail=1; fi
if grep -q -i 'https\?:\|<script\|src=\|<link\|@import' "$page"; then
    echo "tour_check: the page names a network address or loads something:"; grep -o -i 'https\?:[^" ]*\|<script\|src=\|<link\|@import' "$page" | sort -u; fail=1
fi
run_browser --screenshot="$tmp/tour.png" --window-size=1000,9000 "file://$page" > /dev/null ||
    { cat "$tmp/browser.log"; echo "tour_check: no screenshot"; exit 1; }
size=$(wc -c < "$tmp/tour.png")
[ "$size" -gt 100000 ] || { echo "tour_check: the screenshot is $size bytes: a blank page"; fail=1; }
[ -n "$out_png" ] && cp "$tmp/tour.png" "$out_png"
[ "$fail" -eq 0 ] || exit 1
echo "tour_check: runs/tour/index.html renders: $sections sections, $svgs charts, screenshot $size bytes"
