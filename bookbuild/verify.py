"""Checks that run after every chapter of a profile has executed.

Each failure is one :class:`~bookbuild.errors.BuildError` (one line with
file:line and what to change); :func:`verify_profile` returns them all.
"""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Iterable

from .errors import BuildError, CitationError, UnusedStrError, XrefError, read_text
from .execute import ExecutedChapter, static_facts
from .lint import Allow, lint_file, load_allowlist
from .project import Book
from .xref import Target, find_citations, find_references

BIB_ENTRY = re.compile(r"@(?P<type>[A-Za-z]+)\s*[{(]\s*(?P<key>[^,\s]+)\s*,")


def bib_keys(paths: Iterable[Path]) -> set[str]:
    """Keys of the BibTeX/BibLaTeX entries in ``paths`` (@string/@comment/@preamble skipped)."""
    keys: set[str] = set()
    for p in paths:
        text = read_text(p, Path(p).name)
        for m in BIB_ENTRY.finditer(text):
            if m.group("type").lower() not in ("string", "comment", "preamble"):
                keys.add(m.group("key"))
    return keys


def check_references(book: Book, executed: list[ExecutedChapter],
                     index: dict[str, Target]) -> list[BuildError]:
    errors: list[BuildError] = []
    labels = sorted(index)
    for ec in executed:
        for label, line, _cap in find_references(ec.markdown):
            if label in index:
                continue
            o = ec.origin(line)
            near = difflib.get_close_matches(label, labels, n=1, cutoff=0.75)
            hint = f"; did you mean @{near[0]}?" if near else \
                "; define the label in a chapter of this book or remove the reference"
            errors.append(XrefError(
                o.file, o.line,
                f"@{label} does not resolve in the '{book.profile}' book{hint}"))
    return errors


def check_bibliography(root: Path, bibs: list[Path]) -> list[BuildError]:
    """Each bibliography parses (pandoc reads it as the renderer will); a malformed entry is one
    error naming the file and line."""
    from .render.pandoc import RenderError, run
    errors: list[BuildError] = []
    for b in bibs:
        path = Path(root) / b
        text = read_text(path, Path(b).as_posix())
        fmt = "bibtex" if path.suffix == ".bibtex" else "biblatex"
        try:
            run(["-f", fmt, "-t", "csljson"], text, Path(b).as_posix())
        except RenderError as e:
            m = re.search(r"line (\d+)", e.message)
            detail = re.sub(r"^pandoc .*? failed: ", "", e.message)
            errors.append(CitationError(Path(b).as_posix(), int(m.group(1)) if m else None,
                                        f"the bibliography does not parse: {detail}"))
    return errors


def check_citations(book: Book, executed: list[ExecutedChapter]) -> list[BuildError]:
    errors: list[BuildError] = []
    keys = bib_keys(book.root / b for b in book.bibliography)
    bibname = ", ".join(b.as_posix() for b in book.bibliography) or "a bibliography"
    for ec in executed:
        for key, line in find_citations(ec.markdown):
            if key in keys:
                continue
            o = ec.origin(line)
            errors.append(CitationError(
                o.file, o.line,
                f"citation @{key} is not in {bibname}: add a complete entry with key '{key}' "
                f"(or correct the key)"))
    return errors


def lint_files(root: Path, files: Iterable[str], allow: list[Allow] | None = None
               ) -> list[BuildError]:
    """Typed-number lint and inline-expression rules on SOURCE files."""
    allow = load_allowlist() if allow is None else allow
    errors: list[BuildError] = []
    for rel in files:
        errors.extend(lint_file(Path(root) / rel, root, allow))
    return errors


def check_unused_strs(root: Path, books: list[Book]) -> list[BuildError]:
    """A ``*_str`` that no chapter of ANY profile quotes (shared cells serve every
    language, so the check looks at all profiles together).  Static: nothing runs."""
    defined: dict[str, object] = {}
    used: set[str] = set()
    seen: set[Path] = set()
    for book in books:
        for ch in book.chapters:
            if ch.path in seen:
                continue
            seen.add(ch.path)
            facts = static_facts(Path(root) / ch.path, root)
            for s in facts.str_attrs:
                defined.setdefault(s.name, s)
            used.update(u.expr.strip() for u in facts.inline)
            used.update(facts.code_refs)
    errors: list[BuildError] = []
    for name in sorted(defined, key=lambda n: (defined[n].file, defined[n].line)):
        if name not in used:
            s = defined[name]
            errors.append(UnusedStrError(
                s.file, s.line,
                f"{name} is never quoted by any chapter ({', '.join(b.profile for b in books)}): "
                f"quote it with `{{python}} {name}` where the prose needs it, or delete it"))
    return errors


def verify_profile(book: Book, executed: list[ExecutedChapter],
                   index: dict[str, Target]) -> list[BuildError]:
    """Cross-references and citations of one executed profile."""
    return check_references(book, executed, index) + check_citations(book, executed)
