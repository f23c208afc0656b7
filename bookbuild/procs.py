"""Child processes end with the build.

Every process the build starts (pandoc, git, a forked job) is registered here; :func:`stop_all` kills
each one's whole process group, so a cell's own children and a pandoc still running in a render
thread die with the build. :func:`on_termination` makes SIGTERM and SIGHUP behave as Ctrl-C does
(a ``KeyboardInterrupt`` in the main thread), so the build's ``finally`` blocks run: locks are
released, staging folders removed, every child stopped.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
from typing import Sequence

_LOCK = threading.Lock()
#: pid -> True when the process leads its own group (a forked job), False for a plain child
_LIVE: dict[int, bool] = {}


def register(pid: int, group: bool) -> None:
    with _LOCK:
        _LIVE[pid] = group


def unregister(pid: int) -> None:
    with _LOCK:
        _LIVE.pop(pid, None)


def kill_group(pid: int) -> None:
    """Kill the process group ``pid`` leads (its leftovers included); nothing if it is gone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def stop_all() -> None:
    """Kill every registered child (and its group)."""
    with _LOCK:
        live = list(_LIVE.items())
        _LIVE.clear()
    for pid, group in live:
        if group:
            kill_group(pid)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass


def run(cmd: Sequence[str], data: bytes | None = None, cwd: str | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, input=data, capture_output=True)``, registered so that it dies with the build."""
    proc = subprocess.Popen(list(cmd), stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    register(proc.pid, False)
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        unregister(proc.pid)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def on_termination() -> None:
    """SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread (as SIGINT does), even where the
    shell that started the build ignores SIGINT (a background job inherits SIG_IGN)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)


def default_signals() -> None:
    """In a forked child: signals do what they do by default (the parent's handlers are not ours)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
