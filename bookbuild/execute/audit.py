"""Which project files a computation opens while it runs (one audit hook per process).

The cache checks them on reuse, so a cell (or a check) that reads a data file its key did not foresee
still re-runs when that file changes. Imports count (a compiled ``__pycache__/x.pyc`` as its ``x.py``).
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

_ACTIVE: list["_Recorder"] = []
_INSTALLED = [False]


class _Recorder:
    def __init__(self, root: Path, skip: list[Path]):
        self.base = str(Path(root).resolve()) + os.sep
        self.skips = [str(Path(s).resolve()) + os.sep for s in skip]
        self.reads: set[str] = set()

    def note(self, p: str) -> None:
        if not p.startswith(self.base) or any(p.startswith(s) for s in self.skips):
            return
        if "__pycache__" in p and p.endswith(".pyc"):
            d, name = os.path.split(p)
            p = os.path.join(os.path.dirname(d), name.split(".")[0] + ".py")
        self.reads.add(os.path.relpath(p, self.base))


def _hook(event, args):
    if event != "open" or not _ACTIVE or not args or isinstance(args[0], int):
        return
    mode = args[1] if len(args) > 1 else "r"
    if mode is not None and any(c in str(mode) for c in "wax+"):
        return
    try:
        p = os.path.abspath(os.fsdecode(args[0]))
    except (TypeError, ValueError):
        return
    for r in _ACTIVE:
        r.note(p)


def _install() -> None:
    if not _INSTALLED[0]:
        sys.addaudithook(_hook)
        _INSTALLED[0] = True


def record_reads(root: Path, skip: list[Path]) -> set[str]:
    """From now on in this process: files under ``root`` (outside ``skip``) opened for reading, relative
    to ``root``; the set fills as the process runs."""
    _install()
    r = _Recorder(root, skip)
    _ACTIVE.append(r)
    return r.reads


@contextlib.contextmanager
def reading(root: Path, skip: list[Path]):
    """The same for the duration of a ``with`` block."""
    _install()
    r = _Recorder(root, skip)
    _ACTIVE.append(r)
    try:
        yield r.reads
    finally:
        _ACTIVE.remove(r)
