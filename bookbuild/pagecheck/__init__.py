"""The reader's-eye check: the book as readers get it, not only the numbers the build certifies.

``python -m bookbuild check-pages [BOOK_DIR]`` (default ``_book``) and ``tests/release/test_pages.py`` run it:

- every HTML page of both books in headless Chromium at 1280 and 390 px, light and dark (and 320 px for
  the top bar), and without JavaScript: no visible error text (exception names, ``None``, ``NaN``,
  ``undefined``, ``[object``, doubled punctuation), no page wider than the viewport and no content
  leaving its column, every figure drawn (its static drawing without JavaScript), legends clear of the
  data, no request leaving the page, no serious or critical axe-core violation, a skip link, the
  reader's choice and the explanations of computed numbers reachable by keyboard;
- every registry choice of the reader's bar (both languages), applied in place: the numbers swapped, no
  error text, nothing wider than the viewport, a choice that cannot be computed said in plain words in
  the reader's language;
- both PDFs and every figure file: no missing glyph (matplotlib's last-resort or ``.notdef`` glyphs in
  an SVG, ``.notdef`` in a PDF's text), every font embedded, CJK fonts embedded where the text is Chinese.

Each problem is one line: the page or file, the width, theme and choice, and what is wrong.
"""
from __future__ import annotations

from .problems import Problem

__all__ = ["Problem", "check_book"]


def check_book(book, browser=None, **kw):
    """All of the check over ``book`` (the folder holding ``en/`` and ``zh/``): ``(problems, stats)``."""
    from .browser import check_html
    from .files import check_files
    problems, stats = check_html(book, browser, **kw)
    file_problems, file_stats = check_files(book)
    stats.update(file_stats)
    return problems + file_problems, stats
