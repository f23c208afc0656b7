"""The files a chapter names for a page to show or a writer to embed: markdown images, the files raw
HTML names (``src``, ``poster``, an ``<object>``'s ``data``, a ``<link>``'s ``href``, ``srcset``) and the files
raw typst reads (``read``, ``image``, ``json``..., ``include``, ``import``). Pandoc's EPUB writer embeds what
raw HTML names, and Quarto's typst reads any file under the project's root, following links: a file outside the
project named there would travel inside the book. The renderer (render/profile.py), ``check``
(:func:`bookbuild.checks.check_files`) and Quarto's pre-render step hold every format, ours and Quarto's, to
the book's own folder.
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
#: what raw typst reads a file with: a function given the path (``read("x")``) or a keyword (``include "x"``)
#: an inline raw typst span of a source line (`` `#read("x")`{=typst} ``)
INLINE_TYPST = re.compile(r"`(?P<code>[^`]*)`\{=typst\}")
#: (the path counts as named only when it is a whole string literal: ``read("a" + b)`` is computed)
TYPST_READ = re.compile(r"""\b(?P<f>read|image|json|csv|yaml|toml|xml|cbor|plugin|bibliography)\s*\(\s*"""
                        r"""(?P<arg>"(?:[^"\\]|\\.)*"(?=\s*[,)]))?"""
                        r"""|\b(?P<k>include|import)\s+(?P<karg>"(?:[^"\\]|\\.)*"(?=\s*(?:[:;\]]|$|as\b)))?""", re.M)


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


HTML_FORMATS = ("html", "html5", "html4")


def is_raw_html(el: dict) -> bool:
    """A pandoc RawBlock or RawInline of HTML."""
    return el.get("t") in ("RawBlock", "RawInline") and str(el["c"][0]).lower() in HTML_FORMATS


def rewrite_files(text: str, new_name) -> str:
    """Raw HTML ``text`` with each file it names (:func:`raw_files`, srcset left out) renamed by
    ``new_name(name, tag)`` (the file as :func:`file_of` reads it; None keeps the attribute as written)."""
    edits = []
    for t, tag, m in raw_files(text):
        name = None if m["attr"].lower() == "srcset" else file_of(value(m))
        new = None if name is None else new_name(name, tag)
        if new is not None and new != html.unescape(value(m)):
            edits.append((t.start() + m.start(), t.start() + m.end(), m["pre"] + '"' + html.escape(new) + '"'))
    for a, b, new in sorted(edits, reverse=True):
        text = text[:a] + new + text[b:]
    return text


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


def typst_files(code: str) -> Iterator[tuple[int, str, str | None]]:
    """Every file raw typst ``code`` reads: ``(offset, what, name)``; ``name`` None where the path is not a
    string literal (computed: nobody can tell which file it reads, so the caller refuses it)."""
    for m in TYPST_READ.finditer(code):
        word, arg = (m["f"], m["arg"]) if m["f"] else (m["k"], m["karg"])
        yield m.start(), f"raw typst {word}", arg[1:-1].encode().decode("unicode_escape") if arg else None


def typst_problem(root: Path, base: Path, what: str, name: str | None) -> str | None:
    """Why raw typst may not read ``name`` (typst reads ``/x`` under the project's root, ``x`` beside the
    chapter), or None."""
    if name is None:
        return f"{what} of a computed path: raw typst may read only a file it names (a string), of the book's own folder"
    if name.startswith("@"):
        return f"{what} {name}: a typst package is not part of the book (it would be fetched from the network)"
    real = outside(root, root if name.startswith("/") else base, name.lstrip("/") if name.startswith("/") else name)
    if real is not None:
        return f"{what} {name} is outside the project ({real}): a chapter may read only files of the book's own folder"
    return None


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
