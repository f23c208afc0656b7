"""``python -m bookbuild check-pages [BOOK_DIR]``: the reader's-eye check over a rendered book."""
from __future__ import annotations

import sys
import time


def run(args) -> int:
    """``check-pages``, its options parsed (:mod:`bookbuild.cli`)."""
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
