#!/usr/bin/env python3
"""check_links.py — every relative link in README.md and docs/*.md points at a file that
exists, and every #anchor at a heading of that page, as GitHub renders them.

A figure in the docs is only as good as the link that leads a reader to its table; pages get
split and headings renamed, and a dead anchor fails silently in a browser. Run by `make
test-docs` (CI); needs only python3. Exit 1 with one line per dead link.
"""
import os
import re
import sys


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed,
    spaces to hyphens (unicode letters and digits kept)."""
    text = re.sub(r"`", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link keeps its words
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def without_code(text):
    # links and headings inside fenced code blocks are not rendered as such
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def anchors_of(text):
    seen, out = {}, set()
    for m in re.finditer(r"^#{1,6} +(.*?) *#*$", without_code(text), re.M):
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")  # GitHub numbers repeated headings
    return out


def main(root):
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    pages += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    texts = {os.path.abspath(p): open(p, encoding="utf-8").read() for p in pages}
    anchors = {p: anchors_of(t) for p, t in texts.items()}
    dead = 0
    for page, text in texts.items():
        for m in re.finditer(r"\]\(([^)\s]+)\)", without_code(text)):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.abspath(os.path.join(os.path.dirname(page), path)) if path else page
            where = os.path.relpath(page, root)
            if not os.path.exists(dest):
                print(f"{where}: link to a missing file: {target}")
                dead += 1
            elif anchor and dest.endswith(".md"):
                if dest not in anchors:
                    anchors[dest] = anchors_of(open(dest, encoding="utf-8").read())
                if anchor not in anchors[dest]:
                    print(f"{where}: link to a missing heading: {target}")
                    dead += 1
    print(f"check_links: {len(texts)} pages, {dead} dead links")
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
