"""The Quarto post-render step applies the book's additions to Quarto's pages as our renderer does: every
asset the book carries (live mode's ``live/`` folder among them) is copied into Quarto's book and each page's
files (its data script, its ``<page>.live.json``) are written beside it. A real Quarto render is not needed
for this: the step's ``apply`` works on any folder of pages."""
from __future__ import annotations

import json
import re

import pytest

from bookbuild.errors import BuildError
from bookbuild.quarto.post_render import MARK, apply
from bookbuild.render.additions import Additions, PageAddition

PAGE = "<!DOCTYPE html><html><head><title>x</title></head><body><span class=\"mlsysim-v\">1</span></body></html>"


def _book(tmp_path):
    out = tmp_path / "_book"
    (out / "appendix").mkdir(parents=True)
    (out / "appendix" / "ref.html").write_text(PAGE, encoding="utf-8")
    (out / "index.html").write_text(PAGE, encoding="utf-8")
    src = tmp_path / "src"
    (src / "pyodide").mkdir(parents=True)
    (src / "pyodide" / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0")
    (src / "live.js").write_text("/* live */\n", encoding="utf-8")
    live = {"cells": [], "chapter": "appendix"}
    add = PageAddition(files={"appendix/ref.data.js": "window.MLSYSIM_PAGE = {};\n",
                              "appendix/ref.live.json": json.dumps(live) + "\n"},
                       scripts=[("appendix/ref.data.js", True), ("assets/reader.js", False)],
                       marks=['class="mlsysim-v"'], policy={"script-src": ["'wasm-unsafe-eval'"]})
    additions = Additions(pages={"appendix/ref.html": add},
                          assets={"live/pyodide/pyodide.asm.wasm": src / "pyodide" / "pyodide.asm.wasm",
                                  "live/live.js": src / "live.js", "assets/reader.js": src / "live.js"})
    return out, additions


def test_the_live_folder_and_each_pages_live_data_reach_quartos_book(tmp_path):
    out, additions = _book(tmp_path)
    changed = apply(out, additions, ["appendix/ref.qmd"], [])
    assert changed == [out / "appendix" / "ref.html"]
    assert (out / "live" / "pyodide" / "pyodide.asm.wasm").read_bytes() == b"\0asm\1\0\0\0"
    assert (out / "live" / "live.js").read_text(encoding="utf-8") == "/* live */\n"
    assert json.loads((out / "appendix" / "ref.live.json").read_text(encoding="utf-8"))["chapter"] == "appendix"
    page = (out / "appendix" / "ref.html").read_text(encoding="utf-8")
    assert page.count(MARK) == 4 and '<script src="ref.data.js" charset="utf-8"></script>' in page
    # Quarto's pages carry the book's policy, with what live mode needs (bookbuild/quarto/policy.py)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)[1]
    assert "'wasm-unsafe-eval'" in re.search(r"script-src ([^;]*)", policy)[1]
    assert apply(out, additions, ["appendix/ref.qmd"], []) == changed   # a second run replaces, never doubles
    assert (out / "appendix" / "ref.html").read_text(encoding="utf-8") == page


def test_a_page_without_the_marks_is_refused_before_anything_is_written(tmp_path):
    out, additions = _book(tmp_path)
    (out / "appendix" / "ref.html").write_text(PAGE.replace("mlsysim-v", "other"), encoding="utf-8")
    with pytest.raises(BuildError, match="has no marked values"):
        apply(out, additions, ["appendix/ref.qmd"], [])
    assert not (out / "live").exists() and not (out / "appendix" / "ref.live.json").exists()


def test_the_interface_strings_reach_quartos_pages_in_the_books_language(tmp_path):
    """The reader's and live mode's strings travel in the page's data script, the scroll boxes' on their tag."""
    import re
    import tomllib
    from pathlib import Path

    from bookbuild.book import reader
    md = 'A value [1]{.mlsysim-v data-attr="X.a_str"}.\n'
    prov = {"X.a_str": {"attr": "X.a_str", "expr": "1", "steps": [], "inputs": []}}
    live = {"runtime": {"unavailable": "vendor", "version": "none", "assets": {}},
            "pages": {"appendix/ref.qmd": {"cells": [], "chapter": "appendix"}}}
    additions = reader.additions("zh", [("appendix/ref.qmd", md, prov, None)], live)
    out = tmp_path / "_book"
    (out / "appendix").mkdir(parents=True)
    (out / "appendix" / "ref.html").write_text(PAGE, encoding="utf-8")
    apply(out, additions, ["appendix/ref.qmd"], [], lang="zh")
    data = json.loads(re.sub(r"^window\.MLSYSIM_PAGE = |;\s*$", "",
                             (out / "appendix" / "ref.data.js").read_text(encoding="utf-8")))
    zh = tomllib.loads((Path(reader.__file__).parent / "ui" / "zh.toml").read_text(encoding="utf-8"))
    assert data["ui"] == {"reader": zh["reader"], "live": zh["live"]} and data["lang"] == "zh"
    page = (out / "appendix" / "ref.html").read_text(encoding="utf-8")
    assert '<script src="../assets/quarto-bridge.js"></script>' in page
    assert re.search(r'<script src="\.\./assets/scroll-boxes\.js" data-scrollers="[^"]+" data-equation="公式"></script>', page)
    assert (out / "assets" / "scroll-boxes.js").is_file()
    assert (out / "assets" / "reader.js").read_text(encoding="utf-8") == (reader.ASSETS / "reader.js").read_text(encoding="utf-8")
