"""The errors mlsysim raises. Each message names the entry and field, and what to change."""
from __future__ import annotations

import os
import re
from pathlib import Path


class MlsysimError(Exception):
    """Base class of every error this package raises on purpose.

    A reader's input the book refuses also carries what it means apart from its English words: ``code``
    (a name, e.g. ``out_of_range``) and ``params`` (the input, the numbers, as texts), so a page words it in
    its own language (the book's UI strings ``why_<code>``; bookbuild/book/ui/). The message stays English."""

    def __init__(self, *args, code: str | None = None, **params) -> None:
        super().__init__(*args)
        self.code = code
        self.params = {k: v if isinstance(v, str) else str(v) for k, v in params.items()}

    @property
    def why(self) -> dict[str, str] | None:
        """``{"code": code, **params}``, or None for an error without a code."""
        return {"code": self.code, **self.params} if self.code else None


def shown_path(path: str | os.PathLike) -> str:
    """``path`` as a message names it: relative to the working folder when it lies under it
    (``mlsysim/data/accelerators.toml`` from the project), else as it is."""
    p = Path(path)
    try:
        return p.relative_to(Path.cwd()).as_posix() if p.is_absolute() else p.as_posix()
    except (ValueError, OSError):   # outside the working folder, or no working folder any more
        return p.as_posix()


#: a registry message: ``<data file>[:<line>]: <what is wrong with which entry and field>``
_WHERE = re.compile(r"(?P<path>[^\n]*?\.(?:toml|txt))(?::(?P<line>\d+))?: (?P<detail>.*)", re.S)


class RegistryError(MlsysimError, ValueError):
    """A registry data file is malformed: wrong unit, missing field, unknown precision, duplicate name.

    Its text is one line, ``<file>[:<line>]: [entry] field: what to change`` (the file relative to the
    working folder when under it); :attr:`path`, :attr:`line` and :attr:`detail` are its parts, for a
    caller that names the file its own way (``bookbuild check``, relative to the project). Uncaught, it
    prints as that one line: in a notebook through IPython's ``_render_traceback_``, and in a script
    through the hook ``import mlsysim`` installs when the registry fails to load."""

    def __init__(self, message: str, *args) -> None:
        super().__init__(message, *args)
        text = str(message).replace("\r", " ").replace("\n", " ")   # one line, whatever a caller passes
        m = _WHERE.fullmatch(text)
        self.path = Path(m["path"]) if m else None
        self.line = int(m["line"]) if m and m["line"] else None
        self.detail = m["detail"] if m else text

    def __str__(self) -> str:
        if self.path is None:
            return self.detail
        return f"{shown_path(self.path)}" + (f":{self.line}" if self.line else "") + f": {self.detail}"

    def _render_traceback_(self) -> list[str]:   # IPython (Jupyter, Quarto's kernel): the one line
        return [f"mlsysim: error: {self}"]


def one_line_excepthook(previous):
    """``sys.excepthook`` that prints an uncaught :class:`RegistryError` as its one line (``previous``
    prints everything else)."""
    def hook(etype, value, tb):
        if isinstance(value, RegistryError):
            import sys
            sys.stderr.write(f"mlsysim: error: {value}\n")
        else:
            previous(etype, value, tb)
    hook.mlsysim_one_line = True
    return hook


class UnknownEntryError(MlsysimError, KeyError):
    """A name that is not in the registry; the message lists the names that are."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class UnknownPrecisionError(MlsysimError, KeyError):
    """A precision the accelerator does not publish (e.g. fp8 on A100, int4 on H100)."""

    def __str__(self) -> str:
        return self.args[0]


class UnitMismatchError(MlsysimError, TypeError):
    """A physics function received a quantity of the wrong dimension (or a bare number)."""


class ContextWindowError(MlsysimError, ValueError):
    """A context longer than the model's published context window."""


class DoesNotFitError(MlsysimError, ValueError):
    """The weights and the runtime reserve take all of a node's memory: nothing is left for attention state."""
