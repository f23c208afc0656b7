"""Build the book without Quarto: execute ``.qmd`` chapters with Quarto's
semantics, number cross-references, verify, and (``bookbuild.render``) render.

    python -m bookbuild check [--profile en|zh|all] [--root .]
    python -m bookbuild render [--profile ...] [--no-cache] [--cell-timeout S]
    python -m bookbuild preview | diff [REF] | compare-render OTHER_BOOK

Public API::

    load_book(root, profile) -> Book                  # bookbuild.project
    profiles(root) -> list[str]
    execute_chapter(path, root, fig_dir, *, md_dir=None, execute_options=None)
        -> ExecutedChapter                            # bookbuild.execute
    build_index(book, executed_chapters) -> dict[str, Target]   # bookbuild.xref
    find_references(markdown) -> list[(label, line, capitalised)]
    check_book(root, profiles) -> list[CheckedProfile]          # bookbuild.pipeline
"""
from .errors import BuildError, BuildFailed
from .execute import ExecutedChapter, execute_chapter
from .project import Book, ChapterRef, load_book, profiles
from .xref import Target, build_index, find_references

__all__ = ["BuildError", "BuildFailed", "Book", "ChapterRef", "ExecutedChapter", "Target",
           "build_index", "execute_chapter", "find_references", "load_book", "profiles",
           "check_book"]


def check_book(root, profile_names):  # thin re-export, imported lazily
    from .pipeline import check_book as _cb
    return _cb(root, profile_names)
