"""The fixture book's half of tests/unit/test_passes.py: bookbuild.passes: the build is one declared list; every command runs a prefix or a subset of it."""
from __future__ import annotations

import json


from bookbuild import passes
from bookbuild.book.layer import BOOK
from bookbuild.settings import Settings

from conftest import book_copy


def test_a_prefix_runs_only_its_passes(tmp_path):
    root = book_copy(tmp_path)
    b = passes.run(Settings.make(root, layer=BOOK, quiet=True), ["en"], ["parse", "execute"])
    assert sorted(b.documents) == ["appendix/ref.qmd", "appendix/ref.zh.qmd", "index.qmd", "index.zh.qmd"]
    assert [ec.source.as_posix() for ec in b.executed["en"]] == ["index.qmd", "appendix/ref.qmd"]
    assert not b.index and not (root / "_build" / "executed" / "en" / "book.json").exists()
    b = passes.run(Settings.make(root, layer=BOOK, quiet=True), ["en"], passes.COMMANDS["check"])
    assert b.report.cached == ["en:index.qmd", "en:appendix/ref.qmd"]   # the first run's chapters, by content
    manifest = json.loads((root / "_build" / "executed" / "en" / "book.json").read_text(encoding="utf-8"))
    assert manifest["index"]["targets"]["sec-appx-ref"]["number"] == "A"
    layer = json.loads((root / "_build" / "executed" / "en" / "book-layer.json").read_text(encoding="utf-8"))
    assert "appendix/ref.html" in layer["pages"] and "assets/reader.js" in layer["assets"]
