"""``python -m bookbuild check-pages [BOOK_DIR]``: the reader's-eye check over a rendered book."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bookbuild check-pages",
                                 description="Check a rendered book as readers get it: every page in headless "
                                             "Chromium (widths, themes, every reader's choice, without JavaScript, "
                                             "axe-core), every figure file and both PDFs.")
    ap.add_argument("book", nargs="?", default="_book", type=Path,
                    help="the rendered book folder, holding en/ and zh/ (default: _book)")
    ap.add_argument("--file", action="store_true",
                    help="open the pages as file: addresses instead of serving them on 127.0.0.1")
    ap.add_argument("--no-axe", action="store_true", help="leave out axe-core (faster)")
    ap.add_argument("--no-choices", action="store_true", help="leave out the sweep over the reader's choices")
    ap.add_argument("--files-only", action="store_true", help="only the figure files and PDFs (no browser)")
    ap.add_argument("-v", "--verbose", action="store_true", help="time each page")
    args = ap.parse_args(argv)
    book = args.book.resolve()
    if not book.is_dir():
        print(f"check-pages: {args.book} is not a folder: render the book first (python -m bookbuild render)",
              file=sys.stderr)
        return 2
    from .files import check_files
    t0 = time.perf_counter()
    problems, stats = check_files(book)
    if not args.files_only:
        from .browser import check_html
        try:
            html_problems, html_stats = check_html(book, file_urls=args.file, axe=not args.no_axe,
                                                   choices=not args.no_choices,
                                                   log=(lambda m: print(m, file=sys.stderr)) if args.verbose else None)
        except RuntimeError as e:
            print(f"check-pages: {e}", file=sys.stderr)
            return 2
        problems = html_problems + problems
        stats.update(html_stats)
    for p in problems:
        print(p.format())
    took = time.perf_counter() - t0
    counts = ", ".join(f"{v} {k}" for k, v in stats.items())
    verdict = f"{len(problems)} problem(s)" if problems else "OK"
    print(f"check-pages: {counts} in {took:.0f} s: {verdict}", file=sys.stderr)
    return 1 if problems else 0
