"""Child processes end with the build.

Every process the build starts (pandoc, git, a forked job, a build it drives) is registered here;
:func:`stop_all` kills each one's whole tree: its process group, and every process below it, found
by parent links in ``/proc`` (so a cell's child that left the group with ``setsid`` dies too). Once
the build is interrupted no new child starts (:func:`run` raises ``KeyboardInterrupt``), so a render
thread cannot start a pandoc while the build stops.

:func:`on_termination` makes SIGTERM and SIGHUP behave as Ctrl-C does (a ``KeyboardInterrupt`` in the
main thread), so the build's ``finally`` blocks run: locks are released, staging folders removed,
every child stopped. What a kill no handler sees (SIGKILL) is covered from below: a forked job dies
with its parent (:func:`guard_tree`: ``PR_SET_PDEATHSIG``, then its whole tree), and the build adopts
what its jobs leave behind (:func:`become_subreaper`), so nothing a cell started outlives the build.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Mapping, Sequence


_LOCK = threading.Lock()
#: pid -> how it is stopped: "group" (a forked job leading its group), "polite" (a build we drive, in
#: its own group: SIGTERM first, so its own handler stops its children), "plain" (a tool)
_LIVE: dict[int, str] = {}
_STOPPING = threading.Event()
#: how long a driven build has to stop by itself after SIGTERM
POLITE_SECONDS = 5.0

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    """Linux's prctl(2); False where there is none (the guarantees below then rest on the handlers)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Processes orphaned below this one are re-parented to it (not to init), so :func:`stop_all` and
    :func:`kill_tree` still find what a dead job left running."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int, sig: int = signal.SIGTERM) -> None:
    """This process gets ``sig`` when ``parent`` ends (however it ends); if it already has, now."""
    _prctl(PR_SET_PDEATHSIG, int(sig))
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


#: a job's signal for "the build is gone" (a real-time signal no library uses)
_ORPHANED = signal.SIGRTMIN + 3 if hasattr(signal, "SIGRTMIN") else signal.SIGUSR2


def guard_tree(parent: int) -> None:
    """In a forked job: when ``parent`` (the build) dies, even by SIGKILL, this job kills its own tree
    (a thread waits for the signal, so a cell busy in native code cannot delay it)."""
    if not hasattr(signal, "pthread_sigmask"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {_ORPHANED})

    def watch() -> None:
        signal.sigwait({_ORPHANED})
        kill_tree(os.getpid(), group=True, self_too=True)
    threading.Thread(target=watch, name="bookbuild-orphan-watch", daemon=True).start()
    die_with_parent(parent, _ORPHANED)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (``/proc``); empty where there is no ``/proc``."""
    out: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
            out[int(name)] = int(stat[stat.rindex(b")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children first)."""
    children: dict[int, list[int]] = {}
    for p, pp in _parents().items():
        children.setdefault(pp, []).append(p)
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out and c != pid:
                out.append(c)
                todo.append(c)
    return out


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def kill_group(pid: int) -> None:
    """Kill the process group ``pid`` leads (its leftovers included); nothing if it is gone."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def kill_tree(pid: int, group: bool = True, self_too: bool = True) -> None:
    """Kill ``pid``'s group (``group``), every process below it, and ``pid`` itself (``self_too``)."""
    below = descendants(pid)
    for p in below:
        _kill(p, signal.SIGSTOP)   # none of them can start another while the others die
    for p in below:
        _kill(p)
    if group:
        kill_group(pid)            # last: it may hold this very process
    if self_too:
        _kill(pid)


def register(pid: int, group: bool | str) -> None:
    """``pid`` dies with the build. A process started in a thread while the build was being stopped (it
    passed :func:`run`'s check just before the signal, and :func:`stop_all` took the list just before it
    was added) is killed here, and the thread is stopped: no tool outlives the stop."""
    how = group if isinstance(group, str) else ("group" if group else "plain")
    with _LOCK:
        _LIVE[pid] = how
    if _STOPPING.is_set():   # set before stop_all takes the list: either it saw this pid, or this sees it
        unregister(pid)
        kill_tree(pid, group=how != "plain")
        raise KeyboardInterrupt("the build is stopping")


def unregister(pid: int) -> None:
    with _LOCK:
        _LIVE.pop(pid, None)


def stopping() -> bool:
    return _STOPPING.is_set()


def stop_politely(pids: list[int]) -> None:
    """SIGTERM to each driven build's group, then up to :data:`POLITE_SECONDS` for it to end."""
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            _kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + POLITE_SECONDS
    for pid in pids:
        while time.monotonic() < deadline and not ended(pid):
            time.sleep(0.05)


def ended(pid: int) -> bool:
    """``pid`` has exited (a zombie counts: its status is its parent's to collect, not ours to steal)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return stat[stat.rindex(b")") + 2:][:1] in (b"Z", b"X")
    except (OSError, ValueError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False


def stop_all(everything: bool = False) -> None:
    """Kill every registered child with its tree. ``everything``: every process below this one too (a
    build's end: what a dead job left behind was adopted by it)."""
    with _LOCK:
        live = list(_LIVE.items())
        _LIVE.clear()
    stop_politely([pid for pid, how in live if how == "polite"])
    for pid, how in live:
        kill_tree(pid, group=how != "plain")
    if everything:
        for pid in descendants(os.getpid()):
            _kill(pid)
        _reap()


def interrupt() -> None:
    """The build stops now: no child starts from here on (in any thread), and every one running is killed."""
    _STOPPING.set()
    stop_all()


def _reap() -> None:
    """Collect the exit status of adopted processes (so none stays a zombie of the build)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def tool_environment(env: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """The environment of the tools the build runs (pandoc, git): the build's own, with a UTF-8 locale when
    the user's is not one (``LANG=C``: pandoc could not name a file in a folder named in Chinese); None when the
    build's own is fine as it is."""
    env = os.environ if env is None else env
    ctype = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    if "utf-8" in ctype.lower() or "utf8" in ctype.lower():
        return None
    return dict(env, LC_ALL="C.UTF-8")


def run(cmd: Sequence[str], data: bytes | None = None, cwd: str | None = None,
        timeout: float | None = None, polite: bool = False,
        extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, input=data, capture_output=True)``, registered so that it dies with the build,
    under a UTF-8 locale whatever the user's (:func:`tool_environment`), with ``extra_env``
    added. ``polite``: the command is a build of ours (in its own group, stopped with SIGTERM first)."""
    if _STOPPING.is_set():
        raise KeyboardInterrupt("the build is stopping")
    proc = subprocess.Popen(list(cmd), stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            start_new_session=polite,
                            env=dict(tool_environment() or os.environ, **extra_env) if extra_env else tool_environment())
    try:
        register(proc.pid, "polite" if polite else "plain")
        out, err = proc.communicate(data, timeout=timeout)
    except BaseException:
        if polite:
            stop_politely([proc.pid])
        kill_tree(proc.pid, group=polite)
        proc.wait()
        raise
    finally:
        unregister(proc.pid)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _interrupt(signum, _frame):
    _STOPPING.set()
    raise KeyboardInterrupt(f"signal {signum}")


def on_termination() -> None:
    """SIGTERM and SIGHUP raise KeyboardInterrupt in the main thread (as SIGINT does), even where the
    shell that started the build ignores SIGINT (a background job inherits SIG_IGN); from the first
    of them on, no child starts (:func:`run`)."""
    _STOPPING.clear()
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)


@contextlib.contextmanager
def signals_held():
    """SIGINT, SIGTERM and SIGHUP wait until the block is done (two renames that must both happen)."""
    sigs = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def default_signals() -> None:
    """In a forked child: signals do what they do by default (the parent's handlers are not ours)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
