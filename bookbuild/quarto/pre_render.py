"""Quarto's ``project: pre-render`` step: the Chinese book's EPUB font, before Quarto writes the EPUB.

Quarto's EPUB embeds the fonts ``epub-fonts`` names (_quarto-zh.yml) and styles them by the book's
``_extensions/mlsysim-book/epub-cjk.css``; the font is :data:`FONT`, Noto Serif CJK SC reduced to the
characters the Chinese book can print (:func:`book_characters`), as bookbuild's own EPUB embeds it
(:func:`bookbuild.render.epub.cjk_subset`), so the Chinese text is readable without a system CJK font. The
characters are those of every file the Chinese book's text comes from (its chapters, the cells both
languages include, the library's Chinese wording, the interface strings, the bibliography and its style),
a superset of what it prints. The file is written only when its bytes change (two renders: the same file).

And, before Quarto writes anything, the files the chapters' prose names (images, what raw HTML names, which
pandoc's EPUB writer embeds, and what raw typst reads, which Quarto's typst reads under the project's root
following links): each a file of the project, never the network's (:mod:`bookbuild.media`, the rule
``check`` and our renderer hold; what a cell prints is held by ``check``, which runs the cells).
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import BuildError
from ..media import INLINE_TYPST, named_files, problem, typst_files, typst_problem
from ..project import load_book, profiles
from ..render.epub import cjk_subset
from ..render.pdf import CJK_RE, require_cjk_font_dir
from ..settings import Settings, quarto_environment
from ..source import parse

FONT = Path("_build/quarto/epub/NotoSerifCJKsc-book.otf")
#: where the Chinese book's text comes from besides its chapters (globs under the project)
SOURCES = ("appendix/_cells/*.qmd", "lectures/_cells/*.qmd", "mlsysim/**/*.py", "mlsysim/data/*.toml",
           "notes/glossary.toml", "bookbuild/render/ui/*.toml", "bookbuild/book/ui/*.toml", "_quarto*.yml",
           "references.bib", "csl/*.csl")


def book_characters(root: Path, chapters: list[Path]) -> str:
    """Every CJK character of the Chinese book's chapters and of the files in :data:`SOURCES`, sorted."""
    files = {root / c for c in chapters} | {f for g in SOURCES for f in root.glob(g)}
    chars = set()
    for f in sorted(files):
        if f.is_file():
            chars.update(CJK_RE.findall(f.read_text(encoding="utf-8", errors="replace")))
    return "".join(sorted(chars))


def write_font(root: Path, profile: str, font_dir: str | None = None) -> Path | None:
    """The EPUB font of ``profile``'s book (a Chinese one; None for another language)."""
    book = load_book(root, profile)
    if not book.lang.startswith("zh"):
        return None
    data = cjk_subset(require_cjk_font_dir(font_dir), book_characters(root, [c.path for c in book.chapters]))
    out = root / FONT
    if not out.is_file() or out.read_bytes() != data:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return out


def named_outside(root: Path, profile: str) -> list[BuildError]:
    """Every file the prose of ``profile``'s chapters (and the files they include) names that cannot be in the
    book, with its file and line; code blocks and front matter are text, not read."""
    errors = []
    for ch in load_book(root, profile).chapters:
        doc = parse(root / ch.path, root)
        raw = {}   # the lines of raw blocks: ```{=html} is read as raw HTML, ```{=typst} as typst
        for f in doc.fences:
            kind = f.info.strip().lower()
            for i in range(f.start + 1, f.end):
                raw[i] = "html" if kind == "{=html}" else "typst" if kind == "{=typst}" else "code"
        for i, line in enumerate(doc.lines):
            if i <= doc.front_end or (i in doc.code_lines and i not in raw) or raw.get(i) == "code":
                continue
            o = doc.origin(i)
            base = (root / o.file).parent
            if raw.get(i) == "typst":
                found = [typst_problem(root, base, what, name) for _, what, name in typst_files(line)]
            else:
                found = [problem(root, base, what, name) for _, what, name in named_files(line)]
                found += [typst_problem(root, base, what, name) for m in INLINE_TYPST.finditer(line)
                          for _, what, name in typst_files(m["code"])]
            errors += [BuildError(o.file, o.line, why) for why in found if why is not None]
    return errors


def main(argv: list[str]) -> int:
    root = Path.cwd().resolve()
    active = quarto_environment()["profile"]
    names = profiles(root)
    profile = next((p.strip() for p in active.split(",") if p.strip() in names), None) or load_book(root, None).profile
    try:
        refused = named_outside(root, profile)
        if refused:
            for e in refused:
                print(e.format(), file=sys.stderr)
            return 1
        out = write_font(root, profile, Settings.make(root, quiet=True).cjk_font_dir)   # BOOK_CJK_FONT_DIR, as the build
    except BuildError as e:
        print(e.format(), file=sys.stderr)
        return 1
    if out is not None:
        print(f"bookbuild: the EPUB's CJK font -> {out.relative_to(root)}")
    return 0
