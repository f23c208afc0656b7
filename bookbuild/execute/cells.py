"""A cell's run: the one core under the chapter writer (:mod:`.runner`) and the choice writer
(:mod:`bookbuild.book.live.runtime`, in the build's variants and in the reader's browser under Pyodide).

Standard library only: the live bundle of each book (``live/``) ships this file as it is, under its own
module name, so a cell runs by the same rules wherever it runs:

- its code is compiled as the file it stands in (padded to the file's line numbers, named by its path);
- a cell's last expression is its displayed value, unless the cell's last code line ends with ``;``
  (Jupyter's rule);
- it runs in a fresh ``__main__`` module (:func:`new_module`), which is ``sys.modules["__main__"]`` while it
  runs (:func:`as_main`: pickling, dataclasses and ``Cls.__module__`` see what a kernel gives them), in the
  chapter's folder with the project first on ``sys.path`` (:func:`in_folder`; the build's only: a page has no folder);
- ``QUARTO_PROFILE`` is the book's profile while it runs (:func:`profile`), as Quarto sets it;
- what it prints is held in :class:`Outputs`, capped: past the cap the cell stops with :class:`OutputCapExceeded`;
- a failure is worded once (:func:`failure_text`): the class-scope trap of a LEGO cell gets its hint,
  ``sys.exit`` and the output cap their sentence, anything else ``Type: message``.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import os
import sys
import types
from dataclasses import dataclass
from typing import Any, Callable


class OutputCapExceeded(Exception):
    """A cell printed more than the output cap."""


class Outputs:
    """Ordered outputs of one cell: ``["stream", text]`` and ``["display", obj]``, at most ``cap`` characters
    of text (0: no cap). Stands in for ``sys.stdout`` and ``display()`` while the cell runs; ``keep=False``
    counts the text without keeping it (a choice's cells print nothing anyone reads)."""

    def __init__(self, cap: int = 0, keep: bool = True) -> None:
        self.items: list[list[Any]] = []
        self.cap, self.keep, self.size = cap, keep, 0

    def write(self, s: str) -> int:
        self.size += len(s)
        if self.cap and self.size > self.cap:
            raise OutputCapExceeded(self.size)
        if not self.keep:
            return len(s)
        if self.items and self.items[-1][0] == "stream":
            self.items[-1][1] += s
        else:
            self.items.append(["stream", s])
        return len(s)

    def flush(self) -> None:
        pass

    def display(self, *objs: Any, **_kw: Any) -> None:
        if self.keep:
            self.items.extend(["display", o] for o in objs)


def padded(code: str, line: int) -> str:
    """``code`` after ``line - 1`` blank lines: its line numbers are those of the file it stands in."""
    return "\n" * (int(line) - 1) + code


@dataclass(frozen=True)
class CellCode:
    """A cell compiled: its statements, its last expression (None: the cell does not end in one) and whether
    a ``;`` hides that expression's value; ``tree`` the statements' AST (what the runner inspects)."""
    body: types.CodeType
    last: types.CodeType | None
    suppress: bool
    tree: ast.Module


def ends_with_semicolon(source: str) -> bool:
    """Jupyter's rule: a cell whose last code line (comments aside) ends with ``;`` displays nothing."""
    lines = [ln.split("#", 1)[0].rstrip() for ln in source.split("\n")]
    lines = [ln for ln in lines if ln]
    return bool(lines) and lines[-1].endswith(";")


@functools.lru_cache(maxsize=512)
def compile_cell(source: str, filename: str) -> CellCode:
    """``source`` (already padded) compiled as ``filename``; a syntax error is raised as Python raises it.
    Kept by its text: every choice runs the same cells, and running a code object never changes it."""
    tree = ast.parse(source, filename=filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
    return CellCode(compile(tree, filename, "exec"), last, ends_with_semicolon(source), tree)


def execute(code: CellCode, namespace: dict) -> Any:
    """Run ``code`` in ``namespace``; the value the cell displays (None when it displays none)."""
    exec(code.body, namespace)
    if code.last is None:
        return None
    value = eval(code.last, namespace)
    return None if code.suppress else value


def new_module(display: Callable[..., None] | None = None) -> types.ModuleType:
    """A fresh ``__main__`` for a chapter's cells, with ``display()`` as a kernel gives it."""
    module = types.ModuleType("__main__")
    module.__dict__["__builtins__"] = builtins
    module.__dict__["display"] = display or (lambda *a, **k: None)
    return module


@contextlib.contextmanager
def as_main(module: types.ModuleType):
    """``module`` is ``sys.modules["__main__"]`` for the block."""
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


@contextlib.contextmanager
def in_folder(folder: str, root: str):
    """``folder`` (the chapter's) as the working directory and ``root`` (the project) first on ``sys.path``,
    as a kernel started for the chapter has them."""
    cwd, path = os.getcwd(), list(sys.path)
    os.chdir(folder)
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        yield
    finally:
        os.chdir(cwd)
        sys.path[:] = path


@contextlib.contextmanager
def profile(name: str | None):
    """``QUARTO_PROFILE`` is ``name`` for the block (unchanged when None), as Quarto sets it for the code it runs."""
    if not name:
        yield
        return
    saved = os.environ.get("QUARTO_PROFILE")
    os.environ["QUARTO_PROFILE"] = name
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("QUARTO_PROFILE", None)
        else:
            os.environ["QUARTO_PROFILE"] = saved


_COMPREHENSIONS = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"})

#: what a NameError in a class body's comprehension adds (the trap of a LEGO cell's EXECUTE block)
CLASS_SCOPE_HINT = (" (a comprehension in a class body cannot read the class's own names: Python's class scope; "
                    "pass them in: a function of its inputs defined before the class, e.g. "
                    "scaled = scale_all(items, scale), notes/CHAPTERS.md)")


def in_class_comprehension(e: BaseException, filenames: str | frozenset[str]) -> bool:
    """``e`` was raised in a comprehension of a cell (of the file, or one of the files, ``filenames``) that a
    class body runs: the class's names are not visible there (Python's class scope)."""
    names = {filenames} if isinstance(filenames, str) else filenames
    tb, frames = e.__traceback__, []
    while tb is not None:
        frames.append(tb.tb_frame.f_code)
        tb = tb.tb_next
    for outer, code in zip(frames, frames[1:]):
        if code.co_filename in names and code.co_name in _COMPREHENSIONS and outer.co_filename == code.co_filename \
                and outer.co_name not in ("<module>", *_COMPREHENSIONS) and not outer.co_flags & 0x3:
            return True
    return False


def failure_text(e: BaseException, filenames: str | frozenset[str], output_cap: int = 0) -> str:
    """What a cell's failure says, wherever the cell ran (a chapter's error names its place besides);
    ``filenames``: the file (or files) the failing cells were compiled as."""
    if isinstance(e, OutputCapExceeded):
        return (f"the cell printed more than {output_cap:,} characters (the output limit of one cell): "
                "print less")
    if isinstance(e, SystemExit):
        return f"the cell called sys.exit({e.code!r}): a chapter cannot end the build; remove the call"
    text = f"{type(e).__name__}: {e}"
    if isinstance(e, NameError) and in_class_comprehension(e, filenames):
        text += CLASS_SCOPE_HINT
    return text
