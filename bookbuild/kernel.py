"""Each chapter in its own process: Quarto's "one kernel per document", without a Jupyter kernel.

The build process imports the heavy, read-only modules once (``mlsysim``, numpy, matplotlib),
then forks one child per chapter; the child runs :func:`bookbuild.execute.execute_chapter` and
sends back the :class:`ExecutedChapter` (or the one-line :class:`BuildError`) through a pipe. So:

- no state leaks between chapters or books: a cell that sets ``matplotlib.rcParams`` or patches
  ``mlsysim.fmt_int`` changes its own process only;
- a crash or ``os._exit`` in a cell is that chapter's failure, named with the cell it was in;
- a cell that runs too long is stopped (``SIGALRM`` in the child; the parent kills a child that
  does not answer), named with its file, line and label;
- chapters run in parallel, as many at once as the machine has cores.

Why not a Jupyter kernel per chapter (what Quarto drives): measured on the 2-core machine, starting
an ipykernel and importing mlsysim in it costs about 1.5 s per chapter before the first cell runs
(``bench/run.py``: ``kernel_start``), against a few milliseconds for a fork of a process that has
already imported mlsysim; with five chapters and a 4 s budget for the whole cold build, the kernel
cannot fit. The child executes cells with the Jupyter semantics ``bookbuild.execute`` implements
(display hooks, the last expression's value, ``;``, figures closed per cell).
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from .errors import BuildError, CellError

#: generous: the book's slowest cell takes about a second
DEFAULT_CELL_TIMEOUT = 120.0
#: what one cell may print or display
DEFAULT_OUTPUT_CAP = 1_000_000
#: how long the parent waits past the cell time limit before it kills a child that does not answer
GRACE = 5.0

#: modules the build imports once, before forking, so each chapter starts warm
PRELOAD = ("numpy", "pint", "matplotlib", "mlsysim")


@dataclass(frozen=True)
class Job:
    """What one chapter execution needs (everything picklable)."""
    key: str                       # a name for messages and results (usually "<profile>:<path>")
    path: Path                     # the chapter, absolute
    root: Path
    fig_dir: Path
    md_dir: Path
    execute_options: dict[str, Any] = field(default_factory=dict)
    profile: str | None = None
    env: dict[str, str] = field(default_factory=dict)   # extra environment (e.g. a scenario override)
    task: str = "chapter"          # "chapter": execute it; "variants": its cells once per choice (variants.py)
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class Limits:
    cell_timeout: float = DEFAULT_CELL_TIMEOUT
    output_cap: int = DEFAULT_OUTPUT_CAP
    parallel: int = 0               # 0: one per core


def preload(root: Path | None = None, drawing: bool = True) -> None:
    """Import what every chapter imports, once, in the build process (before any fork).

    The project root comes first on ``sys.path`` while importing, as it does for the chapters, so a
    project's own ``mlsysim`` is the one preloaded (and the one the cache key covers). ``drawing``:
    also ``matplotlib.pyplot`` (0.6 s), worth it only when figures will be drawn rather than taken
    from the figure cache."""
    os.environ.setdefault("MPLBACKEND", "agg")
    saved = list(sys.path)
    if root is not None:
        sys.path.insert(0, str(root))
    try:
        for name in PRELOAD:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - a chapter that needs it reports the error itself
                pass
    finally:
        sys.path[:] = saved
    try:
        import matplotlib
        matplotlib.use("agg")
        if drawing:
            import matplotlib.pyplot  # noqa: F401
    except Exception:  # noqa: BLE001
        pass


class _Reporter:
    """The child's side of the pipe: progress (which cell runs) and the final result."""

    def __init__(self, conn):
        self.conn = conn

    def cell(self, file: str, line: int, label: str | None) -> None:
        self.conn.send(("cell", file, line, label))


def _record_reads(root: Path, skip: list[Path]) -> set[str]:
    """Files under ``root`` that this process opens from now on (an audit hook; imports included,
    a compiled ``__pycache__/x.pyc`` counted as its ``x.py``)."""
    reads: set[str] = set()
    base = str(Path(root).resolve()) + os.sep
    skips = [str(Path(s).resolve()) + os.sep for s in skip]

    def hook(event, args):
        if event != "open" or not args:
            return
        path = args[0]
        if isinstance(path, int):
            return
        try:
            p = os.path.abspath(os.fsdecode(path))
        except (TypeError, ValueError):
            return
        mode = args[1] if len(args) > 1 else "r"
        if mode is not None and any(c in str(mode) for c in "wax+"):
            return
        if not p.startswith(base) or any(p.startswith(s) for s in skips):
            return
        if "__pycache__" in p and p.endswith(".pyc"):
            d, name = os.path.split(p)
            p = os.path.join(os.path.dirname(d), name.split(".")[0] + ".py")
        reads.add(os.path.relpath(p, base))
    sys.addaudithook(hook)
    return reads


def _recorded_guards(root: Path, rec) -> list[dict]:
    """The guards ``mlsysim.check`` recorded, files relative to root."""
    return [dict(r, file=_rel(r["file"], root) or r["file"]) for r in (rec.records if rec else [])]


def _child(job: Job, limits: Limits, conn) -> None:
    from .cache import mlsysim_dir
    from .execute import execute_chapter
    os.environ.update(job.env)
    rep = _Reporter(conn)
    skip = [job.root / "_build", job.root / "_book", job.root / ".venv"]
    m = mlsysim_dir()
    if m:
        skip.append(m)   # in the cache key whole
    reads = _record_reads(job.root, skip)
    try:
        if job.task == "variants":
            from .variants import run_batch
            result = run_batch(job.root, job.path, job.payload["batch"], limits.cell_timeout, progress=rep.cell)
        else:
            record = job.env.get("MLSYSIM_GUARDS") == "record"
            with (_recording() if record else contextlib.nullcontext()) as rec:
                ec = execute_chapter(job.path, job.root, job.fig_dir, md_dir=job.md_dir,
                                     execute_options=job.execute_options, profile=job.profile,
                                     cell_timeout=limits.cell_timeout, output_cap=limits.output_cap,
                                     on_cell=rep.cell)
            ec.guards = _recorded_guards(job.root, rec)
            result = (ec, sorted(reads))
        conn.send(("done", result))
    except BuildError as e:
        conn.send(("error", e))
    except BaseException as e:  # noqa: BLE001 - anything else is still one line for the author
        tb = traceback.extract_tb(e.__traceback__)
        where = f" ({tb[-1].filename}:{tb[-1].lineno})" if tb else ""
        conn.send(("error", BuildError(job.path, None, f"the build failed executing this chapter: "
                                                       f"{type(e).__name__}: {e}{where}")))
    finally:
        conn.close()
        sys.stdout.flush()
        os._exit(0)


def _recording():
    from mlsysim.guards import recording
    return recording()


@dataclass
class _Running:
    job: Job
    proc: Any
    conn: Any
    cell: tuple[str, int, str | None] | None = None
    cell_started: float = 0.0
    result: Any = None


def _context():
    # fork: the child inherits the preloaded modules; where fork is missing, spawn still isolates
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def run_jobs(jobs: list[Job], limits: Limits | None = None, drawing: bool = True) -> dict[str, Any]:
    """Run every job in its own process; returns ``{job.key: ExecutedChapter | BuildError}``."""
    limits = limits or Limits()
    if not jobs:
        return {}
    preload(jobs[0].root, drawing)
    ctx = _context()
    width = limits.parallel or os.cpu_count() or 1
    pending = list(jobs)
    running: list[_Running] = []
    results: dict[str, Any] = {}
    try:
        while pending or running:
            while pending and len(running) < width:
                job = pending.pop(0)
                parent, child = ctx.Pipe(duplex=False)
                p = ctx.Process(target=_child, args=(job, limits, child), daemon=True)
                p.start()
                child.close()
                running.append(_Running(job, p, parent, cell_started=time.monotonic()))
            ready = wait([r.conn for r in running] + [r.proc.sentinel for r in running], timeout=0.5)
            now = time.monotonic()
            for r in list(running):
                if r.conn in ready:
                    _drain(r)
                if r.result is not None or not r.proc.is_alive():
                    if r.result is None:
                        r.proc.join(1)
                        _drain(r)   # a last message may still be in the pipe
                    if r.result is None:
                        r.result = _died(r)
                    r.proc.join(5)
                    r.conn.close()
                    results[r.job.key] = r.result
                    running.remove(r)
                elif now - r.cell_started > limits.cell_timeout + GRACE:
                    r.proc.kill()
                    r.proc.join(5)
                    r.conn.close()
                    results[r.job.key] = _timed_out(r, limits)
                    running.remove(r)
    finally:
        for r in running:
            r.proc.kill()
    return results


def _drain(r: _Running) -> None:
    """Read every message waiting from a chapter's process: progress (the cell it runs) or its result."""
    try:
        while r.conn.poll():
            msg = r.conn.recv()
            if msg[0] == "cell":
                r.cell, r.cell_started = msg[1:], time.monotonic()
            else:
                r.result = msg[1]
    except (EOFError, OSError):
        pass


def _where(r: _Running) -> tuple[str | None, int | None, str | None]:
    if r.cell:
        return r.cell
    return str(r.job.path), None, None


def _died(r: _Running) -> BuildError:
    file, line, label = _where(r)
    code = r.proc.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
    return CellError(_rel(file, r.job.root), line,
                     f"the chapter's process {how} before the chapter finished: a cell ended "
                     "the process (os._exit, sys.exit from a thread, a crash in native code); "
                     "remove that call", label)


def _timed_out(r: _Running, limits: Limits) -> BuildError:
    file, line, label = _where(r)
    return CellError(_rel(file, r.job.root), line,
                     f"the cell ran longer than the cell time limit of {limits.cell_timeout:g} s and "
                     "did not stop when interrupted: make it finish, or raise --cell-timeout", label)


def _rel(file: str | None, root: Path) -> str | None:
    if not file:
        return file
    try:
        return Path(file).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return file


class CellTimeout(BaseException):
    """Raised inside a cell by the alarm: a BaseException, so a cell's ``except Exception`` cannot
    swallow it."""


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
