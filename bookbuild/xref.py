"""Quarto-style cross-reference numbering for a book, and reference scanning.

The renderer calls :func:`build_index` and :func:`find_references`; keep their
signatures.

Numbering follows a Quarto book: chapters 1, 2, ... (a chapter whose ``#``
heading is ``.unnumbered`` gets no number); chapters under ``appendices:`` are
lettered A, B, ...; sections A.1, A.1.1 (unnumbered headings do not count);
tables, figures and equations per chapter A.1, A.2, ...; a label on the
chapter's own ``#`` heading refers to the chapter (kind ``chapter``, number
"A"; Quarto writes "Appendix A").
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .errors import XrefError
from .lint import code_free

if TYPE_CHECKING:  # pragma: no cover
    from .execute import ExecutedChapter
    from .project import Book

XREF_KINDS = ("sec", "tbl", "eq", "fig")
#: prefixes pandoc-crossref/Quarto reserve: an @ with these is never a citation
RESERVED_PREFIXES = ("sec", "tbl", "eq", "fig", "lst", "thm", "lem", "cor", "prp", "cnj",
                     "def", "exm", "exr", "sol", "rem", "alg", "nte", "tip", "wrn", "imp", "cau")


@dataclass(frozen=True)
class Target:
    label: str
    kind: str          # 'sec' | 'tbl' | 'eq' | 'fig' | 'chapter'
    number: str        # "A.1", "2", "A"; "" when unnumbered
    chapter: str       # source path of the chapter, relative to root
    title: str         # heading text / caption ("" for equations)
    appendix: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Heading:
    line: int          # 1-based
    level: int
    text: str
    id: str | None
    classes: tuple[str, ...]

    @property
    def unnumbered(self) -> bool:
        return "unnumbered" in self.classes or "-" in self.classes


HEADING = re.compile(r"^(?P<h>#{1,6})[ \t]+(?P<t>.*?)[ \t]*$")
ATTR_TAIL = re.compile(r"[ \t]*\{(?P<a>[^{}]*)\}[ \t]*$")
ATTR_BLOCK = re.compile(r"\{(?P<a>[^{}\n]*)\}")
ID_IN_ATTR = re.compile(r"(?:^|\s)#(?P<id>[A-Za-z][\w:.-]*\w|[A-Za-z])")
CLASS_IN_ATTR = re.compile(r"(?:^|\s)(?:\.(?P<c>[\w-]+)|(?P<dash>-)(?=\s|$))")
REF = re.compile(r"(?<![\w@/.:])@(?P<p>[Ss]ec|[Tt]bl|[Ee]q|[Ff]ig)-(?P<r>[A-Za-z0-9_](?:[\w-]*\w)?)")
CITE = re.compile(r"(?<![\w@/.:])@(?P<k>[A-Za-z0-9_](?:\w|[:.#$%&\-+?<>~/](?=\w))*)")


def _parse_attr(a: str) -> tuple[str | None, tuple[str, ...]]:
    m = ID_IN_ATTR.search(a)
    classes = tuple(c.group("c") or "-" for c in CLASS_IN_ATTR.finditer(a))
    return (m.group("id") if m else None), classes


def headings(markdown: str) -> list[Heading]:
    out = []
    masked = code_free(markdown).split("\n")
    raw = markdown.split("\n")
    for i, ln in enumerate(masked):
        m = HEADING.match(ln)
        if not m:
            continue
        text = raw[i][len(m.group("h")):].strip()
        text = re.sub(r"[ \t]+#+[ \t]*$", "", text) if not ATTR_TAIL.search(text) else text
        hid, classes = None, ()
        am = ATTR_TAIL.search(text)
        if am:
            hid, classes = _parse_attr(am.group("a"))
            text = text[: am.start()].rstrip()
        out.append(Heading(i + 1, len(m.group("h")), text, hid, classes))
    return out


def chapter_title(markdown: str) -> str:
    for h in headings(markdown):
        if h.level == 1:
            return h.text
    return ""


def _labelled_objects(markdown: str) -> list[tuple[int, int, str, str]]:
    """(line, col, kind, label) of tbl/fig/eq labels and heading ids, in order."""
    found: list[tuple[int, int, str, str]] = []
    masked = code_free(markdown).split("\n")
    for i, ln in enumerate(masked):
        hm = HEADING.match(ln)
        for am in ATTR_BLOCK.finditer(ln):
            if hm and ATTR_TAIL.search(ln) and am.end() >= len(ln.rstrip()):
                continue  # the heading's own attributes: handled with the heading
            lid, _ = _parse_attr(am.group("a"))
            if lid:
                kind = lid.split("-", 1)[0]
                if kind in ("tbl", "fig", "eq", "sec") and "-" in lid:
                    found.append((i + 1, am.start(), kind, lid))
    return found


def chapter_labels(markdown: str) -> list[str]:
    labels = [h.id for h in headings(markdown) if h.id and h.id.startswith("sec-")]
    labels += [lab for _, _, _, lab in _labelled_objects(markdown)]
    return labels


def _caption(line: str, kind: str, col: int) -> str:
    before = line[:col]
    if kind == "tbl":
        m = re.match(r"^[ \t]*(?::|Table:)[ \t]+(?P<c>.*)$", before)
        return m.group("c").strip() if m else ""
    if kind == "fig":
        m = re.search(r"!\[(?P<c>(?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)$", before.rstrip())
        return m.group("c").strip() if m else ""
    return ""


def _letters(n: int) -> str:
    s = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        s = chr(ord("A") + r) + s
    return s


def number_chapter(markdown: str, chapter: str, chapter_number: str,
                   appendix: bool) -> list[tuple[Target, int]]:
    """Targets of one chapter with the 1-based markdown line that defines each."""
    out: list[tuple[Target, int]] = []
    counters = [0] * 7
    raw = markdown.split("\n")
    seen_h1 = False
    for h in headings(markdown):
        if h.level == 1 and not seen_h1:
            seen_h1 = True
            if h.id and h.id.startswith("sec-"):
                out.append((Target(h.id, "chapter", chapter_number, chapter, h.text, appendix), h.line))
            continue
        num = ""
        if not h.unnumbered and chapter_number and h.level >= 2:
            counters[h.level] += 1
            for k in range(h.level + 1, 7):
                counters[k] = 0
            num = ".".join([chapter_number] + [str(counters[k]) for k in range(2, h.level + 1)])
        if h.id and h.id.startswith("sec-"):
            out.append((Target(h.id, "sec", num, chapter, h.text, appendix), h.line))
    per_kind = {"tbl": 0, "fig": 0, "eq": 0}
    for line, col, kind, lab in _labelled_objects(markdown):
        if kind == "sec":
            out.append((Target(lab, "sec", "", chapter, "", appendix), line))
            continue
        per_kind[kind] += 1
        n = str(per_kind[kind])
        num = f"{chapter_number}.{n}" if chapter_number else n
        out.append((Target(lab, kind, num, chapter, _caption(raw[line - 1], kind, col), appendix), line))
    return out


def _executed_in_order(book: "Book", executed: Any) -> list["ExecutedChapter"]:
    if isinstance(executed, dict):
        out = []
        for ch in book.chapters:
            ec = executed.get(ch.path) or executed.get(ch.path.as_posix()) or executed.get(str(ch.path))
            if ec is None:
                raise XrefError(ch.path.as_posix(), None, "chapter was not executed")
            out.append(ec)
        return out
    return list(executed)


def build_index(book: "Book", executed_chapters: Iterable["ExecutedChapter"] | dict
                ) -> dict[str, Target]:
    """All cross-reference targets of the book, keyed by label."""
    chapters = _executed_in_order(book, executed_chapters)
    index: dict[str, Target] = {}
    where: dict[str, tuple[str, int]] = {}
    n_chap = n_app = 0
    for ref, ec in zip(book.chapters, chapters):
        first_h1 = next((h for h in headings(ec.markdown) if h.level == 1), None)
        unnumbered = (ref.part is not None and ref.part == ref.path.as_posix()) or \
            (first_h1 is not None and first_h1.unnumbered) or \
            (first_h1 is None and bool(ec.front_matter.get("unnumbered")))
        if unnumbered:
            num = ""
        elif ref.appendix:
            n_app += 1
            num = _letters(n_app)
        else:
            n_chap += 1
            num = str(n_chap)
        for t, line in number_chapter(ec.markdown, ref.path.as_posix(), num, ref.appendix):
            o = ec.origin(line)
            if t.label in index:
                f0, l0 = where[t.label]
                raise XrefError(o.file, o.line, f"label {t.label} is defined twice "
                                                f"(first at {f0}:{l0}); labels must be unique in a book")
            index[t.label] = t
            where[t.label] = (o.file, o.line)
    return index


def find_references(markdown: str) -> list[tuple[str, int, bool]]:
    """Cross-references ``@sec-x``, ``@Sec-x``, ``[@tbl-x]``, ``@eq-``, ``@fig-`` in
    ``markdown`` (code, comments and front matter ignored; e-mail addresses and
    citations are not references): (label, 1-based line, capitalised)."""
    out = []
    for i, ln in enumerate(code_free(markdown).split("\n"), start=1):
        for m in REF.finditer(ln):
            p = m.group("p")
            out.append((f"{p.lower()}-{m.group('r')}", i, p[0].isupper()))
    return out


def find_citations(markdown: str) -> list[tuple[str, int]]:
    """Citation keys ``[@key]`` / ``@key`` that are not cross-references: (key, line)."""
    out = []
    masked = code_free(markdown)
    masked = re.sub(r"\b(?:https?|ftp)://\S+", lambda m: " " * len(m.group(0)), masked)
    for i, ln in enumerate(masked.split("\n"), start=1):
        for m in CITE.finditer(ln):
            key = m.group("k")
            pre = key.split("-", 1)[0].lower()
            if "-" in key and pre in RESERVED_PREFIXES:
                continue
            out.append((key, i))
    return out


def index_to_json(index: dict[str, Target]) -> dict[str, dict[str, Any]]:
    return {k: index[k].to_json() for k in sorted(index)}


def label_word(target: Target, prefixes: dict[str, str], capitalised: bool = False) -> str:
    """What Quarto writes for a reference: 'Section A.1', 'Table A.2', 'Appendix A'."""
    if target.kind == "chapter":
        word = prefixes.get("appendix" if target.appendix else "chapter", "")
    else:
        word = prefixes.get(target.kind, target.kind)
    if capitalised and word[:1].islower():
        word = word[:1].upper() + word[1:]
    return f"{word} {target.number}".strip()
