"""The Content-Security-Policy of Quarto's pages: the policy our renderer gives its pages
(:func:`bookbuild.render.html.content_policy`), over what Quarto's template writes.

Quarto's page holds scripts of three origins: its template's (the ``<script src>`` of ``site_libs``, the inline
``quarto-html-before-body``/``after-body`` scripts, a few ``onclick`` handlers of its chrome), all outside the
page's content (``<main id="quarto-document-content">``); the book's layer's (its assets, the scripts the layer
vouches for: :attr:`~bookbuild.render.additions.Additions.own_scripts`, the explorer a cell prints); and
whatever raw HTML the prose or a cell's printed output put into the content. The policy lets the first two run
(the template's inline scripts and handlers by their hashes, ``'unsafe-hashes'`` for the handlers) and not the
third: a script in the content that is not the layer's own is made inert (``type="text/plain"``, so neither an
inline script nor a ``src`` runs) and said, one line per page, as our build's ``check`` refuses it.
"""
from __future__ import annotations

import html
import posixpath
import re
from pathlib import PurePosixPath

from ..render.html import INLINE_SCRIPT, JS_TYPES, SCRIPT_TYPE, content_policy, script_source

CONTENT = re.compile(r'<main\b[^>]*\bid="quarto-document-content"[^>]*>.*?</main>', re.S)
HANDLER = re.compile(r"""\son[a-z]+\s*=\s*(?:"(?P<d>[^"]*)"|'(?P<s>[^']*)')""", re.I)
SRC = re.compile(r"""\ssrc\s*=\s*["']?(?P<src>[^"'\s>]+)""", re.I)
POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\s*', re.I)
CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.I)
#: what a script in the content that is not the book's own becomes: kept as text, never run
INERT = ' type="text/plain" data-mlsysim-inert="not the book\'s own script"'


def _runs(attrs: str) -> bool:
    t = SCRIPT_TYPE.search(attrs)
    return (t.group("t").lower() if t else "") in JS_TYPES


def inert_content(text: str, page: str, own: set[str], assets: set[str]) -> tuple[str, int]:
    """``text`` with every script in the page's content that is not the book's own made inert, and how many:
    an inline script whose hash is not in ``own``, a ``src`` that is not one of the book's ``assets`` (paths in
    the book, read from ``page``)."""
    m = CONTENT.search(text)
    if not m:
        return text, 0
    count = 0

    def one(s: re.Match) -> str:
        nonlocal count
        attrs = s.group("attrs") or ""
        if not _runs(attrs):
            return s.group(0)   # data (application/json: the figures, the explorer's tables)
        src = SRC.search(attrs)
        if src:
            target = PurePosixPath(page).parent.joinpath(html.unescape(src["src"]).split("?")[0]).as_posix()
            ok = posixpath.normpath(target) in assets
        else:
            ok = script_source(s.group("code")) in own
        if ok:
            return s.group(0)
        count += 1
        return "<script" + SCRIPT_TYPE.sub("", attrs) + INERT + ">" + s.group("code") + "</script>"
    content = INLINE_SCRIPT.sub(one, m.group(0))
    return text[:m.start()] + content + text[m.end():], count


def page_policy(text: str, own: set[str], added: dict[str, list[str]] | None = None) -> str:
    """The policy of a Quarto page (its content already made inert where it is not the book's): the hashes of
    every inline script that runs, the template's and the layer's, and of the template's event handlers."""
    m = CONTENT.search(text)
    outside = text[:m.start()] + text[m.end():] if m else text
    scripts = []
    for s in INLINE_SCRIPT.finditer(text):
        attrs = s.group("attrs") or ""
        if SRC.search(attrs) or not _runs(attrs):
            continue
        h = script_source(s.group("code"))
        inside = m is not None and m.start() <= s.start() < m.end()
        if (not inside or h in own) and h not in scripts:
            scripts.append(h)
    handlers = []
    for h in HANDLER.finditer(outside):
        code = html.unescape(h.group("d") if h.group("d") is not None else h.group("s"))
        if script_source(code) not in handlers:
            handlers.append(script_source(code))
    return content_policy(scripts + (["'unsafe-hashes'", *handlers] if handlers else []), added)


def with_policy(text: str, page: str, own: set[str], assets: set[str],
                added: dict[str, list[str]] | None = None) -> tuple[str, int]:
    """The page with its content's foreign scripts inert and its policy as the first tag after its charset
    (replacing one an earlier post-render wrote); and how many scripts were made inert."""
    text, count = inert_content(POLICY_META.sub("", text), page, own, assets)
    policy = html.escape(page_policy(text, own, added), quote=False).replace('"', "&quot;")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    c = CHARSET.search(text)
    if c:
        return text[:c.end()] + "\n" + meta + text[c.end():], count
    head = re.search(r"<head\b[^>]*>", text, re.I)
    at = head.end() if head else 0
    return text[:at] + meta + text[at:], count
