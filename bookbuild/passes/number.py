"""number: each executed chapter's pandoc AST (cached by content), and the book's one cross-reference
index over them (:func:`bookbuild.numbering.number_book`); writes the manifest ``book.json``."""
from __future__ import annotations

import json

from ..errors import XrefError
from ..cache import Inputs
from ..numbering import Index, chapter_offset, number_book
from ..source import locate
from .state import Build

MANIFEST_VERSION = 2


def manifest(build: Build, profile: str) -> dict:
    book = next(b for b in build.books if b.profile == profile)
    index = build.index[profile]
    chapters = []
    for ref, ec in zip(book.chapters, build.executed[profile]):
        n = index.chapter_of(ref.path.as_posix())
        chapters.append({"source": ref.path.as_posix(), "executed": ref.path.with_suffix(".md").as_posix(),
                         "appendix": ref.appendix, "part": ref.part, "title": ec.title, "label": n.label or None,
                         "number": n.number, "files": ec.files,
                         "figures": [f.relative_to(build.executed_dir(profile)).as_posix() for f in ec.figures]})
    return {"manifest_version": MANIFEST_VERSION, "profile": book.profile, "lang": book.lang, "title": book.title,
            "output_dir": book.output_dir.as_posix(), "bibliography": [b.as_posix() for b in book.bibliography],
            "csl": book.csl.as_posix() if book.csl else None,
            "crossref": dict(sorted(book.crossref.items())), "chapters": chapters, "index": index.to_json(),
            "metadata": book.metadata}


def manifest_text(build: Build, profile: str) -> str:
    """The manifest as ``book.json`` holds it (what the renderer reads, from the file or from the build)."""
    return json.dumps(manifest(build, profile), ensure_ascii=False, indent=2, sort_keys=True, default=str) + "\n"


def _located(build: Build, profile: str, e: XrefError) -> XrefError:
    """The duplicate label's second definition, or the number-offset line, as file and line of its source."""
    ec = next((c for c in build.executed[profile] if c.source.as_posix() == e.path), None)
    if ec is None:
        return e
    if e.message.startswith("label "):
        line = locate(ec.markdown, "#" + e.message.split()[1])
    else:
        line = next((i for i, ln in enumerate(ec.markdown.split("\n"), start=1)
                     if ln.startswith("number-offset:")), None)
    if line is None:
        return e
    o = ec.origin(line)
    return XrefError(o.file, o.line, e.message)


def index_key(build: Build, book) -> Inputs:
    """A book's index depends on its chapters' executed markdown, places (appendix or not) and declared
    numbers."""
    values = [book.profile]
    for ref, ec in zip(book.chapters, build.executed[book.profile]):
        values += [ec.source.as_posix(), str(ref.appendix), ec.markdown, repr(ec.front_matter.get("number-offset"))]
    return Inputs("index", tuple(values), build.environment)


def kept_index(build: Build, book) -> tuple[Inputs, Index | None]:
    """The book's index inputs and the index kept under them, when its chapters' markdown did not change."""
    key = index_key(build, book)
    hit = build.store.get_json(key)
    return key, Index.from_json(hit) if hit is not None else None


def made_index(build: Build, book, key: Inputs) -> Index:
    """The book's index from its chapters' ASTs, kept under ``key``."""
    chapters = [(ec.source.as_posix(), ref.appendix, build.ast(book.profile, ec.source.as_posix()))
                for ref, ec in zip(book.chapters, build.executed[book.profile])]
    try:
        offsets = {ec.source.as_posix(): o for ec in build.executed[book.profile]
                   if (o := chapter_offset(ec.front_matter, ec.source.as_posix())) is not None}
        index = number_book(chapters, offsets)
    except XrefError as e:
        raise _located(build, book.profile, e) from None
    build.store.put_json(key, index.to_json())
    return index


def run(build: Build) -> None:
    kept = {book.profile: kept_index(build, book) for book in build.books}
    build.read_asts([(book.profile, ec.source.as_posix()) for book in build.books if kept[book.profile][1] is None
                     for ec in build.executed[book.profile]])   # every chapter of a book to number, read at once
    for book in build.books:
        key, index = kept[book.profile]
        build.index[book.profile] = index if index is not None else made_index(build, book, key)
        (build.executed_dir(book.profile) / "book.json").write_text(manifest_text(build, book.profile), encoding="utf-8")
