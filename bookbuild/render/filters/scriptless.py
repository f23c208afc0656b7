"""A figure the HTML draws with a script (``div.mlsysim-plot`` holding its plotly JSON, drawn by the book's
figures.js) is, in a format that runs no script (EPUB), the static SVG its cell wrote beside the chapter,
``figures/<figure>.<lang>.svg`` (:func:`mlsysim.figures.book_figure`). Quarto's EPUB gets the same from the
extension's ``static-figures.lua``."""
from __future__ import annotations

import re
from typing import Any

from ... import pandoc_ast as A

PLOT = re.compile(r'class="mlsysim-plot"[^>]*?data-figure="([^"]+)"[^>]*?lang="([^"]+)"')


def on_raw_block(p, el: dict) -> Any:
    fmt, text = el["c"]
    if p.ctx.fmt != "epub" or not fmt.startswith("html"):
        return None
    m = PLOT.search(text)
    if m is None:
        return None
    return A.Para([{"t": "Image", "c": [A.attr(""), [], [f"figures/{m.group(1)}.{m.group(2)}.svg", ""]]}])
