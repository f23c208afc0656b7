"""The preview's warm worker (bookbuild.worker): a build it forks writes exactly what a fresh
``python -m bookbuild render`` writes; an edit to a library the chapters import (its code or its data)
makes it start again, so the page shows the edit; nothing one build's cells did reaches the next.

The projects are the tiny fixture book with a private copy of ``mlsysim`` (see test_author_loop); the
expected numbers are the H100's published 3.35 TB/s and the edits typed here.
"""
from __future__ import annotations

import os
import shutil
import re
import subprocess
import sys

from test_author_loop import CHAPTER, build, edit_bandwidth, page, project, tree

from bookbuild import procs
from bookbuild.worker import Warm

RENDER = ["render", "--profile", "en", "--formats", "html"]


def warm_build(w: Warm, root) -> tuple[int, str]:
    pids = []
    r = w.run(RENDER + ["--root", str(root)], started=pids.append)
    assert r.returncode == 0, r.stderr
    assert len(pids) == 1 and procs.ended(pids[0])   # one child per build, gone when it is done
    return w.proc.pid, r.stdout


def test_a_warm_build_writes_what_a_cold_build_writes(tmp_path):
    root = project(tmp_path)
    w = Warm(root)
    try:
        _, out = warm_build(w, root)
        assert "en: rendered" in out
        warm = tree(root / "_book" / "en")
    finally:
        w.stop()
    build(root, *RENDER[1:], "--no-cache", "--output-dir", str(tmp_path / "cold"))
    cold = tree(tmp_path / "cold" / "en")
    assert warm.keys() == cold.keys()
    assert {k for k in warm if warm[k] != cold[k]} <= {".bookbuild-stamp"}   # the stamp names the cache key


def test_an_edit_to_the_library_starts_a_new_worker_and_reaches_the_page(tmp_path):
    root = project(tmp_path)
    w = Warm(root)
    try:
        first, _ = warm_build(w, root)
        assert "at 3.35 TB/s" in page(root)
        again, out = warm_build(w, root)             # nothing changed: the same worker, nothing rebuilt
        assert again == first and "en: up to date" in out
        edit_bandwidth(root, "3.90 TB/s")           # data the library reads when it is imported
        second, _ = warm_build(w, root)
        assert second != first and procs.ended(first)
        assert "at 3.90 TB/s" in page(root) and "3.35 TB/s" not in page(root)
        lib = root / "mlsysim" / "units.py"          # code the worker imported: a new name the chapter quotes
        lib.write_text(lib.read_text(encoding="utf-8") + '\nWORKER_PROBE = "probe-1"\n', encoding="utf-8")
        ch = root / CHAPTER
        ch.write_text(ch.read_text(encoding="utf-8") + (
            "\n```{python}\nfrom mlsysim.units import WORKER_PROBE\nclass Probe:\n    v_str = WORKER_PROBE\n```\n\n"
            "The probe says `{python} Probe.v_str`.\n"), encoding="utf-8")
        third, _ = warm_build(w, root)
        assert third != second and "The probe says probe-1." in page(root)
    finally:
        w.stop()
    assert procs.ended(third)


def test_what_one_build_s_cells_do_never_reaches_the_next(tmp_path):
    root = project(tmp_path)
    ch = root / CHAPTER
    ch.write_text(ch.read_text(encoding="utf-8") + (
        "\n```{python}\nimport mlsysim\nrun = 'none'\nmlsysim.LEAK = getattr(mlsysim, 'LEAK', 0) + 1\n"
        "class Leak:\n    n_str = str(mlsysim.LEAK)\n    pid_str = str(__import__('os').getpid())\n```\n\n"
        "Imports seen: `{python} Leak.n_str`, in `{python} Leak.pid_str`.\n"), encoding="utf-8")
    w = Warm(root)
    try:
        pids = set()
        for word in ("first", "second"):   # an edit of the cell each time, so the chapter runs again
            text = re.sub(r"run = '\w+'", f"run = '{word}'", ch.read_text(encoding="utf-8"))
            ch.write_text(text.replace("Imports seen", f"Imports seen ({word})"), encoding="utf-8")
            warm_build(w, root)
            m = re.search(r"Imports seen \(" + word + r"\)[^:]*: 1, in (\d+)\.", page(root))
            assert m, page(root)
            pids.add(int(m.group(1)))
        assert len(pids) == 2 and os.getpid() not in pids and w.proc.pid not in pids
    finally:
        w.stop()


def test_the_preview_s_first_build_leaves_the_choices_for_the_next_and_the_next_is_the_whole_book(tmp_path):
    """``--defer-layer`` (the preview's text-first build): the registry choices the cache does not hold
    are not computed, the build says so, and the pages it writes are never taken for the whole book: the
    build after it renders again, and writes what a ``--no-cache`` build writes."""
    root = project(tmp_path)
    ch = root / CHAPTER
    ch.write_text("---\nmlsysim-variants: true\n---\n\n" + ch.read_text(encoding="utf-8"), encoding="utf-8")
    data = root / "_book" / "en" / "appendix" / "ref.data.js"
    first = build(root, *RENDER[1:], "--defer-layer")
    assert "deferred: the reader's choices" in first.stdout and "en: rendered" in first.stdout
    assert '"variants"' not in data.read_text(encoding="utf-8")
    whole = build(root, *RENDER[1:])
    assert "deferred" not in whole.stdout and "en: rendered" in whole.stdout
    assert '"variants"' in data.read_text(encoding="utf-8")
    build(root, *RENDER[1:], "--no-cache", "--output-dir", str(tmp_path / "cold"))
    got, cold = tree(root / "_book" / "en"), tree(tmp_path / "cold" / "en")
    assert got.keys() == cold.keys() and {k for k in got if got[k] != cold[k]} <= {".bookbuild-stamp"}
    again = build(root, *RENDER[1:], "--defer-layer")   # the choices are in the cache now: nothing deferred
    assert "deferred" not in again.stdout and "en: up to date" in again.stdout


def test_a_worker_that_cannot_start_is_the_build_s_one_line_failure(tmp_path):
    """An engine that does not import (an author's half-saved edit to bookbuild itself): the preview gets
    one line and a failed build, not an exception that would end it."""
    root = tmp_path / "book"
    (root / "bookbuild").mkdir(parents=True)
    (root / "bookbuild" / "__init__.py").write_text("def broken(:\n", encoding="utf-8")
    w = Warm(root)
    r = w.run(RENDER + ["--root", str(root)])
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bookbuild: the build's worker did not start: bookbuild/__init__.py:1: SyntaxError"), lines
    assert w.proc is None


def test_a_build_that_changed_nothing_reads_no_choice_results(tmp_path):
    """The page data of a chapter's choices is kept under its inputs' key; the choices' results (tens of MB
    in the real book) are read only where that data is missing. Every results entry is damaged after the
    first build: a build that changed nothing is still up to date without a word about them; with the page
    data (and the record of the last build, bookbuild/unchanged.py) gone, the build reads them, finds the damage, says so and computes them again (the same pages)."""
    root = project(tmp_path)
    ch = root / CHAPTER
    ch.write_text("---\nmlsysim-variants: true\n---\n\n" + ch.read_text(encoding="utf-8"), encoding="utf-8")
    build(root, *RENDER[1:])
    entries = [p for p in (root / "_build" / "cache" / "variants").rglob("*") if p.is_file()]
    assert entries
    for p in entries:
        p.write_bytes(b"damaged")
    shutil.rmtree(root / "_build" / "cache" / "unchanged", ignore_errors=True)   # the passes run, not the record
    same = build(root, *RENDER[1:])
    assert "en: up to date" in same.stdout and "variants" not in same.stderr, same.stdout + same.stderr
    shutil.rmtree(root / "_build" / "cache" / "compact")
    shutil.rmtree(root / "_build" / "cache" / "unchanged")   # else the record of the build that changed nothing holds
    again = build(root, *RENDER[1:])
    assert "(variants) was corrupt" in again.stderr, again.stderr
    assert "executed 1 chapter(s)" in again.stdout and "en: up to date" in again.stdout, again.stdout   # the same pages


def test_a_build_that_would_change_nothing_says_what_the_last_one_said_without_running_a_pass(tmp_path):
    """bookbuild/unchanged.py: the second build changed nothing and recorded itself; the third has the same
    inputs and books, so it prints the second's lines without importing the passes; an edit builds again."""
    root = project(tmp_path)
    build(root, *RENDER[1:])
    second = build(root, *RENDER[1:])
    third = subprocess.run([sys.executable, "-X", "importtime", "-m", "bookbuild", *RENDER, "--root", str(root)],
                           cwd=root, capture_output=True, text=True, timeout=120)
    assert third.returncode == 0 and third.stdout == second.stdout and "en: up to date" in third.stdout
    assert "bookbuild.passes" not in third.stderr and "bookbuild.unchanged" in third.stderr
    ch = root / CHAPTER
    ch.write_text(ch.read_text(encoding="utf-8").replace("Items arrive at", "Items now arrive at"), encoding="utf-8")
    edited = build(root, *RENDER[1:])
    assert "en: rendered" in edited.stdout and "Items now arrive at" in \
        (root / "_book" / "en" / "appendix" / "ref.html").read_text(encoding="utf-8")
