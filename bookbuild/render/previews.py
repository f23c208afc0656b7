"""What a cross-reference to another page previews (Quarto's ``crossrefs-hover``): the target's HTML, taken
from the body of the page it lives on, carried in the referring page as an inert ``<template>`` (book.js
shows it on hover, focus or a first tap; a page opened from ``file:`` can fetch nothing, and the policy
allows no inline script). A reference within its own page needs nothing here: book.js copies the target
from the page itself. A section previews its heading and the paragraph after it; an equation, figure or
table the element that carries its label; ids are dropped (the copy is not the target).
"""
from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from posixpath import dirname, normpath

from .pages import relpath

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: the cross-reference links pandoc wrote (the citations filter marks each ``quarto-xref``)
XREF_LINK = re.compile(r'<a href="(?P<page>[^"#]+)#(?P<id>[^"]+)" class="quarto-xref"')
ID_ATTR = re.compile(r'(?<=[\s"])id="[^"]*"\s?')
#: what makes an element of the page act (a value's explanation and choice, a tab stop): a held copy only shows
VALUE_ATTR = re.compile(r'\s(?:data-attr|tabindex|aria-describedby)="[^"]*"')


class _Spans(HTMLParser):
    """The start and end offsets (and tag) of every element of a page body that has an id."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=False)
        self.text, self.lines = text, [0]
        for m in re.finditer("\n", text):
            self.lines.append(m.end())
        self.open: list[tuple[str, str | None, int]] = []
        self.spans: dict[str, tuple[int, int, str]] = {}
        self.feed(text)
        self.close()

    def _at(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.open.append((tag, dict(attrs).get("id"), self._at()))

    def handle_endtag(self, tag):
        if tag in VOID or not any(t == tag for t, _, _ in self.open):
            return
        end = self.text.find(">", self._at()) + 1
        while self.open:
            t, ident, start = self.open.pop()
            if ident:
                self.spans.setdefault(ident, (start, end, t))
            if t == tag:
                break


NEXT_PARA = re.compile(r"\s*(<p>.*?</p>)", re.S)


def element(body: str, ident: str, spans: _Spans | None = None) -> str | None:
    """The HTML a reference to ``ident`` in ``body`` previews, without ids; None when no element has it."""
    got = (spans or _Spans(body)).spans.get(ident)
    if got is None:
        return None
    start, end, tag = got
    out = body[start:end]
    if re.fullmatch(r"h[1-6]", tag):
        para = NEXT_PARA.match(body, end)
        if para:
            out += "\n" + para.group(1)
    return VALUE_ATTR.sub("", ID_ATTR.sub("", out))


def templates(page: str, body: str, bodies: dict[str, str]) -> str:
    """The ``<template>`` of the previews of ``page``'s references into other pages (``bodies``: each page's
    body by its name), in the order they first appear; "" when it refers to no other page."""
    parsed: dict[str, _Spans] = {}
    seen, out = set(), []
    for m in XREF_LINK.finditer(body):
        href = html.unescape(m.group("page")) + "#" + html.unescape(m.group("id"))
        if href in seen:
            continue
        seen.add(href)
        target = normpath(dirname(page) + "/" + html.unescape(m.group("page"))).lstrip("/")
        if target not in bodies:
            continue
        spans = parsed.setdefault(target, _Spans(bodies[target]))
        got = element(bodies[target], html.unescape(m.group("id")), spans)
        if got is None:
            continue
        out.append(f'<div data-preview="{html.escape(href)}" data-page="{html.escape(relpath(target, page))}">'
                   f"{got}</div>")
    return ('<template id="xref-previews">' + "".join(out) + "</template>\n") if out else ""
