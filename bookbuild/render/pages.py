"""Where a chapter's page goes in the rendered book (Quarto's names), and the book's PDF name."""
from __future__ import annotations

import re
from pathlib import PurePosixPath


def page_for(source: str, executed: str | None = None) -> str:
    """Output page of a chapter: its source path with ``.html``; ``index*.qmd`` -> index.html."""
    src = PurePosixPath(source)
    if src.parent == PurePosixPath(".") and (src.stem == "index" or src.stem.startswith("index.")):
        return "index.html"
    return str(src.with_suffix(".html"))


def pdf_name(book: dict) -> str:
    if book.get("pdf"):
        return str(book["pdf"])
    title = str(book.get("title") or book.get("profile") or "book")
    slug = re.sub(r'[\\/:*?"<>|#%&{}$!\'`@+=]+', "", title).strip()
    slug = re.sub(r"\s+", "-", slug)
    return (slug or "book") + ".pdf"


def source_key(source: str) -> str:
    """``appendix/x.zh.qmd`` -> ``appendix/x.qmd``: what a chapter and its translation share."""
    return re.sub(r"\.[a-z]{2}(?:-[A-Za-z]{2,4})?(?=\.(?:qmd|md|ipynb|rmd)$)", "", source)


def relpath(target_page: str, from_page: str) -> str:
    """Relative URL from one page to another (both relative to the book folder)."""
    src = from_page.split("/")[:-1]
    dst = target_page.split("/")
    i = 0
    while i < len(src) and i < len(dst) - 1 and src[i] == dst[i]:
        i += 1
    return "/".join([".."] * (len(src) - i) + dst[i:])
