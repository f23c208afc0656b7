"""Build the book without Quarto: execute ``.qmd`` chapters with Quarto's semantics, number
cross-references, verify, and render with pandoc (HTML) and typst (PDF).

    python -m bookbuild check [--profile en|zh|all] [--root .]
    python -m bookbuild render [--profile ...] [--no-cache] [--cell-timeout S] [--output-dir DIR]
    python -m bookbuild preview | diff [REF] | compare-render OTHER_BOOK | translated FILE

The house (see notes/ENGINE.md):

- the engine, which never imports the book's layer: :mod:`.settings` (every knob), :mod:`.project`
  (profiles), :mod:`.source` (a chapter parsed once), :mod:`.execute` (cells, one way), :mod:`.pool`
  (a generic fork pool), :mod:`.numbering` (the one cross-reference index), :mod:`.checks`,
  :mod:`.bibliography`, :mod:`.render` (pandoc HTML, typst PDF), :mod:`.cache`;
- the book's own layer, :mod:`.book` (guards, variants, provenance, the reader's page, the book's rules,
  translations, diff);
- the build that composes them, declared as one list of passes: :mod:`.passes`; and its users
  :mod:`.preview`, :mod:`.compare`, :mod:`.__main__`.

Public API::

    load_book(root, profile) -> Book                  # bookbuild.project
    parse(path, root) -> Document                     # bookbuild.source
    execute_chapter(path, root, fig_dir, ...) -> ExecutedChapter   # bookbuild.execute
    check_book(root, profiles) -> Build               # the passes up to the book's layer
"""
from .errors import BuildError, BuildFailed
from .project import Book, ChapterRef, load_book, profiles

__all__ = ["BuildError", "BuildFailed", "Book", "ChapterRef", "load_book", "profiles", "check_book"]


def check_book(root, profile_names, settings=None):
    """Execute and verify ``profile_names`` (the library form of ``check``); returns the build."""
    from . import passes
    from .book.layer import BOOK
    from .settings import Settings
    s = settings or Settings.make(root, layer=BOOK, quiet=True)
    return passes.run(s, list(profile_names), passes.COMMANDS["check"])
