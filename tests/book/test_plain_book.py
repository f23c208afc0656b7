"""The engine without the book's layer (bookbuild.layer.PLAIN) builds a plain Quarto book: the fixture book
rendered, HTML and PDF, in a fresh interpreter that never imports a module of ``bookbuild.book``; and every
pass of a build, with the book's layer, touches only the fields of the Build it declares
(``bookbuild.passes.Pass.reads`` / ``writes``)."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

from conftest import ROOT, book_copy

PLAIN_BUILD = """
import json, sys
from bookbuild import passes
from bookbuild.settings import Settings
b = passes.run(Settings.make(sys.argv[1], quiet=True), ["en"], passes.COMMANDS["render"])
print(json.dumps({"layer": sorted(m for m in sys.modules if m.startswith("bookbuild.book")),
                  "passes": sorted(b.report.timings), "rendered": b.report.rendered}))
"""


def test_the_engine_builds_a_plain_quarto_book_without_the_book_s_layer(tmp_path):
    root = book_copy(tmp_path)
    r = subprocess.run([sys.executable, "-c", PLAIN_BUILD, str(root)], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["layer"] == [], "a plain build imported the book's layer"
    assert out["passes"] == sorted(["parse", "execute", "number", "verify", "book", "render"])
    assert out["rendered"] == ["en"]
    page = (root / "_book" / "en" / "appendix" / "ref.html").read_text(encoding="utf-8")
    # the fixture's cell: 2 arrivals per second, 30 s each -> 60 items inside (Little's law, by hand)
    assert "Items arrive at 2 per second and stay 30 s." in page and "there are 60 items inside" in page
    # nothing of the book's layer: no marked values for the reader, no page data, no live mode
    assert "mlsysim-v" not in page and "data-attr" not in page
    assert not list((root / "_book" / "en").rglob("*.data.js")) and not (root / "_book" / "en" / "live").exists()
    assert len(list((root / "_book" / "en").glob("*.pdf"))) == 1   # the book's PDF


def _fingerprint(value):
    """What changes when a pass sets or fills a field: the object, and a container's members."""
    if isinstance(value, dict):
        return id(value), tuple((k, id(v), _fingerprint(v) if isinstance(v, (list, dict)) else None)
                                for k, v in value.items())
    if isinstance(value, list):
        return id(value), tuple(id(x) for x in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return id(value), tuple(_fingerprint(getattr(value, f.name)) for f in dataclasses.fields(value))
    return id(value)


def test_each_pass_reads_and_writes_only_what_it_declares(tmp_path, monkeypatch):
    """The book's layer over the fixture book, a check and then a render: each pass's reads of the Build
    (attribute access) and writes (a field set, or a container filled) within its declaration."""
    from bookbuild import passes
    from bookbuild.book.layer import BOOK
    from bookbuild.passes.state import Build
    from bookbuild.settings import Settings
    root = book_copy(tmp_path)
    current, seen = [None], {}
    fields = {f.name for f in dataclasses.fields(Build)} - {"settings", "names"}
    original = Build.__getattribute__

    def recording(self, name):
        if current[0] is not None and name in fields:
            seen.setdefault(current[0], [set(), set()])[0].add(name)
        return original(self, name)

    monkeypatch.setattr(Build, "__getattribute__", recording)
    declared = {p.name: p for p in passes.PASSES}

    def watched(p):
        def run(build):
            before = {f: _fingerprint(object.__getattribute__(build, f)) for f in fields}
            current[0] = p.name
            try:
                p.run(build)
            finally:
                current[0] = None
            changed = {f for f in fields if _fingerprint(object.__getattribute__(build, f)) != before[f]}
            seen.setdefault(p.name, [set(), set()])[1].update(changed)
        return dataclasses.replace(p, run=run)

    monkeypatch.setattr(passes, "PASSES", [watched(p) for p in passes.PASSES])
    for command in ("check", "render"):
        passes.run(Settings.make(root, layer=BOOK, quiet=True), ["en"], passes.COMMANDS[command])
    assert set(seen) == set(declared)
    for name, (reads, writes) in seen.items():
        p = declared[name]
        assert writes <= p.writes, f"{name} writes {sorted(writes - p.writes)} it does not declare"
        assert reads <= p.reads | p.writes, f"{name} reads {sorted(reads - p.reads - p.writes)} it does not declare"
