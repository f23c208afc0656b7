"""Running pandoc and working with its JSON AST.

Pandoc comes from the pip package ``pypandoc-binary`` (``pypandoc.get_pandoc_path()``);
an explicit ``PANDOC`` environment variable wins.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import lru_cache
from typing import Any, Callable, Iterable

from ..errors import BuildError

#: pandoc's reader: Pandoc markdown as Quarto feeds it (tex math, citations, fenced divs,
#: attributes on table captions, raw blocks).  ``raw_tex`` off: a stray ``\ref{}`` stays
#: visible text instead of vanishing from HTML.
READER = "markdown-raw_tex"


class RenderError(BuildError):
    """The renderer could not turn executed markdown into HTML or PDF."""
    kind = "render"


@lru_cache(maxsize=1)
def pandoc_path() -> str:
    env = os.environ.get("PANDOC")
    if env:
        return env
    try:
        import pypandoc
        return pypandoc.get_pandoc_path()
    except Exception:  # pragma: no cover - depends on the machine
        found = shutil.which("pandoc")
        if found:
            return found
        raise RenderError(None, None, "pandoc not found: pip install pypandoc-binary "
                                      "(or set PANDOC=/path/to/pandoc)") from None


@lru_cache(maxsize=1)
def pandoc_identity() -> str:
    """The pandoc binary, for cache keys: its path, size and modification time."""
    p = pandoc_path()
    try:
        st = os.stat(p)
    except OSError as e:
        raise RenderError(None, None, f"cannot run pandoc ({p}): {e.strerror}; install it "
                                      "(pip install pypandoc-binary) or set PANDOC to a pandoc binary") from None
    return f"{p}:{st.st_size}:{st.st_mtime_ns}"


def _run_key(args: list[str], text: str) -> str:
    from .. import cache as C
    files = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--bibliography", "--csl")]
    return C.sha256_bytes(b"pandoc", pandoc_identity().encode(), "\0".join(args).encode(),
                          text.encode("utf-8"), *(C.file_digest(f).encode() for f in files))


def run(args: list[str], text: str, where: str = "") -> str:
    """pandoc ``args`` on ``text``; a warning is an error. Outputs are cached by content."""
    from .. import cache as C
    key = _run_key(args, text) if C.STORE.enabled else ""
    if key:
        hit = C.STORE.get_blob("pandoc", key)
        if hit is not None:
            return hit.decode("utf-8")
    try:
        proc = subprocess.run([pandoc_path(), *args], input=text.encode("utf-8"),
                              capture_output=True)
    except OSError as e:
        raise RenderError(None, None, f"cannot run pandoc ({pandoc_path()}): {e.strerror}; install it "
                                      "(pip install pypandoc-binary) or set PANDOC to a pandoc binary") from None
    out = _checked(proc, args, where)
    if key:
        C.STORE.put_blob("pandoc", key, out.encode("utf-8"))
    return out


def _checked(proc, args: list[str], where: str) -> str:
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        raise RenderError(where or None, None, f"pandoc {' '.join(args)} failed: {err}")
    if err:
        # pandoc warnings (e.g. citeproc "citation not found") are errors in this book
        lines = [ln for ln in err.splitlines()
                 if ln.strip() and not any(h in ln for h in HARMLESS_WARNINGS)]
        if lines:
            raise RenderError(where or None, None, "pandoc warned: " + " | ".join(lines))
    return proc.stdout.decode("utf-8")


#: pandoc's own UI strings ("Abstract", ...) have no zh translation; the book never uses them
HARMLESS_WARNINGS = ("Could not load translations", "translations/", "has no translation defined")


def md_to_ast(text: str, where: str = "") -> dict:
    return json.loads(run(["-f", READER, "-t", "json"], text, where))


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
    """Every element (dict with "t") in document order, parents before children."""
    if isinstance(node, list):
        for item in node:
            yield from iter_elements(item)
    elif isinstance(node, dict):
        if "t" in node:
            yield node
            if "c" in node:
                yield from iter_elements(node["c"])
        else:
            for v in node.values():
                yield from iter_elements(v)
