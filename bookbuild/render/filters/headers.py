"""Numbers on headings: "1 Title" / "Appendix A — Title" on a chapter's heading, "A.1" on its sections."""
from __future__ import annotations

from typing import Any

from ... import pandoc_ast as A


def _chapter_heading(p, level: int, a: list, inl: list) -> dict | None:
    ch, ctx = p.ch, p.ctx
    if ch.number is None:
        return None
    if ch.appendix:
        lead = [A.Span(A.attr("", ["chapter-number"]), A.text_inlines(f"{ctx.prefixes['appendix']} {ch.number} —"))]
    else:
        lead = [A.Span(A.attr("", ["chapter-number"]), [A.Str(ch.number)])]
    return A.Header(level, a, lead + [A.Space(), A.Span(A.attr("", ["chapter-title"]), inl)])


def _section_heading(p, level: int, a: list, inl: list) -> dict | None:
    t = p.ctx.index.targets.get(a[0]) if a[0] else None
    if t is None or t.number is None or t.kind != "sec":
        return None
    return A.Header(level, a, [A.Span(A.attr("", ["header-section-number"]), [A.Str(t.number)]), A.Space()] + inl)


def number_headers(p, blocks: list, state: list | None = None) -> list:
    """Headings in document order (divs included); the first is the chapter's own."""
    state = state if state is not None else [False]
    out: list[Any] = []
    for b in blocks:
        if b["t"] == "Header":
            first = not state[0]
            state[0] = True
            nb = (_chapter_heading if first else _section_heading)(p, *b["c"])
            out.append(b if nb is None else nb)
        elif b["t"] == "Div":
            out.append({"t": "Div", "c": [b["c"][0], number_headers(p, b["c"][1], state)]})
        else:
            out.append(b)
    return out
