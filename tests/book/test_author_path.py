"""The author's path (README "Add an accelerator or a model", notes/CHAPTERS.md): in a copy of the project, an
accelerator with its source and node, a model, a published measurement and a new chapter in both languages
(a cell, an inline value, a figure, a cross-reference, a citation, the names of its values), exactly as the
guides say (tests/author_path.py). Then ``check`` passes and the tests that read those files pass over the
copy, unedited: the suite derives the book from the registry and the profiles. And each mistake the guides
warn of is one line of one ``check`` run, with its file and line, all at once."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

import author_path as A

#: the tests that read what the author added: the registry, the sources, the chapters' pairs and numbers
READERS = ["tests/unit/test_mlsysim_registry.py", "tests/book/test_citations_pinned.py", "tests/unit/test_authoring_checks.py",
           "tests/book/test_parity.py", "tests/book/test_numbering_book.py::test_the_lecture_is_numbered_as_the_course_numbers_it",
           "tests/unit/test_provenance.py::test_each_names_table_covers_only_what_its_folder_s_cells_define"]


@pytest.fixture(scope="module")
def authored(tmp_path_factory) -> Path:
    root = A.project_copy(tmp_path_factory.mktemp("author") / "book")
    A.add_registry_entries(root)
    A.add_chapter(root)
    return root


def _timed(what: str, run):
    t0 = time.perf_counter()
    r = run()
    print(f"\n{what}: {time.perf_counter() - t0:.1f} s")
    return r


def test_check_passes_with_the_authors_additions(authored):
    r = _timed("check", lambda: A.bookbuild(authored, "check", "--profile", "all"))
    listed = A.chapters(authored, "en")
    chapters = len(listed)
    assert listed.count(A.NEW_CHAPTER) == 1 and A.NEW_CHAPTER.replace(".qmd", ".zh.qmd") in A.chapters(authored, "zh")
    assert f"en (en): {chapters} chapters" in r.stdout and f"zh (zh): {chapters} chapters" in r.stdout
    # the new chapter is numbered after the lecture, its figure drawn in both languages
    idx = (authored / "_build" / "executed" / "en" / A.NEW_CHAPTER.replace(".qmd", ".md")).read_text(encoding="utf-8")
    assert "MI325X (the suite" in idx and "6.0" in idx   # the accelerator's name and its 6 TB/s, as the cell formats them
    assert (authored / "lectures" / "figures").is_dir()


def test_the_tests_that_read_the_additions_pass_unedited(authored):
    r = _timed("tests over the copy", lambda: subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly", *READERS],
        cwd=authored, env=A.env(authored), capture_output=True, text=True, timeout=1200))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert re.search(r"\d+ passed", r.stdout) and " failed" not in r.stdout


def test_the_authors_steps_over_an_authored_project_change_nothing(authored, tmp_path):
    """The done-when run: the README's steps committed to a clone, then the whole suite, this file included,
    runs over it; so the steps applied again leave every file as it was (no entry twice)."""
    root = A.project_copy_of(authored, tmp_path / "again")
    def files():
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and "_build" not in p.parts and "_book" not in p.parts and "__pycache__" not in p.parts}
    before = files()
    A.add_registry_entries(root)
    A.add_chapter(root)
    after = files()
    assert sorted(after) == sorted(before)
    assert [k for k in before if before[k] != after[k]] == []


def test_the_cli_lists_the_new_accelerator_and_model(authored):
    r = subprocess.run([sys.executable, "-m", "mlsysim", "list"], cwd=authored, env=A.env(authored),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "AP_MI325X" in r.stdout and "AP_Llama3_1_8B" in r.stdout, r.stderr


#: each mistake the guides warn of, made in one copy: (file, old, new) and the line check prints for it
MISTAKES = [
    # a translation without translation-of (the drift guard would be off)
    ("lectures/author-path-card.zh.qmd", "translation-of:", "translated-from:",
     r"lectures/author-path-card\.zh\.qmd:1: a translation without translation-of"),
    # a chapter Quarto's post-render step refuses: no jupyter: mlsysim-book
    ("lectures/author-path-card.qmd", "jupyter: mlsysim-book\n", "",
     r"lectures/author-path-card\.qmd:1: the chapter names no kernel 'mlsysim-book'"),
    # numbering that goes backwards (Preface, 19, 2, A): the chapter's offset removed
    ("lectures/author-path-card.qmd", "number-offset: [OFFSET]\n", "",
     r"lectures/author-path-card\.qmd:1: chapter \d+ comes after chapter LAST\b"),
    # a value quoted in English only
    ("lectures/author-path-card.qmd", "FLOP/byte [@williams2009].", "FLOP/byte [@williams2009], "
     "`{python} AuthorPathCard.bw_str` TB/s again.",
     r"lectures/author-path-card\.qmd:\d+: AuthorPathCard\.bw_str is quoted in English only"),
    # a value without a name (its hover would show the identifier; ridge_str keeps ridge_point's declared title)
    ("lectures/_cells/names.toml", 'bw = { en = "memory bandwidth of the suite example accelerator", zh = "示例加速器的内存带宽" }\n',
     "", r"lectures/author-path-card\.zh\.qmd:\d+: AuthorPathCard\.bw_str has no Chinese name"),
    ("lectures/_cells/names.toml", "", "",
     r"lectures/author-path-card\.qmd:\d+: AuthorPathCard\.bw_str has no English name"),
    # a citation key that is not in references.bib, a reference to no label (after the value above: its sentence)
    ("lectures/author-path-card.qmd", "[@williams2009]", "[@nobody2099]",
     r"lectures/author-path-card\.qmd:\d+: citation @nobody2099 is not in references\.bib"),
    ("lectures/author-path-card.qmd", "and @fig-author-path-roofline draws", "and @fig-author-path-rooflines draws",
     r"lectures/author-path-card\.qmd:\d+: @fig-author-path-rooflines does not resolve in the 'en' book"),
    # two claims of the cell that no longer hold: both named, with the reference and citation above
    ("lectures/_cells/author-path-cells.qmd", "check(ridge > 100,", "check(ridge > 1e6, 'the ridge is past a million')\n"
     "    check(ridge > 1e7,",
     r"lectures/_cells/author-path-cells\.qmd:\d+: \[calc-author-path-cells\] guard failed: the ridge is past a million"),
    ("lectures/_cells/author-path-cells.qmd", "", "",
     r"lectures/_cells/author-path-cells\.qmd:\d+: \[calc-author-path-cells\] guard failed: decode at batch one is far below"),
    # a measurement whose source is not cited (the calibration table would print the bare source key)
    ("mlsysim/data/sources.toml", 'cite = "suite2026mi325x"\n', "",
     r"mlsysim/data/measurements\.toml:\d+: \[suite-llama31-70b-mi325x8-128-2048-maxload\] source "
     r"'suite-mi325x-datasheet' has no cite"),
    # a sparse rate 2.0003 times dense (the registry loads; check says it with the rest)
    ("mlsysim/data/accelerators.toml", 'compute.fp16 = { dense = "1307.4 Tflop/s", sparse = "2614.8 Tflop/s", '
     'source = "suite-mi325x-datasheet"', 'compute.fp16 = { dense = "1307.4 Tflop/s", sparse = "2615.2 Tflop/s", '
     'source = "suite-mi325x-datasheet"',
     r"mlsysim/data/accelerators\.toml:\d+: \[AP_MI325X\] compute\.fp16: sparse '2615\.2 Tflop/s' is 2\.00031 times dense"),
]


#: a registry the library refuses to load (a capacity in decimal GB): nothing can compute, so check says that
#: one line, once, before any chapter runs, and nothing else
UNLOADABLE = ("mlsysim/data/accelerators.toml", 'value = "256 GiB", source = "suite-mi325x-datasheet"',
              'value = "256 GB", source = "suite-mi325x-datasheet"',
              r"mlsysim/data/accelerators\.toml:\d+: \[AP_MI325X\] memory\.capacity: .*256 GB")


def test_a_registry_that_does_not_load_is_one_line_before_any_chapter(authored, tmp_path):
    root = A.project_copy_of(authored, tmp_path / "unloadable")
    rel, old, new, want = UNLOADABLE
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    r = A.bookbuild(root, "check", "--profile", "all", check=False)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    problems = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("bookbuild: ")]
    assert len(problems) == 1 and re.match(want, problems[0]), r.stderr


def _derived(authored: Path) -> list[tuple[str, str, str, str]]:
    """MISTAKES with the chapter's offset and the number of the chapter before it, as the copy has them."""
    last = A.number_of(authored, A.last_chapter(authored, "en"))
    return [(rel, old.replace("OFFSET", str(last)), new, want.replace("LAST", str(last)))
            for rel, old, new, want in MISTAKES]


def test_each_mistake_is_one_line_of_one_check_run(authored, tmp_path):
    root = A.project_copy_of(authored, tmp_path / "mistakes")
    mistakes = _derived(authored)
    for rel, old, new, _ in mistakes:
        p = root / rel
        text = p.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
    r = _timed("check with every mistake", lambda: A.bookbuild(root, "check", "--profile", "all", check=False))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    for *_, want in mistakes:
        assert sum(bool(re.match(want, ln)) for ln in lines) == 1, (want, r.stderr)
