"""Quarto's pages get the book's Content-Security-Policy (bookbuild/quarto/policy.py): Quarto's own scripts
(its template's inline scripts, its chrome's ``onclick``) and the layer's run; a script the prose or a cell's
output put into the page's text does not, whatever its form (inline, ``src``), and the post-render step says so.

The markup is Quarto 1.11's, cut from the appendix page it wrote for this book (the sidebar toggle's handler,
the ``quarto-html-before-body`` script's shape, ``<main id="quarto-document-content">``)."""
from __future__ import annotations

import base64
import hashlib
import re

from bookbuild.quarto.policy import page_policy, with_policy

TOGGLE = ('<button type="button" class="quarto-btn-toggle btn" data-bs-toggle="collapse" role="button" '
          'data-bs-target=".quarto-sidebar-collapse-item" aria-controls="quarto-sidebar" aria-expanded="false" '
          'aria-label="Toggle sidebar navigation" onclick="if (window.quartoToggleHeadroom) { '
          'window.quartoToggleHeadroom(); }">menu</button>')
BEFORE_BODY = "window.QUARTO_TEMPLATE = 1;"
OWN = "window.BOOKS_OWN = 1;"   # stands for the explorer a cell prints (hooks.LIBRARY_SCRIPTS)


def page(content: str) -> str:
    return ('<!DOCTYPE html>\n<html><head>\n<meta charset="utf-8">\n<title>x</title>\n'
            '<script src="../site_libs/quarto-html/quarto.js" type="module"></script>\n'
            f'<script id="quarto-html-before-body" type="application/javascript">{BEFORE_BODY}</script>\n'
            f'</head><body>{TOGGLE}<main class="content" id="quarto-document-content">{content}</main>'
            '<script src="../assets/reader.js"></script></body></html>')


def sha(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'"


HOSTILE = ('<p>Prose.</p><script>window.PWNED = 1;</script>'
           '<img src="x.png" alt="" onerror="window.PWNED_HANDLER = 1">'
           '<script src="../assets/evil.js"></script>'
           f'<script>{OWN}</script><script type="application/json" class="mlsysim-plot-json">{{"data": []}}</script>')


def test_the_policy_hashes_quartos_scripts_and_handlers_and_the_books_own_only():
    own = {sha(OWN)}
    text, inert = with_policy(page(HOSTILE), "appendix/x.html", own, {"assets/reader.js"})
    assert inert == 2   # the inline script and the src that is not the book's; the book's own and the JSON stay
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', text)[1].replace("&quot;", '"')
    src = re.search(r"script-src ([^;]*)", policy)[1].split()
    handler = "if (window.quartoToggleHeadroom) { window.quartoToggleHeadroom(); }"
    assert src == ["'self'", sha(BEFORE_BODY), sha(OWN), "'unsafe-hashes'", sha(handler)]
    assert sha("window.PWNED = 1;") not in policy and sha("window.PWNED_HANDLER = 1") not in policy
    assert "object-src 'none'" in policy and "base-uri 'none'" in policy
    # the policy is the first tag after the charset (it governs only what follows it)
    assert re.search(r'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy"', text)
    assert text.count('data-mlsysim-inert=') == 2 and '<script src="../assets/reader.js"></script>' in text


def test_a_second_post_render_replaces_the_policy_and_changes_nothing_else():
    once, _ = with_policy(page(HOSTILE), "appendix/x.html", {sha(OWN)}, {"assets/reader.js"})
    twice, inert = with_policy(once, "appendix/x.html", {sha(OWN)}, {"assets/reader.js"})
    assert twice == once and inert == 0


def test_a_live_page_gains_what_live_mode_needs():
    policy = page_policy(page("<p>x</p>"), set(), {"script-src": ["'wasm-unsafe-eval'"]})
    assert "'wasm-unsafe-eval'" in policy.split("script-src", 1)[1].split(";")[0]
