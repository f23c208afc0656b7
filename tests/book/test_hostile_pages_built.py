"""The half of test_hostile_pages.py that builds a book (the ``world`` fixture) or opens a browser: every string from data is text where it reaches a page (issue "Hostile input, round 3", class 3): an
inline value, a table cell, the calibration table built from the registry; and every page carries a
Content-Security-Policy, so markup that slipped in anyway still cannot run. Helpers and conventions:
``test_hostile_engine.py``.
"""
from __future__ import annotations

import json
import re
import subprocess

from bs4 import BeautifulSoup

from worlds import CELL, CHAPTER

HOSTILE = ("<img src=x onerror=alert(1)> <script>alert(2)</script> *bold* _em_ `code` $x^2$ ~sub~ @little1961 "
           "[link](javascript:alert(3)) {.cls} | a & b &amp; \\ </span>")


def test_hostile_text_in_inline_values_and_tables_is_printed_as_written(world):
    world.edit(CELL, "    live_str = fmt_int(live)", f"    live_str = fmt_int(live)\n    name_str = {HOSTILE!r}")
    world.append(CHAPTER, "\nThe part is called `{python} Ref.name_str` here.\n\n| Part | Name |\n|:--|:--|\n"
                          "| one | `{python} Ref.name_str` |\n\n: **Names**: the parts. {#tbl-appx-names}\n")
    r = world.run("render", "--profile", "en")
    assert r.returncode == 0, r.stderr
    page = (world.root / "_book/en/appendix/ref.html").read_text(encoding="utf-8")
    soup = BeautifulSoup(page, "html.parser")
    spans = soup.select('span.mlsysim-v[data-attr="Ref.name_str"]')
    assert [s.get_text() for s in spans] == [HOSTILE, HOSTILE]   # the text, exactly, in the prose and the table
    assert all(not s.find_all(True) for s in spans)               # and no element inside it
    assert len(soup.find_all("img")) == 1 and not soup.find_all("a", href=re.compile("javascript"))
    assert not [s for s in soup.find_all("script") if "alert" in s.get_text()]
    index = (world.root / "_book/en/search-index.js").read_text(encoding="utf-8")
    records = json.loads(index.split("=", 1)[1].rstrip().rstrip(";"))
    assert any(HOSTILE in rec["x"] for rec in records)            # search shows the text too
    pdf = subprocess.run(["pdftotext", str(world.root / "_book/en/Tiny-Book.pdf"), "-"], capture_output=True,
                         text=True).stdout
    assert "onerror=alert(1)" in pdf and "@little1961" in pdf


def test_every_page_carries_a_policy_that_stops_an_inline_handler(world, browser):
    # a cell's own output is markup by design (a figure, the explorer); the policy still stops what it did not
    # declare: an inline event handler, a javascript: link. A script of another host the build refuses at its
    # line (bookbuild/media.py: nothing from the network), before the policy would have to stop it
    cell = ("\n```{python}\n#| label: calc-markup\nclass Markup:\n    def _repr_html_(self):\n"
            "        return ('<img id=\"probe\" src=\"data:,\" onerror=\"document.title=\\'handler ran\\'\">'\n"
            "                '<script src=\"https://example.org/x.js\"></script>')\n"
            "    def _repr_markdown_(self):\n        return 'markup'\nMarkup()\n```\n")
    world.append(CHAPTER, cell)
    r = world.run("render", "--profile", "all", "--formats", "html")
    assert r.returncode == 1 and "raw HTML <script> file https://example.org/x.js is not a local file" in r.stderr, r.stderr
    world.edit(CHAPTER, "                '<script src=\"https://example.org/x.js\"></script>')", "                '')")
    r = world.run("render", "--profile", "all", "--formats", "html")
    assert r.returncode == 0, r.stderr
    pages = sorted((world.root / "_book").rglob("*.html"))
    assert len(pages) == 4
    for p in pages:
        head = p.read_text(encoding="utf-8").split("<head>", 1)[1].lstrip().splitlines()
        assert head[0] == '<meta charset="utf-8">'
        assert head[1].startswith('<meta http-equiv="Content-Security-Policy" content="default-src \'self\'; '
                                  "script-src 'self'"), (p, head[1])
        assert "'unsafe-inline'" not in head[1].split("script-src", 1)[1].split(";")[0]
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text))
    page.goto((world.root / "_book/en/appendix/ref.html").as_uri())
    page.wait_for_selector("#probe", state="attached")
    page.wait_for_timeout(300)
    title = page.title()
    page.close()
    assert title != "handler ran"
    assert any("Content Security Policy" in e for e in errors), errors


def test_a_raw_script_from_the_prose_or_a_cell_is_refused_where_it_stands(world):
    """Before: every inline <script> that reached a page was hashed into its policy, and ran."""
    line = world.append(CHAPTER, "\nSome prose.\n\n<script>document.title = 'prose ran'</script>\n\n```{python}\n"
                                 "#| label: calc-script\n#| output: asis\n"
                                 "print(\"<script>document.title = 'cell ran'</script>\")\n```\n\n"
                                 "<script src=\"assets/book.js\"></script>\n")
    r = world.run("render", "--profile", "en", "--formats", "html")
    assert r.returncode == 1
    words = ("a <script> would reach the page (raw HTML in the prose, or printed by a cell): a page runs "
             "only the book's own scripts; remove it, or show the code as text (a fenced code block)")
    # ... and a <script src> of the book's own origin, which the policy's 'self' would load from any file the
    # book holds (another origin's, the policy stops: test_every_page_carries_a_policy_that_stops_an_inline_handler)
    said = [ln for ln in r.stderr.splitlines() if not ln.startswith("Matplotlib is building the font cache")]
    assert said == [f"{CHAPTER}:{line + 2}: {words}", f"{CHAPTER}:{line + 4}: {words}",
                    f"{CHAPTER}:{line + 10}: {words}", "bookbuild: 3 problems"], r.stderr
    assert not (world.root / "_book").exists()


def test_a_framed_document_from_the_prose_or_a_cell_is_refused_where_it_stands(world):
    """A framed HTML file of the book (in the prose, or printed by a cell beside a file it wrote) ran its
    own inline script, under no policy and with the book's origin (the helper's probe: title 'FRAME RAN')."""
    (world.root / "appendix" / "evil.html").write_text("<script>parent.document.title='FRAME RAN'</script>",
                                                       encoding="utf-8")
    line = world.append(CHAPTER, "\nSome prose.\n\n<iframe src=\"evil.html\"></iframe>\n\n```{python}\n"
                                 "#| label: calc-frame\n#| output: asis\n"
                                 "print('<OBJECT data=\"evil.html\"></OBJECT>')\n```\n")
    r = world.run("render", "--profile", "en", "--formats", "html")
    assert r.returncode == 1
    said = [ln for ln in r.stderr.splitlines() if not ln.startswith("Matplotlib is building the font cache")]
    tail = ("would reach the page (raw HTML in the prose, or printed by a cell): a document framed in a page "
            "runs its own scripts; link to it, or show the code as text")
    assert said == [f"{CHAPTER}:{line + 2}: an <iframe> {tail}", f"{CHAPTER}:{line + 4}: an <object> {tail}",
                    "bookbuild: 2 problems"], r.stderr
    assert not (world.root / "_book").exists()


def test_a_malformed_search_from_the_address_is_searched_as_typed(world, browser):
    """``?q=%`` or a cut UTF-8 sequence: the search box shows the text as typed (before: "URI malformed")."""
    world.render_ok()
    for q in ("%", "%E0%A4%A", "queue%20%"):
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((world.root / "_book/en/index.html").as_uri() + "?q=" + q)
        page.wait_for_load_state("load")
        value = page.eval_on_selector("input[type=search]", "el => el.value")
        page.close()
        assert errors == [] and value == q, (q, errors, value)
    page = browser.new_page()
    page.goto((world.root / "_book/en/index.html").as_uri() + "?q=little%27s")
    assert page.eval_on_selector("input[type=search]", "el => el.value") == "little's"   # a good one decodes
    page.close()
