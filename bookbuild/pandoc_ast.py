"""Pandoc's JSON AST: constructors, queries and traversal (pure functions of plain data)."""
from __future__ import annotations

from typing import Any, Callable, Iterable

# ---------------------------------------------------------------- constructors
def Str(s: str) -> dict:
    return {"t": "Str", "c": s}


def Space() -> dict:
    return {"t": "Space"}


def attr(ident: str = "", classes: Iterable[str] = (), kvs: Iterable[tuple[str, str]] = ()) -> list:
    return [ident, list(classes), [list(kv) for kv in kvs]]


def Span(a: list, inlines: list) -> dict:
    return {"t": "Span", "c": [a, inlines]}


def Div(a: list, blocks: list) -> dict:
    return {"t": "Div", "c": [a, blocks]}


def Plain(inlines: list) -> dict:
    return {"t": "Plain", "c": inlines}


def Para(inlines: list) -> dict:
    return {"t": "Para", "c": inlines}


def Header(level: int, a: list, inlines: list) -> dict:
    return {"t": "Header", "c": [level, a, inlines]}


def Link(a: list, inlines: list, url: str, title: str = "") -> dict:
    return {"t": "Link", "c": [a, inlines, [url, title]]}


def RawBlock(fmt: str, text: str) -> dict:
    return {"t": "RawBlock", "c": [fmt, text]}


def RawInline(fmt: str, text: str) -> dict:
    return {"t": "RawInline", "c": [fmt, text]}


def text_inlines(s: str) -> list:
    """Plain text as Str/Space inlines."""
    out: list = []
    for i, word in enumerate(s.split(" ")):
        if i:
            out.append(Space())
        if word:
            out.append(Str(word))
    return out


# ---------------------------------------------------------------- queries
def stringify(x: Any) -> str:
    if isinstance(x, list):
        return "".join(stringify(e) for e in x)
    if not isinstance(x, dict):
        return ""
    t = x.get("t")
    c = x.get("c")
    if t == "Str":
        return c
    if t in ("Space", "SoftBreak", "LineBreak"):
        return " "
    if t == "Math":
        return c[1]
    if t == "Code":
        return c[1]
    if t in ("RawInline", "RawBlock"):
        return ""
    if t == "Quoted":
        q = '"' if c[0]["t"] == "DoubleQuote" else "'"
        return q + stringify(c[1]) + q
    if t == "Cite":
        return stringify(c[1])
    if t in ("Link", "Image", "Span"):
        return stringify(c[1])
    if t == "Note":
        return ""
    if isinstance(c, list):
        return "".join(stringify(e) for e in c if isinstance(e, (list, dict)))
    return ""


def get_attr(a: list, key: str, default: str | None = None) -> str | None:
    for k, v in a[2]:
        if k == key:
            return v
    return default


def drop_attr(a: list, *keys: str) -> list:
    return [a[0], a[1], [[k, v] for k, v in a[2] if k not in keys]]


# ---------------------------------------------------------------- traversal
Visitor = Callable[[dict], Any]


def walk(node: Any, fn: Visitor) -> Any:
    """Bottom-up rewrite.  ``fn(elem)`` returns None (keep), a dict (replace) or a
    list (splice into the enclosing list; ``[]`` deletes)."""
    if isinstance(node, list):
        out = []
        for item in node:
            new = walk(item, fn)
            if isinstance(item, dict) and "t" in item and isinstance(new, list):
                out.extend(new)
            else:
                out.append(new)
        return out
    if isinstance(node, dict):
        if "t" in node:
            if "c" in node:
                node = {"t": node["t"], "c": walk(node["c"], fn)}
            res = fn(node)
            return node if res is None else res
        return {k: walk(v, fn) for k, v in node.items()}
    return node


def iter_elements(node: Any) -> Iterable[dict]:
    """Every element (dict with "t") in document order, parents before children (one stack, no
    recursion: a chapter's AST has some 100,000 nodes)."""
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        if type(n) is list:
            extend(reversed(n))
        elif type(n) is dict:
            if "t" in n:
                yield n
                if "c" in n:
                    push(n["c"])
            else:
                extend(reversed(list(n.values())))
