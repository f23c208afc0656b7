"""``check``: the GUARD step of a LEGO cell. A failing guard stops the build with the guard's own text.

Two audiences (``audience=``): a **claim** (``"reader"``, the default) is something the prose tells the
reader about the numbers; when the reader's choice of hardware breaks it, the page marks the sentence
with the guard's message. A **pin** (``pin(...)``, ``audience="author"``) is a regression check for
authors that holds for every choice: an equality the code relies on. A **seed pin** (``pin_seed(...)``)
holds the reference to a number the seed documents print; it is evaluated for the reference only. Both
fail the reference build like any guard and are never shown to readers.

Inside ``with recording() as rec:`` (what ``bookbuild diff`` and the per-choice variants of a chapter
use), ``check`` records every guard it evaluates in ``rec.records`` instead of raising, so a chapter
computed for other inputs still yields all its values and says which of its claims no longer hold.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable

from .errors import MlsysimError

AUDIENCES = ("reader", "author")


class GuardError(MlsysimError, AssertionError):
    """A claim the prose makes about the numbers no longer holds. The message is what the book shows."""


@dataclass
class Recorder:
    """The guards evaluated while it was active: ``{"file", "line", "passed", "message", "zh", "audience"}``.

    ``accept(filename)``: which callers' guards are recorded (default: every caller); a guard called from
    anywhere else (the library's own import-time checks, say) still raises."""
    records: list[dict] = field(default_factory=list)
    accept: Callable[[str], bool] | None = None

    def failed(self, audience: str | None = None) -> list[dict]:
        return [r for r in self.records if not r["passed"] and audience in (None, r["audience"])]


_RECORDER: ContextVar[Recorder | None] = ContextVar("mlsysim_guard_recorder", default=None)


@contextmanager
def recording(accept: Callable[[str], bool] | None = None):
    """Record guards instead of raising them, for the duration of the ``with`` block (``accept``: see
    :class:`Recorder`)."""
    rec = Recorder(accept=accept)
    token = _RECORDER.set(rec)
    try:
        yield rec
    finally:
        _RECORDER.reset(token)


def is_recording() -> bool:
    return _RECORDER.get() is not None


def check(condition, message: str, *, zh: str | None = None, audience: str = "reader", _depth: int = 1) -> None:
    """Raise :class:`GuardError` with ``message`` unless ``condition`` holds.

    ``zh``: the same claim in Chinese, for a reader of the Chinese book whose chosen hardware breaks it
    (the book's own build fails in English, as before). ``audience``: ``"reader"`` for a claim of the
    prose, ``"author"`` for a regression pin (see :func:`pin`)."""
    if audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}, got {audience!r}")
    rec = _RECORDER.get()
    if rec is not None:
        frame = sys._getframe(_depth)
        if rec.accept is None or rec.accept(frame.f_code.co_filename):
            rec.records.append({"file": frame.f_code.co_filename, "line": frame.f_lineno, "passed": bool(condition),
                                "message": str(message), "zh": zh or "", "audience": audience})
            return
    if not condition:
        raise GuardError(message)


def pin(condition, message: str) -> None:
    """A regression pin for authors: an identity of the code, which holds for every choice and input (the
    suite runs every choice and draws live inputs, and fails on a pin that breaks); fails the build like
    :func:`check`, never shown to readers."""
    check(condition, message, audience="author", _depth=2)


def pin_seed(condition, message: str) -> None:
    """A seed's value the book's reference must reproduce (48 trajectories, 29 sessions): fails the reference
    build like :func:`pin`, never shown. For any other choice or live input it does not apply and records
    nothing: the prose around such a value must be computed so that it holds there too."""
    from .scenario import reference_scenario
    if reference_scenario().is_reference:
        check(condition, message, audience="author", _depth=2)
