#!/bin/sh
# render_check.sh LMTRAIN [OUT_PNG] — report.html in a real browser (CI: .ci/run).
#
# Trains a tiny ablation (three kinds, two seeds, 20 steps on a slice of the
# corpus) with the binary LMTRAIN, then opens what it wrote in headless
# Chromium (Debian's `chromium`):
#   - report.html: the DOM the browser built must hold every table and chart
#     the file has (6 inline <svg>: loss zoomed and full, paired difference, loss by
#     position, λ horizons, memory; at least 4 <table>) and no XML parse error;
#     a full-page screenshot must not be blank (a blank page is a few KiB);
#   - every standalone SVG the ablation wrote must parse as XML (a browser
#     shows "parsererror" for a broken one).
# Exits 1 naming what failed; 0 prints the screenshot's path. OUT_PNG keeps the
# screenshot (docs/report_html.png is one of a real ablation: docs/ablation.md).
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out_png=${2:-}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "render_check: chromium not found (Debian: apt-get install chromium)"; exit 1; }
tmp=$(mktemp -d /tmp/lmtrain-html-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")/../.." && pwd)

# a corpus: the first 200 kB of tiny Shakespeare when present, else generated text
if [ -f "$here/data/tinyshakespeare.txt" ]; then
    head -c 200000 "$here/data/tinyshakespeare.txt" > "$tmp/corpus.txt"
else
    awk 'BEGIN { for (i = 0; i < 6000; i++) printf "line %d: the quick brown fox %d jumps over the lazy dog.\n", i, i % 97 }' > "$tmp/corpus.txt"
fi
for k in softmax linear_decay delta; do
    cat > "$tmp/$k.ini" <<INI
[run]
name = $k
threads = 1
[data]
path = $tmp/corpus.txt
[model]
layers = 2
heads = 2
d_model = 32
block_size = 32
[attention]
kind = $k
[train]
steps = 20
batch_size = 4
eval_every = 10
eval_batches = 2
log_every = 5
checkpoint_every = 20
INI
done
"$bin" ablate "$tmp/softmax.ini" "$tmp/linear_decay.ini" "$tmp/delta.ini" --seeds 2 --out "$tmp/abl" > "$tmp/ablate.log" 2>&1 ||
    { tail -20 "$tmp/ablate.log"; echo "render_check: the ablation failed"; exit 1; }
[ -s "$tmp/abl/report.html" ] || { echo "render_check: no report.html"; exit 1; }

run_browser() {  # run_browser ARGS... : headless, its own profile, bounded in time
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$tmp/profile" "$@" 2> "$tmp/browser.log"
}
fail=0
run_browser --dump-dom "file://$tmp/abl/report.html" > "$tmp/dom.html" || { cat "$tmp/browser.log"; echo "render_check: chromium failed on report.html"; exit 1; }
svgs=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
tables=$(grep -o '<table' "$tmp/dom.html" | wc -l)
want_svgs=$(grep -o '<svg' "$tmp/abl/report.html" | wc -l)
[ "$svgs" -eq "$want_svgs" ] && [ "$svgs" -ge 6 ] || { echo "render_check: report.html: $svgs charts rendered, the file has $want_svgs (want 6)"; fail=1; }
[ "$tables" -ge 4 ] || { echo "render_check: report.html: $tables tables rendered (want 4 or more)"; fail=1; }
if grep -q parsererror "$tmp/dom.html"; then echo "render_check: report.html: parse error"; fail=1; fi
if grep -q -i '<script\|src=\|@import\|url(http' "$tmp/abl/report.html"; then
    echo "render_check: report.html fetches or runs something"; fail=1
fi
run_browser --screenshot="$tmp/report.png" --window-size=1100,4000 "file://$tmp/abl/report.html" > /dev/null ||
    { cat "$tmp/browser.log"; echo "render_check: no screenshot"; exit 1; }
size=$(wc -c < "$tmp/report.png")
[ "$size" -gt 40000 ] || { echo "render_check: the screenshot is $size bytes: a blank page"; fail=1; }
for f in $(find "$tmp/abl" -name '*.svg'); do
    run_browser --dump-dom "file://$f" > "$tmp/svg.html" || { echo "render_check: chromium failed on $f"; fail=1; continue; }
    if grep -q parsererror "$tmp/svg.html" || ! grep -q '<svg' "$tmp/svg.html"; then
        echo "render_check: ${f#$tmp/}: not a valid SVG document"; fail=1
    fi
done
[ -n "$out_png" ] && cp "$tmp/report.png" "$out_png"
[ "$fail" -eq 0 ] || exit 1
echo "render_check: report.html renders: $svgs charts, $tables tables, screenshot $size bytes"
