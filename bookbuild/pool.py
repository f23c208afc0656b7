"""A generic fork pool: each job runs a function in a process of its own.

The build process imports the heavy, read-only modules once (:func:`preload`), then forks one child
per job. A job names the function to run and its arguments (:class:`Job`); the child calls
``job.fn(*job.args, progress=report)``, where ``report(where)`` tells the parent what the child is
doing (a chapter's cell, say). The parent returns, per job, the function's result, or:

- :class:`Raised`: the function raised (the exception, when it pickles, else its text);
- :class:`Died`: the child ended before it answered (``os._exit`` in a cell, a crash in native code);
- :class:`Silent`: the child sent nothing for ``job.silence`` seconds and was killed.

Each child leads its own process group and adopts what its processes orphan; when the job ends, its
whole tree is killed (the group, and every process below it, even one that left the group), so
whatever a job started dies with it. A child dies with the build even when the build is killed
outright (``procs.guard_tree``), and :mod:`bookbuild.procs` stops every child when the build is
interrupted.
The pool knows nothing of chapters, cells or variants: timers and limits inside a job are the
job's own (see :mod:`bookbuild.execute`).

Why forks and not a Jupyter kernel per chapter (what Quarto drives): measured on the 2-core machine,
starting an ipykernel and importing the book's library in it costs about 1.5 s per chapter before the
first cell runs (``bench/run.py``: ``kernel_start``), against a few milliseconds for a fork of a
process that has already imported it.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, Callable, Iterable

from . import procs
from .errors import raised_at


@dataclass(frozen=True)
class Job:
    key: str                        # names the result
    fn: Callable[..., Any]          # called in the child as fn(*args, progress=report)
    args: tuple = ()
    silence: float = 0.0            # kill the child when it reports nothing for this long (0: never)
    weight: float = 0.0             # the work expected, in any unit: the heaviest jobs start first


@dataclass(frozen=True)
class Raised:
    error: Any                      # the exception (when it pickles), else its one-line text
    where: Any = None


@dataclass(frozen=True)
class Died:
    where: Any                      # the last progress the child reported (None: none)
    exitcode: int | None


@dataclass(frozen=True)
class Silent:
    where: Any
    seconds: float


def preload(modules: Iterable[str], path_first: Path | None = None) -> None:
    """Import ``modules`` once, before any fork (``path_first`` first on ``sys.path`` while importing,
    as the jobs will see it). A module that fails to import is left to the job that needs it."""
    saved = list(sys.path)
    if path_first is not None:
        sys.path.insert(0, str(path_first))
    try:
        for name in modules:
            try:
                __import__(name)
            except Exception:  # noqa: BLE001 - a job that needs it reports the error itself
                pass
    finally:
        sys.path[:] = saved


def _child(job: Job, conn, parent: int) -> None:
    os.setpgid(0, 0)
    procs.default_signals()
    procs.become_subreaper()
    procs.guard_tree(parent)
    try:
        result = ("done", job.fn(*job.args, progress=lambda where: conn.send(("at", where))))
    except BaseException as e:  # noqa: BLE001 - everything goes back to the parent as data
        result = ("raised", e, raised_at(e))
    procs.kill_tree(os.getpid(), group=False, self_too=False)   # what the job started ends before it answers
    try:
        conn.send(result)
    except Exception:  # noqa: BLE001 - an exception that does not pickle travels as text
        conn.send(("raised", f"{type(result[1]).__name__}: {result[1]}", result[2] if len(result) > 2 else None))
    finally:
        conn.close()
        sys.stdout.flush()
        os._exit(0)


@dataclass
class _Running:
    job: Job
    proc: Any
    conn: Any
    where: Any = None
    heard: float = 0.0
    result: Any = None
    done: bool = False


def _context():
    return mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")


def _start(ctx, job: Job) -> _Running:
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(job, child, os.getpid()), daemon=True)
    p.start()
    procs.register(p.pid, True)
    child.close()
    return _Running(job, p, parent, heard=time.monotonic())


def _drain(r: _Running) -> None:
    """Every message waiting from a child: progress, or its result."""
    try:
        while r.conn.poll():
            msg = r.conn.recv()
            if msg[0] == "at":
                r.where, r.heard = msg[1], time.monotonic()
            elif msg[0] == "done":
                r.result, r.done = msg[1], True
            else:
                r.result, r.done = Raised(msg[1], msg[2]), True
    except (EOFError, OSError):
        pass


def _finish(r: _Running, result: Any = None) -> Any:
    if result is not None:
        procs.kill_tree(r.proc.pid)
    r.proc.join(5)
    if result is None and not r.done:
        _drain(r)   # a last message may still be in the pipe
    procs.kill_group(r.proc.pid)
    procs.unregister(r.proc.pid)
    r.conn.close()
    if result is not None:
        return result
    return r.result if r.done else Died(r.where, r.proc.exitcode)


def run(jobs: list[Job], width: int = 0) -> dict[str, Any]:
    """Run every job in its own process, ``width`` at once (0: one per core), the heaviest first (their
    ``weight``; equal weights in the order given), so that a long job does not start last on a core."""
    if not jobs:
        return {}
    ctx = _context()
    procs.become_subreaper()   # what a job that died left running comes back to the build
    width = width or os.cpu_count() or 1
    pending, running, results = sorted(jobs, key=lambda j: -j.weight), [], {}
    try:
        while pending or running:
            while pending and len(running) < width:
                running.append(_start(ctx, pending.pop(0)))
            ready = wait([r.conn for r in running] + [r.proc.sentinel for r in running], timeout=0.5)
            now = time.monotonic()
            for r in list(running):
                if r.conn in ready:
                    _drain(r)
                silent = r.job.silence and now - r.heard > r.job.silence
                if r.done or not r.proc.is_alive() or silent:
                    results[r.job.key] = _finish(r, Silent(r.where, now - r.heard) if silent and not r.done else None)
                    running.remove(r)
    finally:
        for r in running:
            procs.kill_tree(r.proc.pid)
            procs.unregister(r.proc.pid)
    return results
