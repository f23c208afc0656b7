"""``content-visible`` / ``content-hidden`` divs with ``when-format`` / ``unless-format``, as Quarto reads them
(``_format.lua``): ``html`` names every HTML format, EPUB too; ``html:js`` the HTML formats that run scripts
(not EPUB); ``pdf`` and ``latex`` the PDF (typst here)."""
from __future__ import annotations

from typing import Any

from ... import pandoc_ast as A

FORMAT_NAMES = {"html": {"html", "html5", "html4", "html:js"}, "typst": {"pdf", "typst", "latex", "beamer"},
                "epub": {"epub", "epub3", "html", "html5"}}


def visible(fmt: str, a: list) -> bool:
    names = FORMAT_NAMES[fmt]
    when, unless = A.get_attr(a, "when-format"), A.get_attr(a, "unless-format")
    ok = when in names if when is not None else True
    return ok and (unless not in names if unless is not None else True)


def on_div(p, el: dict) -> Any:
    a, blocks = el["c"]
    if "content-visible" in a[1]:
        return blocks if visible(p.ctx.fmt, a) else []
    if "content-hidden" in a[1]:
        return [] if visible(p.ctx.fmt, a) else blocks
    return None
