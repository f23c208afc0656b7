"""Chinese text has no space between two Chinese characters: pandoc needs one before ``@ref`` and around
``[@key]`` in the source, so a Chinese book drops the Space beside a cross-reference or a citation where the
characters it would stand between are both Chinese (Han or full-width punctuation), or either is full-width
punctuation, which carries its own space. A reference to a table keeps its space between its number and the
Chinese word after it (Latin against Chinese, as the book spaces it everywhere). The book's examples are in
notes/glossary.toml, ``[typography]``.

A citation's edges are its citation style's: the Chinese style (csl/gb-t-7714-2015-author-date.csl) sets a
parenthetical citation in full-width brackets, so it is Chinese at both edges; cited in text it opens with the
author's Latin name. Quarto's twin of this rule is the book extension's ``cjk-xref.lua`` (it runs before
citeproc too, so it reads the same edges)."""
from __future__ import annotations

import re
from typing import Any

from ... import pandoc_ast as A

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
FULL_WIDTH_PUNCT = re.compile(r"[\u3000-\u303f\uff00-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")


def _edge(el: dict, side: int) -> str | None:
    """The character ``el`` shows at its left (``side=0``) or right (``-1``) edge, where it is known."""
    t = el.get("t")
    if t == "Cite":
        mode = el["c"][0][0]["citationMode"]["t"] if el["c"][0] else "NormalCitation"
        return "A" if (side == 0 and mode == "AuthorInText") else "\uff08" if side == 0 else "\uff09"
    if t in ("RawInline", "Note"):
        return None
    text = A.stringify(el)
    return text[side] if text else None


def _is_ref(el: dict) -> bool:
    return el.get("t") == "Cite" or (el.get("t") == "Link" and "quarto-xref" in el["c"][0][1])


def _joins(a: str | None, b: str | None) -> bool:
    """No space between ``a`` and ``b``: two Chinese characters, or full-width punctuation (which carries its
    own space) on either side."""
    return (a is not None and b is not None and bool(CJK.match(a)) and bool(CJK.match(b))) \
        or any(c is not None and FULL_WIDTH_PUNCT.match(c) for c in (a, b))


def drop_spaces(inlines: list) -> list:
    out: list = []
    for i, el in enumerate(inlines):
        if el.get("t") == "Space" and out and i + 1 < len(inlines):
            prev, nxt = out[-1], inlines[i + 1]
            if (_is_ref(prev) or _is_ref(nxt)) and _joins(_edge(prev, -1), _edge(nxt, 0)):
                continue
        out.append(el)
    return out


def _inline_list(x: Any) -> bool:
    return isinstance(x, list) and bool(x) and all(isinstance(e, dict) and "t" in e for e in x) \
        and any(_is_ref(e) for e in x)


def apply(node: Any) -> Any:
    """``node`` with the spaces beside references dropped between Chinese characters, in every inline list."""
    if isinstance(node, list):
        items = [apply(x) for x in node]
        return drop_spaces(items) if _inline_list(items) else items
    if isinstance(node, dict):
        return {k: apply(v) for k, v in node.items()}
    return node
