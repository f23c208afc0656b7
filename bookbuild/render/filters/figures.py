"""Numbered figures: "Figure A.1: caption"; the alt text goes on the image (``fig-alt``), or, in a
displayed figure div (a cell's HTML output plus a static image for formats without HTML, then the
caption), on the first element of the HTML (``aria-label``) and on the static image."""
from __future__ import annotations

import html
import re
from typing import Any

from ... import pandoc_ast as A
from .tables import caption_prefix


def on_figure(p, el: dict) -> Any:
    a, (short, cap_blocks), body = el["c"]
    ident = a[0]
    if ident.startswith("fig-"):
        if cap_blocks and cap_blocks[0]["t"] in ("Plain", "Para"):
            cap_blocks = [{"t": cap_blocks[0]["t"], "c": caption_prefix(p, "fig", ident) + cap_blocks[0]["c"]}
                          ] + cap_blocks[1:]
        else:
            cap_blocks = [A.Plain(caption_prefix(p, "fig", ident)[:1])]

    def alt(img: dict) -> Any:
        if img["t"] != "Image":
            return None
        ia, inl, target = img["c"]
        text = A.get_attr(ia, "fig-alt")
        if text is None:
            return None
        return {"t": "Image", "c": [A.drop_attr(ia, "fig-alt"), A.text_inlines(text), target]}
    return {"t": "Figure", "c": [a, [short, cap_blocks], A.walk(body, alt)]}


#: the first element of an HTML block and its first attribute: the alt text goes right after that attribute
FIRST_ELEMENT = re.compile(r'^(\s*<[A-Za-z][\w-]*(?:\s+[\w:-]+="[^"]*")?)')


def _put_alt(alt: str):
    done = [False]

    def put(el: dict) -> Any:
        if el["t"] == "RawBlock" and el["c"][0] == "html" and not done[0]:
            done[0] = True
            m = FIRST_ELEMENT.match(el["c"][1])
            if m is None or "aria-label=" in m.group(0) or "aria-label=" in el["c"][1].split(">", 1)[0]:
                return None
            esc = html.escape(alt, quote=True).replace("&#x27;", "'")
            return A.RawBlock("html", m.group(1) + f' aria-label="{esc}"' + el["c"][1][m.end():])
        if el["t"] == "Image" and A.get_attr(el["c"][0], "fig-alt") is None:
            ia, inl, target = el["c"]
            return {"t": "Image", "c": [ia, A.text_inlines(alt), target]}
        return None
    return put


def on_div(p, el: dict) -> Any:
    """A displayed figure (``::: {#fig-x fig-alt=...}`` from a cell) as a numbered pandoc Figure."""
    a, blocks = el["c"]
    if not (a[0].startswith("fig-") and a[0] in p.ctx.index.targets):
        return None
    k = max((i for i, b in enumerate(blocks) if b["t"] in ("Para", "Plain")), default=None)
    if k is None or (k == 0 and len(blocks) == 1):
        cap, body = [], blocks
    else:
        cap, body = [blocks[k]], blocks[:k] + blocks[k + 1:]
    alt = A.get_attr(a, "fig-alt")
    if alt is not None:
        body = A.walk(body, _put_alt(alt))
    return on_figure(p, {"t": "Figure", "c": [A.drop_attr(a, "fig-alt"), [None, cap], body]})
