"""The no-change check (bookbuild/unchanged.py) over a synthetic project: what is an input, what the record
holds, and every way its answer must become "build" (an input edited, a book or the executed chapters
touched, another option, an edit saved while the build ran)."""
import os
from dataclasses import replace
from pathlib import Path

from bookbuild.settings import Settings
from bookbuild.stamp import write_stamp
from bookbuild.unchanged import BIG, printed, project_digest, record, inputs_digest


def project(tmp_path: Path) -> tuple[Settings, Path, Path]:
    root = tmp_path / "book"
    (root / "chapter").mkdir(parents=True)
    (root / "_quarto.yml").write_text("project: {type: book}\n", encoding="utf-8")
    (root / "chapter" / "a.qmd").write_text("# A\n", encoding="utf-8")
    dest = root / "_book" / "en"
    dest.mkdir(parents=True)
    (dest / "index.html").write_text("<p>A</p>", encoding="utf-8")
    write_stamp(dest, "render-key")
    executed = root / "_build" / "executed" / "en"
    executed.mkdir(parents=True)
    (executed / "a.md").write_text("# A\n", encoding="utf-8")
    return Settings(root=root), dest, executed


def recorded(s: Settings, dest: Path, executed: Path) -> None:
    record(s, "render", ["en"], inputs_digest(s, []), [], ["en: up to date -> _book/en"], [dest], [executed])


def test_a_build_that_changed_nothing_is_recognised_by_its_inputs_books_and_executed_chapters(tmp_path):
    s, dest, executed = project(tmp_path)
    assert printed(s, "render", ["en"]) is None                       # nothing recorded yet
    recorded(s, dest, executed)
    assert printed(s, "render", ["en"]) == ["en: up to date -> _book/en"]
    assert printed(s, "check", ["en"]) is None                        # another command
    assert printed(s, "render", ["en", "zh"]) is None                 # other profiles
    assert printed(replace(s, formats=("html",)), "render", ["en"]) is None   # another option
    assert printed(replace(s, jobs=3), "render", ["en"]) == ["en: up to date -> _book/en"]   # how, not what
    assert printed(replace(s, cache=False), "render", ["en"]) is None  # no cache: always the passes


def test_an_edited_input_a_touched_book_or_executed_chapter_means_building(tmp_path):
    s, dest, executed = project(tmp_path)
    for change in (lambda: (s.root / "chapter" / "a.qmd").write_text("# A!\n", encoding="utf-8"),
                   lambda: (s.root / "chapter" / "new.bib").write_text("@x{}\n", encoding="utf-8"),
                   lambda: (dest / "index.html").write_text("<p>edited</p>", encoding="utf-8"),
                   lambda: (executed / "a.md").unlink()):
        recorded(s, dest, executed)
        assert printed(s, "render", ["en"]) is not None
        change()
        assert printed(s, "render", ["en"]) is None
        (executed / "a.md").write_text("# A\n", encoding="utf-8")
        (dest / "index.html").write_text("<p>A</p>", encoding="utf-8")
        write_stamp(dest, "render-key")


def test_an_edit_saved_while_the_build_ran_is_not_recorded(tmp_path):
    s, dest, executed = project(tmp_path)
    before = inputs_digest(s, [])
    (s.root / "chapter" / "a.qmd").write_text("# A, edited during the build\n", encoding="utf-8")
    record(s, "render", ["en"], before, [], ["en: up to date -> _book/en"], [dest], [executed])
    assert printed(s, "render", ["en"]) is None


def test_outputs_caches_and_version_control_are_not_inputs_and_a_big_file_is_known_by_its_stat(tmp_path):
    s, dest, executed = project(tmp_path)
    root = s.root
    first = project_digest(root)
    for folder in (".git", "_build/cache", "_book/zh", "__pycache__", ".venv"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "x").write_text("written by a tool", encoding="utf-8")
    assert project_digest(root) == first
    big = root / "vendor.bin"
    big.write_bytes(b"\0" * BIG)
    with_big = project_digest(root)
    st = big.stat()
    with open(big, "r+b") as fh:                     # the same size, the bytes changed, the time put back
        fh.write(b"\1")
    os.utime(big, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert project_digest(root) == with_big          # known by size, time and inode, as stated
    big.touch()
    assert project_digest(root) != with_big
