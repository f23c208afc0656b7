"""How a chapter's cells run: :class:`Runner`, with the semantics of Quarto's Jupyter engine.

One fresh namespace per run (like one kernel per document), the project root first on ``sys.path``,
the chapter's folder as the working directory, ``QUARTO_PROFILE`` set to the profile as Quarto sets
it. Cells run in order with their ``#|`` options (``eval``, ``echo``, ``output``, ``include``, figure
sizes), each through the one core of a cell's run (:mod:`.cells`: how it is compiled, which value it
displays, its ``__main__``, the profile, the output cap, how a failure is worded), which the reader's
choices and live mode run too; matplotlib figures close after each cell (Jupyter's inline backend);
``display()`` collects outputs. Each cell has a time limit (:mod:`.limits`).

:meth:`Runner.chapter` runs every cell and substitutes the inline expressions: the executed chapter.
(The reader's choices and live mode run a chapter's kept cells through :mod:`bookbuild.book.live.runtime`,
which imports only :mod:`.cells` of bookbuild, so that the browser's Pyodide runs the same files.)
What the engine does not know (marking inline values, explaining them) comes through :class:`Hooks`.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..errors import BuildError, CellError, GuardFailure, InlineError
from ..source import Cell, Document, InlineUse, Origin, headings
from ..text import INLINE_CODE, INLINE_PY
from . import cells as C
from . import display as D
from .limits import CellTimeout, RawOutputExceeded, arm, disarm, raw_output_exceeded

DEFAULT_FIG_SIZE = (7.0, 5.0)   # Quarto's default fig-width/fig-height for HTML
#: an inline expression that only reads a name or its attributes (``ServingRef.ratio_str``)
READ = re.compile(r"^\s*[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\s*$")


@dataclass
class CellInfo:
    label: str | None
    file: str
    line: int                      # line of the opening fence in `file`
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExecutedChapter:
    """A chapter after execution: markdown with no Python left, and what the run recorded."""
    source: Path                   # relative to root
    markdown: str                  # pandoc markdown, front matter kept
    front_matter: dict[str, Any]
    title: str
    line_map: list[Origin]         # origin of every line of `markdown`
    inline: list[InlineUse]        # inline expressions with their values, in order
    figures: list[Path]            # figure files written
    files: list[str]               # the chapter and every file it includes (relative)
    cells: list[CellInfo]
    extras: dict[str, Any] = field(default_factory=dict)   # what the hooks attached (JSON data)
    #: what a prose edit needs to assemble the chapter again without running it (:mod:`.replay`): each
    #: cell's output lines, and each inline read's value by (expression, cells run before it)
    replay: dict[str, Any] = field(default_factory=dict)

    def origin(self, md_line: int) -> Origin:
        """Source file and line of a 1-based line of ``markdown``."""
        if 1 <= md_line <= len(self.line_map):
            return self.line_map[md_line - 1]
        return Origin(self.source.as_posix(), md_line)


class Hooks:
    """What a run lets the layer above add (the defaults add nothing)."""

    def around(self, doc: Document) -> contextlib.AbstractContextManager:
        """A context the whole run of ``doc`` happens in."""
        return contextlib.nullcontext()

    def inline(self, expr: str, value: str) -> str:
        """The markdown an inline value becomes (default: its text)."""
        return value

    def after_cell(self, cell: Cell, namespace: dict) -> None:
        """Called after each evaluated cell with the chapter's namespace."""

    def extras(self) -> dict[str, Any]:
        """JSON data to keep with the executed chapter."""
        return {}


@dataclass
class RunOptions:
    root: Path
    fig_dir: Path
    md_dir: Path
    execute: dict[str, Any] = field(default_factory=dict)   # the project's execute: options
    profile: str | None = None
    cell_timeout: float = 0
    output_cap: int = 0
    memory_limit: int = 0          # MB of address space of the chapter's process (0: none)
    on_cell: Callable[[str, int, str], None] | None = None   # progress: (file, line, cell tag)
    raw_errors: bool = False       # a failing cell raises its own exception, not a one-line book error


class Runner:
    """Runs one document's cells in a fresh namespace (see the module's docstring)."""

    def __init__(self, doc: Document, opts: RunOptions, hooks: Hooks | None = None):
        self.doc, self.opts, self.hooks = doc, opts, hooks or Hooks()
        self.root = Path(opts.root).resolve()
        self.path = self.root / doc.path
        self.defaults = dict(opts.execute)
        ex = doc.front_matter.get("execute")
        if isinstance(ex, dict):
            self.defaults.update(ex)
        for k in ("echo", "eval", "output", "warning", "include"):
            if k in doc.front_matter:
                self.defaults[k] = doc.front_matter[k]
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(doc.path).with_suffix("").as_posix())
        self.sink = D.FigureSink(Path(opts.fig_dir).resolve(), Path(opts.md_dir).resolve(), slug)
        self.module = C.new_module(self._display)
        self.ns = self.module.__dict__
        self._outputs: C.Outputs | None = None
        self.last_ran: Cell | None = None   # the cell that ran last (a process it left running may write after it)
        self.inline: list[InlineUse] = []
        self.cells: list[CellInfo] = []
        self.blocks: list[list[str]] = []                     # each rendered cell's output lines
        self.values: dict[tuple[str, int], str | None] = {}   # an inline read's value (None: it varied)

    def _display(self, *objs: Any, **kw: Any) -> None:
        if self._outputs is not None:
            self._outputs.display(*objs, **kw)
        else:  # pragma: no cover - display outside a chunk
            print(*objs)

    def opt(self, cell: Cell, key: str, default: Any) -> Any:
        return cell.options[key] if key in cell.options else self.defaults.get(key, default)

    # ------------------------------------------------------------ runs
    def chapter(self) -> ExecutedChapter:
        """Run every cell, substitute the inline expressions, assemble the executed markdown."""
        doc = self.doc
        cells = {c.fence.start: c for c in doc.cells}
        fences = {f.start: f for f in doc.fences}
        out: list[tuple[str, Origin]] = list(zip(doc.lines[: doc.front_end + 1], doc.origins[: doc.front_end + 1]))
        with self._sandbox():
            i = doc.front_end + 1
            while i < len(doc.lines):
                f = fences.get(i)
                if f is None:
                    out.append((self._substitute(doc.lines[i], doc.origins[i]), doc.origins[i]))
                    i += 1
                    continue
                if f.exec_lang is not None and f.exec_lang != "python":
                    o = doc.origins[i]
                    raise CellError(o.file, o.line, f"unsupported executable chunk {f.info}: "
                                                    "this book runs {python} chunks only")
                if f.start in cells:
                    out.extend((b, doc.origins[i]) for b in self._cell_lines(cells[f.start]))
                else:
                    out.extend(zip(doc.lines[f.start: f.end + 1], doc.origins[f.start: f.end + 1]))
                i = f.end + 1
        return self._executed(out)

    def _cell_lines(self, cell: Cell) -> list[str]:
        lines = self._run_cell(cell, render=True)
        self.blocks.append(lines)
        return lines

    def _executed(self, out: list[tuple[str, Origin]]) -> ExecutedChapter:
        md_lines: list[str] = []
        line_map: list[Origin] = []
        for text, origin in out:
            for part in text.split("\n"):
                md_lines.append(part)
                line_map.append(origin)
        title = self.doc.front_matter.get("title") or next((h.text for h in headings(md_lines) if h.level == 1), "")
        return ExecutedChapter(
            source=Path(self.doc.path), markdown="\n".join(md_lines) + "\n", front_matter=self.doc.front_matter,
            title=str(title), line_map=line_map, inline=self.inline, figures=self.sink.written,
            files=list(self.doc.files), cells=self.cells, extras=self.hooks.extras(),
            replay={"blocks": self.blocks,
                    "values": [[e, n, v] for (e, n), v in self.values.items() if v is not None]})

    @contextlib.contextmanager
    def _sandbox(self):
        """The chapter's folder as the working directory, the project first on ``sys.path``, and the core's
        ``__main__`` and profile (:mod:`.cells`) around the whole chapter."""
        if "matplotlib" not in sys.modules:
            os.environ["MPLBACKEND"] = "agg"
        try:
            with C.in_folder(str(self.path.parent), str(self.root)), C.as_main(self.module), \
                    C.profile(self.opts.profile), self.hooks.around(self.doc):
                yield
        finally:
            _close_figures()

    # ------------------------------------------------------------ one cell
    def _run_cell(self, cell: Cell, render: bool) -> list[str]:
        self.cells.append(CellInfo(cell.label, cell.head.file, cell.head.line, cell.options))
        code = self._compiled(cell)
        outputs = C.Outputs(self.opts.output_cap)
        figs: list[Any] = []
        if self.opts.on_cell is not None:
            self.opts.on_cell(cell.head.file, cell.head.line, cell.tag)
        if self.opt(cell, "eval", True):
            figs = self._exec(cell, code, outputs)
            self.hooks.after_cell(cell, self.ns)
        if not render or self.opt(cell, "include", True) is False:
            _close_figures()
            return [""]
        blocks = self._blocks(cell, outputs, figs)
        _close_figures()   # Jupyter's inline backend closes a cell's figures
        output = self.opt(cell, "output", True)
        if not blocks:
            return [""]
        if output == "asis" and not self.opt(cell, "echo", False):
            return blocks
        return ["::: {.cell}", "\n\n".join(blocks), ":::"]

    def _blocks(self, cell: Cell, outputs: C.Outputs, figs: list[Any]) -> list[str]:
        echo, output = self.opt(cell, "echo", False), self.opt(cell, "output", True)
        blocks = [D.echo_block(cell, echo)] if echo else []
        if output is False:
            return blocks
        try:
            blocks += D.output_blocks(outputs, figs, cell, self.sink, asis=(output == "asis"))
        except ValueError as e:
            raise CellError(cell.head.file, cell.head.line, str(e), cell.tag) from None
        size = sum(len(b) for b in blocks)
        if self.opts.output_cap and size > self.opts.output_cap:
            raise CellError(cell.head.file, cell.head.line, f"the cell's output is {size:,} characters, over "
                            f"the output limit of one cell ({self.opts.output_cap:,}): show less", cell.tag)
        return blocks

    def _compiled(self, cell: Cell) -> C.CellCode:
        try:
            return C.compile_cell(cell.source, str(self.root / cell.body.file))
        except SyntaxError as e:
            raise CellError(cell.body.file, e.lineno, f"syntax error: {e.msg}", cell.tag) from None

    def _exec(self, cell: Cell, code: C.CellCode, outputs: C.Outputs) -> list[Any]:
        filename = str(self.root / cell.body.file)
        self._prepare_matplotlib(cell, code.tree)
        self._outputs = outputs
        undo = _patch_ipython(self._display) if "IPython" in sys.modules else None
        if raw_output_exceeded():   # written between cells, by a process an earlier cell left running
            raise self.left_running_error()
        self.last_ran = cell
        try:
            with contextlib.redirect_stdout(outputs), contextlib.redirect_stderr(io.StringIO()):
                arm(self.opts.cell_timeout)
                try:
                    value = C.execute(code, self.ns)
                    if value is not None and not D.is_artist(value):
                        outputs.display(value)
                    if raw_output_exceeded():   # what the pipe held when the cell ended
                        raise RawOutputExceeded()
                finally:
                    disarm()
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - every failure of a cell is one book error
            if self.opts.raw_errors:
                raise
            raise self._cell_error(e, filename, cell) from None
        finally:
            self._outputs = None
            if undo:
                undo()
        plt = sys.modules.get("matplotlib.pyplot")
        return [plt.figure(n) for n in plt.get_fignums()] if plt else []

    def _cell_error(self, e: BaseException, filename: str, cell: Cell) -> BuildError:
        rel, tag = cell.body.file, cell.tag
        line, inner = _traceback_line(e, filename)
        if any(c.__name__ == "GuardError" for c in type(e).__mro__):
            text = str(e.args[0]) if e.args else str(e)
            return GuardFailure(rel, line, f"guard failed: {text}", tag)
        if isinstance(e, CellTimeout):
            return CellError(rel, line, f"the cell ran longer than the cell time limit of "
                                        f"{self.opts.cell_timeout:g} s (stopped here): make it finish, "
                                        "or raise --cell-timeout", tag)
        if isinstance(e, RawOutputExceeded):
            return CellError(rel, line, f"the cell wrote more than {self.opts.output_cap:,} bytes to the "
                                        "process's output (os.write, a child process, or one an earlier cell left "
                                        "running; the output limit of a chapter's process): write less", tag)
        if isinstance(e, MemoryError) and self.opts.memory_limit:
            return CellError(rel, line, f"the cell ran out of memory (a chapter's process may use "
                                        f"{self.opts.memory_limit:,} MB): use less, or raise --memory-limit", tag)
        msg = C.failure_text(e, filename, self.opts.output_cap)
        if isinstance(e, (C.OutputCapExceeded, SystemExit)):
            return CellError(rel, line, msg, tag)
        if inner and inner[0] != filename and not inner[0].startswith("<"):
            msg += f" (raised in {_rel(Path(inner[0]), self.root)}:{inner[1]}, {inner[2]})"
        return CellError(rel, line, msg, tag)

    def left_running_error(self) -> CellError:
        """The chapter's process got more than the cap on its output after :attr:`last_ran` ended: from a
        process that cell, or an earlier one, left running (``subprocess.Popen`` not waited for)."""
        cell = self.last_ran
        where = (cell.head.file, cell.head.line, cell.tag) if cell else (Path(self.doc.path).as_posix(), None, "")
        return CellError(where[0], where[1], f"a process this cell or an earlier one left running wrote more than "
                                             f"{self.opts.output_cap:,} bytes to the chapter process's output after "
                                             "the cell ended (the output limit of a chapter's process): wait for it "
                                             "(subprocess.run), or write less", where[2])

    def _prepare_matplotlib(self, cell: Cell, tree: ast.Module) -> None:
        wants = ("fig-width" in cell.options or "fig-height" in cell.options
                 or str(cell.options.get("label", "")).startswith("fig-") or _imports_matplotlib(tree))
        if not wants and "matplotlib" not in sys.modules:
            return
        import matplotlib
        if "matplotlib.pyplot" not in sys.modules:
            matplotlib.use("agg")
        matplotlib.rcParams["svg.hashsalt"] = D.FIG_SALT
        w = float(self.opt(cell, "fig-width", DEFAULT_FIG_SIZE[0]))
        h = float(self.opt(cell, "fig-height", DEFAULT_FIG_SIZE[1]))
        matplotlib.rcParams["figure.figsize"] = (w, h)

    # ------------------------------------------------------------ inline expressions
    def _substitute(self, text: str, origin: Origin) -> str:
        if "{python}" not in text:
            return text

        def repl(m: re.Match) -> str:
            pm = INLINE_PY.match(m.group(2).strip())
            if not pm:
                return m.group(0)
            expr = pm.group("expr")
            value = self._inline_value(expr, origin)
            if READ.match(expr):   # a read gives the same value wherever it stands between the same cells
                seen = self.values.setdefault((expr, len(self.cells)), value)
                if seen != value:
                    self.values[(expr, len(self.cells))] = None
            self.inline.append(InlineUse(expr, origin.file, origin.line, value))
            return self.hooks.inline(expr.strip(), value)

        return INLINE_CODE.sub(repl, text)

    def _inline_value(self, expr: str, origin: Origin) -> str:
        where = f"inline `{{python}} {expr}`"
        try:
            value = eval(compile(expr, f"<inline {origin.file}:{origin.line}>", "eval"), self.ns)
        except SyntaxError as e:
            raise InlineError(origin.file, origin.line, f"{where} is not valid python: {e.msg}") from None
        except (NameError, AttributeError) as e:
            raise InlineError(origin.file, origin.line,
                              f"{where} does not resolve: {e} (define it in a cell above this line)") from None
        except Exception as e:  # noqa: BLE001 - any failure is a book error
            raise InlineError(origin.file, origin.line, f"{where} raised {type(e).__name__}: {e}") from None
        if not isinstance(value, str):   # a float or a quantity would print with whatever precision Python picks
            raise InlineError(origin.file, origin.line,
                              f"{where} is a {type(value).__name__}, not a formatted string: quote a *_str "
                              "attribute, whose cell formats the value once (fmt, fmt_int, ...)")
        return str.__str__(value)


def _close_figures() -> None:
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def _imports_matplotlib(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
            if any(n.startswith("matplotlib") for n in names):
                return True
    return False


def _patch_ipython(display: Callable) -> Callable[[], None]:
    patched = []
    for modname in ("IPython.display", "IPython.core.display_functions", "IPython.core.display"):
        mod = sys.modules.get(modname)
        if mod is not None and hasattr(mod, "display"):
            patched.append((mod, mod.display))
            mod.display = display

    def undo() -> None:
        for mod, fn in patched:
            mod.display = fn
    return undo


def _traceback_line(e: BaseException, filename: str) -> tuple[int | None, tuple | None]:
    """The line of the cell's file where ``e`` passed, and the innermost frame (file, line, function)."""
    tb, line, inner = e.__traceback__, None, None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn == filename:
            line = tb.tb_lineno
        inner = (fn, tb.tb_lineno, tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    if isinstance(e, SyntaxError) and e.filename == filename:
        line = e.lineno
    return line, inner


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()
