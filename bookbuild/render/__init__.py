"""Render an executed book (``_build/executed/<profile>/``) to HTML and PDF without Quarto.

Entry point: :func:`render_profile`.  Input contract (written by ``bookbuild.execute``)::

    <executed>/book.json  {"profile", "lang", "title",
                           "chapters": [{"source", "executed", "appendix", "title"}, ...],
                           "xref": {label: {"kind", "number", "chapter", "title"}},
                           "bibliography": "references.bib" | [...],
                           "crossref_prefixes": {"sec": "Section", ...}}
    <executed>/<chapter>.md   pandoc markdown, no Python left, refs still ``@sec-x``

Output: ``<out_dir>/<profile>/`` with one HTML page per chapter (same relative path as
the source, ``.html``), ``index.html``, ``assets/``, ``search-index.js`` and the PDF
``<title>.pdf``.
"""
from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from . import pandoc as P
from .crossref import (ChapterInfo, Context, build_xref, check_against_manifest, number_book,
                       prefixes_for)
from .html import OtherProfile, Site, render_site, source_key
from .pandoc import RenderError
from .pdf import render_pdf

__all__ = ["render_profile", "load_manifest", "RenderError", "page_for", "xref_from_markdown"]


def load_manifest(executed_dir: Path, profile: str) -> tuple[Path, dict]:
    """Accepts ``_build/executed`` or ``_build/executed/<profile>``."""
    executed_dir = Path(executed_dir)
    for d in (executed_dir / profile, executed_dir):
        f = d / "book.json"
        if f.is_file():
            try:
                return d, json.loads(f.read_text(encoding="utf-8"))
            except json.JSONDecodeError as e:
                raise RenderError(str(f), e.lineno, f"book.json is not valid JSON: {e.msg}") from None
    raise RenderError(str(executed_dir), None,
                      f"no book.json for profile '{profile}' in {executed_dir} "
                      "(run the execute step first: python -m bookbuild)")


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


def _bib_paths(root: Path, book: dict) -> list[Path]:
    bib = book.get("bibliography") or []
    if isinstance(bib, str):
        bib = [bib]
    out = []
    for b in bib:
        p = Path(b) if Path(b).is_absolute() else root / b
        if not p.is_file():
            raise RenderError(str(b), None, "bibliography file does not exist")
        out.append(p)
    return out


BIB_KEY_RE = re.compile(r"@\s*(?!comment|string|preamble)[A-Za-z]+\s*[{(]\s*([^,\s]+)\s*,", re.I)


def bib_keys(paths: list[Path]) -> set[str]:
    keys: set[str] = set()
    for p in paths:
        keys.update(BIB_KEY_RE.findall(p.read_text(encoding="utf-8")))
    return keys


def _load_chapters(exec_dir: Path, book: dict) -> list[ChapterInfo]:
    entries = book.get("chapters") or []
    if not entries:
        raise RenderError(str(exec_dir / "book.json"), None, "book.json lists no chapters")

    def parse(i_e):
        i, e = i_e
        path = exec_dir / e["executed"]
        if not path.is_file():
            raise RenderError(str(path), None, "executed chapter is missing")
        return ChapterInfo(index=i, source=e["source"], page=page_for(e["source"], e["executed"]),
                           appendix=bool(e.get("appendix")),
                           ast=P.md_to_ast(path.read_text(encoding="utf-8"), e["source"]))
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(parse, enumerate(entries)))


def xref_from_markdown(exec_dir: Path, book: dict) -> dict:
    """The ``xref`` dict of a book.json, computed from the executed markdown
    (for fixtures and for checking the executor's manifest)."""
    chapters = _load_chapters(Path(exec_dir), book)
    return build_xref(chapters, number_book(chapters))


def _other_profiles(exec_dir: Path, profile: str) -> list[OtherProfile]:
    out = []
    parent = exec_dir.parent
    for d in sorted(parent.iterdir()) if parent.is_dir() else []:
        f = d / "book.json"
        if d.name == profile or not f.is_file():
            continue
        try:
            other = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
        pages = {source_key(e["source"]): page_for(e["source"], e.get("executed"))
                 for e in other.get("chapters", [])}
        out.append(OtherProfile(profile=d.name, lang=str(other.get("lang") or d.name), pages=pages))
    return out


def _collect_images(root: Path, exec_dir: Path, book: dict, chapters: list[ChapterInfo],
                    out: Path) -> list[Path]:
    """Copy every image a chapter shows next to its page; rewrite src to page-relative."""
    copied: list[Path] = []
    by_index = {i: e for i, e in enumerate(book["chapters"])}
    for ch in chapters:
        e = by_index[ch.index]
        exec_md_dir = (exec_dir / e["executed"]).parent
        src_dir = (root / e["source"]).parent

        def fix(el):
            if el["t"] != "Image":
                return None
            a, inl, (src, title) = el["c"]
            if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I):
                if src.startswith("data:"):
                    return None
                raise RenderError(ch.source, None, f"image {src} is not a local file "
                                                   "(the book must load nothing from the network)")
            cands = [exec_md_dir / src, src_dir / src, root / src]
            found = next((c for c in cands if c.is_file()), None)
            if found is None:
                raise RenderError(ch.source, None, f"image {src} not found (looked in "
                                  + ", ".join(str(c.parent) for c in cands) + ")")
            rel = PurePosixPath(src)
            if rel.is_absolute() or ".." in rel.parts:
                rel = PurePosixPath("figures") / found.name
                dest = out / rel
                new_src = "/".join([".."] * ch.page.count("/") + [str(rel)])
            else:
                dest = out / PurePosixPath(ch.page).parent / rel
                new_src = str(rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(found, dest)
            copied.append(dest)
            return {"t": "Image", "c": [a, inl, [new_src, title]]}
        ch.ast["blocks"] = P.walk(ch.ast["blocks"], fix)
    return sorted(set(copied))


def _page_data(exec_dir: Path, book: dict) -> dict[str, dict]:
    """Each page's reader data, from the files the pipeline writes beside the executed chapter:
    ``<chapter>.provenance.json`` (how each number was computed) and ``<chapter>.variants.json``
    (the chapter for every registry choice)."""
    out: dict[str, dict] = {}
    for e in book.get("chapters") or []:
        stem = (exec_dir / e["executed"]).with_suffix("")
        data = {}
        for kind in ("provenance", "variants"):
            f = stem.with_name(stem.name + f".{kind}.json")
            if f.is_file():
                data[kind] = json.loads(f.read_text(encoding="utf-8"))
        if data:
            out[page_for(e["source"], e.get("executed"))] = data
    return out


def render_profile(root: Path, profile: str, executed_dir: Path, out_dir: Path,
                   formats: tuple[str, ...] = ("html", "pdf")) -> list[Path]:
    """Render one profile's executed book into ``out_dir/<profile>/``; returns the files."""
    root = Path(root).resolve()
    exec_dir, book = load_manifest(Path(executed_dir), profile)
    lang = str(book.get("lang") or profile)
    title = str(book.get("title") or "")
    chapters = _load_chapters(exec_dir, book)
    targets = number_book(chapters)
    check_against_manifest(targets, book.get("xref"), chapters)
    bibs = _bib_paths(root, book)
    keys = bib_keys(bibs)
    prefixes = prefixes_for(lang, book.get("crossref_prefixes"))
    out = Path(out_dir) / profile
    out.mkdir(parents=True, exist_ok=True)
    files = _collect_images(root, exec_dir, book, chapters, out)
    name = pdf_name(book)
    if "html" in formats:
        ctx = Context("html", lang, prefixes, chapters, targets, keys)
        site = Site(profile=profile, lang=lang, title=title, chapters=chapters, ctx=ctx,
                    bibliography=bibs, pdf_name=name, others=_other_profiles(exec_dir, profile),
                    page_data=_page_data(exec_dir, book))
        files += render_site(site, out)
    if "pdf" in formats:
        ctx = Context("typst", lang, prefixes, chapters, targets, keys)
        typ = root / "_build" / "typst" / profile / "book.typ"
        files.append(render_pdf(ctx, chapters, title, lang, bibs, out, out / name, typ, metadata=book.get("metadata")))
    return files
