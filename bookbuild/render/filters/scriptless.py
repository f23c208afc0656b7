"""Content drawn by a script in HTML, in a format that runs no script (EPUB): a raw HTML block whose first
element names its static stand-in, ``data-static="figures/x.svg"`` (a figure drawn by a page script, its
SVG written beside the chapter by the same cell), becomes that image. Quarto's EPUB gets the same from the
book's extension (``static-figures.lua``)."""
from __future__ import annotations

import html
import re
from typing import Any

from ... import pandoc_ast as A

STATIC = re.compile(r'^\s*<[A-Za-z][\w-]*\b[^>]*?\sdata-static="([^"<>]+)"')


def on_raw_block(p, el: dict) -> Any:
    fmt, text = el["c"]
    if p.ctx.fmt != "epub" or not fmt.startswith("html"):
        return None
    m = STATIC.match(text)
    if m is None:
        return None
    return A.Para([{"t": "Image", "c": [A.attr(""), [], [html.unescape(m.group(1)), ""]]}])
