"""Where the bibliography goes: a chapter that cites gets a "References" section at its end, unless it
places a ``::: {#refs}`` div itself."""
from __future__ import annotations

from ... import pandoc_ast as A
from ..strings import ui


def append_references(p, blocks: list) -> list:
    has_refs = any(e["t"] == "Div" and e["c"][0][0] == "refs" for e in A.iter_elements(blocks))
    if not p.cited or has_refs:
        return blocks
    return blocks + [A.Header(2, A.attr("references", ["unnumbered"]), A.text_inlines(ui(p.ctx.lang)["references"])),
                     A.Div(A.attr("refs", ["references"]), [])]
