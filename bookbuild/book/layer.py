"""The mlsysim book's layer (:data:`BOOK`): what it adds at each point of :class:`bookbuild.layer.Layer`.
Each point imports its module when called, so naming the layer (every command does) imports nothing heavy."""
from __future__ import annotations

from functools import partial
from pathlib import Path

from ..layer import Layer

#: the user's variables that point the library at another data folder (the cache keys cover it)
DATA_ENV = ("MLSYSIM_DATA_DIR",)


class BookLayer(Layer):
    name = "mlsysim-book"
    data_env = DATA_ENV

    def library_dirs(self, root: Path) -> list[Path]:
        from .hooks import library_dirs
        return library_dirs(root)

    def hooks(self, root: Path, cache_folder: Path | None, *, facts: bool = False):
        """:class:`.hooks.BookHooks`; under ``diff`` (``facts``) guards are kept instead of raised and figures
        described without drawing their static SVG."""
        from .hooks import BookHooks
        return partial(BookHooks, root, cache_folder=cache_folder, raise_guards=not facts,
                       draw_figures=not facts, defer_guards=not facts)

    def preload(self, root: Path, cache_folder: Path | None) -> None:
        from .hooks import preload
        preload(root, cache_folder)

    def warm_up(self, root: Path, cache_folder: Path | None) -> None:
        from .hooks import warm_up
        from . import diff  # noqa: F401 - the preview's diff
        warm_up(root, cache_folder)

    def checks(self):
        from .checks import BOOK_CHECKS
        return BOOK_CHECKS

    def run(self, build) -> None:
        from .build import run
        run(build)


BOOK = BookLayer()
