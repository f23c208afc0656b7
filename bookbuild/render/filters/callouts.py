"""Callouts (``::: {.callout-note}``) as Quarto shows them: a titled box (``collapse`` makes it a
``<details>``); the title in the book's language when the callout gives none."""
from __future__ import annotations

from typing import Any

from ... import pandoc_ast as A
from ..strings import ui


def _title(p, kind: str, a: list, blocks: list) -> tuple[list, list]:
    title = A.get_attr(a, "title")
    if title is not None:
        parsed = p.ctx.pandoc.md_to_ast(title)["blocks"]
        return (parsed[0]["c"] if parsed else []), blocks
    if blocks and blocks[0]["t"] == "Header":
        return blocks[0]["c"][2], blocks[1:]
    return A.text_inlines(ui(p.ctx.lang)["callout"].get(kind, kind.capitalize())), blocks


def render_callout(p, kind: str, a: list, blocks: list) -> list:
    title, blocks = _title(p, kind, a, blocks)
    ident, collapse = a[0], A.get_attr(a, "collapse")
    if p.ctx.fmt == "typst":
        label = f" <{ident}>" if ident else ""
        return [A.RawBlock("typst", f'#callout(kind: "{kind}", title: ['), A.Plain(title),
                A.RawBlock("typst", "])["), *blocks, A.RawBlock("typst", "]" + label)]
    idattr = f' id="{ident}"' if ident else ""
    if collapse in ("true", "false"):
        open_ = "" if collapse == "true" else " open"
        return [A.RawBlock("html", f'<details class="callout callout-{kind}"{idattr}{open_}>'
                                   f'<summary class="callout-header">'),
                A.Plain(title), A.RawBlock("html", "</summary>"),
                A.Div(A.attr("", ["callout-body"]), blocks), A.RawBlock("html", "</details>")]
    return [A.RawBlock("html", f'<div class="callout callout-{kind}"{idattr}><div class="callout-header">'),
            A.Plain(title), A.RawBlock("html", "</div>"),
            A.Div(A.attr("", ["callout-body"]), blocks), A.RawBlock("html", "</div>")]


def on_div(p, el: dict) -> Any:
    a, blocks = el["c"]
    kind = next((c for c in a[1] if c.startswith("callout-")), None)
    return render_callout(p, kind[len("callout-"):], a, blocks) if kind else None
