"""What a layer above the engine adds to a build: one :class:`Layer`, handed to the passes in the build's
:class:`~bookbuild.settings.Settings`.

The default, :data:`PLAIN`, adds nothing, and the engine then builds a plain Quarto book: no hooks while a
chapter runs, no rules beyond the engine's checks, no pass of its own, no library whose code keys the cache.
The book's own layer (:data:`bookbuild.book.layer.BOOK`) fills each point; the engine imports no module of
it (``tests/unit/test_structure.py``, ``tests/book/test_plain_book.py``).

=============  ====================================================================================
data_env       the user's variables that name data folders the chapters read (the cache keys cover them)
library_dirs   the libraries the chapters import whose whole code keys every result (parse, execute)
hooks          what a chapter's run adds, made in the chapter's process (:class:`bookbuild.execute.Hooks`)
preload        what to import once before the chapters' processes are forked (execute)
warm_up        what a process that forks many builds imports first (the preview's warm worker)
checks         the layer's rules, run after the engine's (verify)
run            the layer's own pass over the executed books, before the render (``layer``)
=============  ====================================================================================
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable


class Layer:
    """A plain Quarto book's layer: every point adds nothing."""
    name = "plain"
    data_env: tuple[str, ...] = ()

    def library_dirs(self, root: Path) -> list[Path]:
        return []

    def hooks(self, root: Path, cache_folder: Path | None, *, facts: bool = False) -> Callable[[], Any]:
        """A picklable factory of the :class:`bookbuild.execute.Hooks` of one chapter's run (``facts``:
        ``diff``'s run, guards kept)."""
        from .execute import Hooks
        return Hooks

    def preload(self, root: Path, cache_folder: Path | None) -> None:
        return None

    def warm_up(self, root: Path, cache_folder: Path | None) -> None:
        return None

    def checks(self) -> list:
        """The layer's :class:`bookbuild.checks.Check` list."""
        return []

    def run(self, build: Any) -> None:
        """The layer's pass over the :class:`bookbuild.passes.state.Build`."""
        return None

    def __repr__(self) -> str:   # a build's options name the layer (bookbuild.unchanged keys its record by them)
        return f"<layer {self.name}>"


PLAIN = Layer()
