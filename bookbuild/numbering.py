"""The book's one cross-reference index, numbered once over the chapters' pandoc ASTs.

Numbering follows a Quarto book: chapters 1, 2, ... (a chapter whose ``#`` heading is
``.unnumbered`` gets no number, nor do its sections); chapters under ``appendices:`` are lettered
A, B, ...; sections A.1, A.1.3 (``.unnumbered`` headings are skipped); tables, figures and equations
per chapter A.1, A.2, ... (only labelled ``#tbl-``/``#fig-``/``{#eq-}`` ones); a label on a chapter's
own ``#`` heading refers to the chapter (kind ``chapter``: "Chapter 1", "Appendix A").

A chapter may declare its number in its front matter with Quarto's own option, ``number-offset: [18]``
(the count of chapters before it: the chapter is 19, its sections 19.1, ...); the Quarto render reads the
same key (the Quarto extension's ``chapter-number.lua`` and the post-render step), since a Quarto book
otherwise numbers chapters by position. :func:`chapter_offset` reads and checks it.

:func:`number_book` builds the :class:`Index`; it is stored with the executed book
(``book.json``'s ``xref``) and the renderer only resolves references against it.
:func:`references` and :func:`citations` read what a chapter's AST refers to.
"""
from __future__ import annotations

import re
import string
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from .errors import XrefError
from . import pandoc_ast as A

KINDS = ("sec", "tbl", "eq", "fig")
XREF_RE = re.compile(r"^([Ss]ec|[Tt]bl|[Ee]q|[Ff]ig)-")
EQ_LABEL_RE = re.compile(r"^\{#(eq-[^\s{}]+)\}$")
#: prefixes Quarto reserves for cross-references: an @ with these is never a citation
RESERVED_PREFIXES = ("sec", "tbl", "eq", "fig", "lst", "thm", "lem", "cor", "prp", "cnj",
                     "def", "exm", "exr", "sol", "rem", "alg", "nte", "tip", "wrn", "imp", "cau")


@dataclass(frozen=True)
class Target:
    label: str
    kind: str                # sec | tbl | eq | fig | chapter
    number: str | None       # "A.1", "2", "A"; None when unnumbered
    chapter: str             # source path of the chapter, relative to the root
    title: str = ""
    appendix: bool = False


@dataclass
class ChapterNumbers:
    source: str
    appendix: bool
    number: str | None = None       # "1", "A", or None
    title: str = ""
    label: str = ""                  # id of the chapter heading
    headings: list[tuple] = field(default_factory=list)   # (level, id, number, text, unlisted)


@dataclass
class Index:
    chapters: list[ChapterNumbers]
    targets: dict[str, Target]

    def to_json(self) -> dict[str, Any]:
        return {"chapters": [asdict(c) for c in self.chapters],
                "targets": {k: asdict(self.targets[k]) for k in sorted(self.targets)}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Index":
        chapters = [ChapterNumbers(c["source"], c["appendix"], c["number"], c["title"], c["label"],
                                   [tuple(h) for h in c["headings"]]) for c in d["chapters"]]
        return cls(chapters, {k: Target(**v) for k, v in d["targets"].items()})

    def chapter_of(self, source: str) -> ChapterNumbers:
        return next(c for c in self.chapters if c.source == source)


def letters(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = string.ascii_uppercase[r] + s
    return s


NUMBER_OFFSET = "number-offset"


def chapter_offset(front_matter: dict[str, Any], source: str) -> int | None:
    """The chapter's declared ``number-offset`` (None when it declares none): a whole number >= 0, written
    ``[18]`` as Quarto writes it, or ``18`` (Quarto coerces a scalar). Anything else is an XrefError."""
    if NUMBER_OFFSET not in front_matter:
        return None
    v = front_matter[NUMBER_OFFSET]
    v = v[0] if isinstance(v, list) and len(v) == 1 else v
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise XrefError(source, None, f"number-offset must be one whole number of chapters before this one, "
                                      f"such as [18] (the chapter is then 19), not {front_matter[NUMBER_OFFSET]!r}")
    return v


def labelled_equations(inlines: list) -> list[tuple[int, int, str]]:
    """Positions of labelled display equations in an inline list: (index of Math, index of label, label)."""
    found = []
    for i, el in enumerate(inlines):
        if el.get("t") == "Math" and el["c"][0]["t"] == "DisplayMath":
            j = i + 1
            while j < len(inlines) and inlines[j]["t"] in ("Space", "SoftBreak"):
                j += 1
            if j < len(inlines) and inlines[j]["t"] == "Str":
                m = EQ_LABEL_RE.match(inlines[j]["c"])
                if m:
                    found.append((i, j, m.group(1)))
    return found


class _Numberer:
    """Numbers one chapter's headings, tables, figures and equations."""

    def __init__(self, ch: ChapterNumbers, add):
        self.ch, self.add = ch, add
        self.counters = [0] * 7
        self.per_kind = {"tbl": 0, "fig": 0, "eq": 0}

    def item(self, kind: str, label: str) -> None:
        self.per_kind[kind] += 1
        n = self.per_kind[kind]
        num = f"{self.ch.number}.{n}" if self.ch.number else str(n)
        self.add(Target(label, kind, num, self.ch.source, "", self.ch.appendix))

    def heading(self, level: int, a: list, inl: list) -> None:
        text = A.stringify(inl).strip()
        num = None
        if "unnumbered" not in a[1] and self.ch.number and level >= 2:
            self.counters[level] += 1
            for k in range(level + 1, 7):
                self.counters[k] = 0
            num = ".".join([self.ch.number] + [str(self.counters[k]) for k in range(2, level + 1)])
        self.ch.headings.append((level, a[0], num, text, "unlisted" in a[1]))
        if a[0]:
            self.add(Target(a[0], "sec", num, self.ch.source, text, self.ch.appendix))

    def element(self, el: dict, first: dict) -> None:
        t = el["t"]
        if t == "Header" and el is not first:
            self.heading(*el["c"])
        elif t in ("Table", "Figure", "Div"):
            ident = el["c"][0][0]
            if ident.startswith("tbl-") and t in ("Table", "Div"):
                self.item("tbl", ident)
            elif ident.startswith("fig-") and t in ("Figure", "Div"):
                self.item("fig", ident)
        elif t in ("Para", "Plain"):
            for _, _, label in labelled_equations(el["c"]):
                self.item("eq", label)


def _declared_number(source: str, appendix: bool, numbered: bool, offset: int | None, position: int) -> str:
    """The chapter's number: its position, or ``offset + 1`` when it declares ``number-offset``."""
    if offset is None:
        return letters(position) if appendix else str(position)
    if appendix:
        raise XrefError(source, None, "number-offset applies to chapters, not appendices (they are lettered by position)")
    if not numbered:
        raise XrefError(source, None, "number-offset on an unnumbered chapter: remove it or the heading's .unnumbered")
    return str(offset + 1)


def number_book(chapters: Iterable[tuple[str, bool, dict]], offsets: dict[str, int] | None = None) -> Index:
    """Number every chapter of the book: ``chapters`` are (source, appendix, pandoc AST) in book order;
    ``offsets`` the ``number-offset`` a chapter declares, by source (:func:`chapter_offset`).
    A label defined twice, or two chapters with one number, is an :class:`~bookbuild.errors.XrefError`
    naming the chapters."""
    offsets = offsets or {}
    targets: dict[str, Target] = {}
    numbered: list[ChapterNumbers] = []
    count = {False: 0, True: 0}
    holder: dict[str, str] = {}

    def add(t: Target) -> None:
        if t.label in targets:
            other = targets[t.label].chapter
            raise XrefError(t.chapter, None, f"label {t.label} is defined twice (also in {other}); "
                                             "labels must be unique in a book")
        targets[t.label] = t

    for source, appendix, ast in chapters:
        blocks = ast["blocks"]
        first = next((b for b in blocks if b["t"] == "Header"), None)
        if first is None or first["c"][0] != 1:
            raise XrefError(source, None, "a chapter must start with a level-1 heading (# Title)")
        ch = ChapterNumbers(source, appendix, title=A.stringify(first["c"][2]).strip(), label=first["c"][1][0])
        is_numbered = "unnumbered" not in first["c"][1][1]
        if is_numbered:
            count[appendix] += 1
        if is_numbered or source in offsets:
            ch.number = _declared_number(source, appendix, is_numbered, offsets.get(source), count[appendix])
            if ch.number in holder:
                raise XrefError(source, None, f"chapter number {ch.number} is also {holder[ch.number]}'s; "
                                              "give one of them another number-offset")
            holder[ch.number] = source
        if ch.label:
            add(Target(ch.label, "chapter", ch.number, source, ch.title, appendix))
        n = _Numberer(ch, add)
        for el in A.iter_elements(blocks):
            n.element(el, first)
        numbered.append(ch)
    return Index(numbered, targets)


def references(ast: dict) -> list[tuple[str, str]]:
    """Cross-references of an AST, as written (``Sec-x`` keeps its capital) with their citation mode."""
    out = []
    for el in A.iter_elements(ast["blocks"]):
        if el["t"] == "Cite":
            for c in el["c"][0]:
                if XREF_RE.match(c["citationId"]):
                    out.append((c["citationId"], c["citationMode"]["t"]))
    return out


def citations(ast: dict) -> list[str]:
    """Bibliography keys an AST cites (cross-references and Quarto's reserved prefixes left out)."""
    out = []
    for el in A.iter_elements(ast["blocks"]):
        if el["t"] == "Cite":
            for c in el["c"][0]:
                cid = c["citationId"]
                pre = cid.split("-", 1)[0].lower()
                if not ("-" in cid and pre in RESERVED_PREFIXES):
                    out.append(cid)
    return out
