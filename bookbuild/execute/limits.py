"""The limits of one cell (a time limit, ``SIGALRM``; its output cap is the core's, :mod:`.cells`) and of a chapter's process
(:func:`bounded_process`: standard input at end-of-file, descriptors 1 and 2 capped, an address-space limit)."""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from .. import procs
from .audit import unrecorded


class CellTimeout(BaseException):
    """Raised inside a cell by the alarm: a BaseException, so a cell's ``except Exception`` cannot
    swallow it."""


class RawOutputExceeded(BaseException):
    """Raised inside a cell when the process wrote more than the cap to its descriptors 1 and 2."""


#: the raw output of the chapter's process (:class:`RawOutput`), while :func:`bounded_process` holds it
_RAW: list["RawOutput"] = []
_IN_CELL = [False]


def arm(seconds: float) -> None:
    """Start the time limit for one cell (``SIGALRM``; POSIX only, main thread)."""
    _IN_CELL[0] = True
    if seconds and hasattr(signal, "setitimer"):
        def _raise(_sig, _frm):
            raise CellTimeout()
        signal.signal(signal.SIGALRM, _raise)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def disarm() -> None:
    _IN_CELL[0] = False
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def raw_output_exceeded() -> bool:
    """The chapter's process wrote more than the cap to its descriptors (checked after each cell)."""
    return bool(_RAW and _RAW[0].over)


class RawOutput:
    """Descriptors 1 and 2 of a chapter's process (``os.write``, a child process, C code) as a pipe that a
    thread reads: at most ``cap`` bytes pass to the build's own standard error; past it the rest is
    discarded, and the running cell is stopped (``SIGUSR1`` raises :class:`RawOutputExceeded` in it)."""

    def __init__(self, cap: int):
        self.cap, self.total, self.over = cap, 0, False
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        r, w = os.pipe()
        os.dup2(w, 1)
        os.dup2(w, 2)
        os.close(w)
        signal.signal(signal.SIGUSR1, self._stop)
        self.thread = threading.Thread(target=self._pump, args=(r,), daemon=True)
        self.thread.start()

    @staticmethod
    def _stop(_sig, _frm):
        if _IN_CELL[0]:
            raise RawOutputExceeded()

    def _pump(self, r: int) -> None:
        while True:
            try:
                data = os.read(r, 1 << 16)
            except OSError:
                break
            if not data:
                break
            room = self.cap - self.total
            self.total += len(data)
            if room > 0:
                with contextlib.suppress(OSError):
                    os.write(self.saved[1], data[:room])
                    if self.total >= self.cap and not data[:room].endswith(b"\n"):
                        os.write(self.saved[1], b"\n")   # the build's own line starts a line
            if self.total > self.cap and not self.over:
                self.over = True
                with contextlib.suppress(Exception):
                    signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)
        os.close(r)

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        self.thread.join(2)
        os.close(self.saved[0])
        os.close(self.saved[1])


def limit_memory(megabytes: int) -> None:
    """This process's address space at most ``megabytes`` MB (``RLIMIT_AS``; it and its children cannot
    raise it): an allocation past it raises MemoryError in the cell."""
    try:
        import resource
    except ImportError:   # pragma: no cover - not POSIX
        return
    if megabytes:
        want = megabytes << 20
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            want = min(want, hard)
        resource.setrlimit(resource.RLIMIT_AS, (want, want))


@contextlib.contextmanager
def bounded_process(output_cap: int, memory_mb: int):
    """A chapter's process: standard input at end-of-file (``/dev/null``, as a Jupyter kernel has no
    terminal), descriptors 1 and 2 capped at ``output_cap`` bytes (:class:`RawOutput`), the address space at
    ``memory_mb`` MB (:func:`limit_memory`). Yields the :class:`RawOutput` (None without a cap); at the end,
    what the process's cells started is ended first, so that the pipe is read to its end and ``over`` says
    whether anything a cell left running wrote past the cap."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")   # noqa: SIM115 - the process's stdin from now on
    raw = RawOutput(output_cap) if output_cap else None
    if raw:
        _RAW.append(raw)
    limit_memory(memory_mb)
    try:
        yield raw
    finally:
        if raw:
            with unrecorded():
                procs.kill_tree(os.getpid(), group=False, self_too=False)   # their write ends close
            _RAW.remove(raw)
            raw.close()
