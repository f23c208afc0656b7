"""The build, declared: one ordered list of named passes over one :class:`~.state.Build`
(in the spirit of Quarto's ``main.lua``).

=========  =====================================================================================
parse      load the profiles; parse every chapter of every profile once (:mod:`.parse`)
execute    run each chapter of the books being built in its own process, cached (:mod:`.execute`)
number     the chapters' ASTs and the book's one cross-reference index (:mod:`.number`)
verify     the engine's checks and the layer's rules, one list, cached (:mod:`.verify`)
book       the layer's own pass (``Layer.run``; the book's: variants, page data and scripts,
           :mod:`bookbuild.book.build`); a plain Quarto book has none
render     HTML and PDF, staged and swapped in whole (:mod:`.render`)
=========  =====================================================================================

The layer (:class:`bookbuild.layer.Layer`) comes with the settings (``Settings.layer``): the passes reach the
book's own code only through it, so the engine builds a plain Quarto book with the default layer. Each pass
declares what of the :class:`~.state.Build` it reads and writes (:attr:`Pass.reads`, :attr:`Pass.writes`;
``tests/book/test_plain_book.py`` holds every pass to its declaration).

Every command runs a prefix or a subset of :data:`PASSES` (:data:`COMMANDS`): ``check`` stops before
``render``; ``render`` and ``preview`` run them all; ``diff`` runs ``parse`` and ``execute`` with
guards recorded (:data:`FACTS`). A pass raises :class:`~bookbuild.errors.BuildFailed` (one line per
problem) to stop the build.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from ..lock import build_lock
from ..settings import Settings
from . import execute, number, parse, render, verify
from .parse import environment
from .state import Build, Report


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Build], None]
    reads: frozenset[str]    # the Build's fields the pass reads (settings and names are every pass's)
    writes: frozenset[str]   # the fields it sets or fills


def _layer(build: Build) -> None:
    build.settings.layer.run(build)


def _fields(names: str) -> frozenset[str]:
    return frozenset(names.split())


PASSES = [
    Pass("parse", parse.run, _fields("books all_books documents parse_errors store"),
         _fields("store pandoc books all_books documents parse_errors environment")),
    Pass("execute", execute.run, _fields("facts books documents parse_errors store environment inputs report"),
         _fields("executed failures inputs guard_failures report")),
    Pass("number", number.run, _fields("facts books executed pandoc store environment"), _fields("asts index")),
    Pass("verify", verify.run, _fields("books all_books documents executed asts index pandoc store environment "
                                       "guard_failures report"), _fields("bibliographies report")),
    Pass("book", _layer, _fields("facts books documents executed inputs store environment report"),
         _fields("additions report")),
    Pass("render", render.run, _fields("facts books executed asts index pandoc environment report"),
         _fields("asts report")),
]
NAMES = [p.name for p in PASSES]
COMMANDS = {"check": NAMES[: NAMES.index("book") + 1], "render": NAMES, "facts": ["parse", "execute"]}


def run(settings: Settings, profiles: list[str], passes: list[str], *, facts: bool = False) -> Build:
    """Run ``passes`` (names of :data:`PASSES`, kept in their declared order) under the build lock."""
    unknown = set(passes) - set(NAMES)
    if unknown:
        raise ValueError(f"unknown passes {sorted(unknown)}; the build's passes are {', '.join(NAMES)}")
    b = Build(settings=settings, names=list(profiles), facts=facts)
    t0 = time.perf_counter()
    with build_lock(settings.root, settings.quiet):
        try:
            for p in PASSES:
                if p.name in passes:
                    t = time.perf_counter()
                    p.run(b)
                    b.report.timings[p.name] = time.perf_counter() - t
        finally:
            b.report.notes += b.store.notes
            b.report.seconds = time.perf_counter() - t0
    return b


def warm_up(settings: Settings) -> None:
    """Import what any build imports (the renderers, the book's layer, what the chapters import), for a
    process that forks many builds (:mod:`bookbuild.worker`)."""
    from ..render import profile  # noqa: F401 - pandoc and typst: imported by render when needed
    settings.layer.warm_up(settings.root, settings.cache_folder)


__all__ = ["Build", "COMMANDS", "NAMES", "PASSES", "Pass", "Report", "environment", "run", "warm_up"]
