"""bookbuild.execute.cells: one core of a cell's run, under the chapter writer (the runner) and the choice
writer (the live runtime, in the build and in the page), with the same rules: compiling, the displayed value,
``__main__``, the profile, the output cap and the failure's words."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sourcegraph import nodes_of

from bookbuild.book import live as L
from bookbuild.book.live import runtime as R
from bookbuild.errors import CellError
from bookbuild.execute import RunOptions, Runner
from bookbuild.execute import cells as C
from bookbuild.source import parse

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    out = set()
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
    return out


def test_the_core_is_the_standard_library_only_and_the_runtime_takes_only_the_core_of_bookbuild():
    core = _imports(ROOT / "bookbuild" / "execute" / "cells.py")
    assert core and all(m.split(".")[0] in sys.stdlib_module_names or m == "__future__" for m in core), core
    ours = {m for m in _imports(ROOT / "bookbuild" / "book" / "live" / "runtime.py") if m.startswith("bookbuild")}
    assert ours == {"bookbuild.execute"}   # from bookbuild.execute import cells
    relative = [n for n in nodes_of(ROOT / "bookbuild" / "book" / "live" / "runtime.py")
                if isinstance(n, ast.ImportFrom) and n.level]
    assert relative == []                  # the page imports it by the same absolute name


def test_the_page_runs_the_very_file_without_the_build(tmp_path):
    """The live bundle holds the core under its module name; a Python given only the bundle (and pint's
    packages, no bookbuild of the build) imports the runtime and runs a cell through the core."""
    data = L.bundle_bytes(ROOT / "mlsysim")
    z = zipfile.ZipFile(__import__("io").BytesIO(data))
    assert z.read("bookbuild/execute/cells.py") == (ROOT / "bookbuild/execute/cells.py").read_bytes()
    bundle = tmp_path / "mlsysim.zip"
    bundle.write_bytes(data)
    import pint
    site = str(Path(pint.__file__).resolve().parents[1])
    code = ("import sys; sys.path[:0] = [sys.argv[1]]; sys.path.append(sys.argv[2]); import live_runtime as R\n"
            "assert R.C.__file__.startswith(sys.argv[1]), R.C.__file__\n"
            "m = R.C.new_module(); R.exec_cells(m, [{'file': 'c.qmd', 'line': 3, 'code': 'x = 6 * 7\\n'}], '/book')\n"
            "print(m.x)")
    r = subprocess.run([sys.executable, "-S", "-c", code, str(bundle), site], capture_output=True, text=True,
                       cwd=tmp_path, env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)})
    assert r.returncode == 0 and r.stdout.strip() == "42", r.stderr[-2000:]


def _chapter(tmp_path: Path, code: str, cap: int = 0):
    (tmp_path / "ch.qmd").write_text(f"---\ntitle: T\n---\n\n```{{python}}\n{code}```\n\nEnd.\n", encoding="utf-8")
    doc = parse("ch.qmd", tmp_path)
    opts = RunOptions(root=tmp_path, fig_dir=tmp_path / "_fig", md_dir=tmp_path, output_cap=cap, profile="zh")
    return Runner(doc, opts)


def _choice(tmp_path: Path, code: str, cap: int = 0) -> dict:
    res, _ = R.run_choice([{"file": "ch.qmd", "line": 6, "code": code}], {}, root=str(tmp_path),
                          precision="fp8", output_cap=cap, profile="zh")
    return res


CLASS_SCOPE = "class A:\n    xs = [1, 2]\n    k = 3\n    ys = [x * k for x in xs]\n"
PRINTS = "for i in range(50):\n    print('0123456789')\n"


@pytest.mark.parametrize("code, cap, words", [
    (CLASS_SCOPE, 0, "Python's class scope"),
    (PRINTS, 100, "the cell printed more than 100 characters (the output limit of one cell)"),
    ("import sys\nsys.exit(3)\n", 0, "the cell called sys.exit(3)"),
])
def test_a_failure_is_worded_the_same_by_the_chapter_and_by_a_choice(tmp_path, code, cap, words):
    with pytest.raises(CellError) as e:
        _chapter(tmp_path, code, cap).chapter()
    assert words in str(e.value)
    res = _choice(tmp_path, code, cap)
    assert words in res["error"], res


def test_both_see_the_profile_and_a_fresh_main_and_display_the_same_value(tmp_path):
    code = "import os, sys\nclass V:\n    p_str = os.environ['QUARTO_PROFILE']\n    m_str = sys.modules['__main__'].__name__\n"
    ran = _chapter(tmp_path, code + "V.p_str\n").chapter()
    assert "zh" in ran.markdown                       # the last expression displayed
    assert "zh" not in _chapter(tmp_path, code + "V.p_str;\n").chapter().markdown   # ';' hides it
    res = _choice(tmp_path, code)
    assert res["values"]["V.p_str"] == "zh" and res["values"]["V.m_str"] == "__main__"
    assert os.environ.get("QUARTO_PROFILE") != "zh"   # and it is set back


def test_the_displayed_value_follows_jupyters_rule():
    def shown(src):
        return C.execute(C.compile_cell(src, "<t>"), {})
    assert shown("1 + 1\n") == 2
    assert shown("1 + 1;  # hidden\n") is None
    assert shown("x = 1\n") is None


def test_raw_output_past_the_cap_between_cells_names_the_cell_before(tmp_path, monkeypatch):
    """The chapter's process got more than its raw-output cap between two cells (from a process the first
    left running): the error names the cell that ran, not the next one as the writer."""
    from bookbuild.execute import limits
    (tmp_path / "ch.qmd").write_text("---\ntitle: t\n---\n\n```{python}\n#| label: calc-start\nx = 1\n```\n\n"
                                     "```{python}\n#| label: calc-next\ny = 2\n```\n", encoding="utf-8")
    runner = Runner(parse("ch.qmd", tmp_path), RunOptions(root=tmp_path, fig_dir=tmp_path, md_dir=tmp_path,
                                                               output_cap=1000))
    flooded = type("Raw", (), {"over": False})()
    monkeypatch.setattr(limits, "_RAW", [flooded])
    real = runner.hooks.after_cell
    def after(cell, ns):   # the pipe passes the cap as the first cell ends
        real(cell, ns)
        flooded.over = True
    monkeypatch.setattr(runner.hooks, "after_cell", after)
    with pytest.raises(CellError) as e:
        runner.chapter()
    assert str(e.value) == ("ch.qmd:5: [calc-start] a process this cell or an earlier one left running wrote more "
                            "than 1,000 bytes to the chapter process's output after the cell ended (the output limit "
                            "of a chapter's process): wait for it (subprocess.run), or write less")
