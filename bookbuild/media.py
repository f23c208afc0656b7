"""The files a chapter names for a page to show or a writer to embed: markdown images, and the files raw
HTML names (``src``, ``poster``, an ``<object>``'s ``data``, a ``<link>``'s ``href``, ``srcset``). Pandoc's
EPUB writer embeds every one of them, raw HTML included, so a file outside the project named there would
travel inside the book: the renderer (render/profile.py), ``check`` (:func:`check_files`) and Quarto's
pre-render step hold every format, ours and Quarto's, to the book's own folder.
"""
from __future__ import annotations

import html
import re
from pathlib import Path, PurePosixPath
from typing import Iterator

#: a tag of raw HTML, and the attributes of it that name a file
RAW_TAG = re.compile(r"<(?P<tag>[a-z][a-z0-9-]*)\b[^>]*>", re.I)
_VALUE = r"""(?P<val>"[^"]*"|'[^']*'|[^"'\s>]+)"""
RAW_FILE = re.compile(r"(?P<pre>\s(?P<attr>src|poster|data|srcset)\s*=\s*)" + _VALUE, re.I)
LINK_HREF = re.compile(r"(?P<pre>\s(?P<attr>href)\s*=\s*)" + _VALUE, re.I)
#: a markdown image's target, as a source writes it (the check reads the AST; Quarto's pre-render the text)
MD_IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?(?P<v>[^)\s>]+)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def value(m: re.Match) -> str:
    """An attribute's value as written (HTML-escaped), without its quotes."""
    v = m["val"]
    return v[1:-1] if v[:1] in ("'", '"') else v


def raw_files(text: str) -> Iterator[tuple[re.Match, str, re.Match]]:
    """Each file attribute of raw HTML ``text``: ``(the tag's match, the tag's name, the attribute's match)``
    (its value: :func:`value`)."""
    for t in RAW_TAG.finditer(text):
        tag = t["tag"].lower()
        for m in RAW_FILE.finditer(t.group(0)):
            yield t, tag, m
        if tag == "link":
            for m in LINK_HREF.finditer(t.group(0)):
                yield t, tag, m


def file_of(value: str) -> str | None:
    """The local file an attribute's value names (query and fragment dropped), or None: empty, a fragment,
    ``data:``. A network address is returned as it is (the caller refuses it)."""
    v = html.unescape(value).strip()
    if not v or v.startswith("#") or v.startswith("data:"):
        return None
    return v if SCHEME.match(v) else v.split("#")[0].split("?")[0]


def outside(root: Path, base: Path, name: str) -> Path | None:
    """The file ``name`` (relative to ``base``, the chapter's folder; absolute as the file system reads it)
    resolves to, when that lies outside ``root`` (links followed); None when it lies inside."""
    p = Path(name) if PurePosixPath(name).is_absolute() else base / name
    try:
        real = p.resolve()
    except (OSError, RuntimeError):
        return p
    return None if real.is_relative_to(root.resolve()) else real


def named_files(text: str) -> Iterator[tuple[int, str, str]]:
    """Every file ``text`` (markdown with raw HTML) names: ``(offset, what, name)``; ``what`` is "image" or
    "raw HTML <tag> file"; srcset's list is given whole (the caller refuses it)."""
    for m in MD_IMAGE.finditer(text):
        f = file_of(m["v"])
        if f is not None:
            yield m.start(), "image", f
    for t, tag, m in raw_files(text):
        if m["attr"].lower() == "srcset":
            yield t.start(), f"raw HTML <{tag} srcset>", html.unescape(value(m))
            continue
        f = file_of(value(m))
        if f is not None:
            yield t.start(), f"raw HTML <{tag}> file", f


def problem(root: Path, base: Path, what: str, name: str) -> str | None:
    """Why the file a chapter names cannot be in the book, in one clause, or None."""
    if what.endswith("srcset>"):
        return (f"{what} names {name}: a chapter's raw HTML names a file with src (one file), so that every "
                "format shows the same one")
    if SCHEME.match(name):
        return f"{what} {name} is not a local file (the book must load nothing from the network)"
    real = outside(root, base, name)
    if real is not None:
        return f"{what} {name} is outside the project ({real}): a chapter may show only files of the book's own folder"
    return None
