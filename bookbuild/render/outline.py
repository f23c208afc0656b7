"""A page's outline, read from its HTML body in one pass of the standard library's parser (no tree):

- its on-page table of contents: every ``h2``/``h3`` with an id, not ``.unlisted``, with its text;
- its search records: the page split into sections at each top-level ``h1``/``h2``/``h3`` with an id,
  each with its title and its text.

Text is what a reader sees: the strings of the elements, with a space where a block, a table cell or a
line break begins or ends (so a table's cells or a callout's paragraphs never run together) and none
between inline elements, whitespace collapsed; a math element is its
MathML text, without its TeX annotation. Strings inside ``script``, ``style``, ``template`` and ruby
annotations (``rt``, ``rp``), comments (a translation's note to its translators) and declarations are not
text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from html.parser import HTMLParser

#: elements that never have content (no end tag follows them)
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
#: elements whose strings are not the page's text
NOT_TEXT = frozenset({"script", "style", "template", "rt", "rp"})
HEADINGS = frozenset({"h1", "h2", "h3"})
#: elements that begin and end a run of text: a space between theirs and the next
BREAKS = frozenset("address article aside blockquote br caption dd details div dl dt figcaption figure footer "
                   "h1 h2 h3 h4 h5 h6 header hr li main nav ol option p pre section select summary table tbody td tfoot th "
                   "thead tr ul".split())
TOC_LEVELS = frozenset({"h2", "h3"})


@dataclass
class Heading:
    """A table-of-contents entry: ``level`` is h2 or h3."""
    level: str
    id: str
    text: str


@dataclass
class Section:
    """A search record's parts: the heading's id ("" for the text before the first one) and title."""
    anchor: str
    title: str
    pieces: list[str] = field(default_factory=list)

    @cached_property
    def text(self) -> str:       # read once every piece is in (by :func:`outline` and the records)
        return " ".join(" ".join(self.pieces).split())


@dataclass
class Outline:
    toc: list[Heading]
    sections: list[Section]


@dataclass
class _Open:
    name: str
    attrs: dict
    text: list[str] = field(default_factory=list)       # its strings: a top-level element's, an h2/h3's


class _Reader(HTMLParser):
    def __init__(self, title: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[_Open] = []
        self.hidden = 0        # open elements whose strings are not text
        self.math = 0          # open <math> elements
        self.annotation = 0    # open <annotation> elements inside a math
        self.heads: list[_Open] = []    # open h2/h3 elements
        self.toc: list[Heading] = []
        self.sections = [Section("", title)]

    # ── elements ──
    def handle_starttag(self, tag, attrs):
        self._open(tag, attrs)
        if tag in VOID:
            self._close_top()

    def handle_startendtag(self, tag, attrs):
        self._open(tag, attrs)
        self._close_top()

    def handle_endtag(self, tag):
        if not any(o.name == tag for o in self.stack):
            return                       # an end tag that closes nothing is ignored
        while self.stack:
            if self._close_top() == tag:
                break

    def close(self):
        super().close()
        while self.stack:                # what the page left open ends with it
            self._close_top()

    def _break(self, tag):
        if tag in BREAKS and self.stack and not (self.hidden or self.annotation):
            self.stack[0].text.append(" ")

    def _open(self, tag, attrs):
        self._break(tag)
        o = _Open(tag, {k: v or "" for k, v in attrs})
        self.stack.append(o)
        if tag in TOC_LEVELS:
            self.heads.append(o)
        self.hidden += tag in NOT_TEXT
        self.math += tag == "math"
        self.annotation += tag == "annotation" and self.math > 0

    def _close_top(self) -> str:
        o = self.stack.pop()
        self._break(o.name)
        self.hidden -= o.name in NOT_TEXT
        self.annotation -= o.name == "annotation" and self.math > 0
        self.math -= o.name == "math"
        if o.name in TOC_LEVELS:
            self.heads.remove(o)
            if o.attrs.get("id") and "unlisted" not in o.attrs.get("class", "").split():
                self.toc.append(Heading(o.name, o.attrs["id"], " ".join("".join(o.text).split())))
        if self.stack:                   # an inner element: its strings are already its top element's
            return o.name
        if o.name in HEADINGS and o.attrs.get("id"):
            self.sections.append(Section(o.attrs["id"], " ".join("".join(o.text).split())))
        else:
            text = "".join(o.text).strip()
            if text:
                self.sections[-1].pieces.append(text)
        return o.name

    # ── strings ──
    def handle_data(self, data):
        if self.hidden or self.annotation:
            return
        if not self.stack:
            if data.strip():
                self.sections[-1].pieces.append(data.strip())
            return
        self.stack[0].text.append(data)
        for h in self.heads:
            if h is not self.stack[0]:
                h.text.append(data)


def outline(body: str, title: str) -> Outline:
    """The table of contents and the sections of one page body (``title``: the page's, for the text
    before its first heading)."""
    r = _Reader(title)
    r.feed(body)
    r.close()
    return Outline(r.toc, [s for s in r.sections if s.text or s.anchor])
