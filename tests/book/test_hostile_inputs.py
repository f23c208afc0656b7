"""The build survives hostile chapters and data (issue: "isolated, bounded, atomic, one clear line").

One test per probe a careful maintainer ran: each edits a private copy of the tiny fixture book (or
of the registry), runs the command a user runs, and asserts the exit status, that the one line names
the right file (and line or cell where there is one), that no traceback is printed, and, for
renders, that ``_book`` is byte-identical to what it was before.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, book_copy

CELL = "appendix/_cells/ref.qmd"
CHAPTER = "appendix/ref.qmd"
NOTRACE = "Traceback"


def bookbuild(root: Path, *args: str, env: dict | None = None, timeout: float = 300):
    e = {k: v for k, v in os.environ.items() if k not in ("PANDOC", "BOOK_CJK_FONT_DIR", "MLSYSIM_DATA_DIR")}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "bookbuild", *args, "--root", str(root)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=e)


def mlsysim_cli(*args: str, env: dict | None = None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "mlsysim", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=e)


def one_line(r) -> str:
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert NOTRACE not in r.stderr, r.stderr
    assert len(lines) == 1, r.stderr
    return lines[0]


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def add_cell(root: Path, code: str, label: str = "calc-hostile") -> int:
    """Append a cell to the fixture appendix chapter; returns the line of its opening fence."""
    p = root / CHAPTER
    text = p.read_text(encoding="utf-8")
    line = text.count("\n") + 2
    p.write_text(text + f"\n```{{python}}\n#| label: {label}\n{code}\n```\n", encoding="utf-8")
    return line


# ------------------------------------------------------------------ inline values

@pytest.mark.parametrize("expr, kind", [("Ref.live", "float"), ("Ref.n", "int")])
def test_inline_value_that_is_not_a_string(tmp_path, expr, kind):
    root = book_copy(tmp_path)
    (root / CELL).write_text((root / CELL).read_text(encoding="utf-8").replace(
        "class Ref:", "class Ref:\n    n = 3"), encoding="utf-8")
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + f"\nCosts about `{{python}} {expr}` times.\n", encoding="utf-8")
    line = p.read_text(encoding="utf-8").count("\n")
    r = bookbuild(root, "check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(f"{CHAPTER}:{line}: inline `{{python}} {expr}` is a {kind}, not a formatted string")


# ------------------------------------------------------------------ registry data

@pytest.mark.parametrize("bad", ["inf TB/s", "nan TB/s"])
def test_registry_refuses_non_finite_values(tmp_path, bad):
    data = shutil.copytree(ROOT / "mlsysim" / "data", tmp_path / "data")
    f = data / "accelerators.toml"
    f.write_text(f.read_text(encoding="utf-8").replace('"3.35 TB/s"', f'"{bad}"', 1), encoding="utf-8")
    r = mlsysim_cli("reference", env={"MLSYSIM_DATA_DIR": str(data)})
    assert r.returncode == 2 and r.stdout == ""
    at = f.read_text(encoding="utf-8").split(f'"{bad}"')[0].count("\n") + 1   # the line the edit is on
    assert one_line(r) == (f"mlsysim: error: {f}:{at}: [H100] memory.bandwidth: '{bad}' is not a finite number; "
                           "give the published value")


def test_registry_file_that_is_not_utf8(tmp_path):
    data = shutil.copytree(ROOT / "mlsysim" / "data", tmp_path / "data")
    f = data / "models.toml"
    n = f.read_text(encoding="utf-8").count("\n")
    f.write_bytes(f.read_bytes() + b"# \xff\n")
    r = mlsysim_cli("list", env={"MLSYSIM_DATA_DIR": str(data)})
    assert r.returncode == 2
    assert one_line(r).startswith(f"mlsysim: error: {f}:{n + 1}: not valid UTF-8 (byte 0xFF)")


def test_a_chapter_that_imports_a_broken_registry_names_the_toml(tmp_path):
    root = book_copy(tmp_path)
    data = shutil.copytree(ROOT / "mlsysim" / "data", tmp_path / "data")
    f = data / "accelerators.toml"
    f.write_text(f.read_text(encoding="utf-8").replace('"3.35 TB/s"', '"nan TB/s"', 1), encoding="utf-8")
    add_cell(root, "import mlsysim")
    r = bookbuild(root, "check", "--profile", "en", env={"MLSYSIM_DATA_DIR": str(data)})
    assert r.returncode == 1
    line = one_line(r)   # said once, before any chapter runs, naming the data file (not the cell that imported it)
    at = f.read_text(encoding="utf-8").split('"nan TB/s"')[0].count("\n") + 1
    assert line.startswith(f"{f}:{at}: [H100] memory.bandwidth: 'nan TB/s' is not a finite number"), line
    assert CHAPTER not in line and "[calc-hostile]" not in line


def test_context_beyond_the_models_window():
    r = mlsysim_cli("reference", "-m", "Llama3_70B", "--context", "10000000")
    assert r.returncode == 2 and r.stdout == ""
    assert "exceeds Llama-3-70B's context window of 8,192 tokens" in one_line(r)


# ------------------------------------------------------------------ bytes that are not UTF-8

@pytest.mark.parametrize("rel, line", [(CHAPTER, 3), ("_quarto.yml", 2), ("refs.bib", 1), (CELL, 2)])
def test_undecodable_byte_names_the_file_and_line(tmp_path, rel, line):
    root = book_copy(tmp_path)
    p = root / rel
    lines = p.read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1] + b" \xff"
    p.write_bytes(b"\n".join(lines))
    r = bookbuild(root, "check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(f"{rel}:{line}: is not valid UTF-8: byte 0xFF")


# ------------------------------------------------------------------ runaway cells

def test_endless_cell_is_stopped_and_named(tmp_path):
    root = book_copy(tmp_path)
    at = add_cell(root, "while True:\n    pass")
    t0 = time.monotonic()
    r = bookbuild(root, "check", "--profile", "en", "--cell-timeout", "2")
    assert time.monotonic() - t0 < 60
    assert r.returncode == 1
    line = one_line(r)
    # stopped on the loop's line or its body's, whichever was running
    assert any(line.startswith(f"{CHAPTER}:{at + k}: [calc-hostile] the cell ran longer than the cell time limit "
                               "of 2 s") for k in (2, 3)), line


def test_cell_that_prints_50_mb_is_an_error_not_a_page(tmp_path):
    root = book_copy(tmp_path)
    add_cell(root, "import sys\nfor _ in range(50):\n    sys.stdout.write('x' * 1_000_000)")
    t0 = time.monotonic()
    r = bookbuild(root, "render", "--profile", "en")
    assert time.monotonic() - t0 < 60
    assert r.returncode == 1
    line = one_line(r)
    assert line.startswith(f"{CHAPTER}:") and "[calc-hostile] the cell printed more than 1,000,000 characters" in line
    assert not (root / "_book").exists()


def test_os_exit_in_a_cell_is_that_chapters_failure(tmp_path):
    root = book_copy(tmp_path)
    at = add_cell(root, "import os\nos._exit(0)")
    r = bookbuild(root, "render", "--profile", "en")
    assert r.returncode == 1
    line = one_line(r)
    assert line.startswith(f"{CHAPTER}:{at}: [calc-hostile] the chapter's process exited with code 0")
    assert not (root / "_book").exists()


# ------------------------------------------------------------------ isolation

def test_a_chapter_cannot_change_another_chapters_state(tmp_path):
    """The preface (executed first) patches the stub library and matplotlib; the appendix must not see it."""
    root = book_copy(tmp_path)
    p = root / "index.qmd"
    p.write_text(p.read_text(encoding="utf-8") + (
        "\n```{python}\nimport stubsim, matplotlib\nstubsim.fmt_int = lambda x: 'PATCHED'\n"
        "matplotlib.rcParams['lines.linewidth'] = 9.0\nimport os\nos.environ['LEAK'] = 'yes'\n```\n"), encoding="utf-8")
    add_cell(root, "import matplotlib, os, stubsim\nclass Seen:\n    leak_str = os.environ.get('LEAK', 'none')\n"
                   "    lw_str = str(matplotlib.rcParams['lines.linewidth'])\n    fmt_str = stubsim.fmt_int(1234)")
    q = root / CHAPTER
    q.write_text(q.read_text(encoding="utf-8") + "\nLeak `{python} Seen.leak_str`, width `{python} Seen.lw_str`, "
                 "format `{python} Seen.fmt_str`.\n", encoding="utf-8")
    from bookbuild import check_book
    b = check_book(root, ["en"])
    md = re.sub(r"\[([^\]]*)\]\{\.mlsysim-v[^}]*\}", r"\1", b.executed["en"][1].markdown)  # values without their spans
    assert "Leak none, width 1.5, format 1,234." in md


# ------------------------------------------------------------------ atomic output

def _render_ok(root: Path) -> dict:
    r = bookbuild(root, "render", "--profile", "all")
    assert r.returncode == 0, r.stderr
    return tree(root / "_book")


def test_failed_pdf_leaves_book_byte_identical(tmp_path):
    root = book_copy(tmp_path)
    before = _render_ok(root)
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8").replace("Read @sec-appx-queue first", "Read @sec-appx-queue now"),
                 encoding="utf-8")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    for name in ("NotoSerifCJK-Regular.ttc", "NotoSansCJK-Regular.ttc"):
        (fonts / name).write_bytes(b"")
    r = bookbuild(root, "render", "--profile", "all", env={"BOOK_CJK_FONT_DIR": str(fonts)})
    assert r.returncode == 1 and NOTRACE not in r.stderr
    assert "typst could not set every character" in r.stderr and "left as before" in r.stderr
    assert tree(root / "_book") == before


def test_pandoc_missing_is_one_line_and_book_unchanged(tmp_path):
    root = book_copy(tmp_path)
    before = _render_ok(root)
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    r = bookbuild(root, "render", "--profile", "en", env={"PANDOC": "/nonexistent/pandoc"})
    assert r.returncode == 1
    assert "cannot run pandoc (/nonexistent/pandoc)" in r.stderr and NOTRACE not in r.stderr
    assert tree(root / "_book") == before


def test_unwritable_book_folder_is_one_line(tmp_path, monkeypatch, capsys):
    """Root ignores file modes, so the refusal of the file system is simulated where it happens."""
    root = book_copy(tmp_path)
    before = _render_ok(root)
    (root / CHAPTER).write_text((root / CHAPTER).read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    import bookbuild.passes.render as render_pass
    from bookbuild.__main__ import main
    real = os.rename

    def refuse(a, b):   # a read-only _book: nothing can be renamed into or out of it
        if "_book" in Path(a).parts or "_book" in Path(b).parts:
            raise PermissionError(13, "Permission denied", str(a))
        return real(a, b)
    monkeypatch.setattr(render_pass.os, "rename", refuse)
    monkeypatch.setattr(render_pass, "_exchange", lambda a, b: False)   # renameat2 fails there too
    assert main(["render", "--profile", "en", "--root", str(root)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["_book/en: cannot replace the rendered book: Permission denied; it was left as before"]
    assert tree(root / "_book") == before


def test_removed_chapter_disappears_from_book(tmp_path):
    root = book_copy(tmp_path)
    (root / "extra.qmd").write_text("# Extra\n\nA chapter that will leave the book.\n", encoding="utf-8")
    y = root / "_quarto-en.yml"
    listed = y.read_text(encoding="utf-8")
    y.write_text(listed.replace("    - index.qmd\n", "    - index.qmd\n    - extra.qmd\n"), encoding="utf-8")
    _render_ok(root)
    assert (root / "_book/en/extra.html").is_file()
    y.write_text(listed, encoding="utf-8")
    r = bookbuild(root, "render", "--profile", "en")
    assert r.returncode == 0, r.stderr
    assert not (root / "_book/en/extra.html").exists()
    assert (root / "_book/en/appendix/ref.html").is_file()


def test_two_renders_at_once_do_not_race(tmp_path):
    root = book_copy(tmp_path)
    results = []

    def go():
        results.append(bookbuild(root, "render", "--profile", "all", "--no-cache"))
    threads = [threading.Thread(target=go) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    assert any("another build is running in this folder" in r.stderr for r in results)
    assert (root / "_book/en/appendix/ref.html").is_file() and (root / "_book/zh/index.html").is_file()


# ------------------------------------------------------------------ bibliography and lint

def test_malformed_bibliography_fails_check_naming_it(tmp_path):
    root = book_copy(tmp_path)
    bib = root / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text + "\n@article{broken,\n  title = {No closing brace},\n\n@book{next, title={x}}\n", encoding="utf-8")
    r = bookbuild(root, "check", "--profile", "en")
    assert r.returncode == 1
    line = one_line(r)
    assert line.startswith("refs.bib:") and "the bibliography does not parse" in line


def test_typed_number_inside_math_is_linted(tmp_path):
    root = book_copy(tmp_path)
    p = root / CHAPTER
    p.write_text(p.read_text(encoding="utf-8") + "\nAn output token costs $295$ times more.\n", encoding="utf-8")
    n = p.read_text(encoding="utf-8").count("\n")
    r = bookbuild(root, "check", "--profile", "en")
    assert r.returncode == 1
    assert one_line(r).startswith(f"{CHAPTER}:{n}: typed number '295' inside math")


# ───────────────────────────── round 4 (issue "Hostile input, round 4"): malformed sources ─────────────────────────────

def _page(root: Path, rel: str) -> str:
    return (root / "_book/en" / rel).read_text(encoding="utf-8")


def test_crlf_line_endings_are_read_as_quarto_reads_them(tmp_path):
    """A chapter and its cell file saved with CRLF: the same book as with LF (before: the cells were not
    recognised, "'Ref' is not defined")."""
    lf = book_copy(tmp_path / "lf")
    r = bookbuild(lf, "render", "--profile", "en", "--formats", "html")
    assert r.returncode == 0, r.stderr
    crlf = book_copy(tmp_path / "crlf")
    for rel in (CHAPTER, CELL, "index.qmd"):
        p = crlf / rel
        p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n"))
    r = bookbuild(crlf, "render", "--profile", "en", "--formats", "html")
    assert r.returncode == 0 and NOTRACE not in r.stderr, r.stderr
    assert _page(crlf, "appendix/ref.html") == _page(lf, "appendix/ref.html")


def test_a_byte_order_mark_before_the_front_matter_is_dropped(tmp_path):
    """A translation saved with a byte-order mark: its front matter (the stamp) is still read (before: read
    as a paragraph, a false "translation is stale")."""
    root = book_copy(tmp_path)
    r = bookbuild(root, "translated", str(root / "index.zh.qmd"), "--source", "index.qmd")
    assert r.returncode == 0, r.stderr
    p = root / "index.zh.qmd"
    assert p.read_text(encoding="utf-8").startswith("---\ntranslation-of:")
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    r = bookbuild(root, "check", "--profile", "all")
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_nul_byte_in_prose_is_one_line_naming_the_chapter_and_line(tmp_path):
    """Before: check passed, and render failed naming an internal typst file."""
    root = book_copy(tmp_path)
    p = root / CHAPTER
    text = p.read_text(encoding="utf-8")
    p.write_text(text + "\nA sentence with a \0 in it.\n", encoding="utf-8")
    n = text.count("\n") + 2
    for cmd in (["check", "--profile", "en"], ["render", "--profile", "en"]):
        r = bookbuild(root, *cmd)
        assert r.returncode == 1 and NOTRACE not in r.stderr, r.stderr
        line = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(line) == 1 and line[0].startswith(f"{CHAPTER}:{n}: holds a NUL character at column 19: "
                                                     "remove it"), r.stderr


def test_a_chapter_that_is_a_link_is_read_under_its_listed_name(tmp_path):
    """The book lists index.qmd, a link to index.source.qmd (before: KeyError: 'en:index.source.qmd')."""
    root = book_copy(tmp_path)
    (root / "index.qmd").rename(root / "index.source.qmd")
    (root / "index.qmd").symlink_to("index.source.qmd")
    r = bookbuild(root, "render", "--profile", "en", "--formats", "html")
    assert r.returncode == 0 and NOTRACE not in r.stderr, r.stderr
    assert "This book is tiny." in _page(root, "index.html")
    assert not (root / "_book/en/index.source.html").exists()


@pytest.mark.parametrize("damage", ["a page with a byte that is not UTF-8", "a truncated search.json"])
def test_quartos_post_render_step_on_a_damaged_book_is_one_line(tmp_path, damage):
    """The step Quarto runs after its render (``python -m bookbuild.quarto post-render``), over pages that
    do not read: one line naming the file, exit 1, the book left as it was (before: a traceback)."""
    root = book_copy(tmp_path)
    r = bookbuild(root, "render", "--profile", "en", "--formats", "html")
    assert r.returncode == 0, r.stderr
    out = root / "_book/en"
    search = out / "search.json"
    search.write_text('[{"objectID": "index.html", "href": "index.html", "title": "Preface", "crumbs": ["Pre',
                      encoding="utf-8")
    if damage.startswith("a page"):
        page = out / "appendix/ref.html"
        lines = page.read_bytes().split(b"\n")
        lines[9] += b" \xff"
        page.write_bytes(b"\n".join(lines))
        want = f"{page}:10: is not valid UTF-8: byte 0xFF at column"
    else:
        want = f"{search}:1: is not valid JSON ("
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUARTO_", "MLSYSIM_"))}
    env.update(QUARTO_PROFILE="en", QUARTO_PROJECT_OUTPUT_DIR="_book/en", PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "bookbuild.quarto", "post-render"], cwd=root, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 1 and NOTRACE not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(want), r.stderr
    if damage.startswith("a page"):
        assert lines[0].endswith("render the book again with Quarto (the file was cut short or altered)")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
