"""Page weight of the built HTML books: each page plus every local file it loads, gzip-compressed.

    python bench/page_weight.py _book [--label "after (plotly)"] [--append]

For every ``*.html`` under the book folder: the page itself, its stylesheets, scripts and images (``src``/
``href`` of link/script/img), each counted once per page (a browser fetches each once, then caches it
across pages). Sizes are gzip level 9, what a server with compression transfers. ``--append`` adds a
table to bench/results.md. The budget (issue 13): the heaviest page under 1.5 MB gzip.
"""
from __future__ import annotations

import argparse
import gzip
import platform
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

BUDGET = 1_500_000


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9, mtime=0))


def page_weight(page: Path) -> tuple[int, int, list[str]]:
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    files = {page.resolve()}
    for tag, attr in (("script", "src"), ("link", "href"), ("img", "src")):
        for t in soup.find_all(tag):
            v = t.get(attr)
            if not v or tag == "link" and "stylesheet" not in (t.get("rel") or []):
                continue
            parts = urlsplit(v)
            if parts.scheme or v.startswith("//"):
                raise SystemExit(f"{page}: {tag} loads {v} from outside the book")
            f = (page.parent / unquote(parts.path)).resolve()
            if f.is_file():
                files.add(f)
    raw = sum(f.stat().st_size for f in files)
    return raw, sum(gz(f) for f in files), sorted(f.name for f in files)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("book", type=Path)
    ap.add_argument("--label", default="")
    ap.add_argument("--append", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    for page in sorted(a.book.rglob("*.html")):
        raw, z, _ = page_weight(page)
        rows.append((page.relative_to(a.book).as_posix(), raw, z))
    heavy = max(rows, key=lambda r: r[2])
    lines = [f"## {time.strftime('%Y-%m-%d %H:%M')} — page weight{' — ' + a.label if a.label else ''} "
             f"(bench/page_weight.py) — {platform.machine()}, Python {platform.python_version()}", "",
             "| page (with everything it loads) | bytes | gzip bytes |", "|---|---:|---:|"]
    lines += [f"| {p} | {r:,} | {z:,} |" for p, r, z in rows]
    lines += ["", f"Heaviest page: {heavy[0]}, {heavy[2]:,} bytes gzip (budget {BUDGET:,}).", ""]
    print("\n".join(lines))
    if a.append:
        with open(Path(__file__).parent / "results.md", "a", encoding="utf-8") as f:
            f.write("\n" + "\n".join(lines))
    return 0 if heavy[2] < BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
