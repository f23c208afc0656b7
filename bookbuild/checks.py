"""The checks after execution, declared as one list (:data:`CHECKS`); each returns one-line errors.

A check is a function of a :class:`CheckContext` (what the build knows by then: the books, their
documents, executed chapters, ASTs, indexes and bibliographies). The engine's own checks are those a
Quarto render would warn about: cross-references and citations that do not resolve, a bibliography
that does not parse. The book's rules come from its own layer (:data:`bookbuild.book.checks.BOOK_CHECKS`);
the build runs both lists (see :mod:`bookbuild.passes`).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .bibliography import Bibliography
from .cache import Inputs, Store
from .errors import BuildError, CitationError, XrefError
from .execute import ExecutedChapter
from .numbering import Index, citations, references
from .project import Book
from .source import Document, locate


@dataclass
class CheckContext:
    root: Path
    books: list[Book]                           # the books being built
    all_books: list[Book]                       # every profile of the project
    documents: dict[str, Document]              # every chapter of every profile, by path
    executed: dict[str, list[ExecutedChapter]]  # by profile
    ast: Callable[[str, str], dict]             # (profile, chapter source) -> pandoc AST
    index: dict[str, Index]                     # by profile
    bibliographies: dict[str, Bibliography] = field(default_factory=dict)   # by profile
    store: Store = field(default_factory=lambda: Store(None))   # the build's content cache (off: nothing kept)
    environment: str = ""                                       # the digest every key starts from
    data_dirs: tuple[str, ...] = ()                             # the data folders the chapters read (Settings)

    def _key(self, kind: str, parts: list[bytes]) -> Inputs:
        return Inputs("check-memo", (kind, *parts), self.environment)

    def memo(self, kind: str, parts: list[bytes], compute: Callable[[], Any],
             accept: Callable[[Any], bool] | None = None) -> Any:
        """``compute()``'s JSON result, kept under its inputs (bytes): a check's work over one document
        (``kind``, the work's name, is part of the key)."""
        return self.store.memo(self._key(kind, parts), compute, accept)

    def unless_passed(self, kind: str, parts: list[bytes], run: Callable[[], list[BuildError]]) -> list[BuildError]:
        """``run()``'s errors, or none when it passed over the same inputs before (a pass is kept, never
        an error: what fails is checked, and said, again)."""
        return self.store.memo(self._key(kind, parts), run, keep=lambda errors: not errors)

    def text_of(self, rel: str) -> str | None:
        """A chapter's text as written, from its parsed document (None when no profile lists it)."""
        doc = self.documents.get(rel)
        return doc.text if doc is not None else None


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[[CheckContext], list[BuildError]]
    #: the chapters the check reads, for a check that reads only some (the Chinese books' typography): its
    #: pass is then kept while their documents and the files it opened are unchanged (passes/verify.py)
    chapters: Callable[[CheckContext], list[str]] | None = None


def _where(ec: ExecutedChapter, needle: str) -> tuple[str, int | None]:
    line = locate(ec.markdown, needle)
    if line is None:
        return ec.source.as_posix(), None
    o = ec.origin(line)
    return o.file, o.line


def _where_raw(ec: ExecutedChapter, text: str) -> tuple[str, int | None]:
    """Where a line of a raw block (or an inline raw span) stands: the first line of the executed markdown
    that holds it, raw blocks included (:func:`_where` reads the prose only)."""
    needle = text.strip()
    for i, ln in enumerate(ec.markdown.split("\n"), start=1):
        if needle and needle in ln:
            o = ec.origin(i)
            return o.file, o.line
    return ec.source.as_posix(), None


def check_references(ctx: CheckContext) -> list[BuildError]:
    """Every ``@sec-``/``@tbl-``/``@eq-``/``@fig-`` reference resolves in its own book."""
    errors: list[BuildError] = []
    for book in ctx.books:
        labels = sorted(ctx.index[book.profile].targets)
        for ec in ctx.executed[book.profile]:
            seen = set()
            for written, _mode in references(ctx.ast(book.profile, ec.source.as_posix())):
                label = written[0].lower() + written[1:]
                if label in ctx.index[book.profile].targets or label in seen:
                    continue
                seen.add(label)
                file, line = _where(ec, "@" + written)
                near = difflib.get_close_matches(label, labels, n=1, cutoff=0.75)
                hint = f"; did you mean @{near[0]}?" if near else \
                    "; define the label in a chapter of this book or remove the reference"
                errors.append(XrefError(file, line, f"@{label} does not resolve in the '{book.profile}' book{hint}"))
    return errors


def check_citations(ctx: CheckContext) -> list[BuildError]:
    """Every citation key is in the book's bibliography (a bibliography that does not parse is its own error)."""
    errors: list[BuildError] = []
    for book in ctx.books:
        bib = ctx.bibliographies[book.profile]
        if bib.errors:
            continue
        name = ", ".join(b.as_posix() for b in book.bibliography) or "a bibliography"
        for ec in ctx.executed[book.profile]:
            seen = set()
            for key in citations(ctx.ast(book.profile, ec.source.as_posix())):
                if key in bib.keys or key in seen:
                    continue
                seen.add(key)
                file, line = _where(ec, "@" + key)
                errors.append(CitationError(file, line, f"citation @{key} is not in {name}: add a complete entry "
                                                        f"with key '{key}' (or correct the key)"))
    return errors


def check_bibliography(ctx: CheckContext) -> list[BuildError]:
    """Each bibliography file parses (once, however many books name it)."""
    seen, errors = set(), []
    for bib in ctx.bibliographies.values():
        for e in bib.errors:
            if e.format() not in seen:
                seen.add(e.format())
                errors.append(e)
    return errors


def check_files(ctx: CheckContext) -> list[BuildError]:
    """Every file a chapter names for a page to show or a writer to embed (an image, a file its raw HTML or a
    cell's printed HTML names, a file its raw typst reads: :mod:`bookbuild.media`) is a file of the project,
    never the network's."""
    from . import pandoc_ast as A
    from .media import file_of, is_raw_html, problem, raw_files, typst_files, typst_problem, value
    errors: list[BuildError] = []
    seen = set()
    for book in ctx.books:
        for ec in ctx.executed[book.profile]:
            base = (ctx.root / ec.source).parent
            for el in A.iter_elements(ctx.ast(book.profile, ec.source.as_posix())["blocks"]):
                named = []
                if el["t"] == "Image":
                    named = [("image", el["c"][2][0], el["c"][2][0])]
                elif is_raw_html(el):
                    for _t, tag, m in raw_files(el["c"][1]):
                        srcset = m["attr"].lower() == "srcset"
                        named.append((f"raw HTML <{tag}{' srcset' if srcset else ''}>" + ("" if srcset else " file"),
                                      value(m) if srcset else file_of(value(m)), value(m)))
                elif el["t"] in ("RawBlock", "RawInline") and str(el["c"][0]).lower() == "typst":
                    code = el["c"][1]
                    for at, what, name in typst_files(code):
                        why = typst_problem(ctx.root, base, what, name)
                        if why is not None:
                            file, line = _where_raw(ec, code.splitlines()[code.count("\n", 0, at)])
                            if (file, line, why) not in seen:
                                seen.add((file, line, why))
                                errors.append(BuildError(file, line, why))
                for what, name, written in named:
                    why = problem(ctx.root, base, what, name) if name else None
                    if why is None:
                        continue
                    file, line = _where(ec, written)
                    if line is None:   # in a ```{=html} block, which the prose locator leaves out
                        file, line = _where_raw(ec, written)
                    if (file, line, why) not in seen:
                        seen.add((file, line, why))
                        errors.append(BuildError(file, line, why))
    return errors


CHECKS = [Check("references", check_references), Check("citations", check_citations),
          Check("bibliography", check_bibliography), Check("files", check_files)]
