"""The book's own layer, apart from the Quarto-compatible engine (which never imports it).

**Input**: an executed book: per profile, its documents (:class:`bookbuild.source.Document`), its
executed chapters (:class:`bookbuild.execute.ExecutedChapter`, with what :class:`.hooks.BookHooks`
attached: recorded guards, explanations) and its cross-reference index.

**Output**: :class:`bookbuild.render.additions.Additions`: per page, files to write beside it and the scripts to load; the
assets every book carries; and messages (:class:`bookbuild.errors.BuildError`, one line each).
:mod:`bookbuild.render` applies it to our pages, the Quarto post-render step to Quarto's.

Rooms: :mod:`.hooks` (what runs with a chapter), :mod:`.variants` (every registry choice),
:mod:`.provenance` (how each number was computed), :mod:`.reader` (page data and scripts),
:mod:`.lint`, :mod:`.unused` and :mod:`.translation` (the book's rules, in :data:`.checks.BOOK_CHECKS`),
:mod:`.diff` (what a change moved).
"""
from __future__ import annotations

from ..render.additions import Additions, PageAddition

#: the book layer's output (the engine's extension point)
BookOutput = Additions

__all__ = ["Additions", "BookOutput", "PageAddition"]
