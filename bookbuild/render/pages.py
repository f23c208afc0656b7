"""Where a chapter's page goes in the rendered book (Quarto's names), the book's PDF and EPUB names, and
the address of its repository."""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from ..errors import RenderError


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


def epub_name(book: dict) -> str:
    """The EPUB beside the PDF: the same name, ``.epub``."""
    return str(PurePosixPath(pdf_name(book)).with_suffix(".epub"))


URL_RE = re.compile(r"^https?://[^\s\"'<>`]+$")


def repo_url(book: dict) -> str | None:
    """Quarto's ``book: repo-url`` (an ``http(s)`` address), or None. Anything else is refused: the address
    becomes a link on every page."""
    meta = book.get("metadata") if isinstance(book.get("metadata"), dict) else {}
    b = meta.get("book") if isinstance(meta.get("book"), dict) else {}
    v = b.get("repo-url")
    if v is None or v == "":
        return None
    if not isinstance(v, str) or not URL_RE.match(v.strip()):
        raise RenderError("_quarto.yml", None, f"book: repo-url must be an http(s) address, not {str(v)[:80]!r}")
    return v.strip()


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
