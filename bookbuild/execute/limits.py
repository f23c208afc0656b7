"""The limits of one cell: a time limit (``SIGALRM``) and an output cap."""
from __future__ import annotations

import signal
from typing import Any


class CellTimeout(BaseException):
    """Raised inside a cell by the alarm: a BaseException, so a cell's ``except Exception`` cannot
    swallow it."""


class OutputCapExceeded(Exception):
    """A cell printed more than the output cap."""


def arm(seconds: float) -> None:
    """Start the time limit for one cell (``SIGALRM``; POSIX only, main thread)."""
    if seconds and hasattr(signal, "setitimer"):
        def _raise(_sig, _frm):
            raise CellTimeout()
        signal.signal(signal.SIGALRM, _raise)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def disarm() -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


class Outputs:
    """Ordered outputs of one chunk: ``["stream", text]`` and ``["display", obj]``, at most ``cap``
    characters of text (0: no cap). Stands in for ``sys.stdout`` and ``display()`` while the cell runs."""

    def __init__(self, cap: int = 0) -> None:
        self.items: list[list[Any]] = []
        self.cap = cap
        self.size = 0

    def write(self, s: str) -> int:
        self.size += len(s)
        if self.cap and self.size > self.cap:
            raise OutputCapExceeded(self.size)
        if self.items and self.items[-1][0] == "stream":
            self.items[-1][1] += s
        else:
            self.items.append(["stream", s])
        return len(s)

    def flush(self) -> None:
        pass

    def display(self, *objs: Any, **_kw: Any) -> None:
        for o in objs:
            self.items.append(["display", o])
