"""Render one executed book (``_build/executed/<profile>/``) to HTML, PDF and EPUB.

Input contract (written by :mod:`bookbuild.passes`)::

    <executed>/book.json        {"profile", "lang", "title", "bibliography": [...], "crossref": {kind: word},
                                 "chapters": [{"source", "executed", "appendix", "title"}, ...],
                                 "index": the cross-reference index (bookbuild.numbering.Index.to_json)}
    <executed>/<chapter>.md     pandoc markdown, no Python left, references still ``@sec-x``
    <executed>/book-layer.json  what a layer above adds to the pages (bookbuild.render.additions), optional

Output: ``<out_dir>/<profile>/``: one HTML page per chapter (same relative path as the source, ``.html``),
``index.html``, ``assets/``, ``search-index.js``, the PDF ``<title>.pdf`` and the EPUB ``<title>.epub``.
"""
from __future__ import annotations

import html
import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Callable

from .. import bibliography
from ..bibliography import citeproc_args
from ..numbering import Index
from ..project import LANGUAGE_KEYS, quarto_language_defaults
from .. import pandoc_ast as A
from ..media import is_raw_html, problem, raw_files, rewrite_files, value
from .additions import Additions
from .filters import Chapter, Context
from .html import OtherProfile, Site, render_site
from .pages import epub_name, page_for, pdf_name, repo_url, source_key
from ..errors import RenderError
from ..pandoc import Pandoc
from .pdf import render_pdf
from .epub import render_epub


@dataclass(frozen=True)
class Held:
    """What a build holds of the book it renders, taken instead of read back from ``<executed>``: the manifest
    as ``book.json`` holds it, the cross-reference index, and each chapter's AST by its source (the build's
    own read of the executed markdown: the renderer works on a copy)."""
    book: dict
    index: Index
    ast: Callable[[str], dict]


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
    raise RenderError(str(executed_dir), None, f"no book.json for profile '{profile}' in {executed_dir} "
                                               "(run the execute step first: python -m bookbuild)")


def prefixes_for(lang: str, given: dict | None) -> dict:
    """The manifest's cross-reference words (resolved by :mod:`bookbuild.project`, as Quarto does), over
    Quarto's defaults for ``lang``."""
    defaults = quarto_language_defaults(lang)
    base = {kind: defaults[key] for kind, key in LANGUAGE_KEYS.items()}
    base.update({k: v for k, v in (given or {}).items() if isinstance(v, str)})
    return base


def _bib_paths(root: Path, book: dict) -> list[Path]:
    bib = book.get("bibliography") or []
    out = []
    for b in [bib] if isinstance(bib, str) else bib:
        p = Path(b) if Path(b).is_absolute() else root / b
        if not p.is_file():
            raise RenderError(str(b), None, "bibliography file does not exist")
        out.append(p)
    return out


def load_chapters(exec_dir: Path, book: dict, index: Index, pandoc: Pandoc,
                  held: Callable[[str], dict] | None = None) -> list[Chapter]:
    """The book's chapters with their ASTs: ``held``'s (a copy), else each executed chapter read by pandoc."""
    entries = book.get("chapters") or []
    if not entries:
        raise RenderError(str(exec_dir / "book.json"), None, "book.json lists no chapters")

    def ast_of(e: dict) -> dict:
        if held is not None:
            return json.loads(json.dumps(held(e["source"])))
        path = exec_dir / e["executed"]
        if not path.is_file():
            raise RenderError(str(path), None, "executed chapter is missing")
        return pandoc.md_to_ast(path.read_text(encoding="utf-8"), e["source"])

    def one(i_e):
        i, e = i_e
        n = index.chapter_of(e["source"])
        return Chapter(index=i, source=e["source"], page=page_for(e["source"]), appendix=bool(e.get("appendix")),
                       ast=ast_of(e), number=n.number, title=n.title, label=n.label, headings=list(n.headings))
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, enumerate(entries)))


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
        pages = {source_key(e["source"]): page_for(e["source"]) for e in other.get("chapters", [])}
        out.append(OtherProfile(profile=d.name, lang=str(other.get("lang") or d.name), pages=pages))
    return out


def _place_file(root: Path, exec_dir: Path, entry: dict, ch: Chapter, out: Path, src: str,
                what: str = "image") -> tuple[Path, str] | None:
    """Copy the local file ``src`` a chapter shows (an image, or a file its raw HTML loads) next to its page:
    ``(the copy, the src that names it from the page)``; None for an inline ``data:`` file. A network
    address or a file outside the project is refused (the book loads nothing from the network, and shows only
    files of its own folder, in every format: pandoc's EPUB writer embeds what raw HTML names)."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I):
        if src.startswith("data:"):
            return None
        raise RenderError(ch.source, None, f"{what} {src} is not a local file "
                                           "(the book must load nothing from the network)")
    exec_md_dir = (exec_dir / entry["executed"]).parent
    cands = [exec_md_dir / src, (root / entry["source"]).parent / src, root / src]
    found = next((c for c in cands if c.is_file()), None)
    if found is None:
        raise RenderError(ch.source, None, f"{what} {src} not found (looked in "
                          + ", ".join(str(c.parent) for c in cands) + ")")
    if not any(found.resolve().is_relative_to(d.resolve()) for d in (root, exec_dir)):
        raise RenderError(ch.source, None, f"{what} {src} is outside the project ({found.resolve()}): a chapter "
                                           "may show only files of the book's own folder")
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
    return dest, new_src


def _raw_files(root: Path, exec_dir: Path, entry: dict, ch: Chapter, out: Path, el: dict) -> list[Path]:
    """The files a raw HTML element of a chapter names (:func:`bookbuild.media.raw_files`), placed as images
    are (the element's text rewritten where a file moved); a file outside the project or on the network is
    refused in one line."""
    if not is_raw_html(el):
        return []
    for _t, tag, m in raw_files(el["c"][1]):
        if m["attr"].lower() == "srcset":
            raise RenderError(ch.source, None, problem(root, root, f"raw HTML <{tag} srcset>", html.unescape(value(m))))
    placed: list[Path] = []

    def place(name: str, tag: str) -> str | None:
        got = _place_file(root, exec_dir, entry, ch, out, name, f"raw HTML <{tag}> file")
        if got is None:
            return None
        placed.append(got[0])
        return got[1]
    el["c"] = [el["c"][0], rewrite_files(el["c"][1], place)]
    return placed


def collect_images(root: Path, exec_dir: Path, book: dict, chapters: list[Chapter], out: Path) -> list[Path]:
    """Copy every image a chapter shows, and every file its raw HTML names, next to its page; rewrite src to
    page-relative (in the chapters' ASTs, which are this render's own)."""
    copied: list[Path] = []
    for ch, entry in zip(chapters, book["chapters"]):
        for el in list(A.iter_elements(ch.ast["blocks"])):
            if el["t"] == "Image":
                got = _place_file(root, exec_dir, entry, ch, out, el["c"][2][0])
                if got is not None:
                    el["c"][2] = [got[1], el["c"][2][1]]
                    copied.append(got[0])
            elif el["t"] in ("RawBlock", "RawInline"):
                copied += _raw_files(root, exec_dir, entry, ch, out, el)
    return sorted(set(copied))


def html_context(root: Path, profile: str, exec_dir: Path, book: dict, pandoc: Pandoc,
                 held: Held | None = None) -> Context:
    """What a writer reads of an executed book besides a page's own AST (the HTML writer's; ``replace(ctx,
    fmt=...)`` for another): its chapters with their ASTs, the index, the bibliography's keys and
    citeproc's arguments, the cross-reference words of its language (the index and ASTs ``held``'s, if given)."""
    lang = str(book.get("lang") or profile)
    index = held.index if held is not None else Index.from_json(book["index"])
    chapters = load_chapters(exec_dir, book, index, pandoc, held.ast if held is not None else None)
    bibs = _bib_paths(root, book)
    bib = bibliography.read(pandoc, root, [b.relative_to(root) if b.is_relative_to(root) else b for b in bibs])
    if bib.errors:
        raise bib.errors[0]
    csl = book.get("csl")
    if csl is not None and not (root / csl).is_file():
        raise RenderError(str(csl), None, "citation style file does not exist")
    cite = citeproc_args(bibs, root / csl if csl else None)
    return Context("html", lang, prefixes_for(lang, book.get("crossref")), chapters, index, bib.keys, pandoc, cite)


def render_profile(root: Path, profile: str, executed_dir: Path, out_dir: Path,
                   formats: tuple[str, ...] = ("html", "pdf"), *, pandoc: Pandoc | None = None,
                   cjk_font_dir: str | None = None, environment: str = "", held: Held | None = None) -> list[Path]:
    """Render one profile's executed book into ``out_dir/<profile>/``; returns the files written.
    ``environment``: the build's digest of code and tools, under which each page's body is cached; ``held``:
    what the build holds of it (else ``book.json`` and the executed chapters are read from ``executed_dir``)."""
    root = Path(root).resolve()
    pandoc = pandoc or Pandoc()
    if held is not None:
        exec_dir, book = Path(executed_dir), held.book
    else:
        exec_dir, book = load_manifest(Path(executed_dir), profile)
    title = str(book.get("title") or "")
    ctx = html_context(root, profile, exec_dir, book, pandoc, held)
    lang, chapters, bibs = ctx.lang, ctx.chapters, _bib_paths(root, book)
    out = Path(out_dir) / profile
    out.mkdir(parents=True, exist_ok=True)
    files = collect_images(root, exec_dir, book, chapters, out)
    name = pdf_name(book)
    if "html" in formats:
        site = Site(profile=profile, lang=lang, title=title, chapters=chapters, ctx=ctx, bibliography=bibs,
                    pdf_name=name if "pdf" in formats else None,
                    epub_name=epub_name(book) if "epub" in formats else None, repo_url=repo_url(book), others=_other_profiles(exec_dir, profile), additions=Additions.read(exec_dir),
                    store=pandoc.store, environment=environment, metadata=book.get("metadata"))
        files += render_site(site, out)
    if "pdf" in formats:
        ctx = replace(ctx, fmt="typst")
        typ = root / "_build" / "typst" / profile / "book.typ"
        files.append(render_pdf(ctx, chapters, title, bibs, out, out / name, typ, cjk_font_dir=cjk_font_dir,
                                store=pandoc.store, metadata=book.get("metadata")))
    if "epub" in formats:
        ctx = replace(ctx, fmt="epub")
        files.append(render_epub(ctx, chapters, title, out, out / epub_name(book), cjk_font_dir=cjk_font_dir,
                                 store=pandoc.store, metadata=book.get("metadata")))
    return files
