"""The whole check: python -m bookbuild check, verification failures, determinism."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bookbuild.__main__ import main
from bookbuild import check_book
from bookbuild.errors import BuildFailed, CitationError, LintError, UnusedStrError, XrefError

from conftest import book_copy
CELL = "appendix/_cells/ref.qmd"
CHAPTER = "appendix/ref.qmd"
REPO = Path(__file__).resolve().parents[2]




def failures(root, profiles=("en", "zh")):
    with pytest.raises(BuildFailed) as ei:
        check_book(root, list(profiles))
    return ei.value.errors


def test_check_passes_and_writes_manifest(tmp_path, capsys):
    root = book_copy(tmp_path)
    assert main(["check", "--profile", "all", "--root", str(root)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 3 and out[0].startswith("en (en): 2 chapters") and out[1].startswith("zh (zh)")
    assert out[2] == "executed 4 chapter(s), 0 from the cache"
    m = json.loads((root / "_build/executed/en/book.json").read_text(encoding="utf-8"))
    assert m["profile"] == "en" and m["lang"] == "en" and m["title"] == "Tiny Book"
    assert [c["source"] for c in m["chapters"]] == ["index.qmd", CHAPTER]
    assert [c["executed"] for c in m["chapters"]] == ["index.md", "appendix/ref.md"]
    assert [c["appendix"] for c in m["chapters"]] == [False, True]
    assert m["chapters"][1]["number"] == "A" and m["bibliography"] == ["refs.bib"]
    assert m["index"]["targets"]["tbl-appx-values"]["number"] == "A.2"
    assert (root / "_build/executed/en/appendix/ref.md").read_text(encoding="utf-8").startswith("# Reference Values")
    z = json.loads((root / "_build/executed/zh/book.json").read_text(encoding="utf-8"))
    assert z["crossref"]["eq"] == "公式" and z["chapters"][0]["source"] == "index.zh.qmd"


def test_unresolved_section_reference(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("Read @sec-appx-queue first", "Read @sec-appx-queues first")})
    errs = failures(root)
    assert len(errs) == 1 and isinstance(errs[0], XrefError)
    assert errs[0].format() == ("appendix/ref.qmd:9: @sec-appx-queues does not resolve in the 'en' book; "
                                "did you mean @sec-appx-queue?")


def test_reference_to_other_language_book_does_not_resolve(tmp_path):
    # sec-appx-worked exists only in the English appendix
    root = book_copy(tmp_path, {"appendix/ref.zh.qmd": ("（@eq-appx-little）", "（@sec-appx-worked）")})
    errs = failures(root)
    assert [(e.path, e.line) for e in errs] == [("appendix/ref.zh.qmd", 5)]


def test_missing_citation(tmp_path):
    root = book_copy(tmp_path, {"index.qmd": ("[@little1961]", "[@little1962]")})
    errs = failures(root)
    assert len(errs) == 1 and isinstance(errs[0], CitationError)
    assert errs[0].path == "index.qmd" and errs[0].line == 4 and "@little1962" in errs[0].message


def test_typed_number_fails_and_allowlisted_passes(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("@fig-appx-queue shows the queue.",
                                          "@fig-appx-queue shows the 12 items of Lecture 5.")})
    errs = failures(root)
    assert len(errs) == 1 and isinstance(errs[0], LintError)
    assert (errs[0].path, errs[0].line) == (CHAPTER, 51)
    assert "'12'" in errs[0].message and "Lecture" not in errs[0].message


def test_unused_str_in_shared_cell(tmp_path):
    root = book_copy(tmp_path, {CELL: ("    live_str = fmt_int(live)",
                                       "    live_str = fmt_int(live)\n    spare_str = fmt_int(live / 2)")})
    errs = failures(root, ["en"])  # checking one profile still looks at every profile's use
    assert len(errs) == 1 and isinstance(errs[0], UnusedStrError)
    assert (errs[0].path, errs[0].line) == (CELL, 18) and "Ref.spare_str" in errs[0].message


def test_str_quoted_only_by_the_other_language_counts_as_used(tmp_path):
    root = book_copy(tmp_path, {
        CELL: ("    live_str = fmt_int(live)", "    live_str = fmt_int(live)\n    half_str = fmt_int(live / 2)"),
        "appendix/ref.zh.qmd": ("个（@eq-appx-little）", "个，一半是 `{python} Ref.half_str`（@eq-appx-little）")})
    assert check_book(root, ["en"]).names == ["en"]


def test_non_attribute_inline_expression(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("there are `{python} Ref.live_str`",
                                          "there are `{python} Ref.live_str + '!'`")})
    errs = failures(root)
    assert [(type(e), e.path, e.line) for e in errs] == [(LintError, CHAPTER, 19)]
    assert "not a plain attribute read" in errs[0].message


def test_cli_failure_is_one_line_no_traceback(tmp_path):
    root = book_copy(tmp_path, {CELL: ("check(live > 10,", "check(live > 1000,")})
    r = subprocess.run([sys.executable, "-m", "bookbuild", "check", "--root", str(root)],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "appendix/_cells/ref.qmd:13: [calc-ref] guard failed: the queue must hold more than ten items, got 60.0"]
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_duplicate_label_in_a_book(tmp_path):
    root = book_copy(tmp_path, {CHAPTER: ("$$\\rho < 1$$ {#eq-appx-rho}", "$$\\rho < 1$$ {#eq-appx-w}")})
    with pytest.raises(XrefError, match="eq-appx-w is defined twice"):
        check_book(root, ["en"])


def _tree(root):
    base = root / "_build" / "executed"
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def test_deterministic_bytes(tmp_path):
    a = book_copy(tmp_path, name="a")
    check_book(a, ["en", "zh"])
    first = _tree(a)
    check_book(a, ["en", "zh"])
    assert _tree(a) == first
    b = book_copy(tmp_path, name="b")         # another checkout gives the same bytes
    check_book(b, ["en", "zh"])
    assert _tree(b) == first
    assert any(k.endswith(".svg") for k in first)
