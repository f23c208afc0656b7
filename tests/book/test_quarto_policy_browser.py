"""The browser's half of test_quarto_policy.py (its pages and helpers are there): Quarto's pages get the book's Content-Security-Policy (bookbuild/quarto/policy.py): Quarto's own scripts
(its template's inline scripts, its chrome's ``onclick``) and the layer's run; a script the prose or a cell's
output put into the page's text does not, whatever its form (inline, ``src``), and the post-render step says so.

The markup is Quarto 1.11's, cut from the appendix page it wrote for this book (the sidebar toggle's handler,
the ``quarto-html-before-body`` script's shape, ``<main id="quarto-document-content">``)."""
from __future__ import annotations

import http.server
import functools
import threading

from bookbuild.quarto.policy import with_policy

from test_quarto_policy import HOSTILE, page, sha

OWN = "window.BOOKS_OWN = 1;"   # stands for the explorer a cell prints (hooks.LIBRARY_SCRIPTS)


def test_in_a_browser_quartos_chrome_runs_and_the_prose_script_does_not(browser, tmp_path):
    (tmp_path / "appendix").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "evil.js").write_text("window.PWNED_SRC = 1;\n", encoding="utf-8")
    (tmp_path / "assets" / "reader.js").write_text("window.READER = 1;\n", encoding="utf-8")
    text, _ = with_policy(page(HOSTILE), "appendix/x.html", {sha(OWN)}, {"assets/reader.js"})
    (tmp_path / "appendix" / "x.html").write_text(text, encoding="utf-8")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(
        type("Q", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None}), directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    pg = browser.new_page()
    try:
        violations = []
        pg.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        pg.add_init_script("window.quartoToggleHeadroom = () => { window.TOGGLED = 1; };")
        pg.goto(f"http://127.0.0.1:{httpd.server_address[1]}/appendix/x.html")
        pg.click("button.quarto-btn-toggle")   # Quarto's onclick handler, allowed by its hash
        got = pg.evaluate("""() => ({template: window.QUARTO_TEMPLATE, own: window.BOOKS_OWN, reader: window.READER,
            toggled: window.TOGGLED, pwned: [window.PWNED, window.PWNED_HANDLER, window.PWNED_SRC]})""")
        assert got == {"template": 1, "own": 1, "reader": 1, "toggled": 1, "pwned": [None, None, None]}, got
        # the handler the prose carried was refused by the policy (the browser says so); nothing else was: the
        # inert scripts are text, which the browser neither runs nor fetches
        assert len(violations) == 1 and "event handler" in violations[0], violations
    finally:
        pg.close()
        httpd.shutdown()
