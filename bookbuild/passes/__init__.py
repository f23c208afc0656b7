"""The build, declared: one ordered list of named passes over one :class:`~.state.Build`
(in the spirit of Quarto's ``main.lua``).

=========  =====================================================================================
parse      load the profiles; parse every chapter of every profile once (:mod:`.parse`)
execute    run each chapter of the books being built in its own process, cached (:mod:`.execute`)
number     the chapters' ASTs and the book's one cross-reference index (:mod:`.number`)
verify     the engine's checks and the book's rules, one list, cached (:mod:`.verify`)
book       the book's own layer: variants, page data and scripts (:mod:`.book`)
render     HTML and PDF, staged and swapped in whole (:mod:`.render`)
=========  =====================================================================================

Every command runs a prefix or a subset of :data:`PASSES` (:data:`COMMANDS`): ``check`` stops before
``render``; ``render`` and ``preview`` run them all; ``diff`` runs ``parse`` and ``execute`` with
guards recorded (:data:`FACTS`). A pass raises :class:`~bookbuild.errors.BuildFailed` (one line per
problem) to stop the build.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from ..book.hooks import warm_up as _layer_warm_up
from ..lock import build_lock
from ..settings import Settings
from . import book, execute, number, parse, render, verify
from .parse import environment
from .state import Build, Report


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Build], None]


PASSES = [Pass("parse", parse.run), Pass("execute", execute.run), Pass("number", number.run),
          Pass("verify", verify.run), Pass("book", book.run), Pass("render", render.run)]
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
    from ..book import diff  # noqa: F401
    _layer_warm_up(settings.root, settings.cache_folder)


__all__ = ["Build", "COMMANDS", "NAMES", "PASSES", "Pass", "Report", "environment", "run", "warm_up"]
