#!/bin/sh
# fetch.sh DEST SHA256 URL [LOCAL_COPY]
# Puts a corpus at DEST: copied from LOCAL_COPY when given (or from
# ../shared/data when that exists), otherwise downloaded from URL with curl.
# Either way its sha256 must match, or DEST is not created.
set -eu
dest=$1; sha=$2; url=$3; local_copy=${4:-}
name=$(basename "$dest")
if [ -z "$local_copy" ] && [ -f "../shared/data/$name" ]; then local_copy="../shared/data/$name"; fi
tmp="$dest.tmp"
rm -f "$tmp"
if [ -n "$local_copy" ]; then
    echo "copying $local_copy -> $dest"
    cp "$local_copy" "$tmp"
else
    command -v curl >/dev/null 2>&1 || { echo "make data: curl is needed to download $url (or pass SHAKESPEARE=/path/to/$name)" >&2; exit 1; }
    echo "downloading $url -> $dest"
    curl -fsSL --retry 3 -o "$tmp" "$url" || { rm -f "$tmp"; echo "make data: download failed; pass SHAKESPEARE=/path/to/$name for a local copy" >&2; exit 1; }
fi
got=$(sha256sum "$tmp" | cut -d' ' -f1)
if [ "$got" != "$sha" ]; then
    rm -f "$tmp"
    echo "make data: $name has sha256 $got, expected $sha (corrupt or wrong file)" >&2
    exit 1
fi
mv "$tmp" "$dest"
echo "ok: $dest ($(wc -c < "$dest") bytes, sha256 verified)"
