"""Numbered tables: "Table A.1: caption" on labelled tables (pipe tables and ``tbl-`` divs), and
Quarto's ``tbl-colwidths``."""
from __future__ import annotations

import json
import unicodedata
from typing import Any

from ... import pandoc_ast as A
from ...errors import RenderError


def caption_prefix(p, kind: str, ident: str) -> list:
    """"Table A.1: " as Quarto writes it: the word, a no-break space, the number, ``crossref: title-delim``
    (default ``:``) and a space; after a full-width delimiter (Chinese: U+FF1A), no space, as Chinese type sets
    it (the extension's ``cjk-caption.lua`` does the same to Quarto's captions)."""
    t = p.ctx.index.targets[ident]
    delim = p.ctx.prefixes.get("title-delim", ":")
    head = A.Str(f"{p.ctx.prefixes[kind]}\u00a0{t.number}{delim}")
    return [head] if delim and unicodedata.east_asian_width(delim[-1]) in ("F", "W") else [head, A.Space()]


def _colwidths(p, a: list, colspecs: list) -> list:
    ident, widths = a[0], A.get_attr(a, "tbl-colwidths")
    if not widths:
        return colspecs
    try:
        ws = [float(w) for w in json.loads(widths)]
    except (ValueError, TypeError):
        raise RenderError(p.ch.source, None, f"{ident or 'table'}: tbl-colwidths must be a list of numbers, "
                                             f"got {widths}") from None
    if len(ws) != len(colspecs):
        raise RenderError(p.ch.source, None, f"{ident or 'table'}: tbl-colwidths has {len(ws)} entries for "
                                             f"{len(colspecs)} columns")
    total = sum(ws)
    return [[cs[0], {"t": "ColWidth", "c": w / total}] for cs, w in zip(colspecs, ws)]


def on_table(p, el: dict) -> Any:
    a, caption, colspecs, head, bodies, foot = el["c"]
    colspecs = _colwidths(p, a, colspecs)
    ident = a[0]
    if ident.startswith("tbl-"):
        short, blocks = caption
        if blocks and blocks[0]["t"] in ("Plain", "Para"):
            blocks = [{"t": blocks[0]["t"], "c": caption_prefix(p, "tbl", ident) + blocks[0]["c"]}] + blocks[1:]
        else:
            blocks = [A.Plain(caption_prefix(p, "tbl", ident)[:1])] + blocks
        caption = [short, blocks]
    return {"t": "Table", "c": [A.drop_attr(a, "tbl-colwidths"), caption, colspecs, head, bodies, foot]}


def on_div(p, el: dict) -> Any:
    """A ``tbl-`` div (a table a cell printed): the caption is its last paragraph."""
    a, blocks = el["c"]
    if not (a[0].startswith("tbl-") and a[0] in p.ctx.index.targets):
        return None
    for k in range(len(blocks) - 1, -1, -1):
        if blocks[k]["t"] in ("Para", "Plain"):
            blocks = blocks[:k] + [{"t": blocks[k]["t"], "c": caption_prefix(p, "tbl", a[0]) + blocks[k]["c"]}] \
                + blocks[k + 1:]
            break
    return A.Div(a, blocks)
