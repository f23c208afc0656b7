"""A warm worker: a process that has imported the build's whole stack once (bookbuild, its renderers,
and what every chapter imports: the libraries the book's layer preloads) and forks a fresh
child for each build it is asked for. ``preview`` drives one, so an edit costs the build, not the
imports (about a second on two cores).

Nothing stale, nothing shared:

- each build is a child forked from the worker's state as it was after the imports, in a session of its
  own (so it is stopped as any build the preview drives is: SIGTERM to its group, then SIGKILL), and the
  chapters fork from that child as in any build: nothing one build or chapter does reaches the next;
- the worker notes :func:`~bookbuild.cache.environment_digest` (the code trees, the data folders, the
  installed distributions: what the cache keys cover) before it imports anything, and checks it again
  before every build: when it changed, the worker answers ``stale`` and exits, and :class:`Warm` starts
  a new one (so an edit to the engine or to a library the chapters import is always imported anew);
- the worker dies with the process that started it, and each build with the worker.

The protocol, one JSON document per line: the driver writes ``["render", "--profile", ...]`` (the
argument list of a ``check`` or ``render``, as for ``python -m bookbuild``); the worker answers ``{"pid": N}`` when the build starts,
then ``{"status": S, "stdout": ..., "stderr": ...}`` when it ends (or ``{"stale": true}`` instead).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import procs
from .cli import dispatch
from .commands import BOOK, Settings, guarded


def _settings(root: Path):
    return Settings.make(root, layer=BOOK)   # the command line's settings: the same layer and data folders


def _build(argv: list[str], folder: Path) -> int:
    """Fork one build; answer its pid, wait for it, return its exit status."""
    out, err = folder / "stdout", folder / "stderr"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:   # the build: its own session, its output in files, nothing to read
        code = 70
        try:
            os.setsid()
            procs.default_signals()
            fd_in = os.open(os.devnull, os.O_RDONLY)
            os.dup2(fd_in, 0)
            for fd, path in ((1, out), (2, err)):
                f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(f, fd)
                os.close(f)
            code = guarded(dispatch, argv + ["--with-parent", str(os.getppid())])
            procs.stop_all(everything=True)
        except SystemExit as e:   # the parser's own exit (a bad option)
            code = e.code if isinstance(e.code, int) else 2
        except BaseException:  # noqa: BLE001 - a child never returns into the worker's loop
            code = 70
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _answer({"pid": pid})
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _answer(obj: dict) -> None:
    sys.__stdout__.write(json.dumps(obj) + "\n")
    sys.__stdout__.flush()


def serve(root: Path, parent: int) -> int:
    """The worker's loop: one build per request line, until its input ends or the environment changes."""
    procs.die_with_parent(parent)
    root = Path(root).resolve()
    os.chdir(root)
    from . import passes
    digest = passes.environment(_settings(root))   # before the imports: an edit made during them is seen
    try:
        passes.warm_up(_settings(root))
    except Exception:  # noqa: BLE001 - what fails to import is reported by the build that needs it
        pass
    _answer({"ready": True})
    with tempfile.TemporaryDirectory(prefix="bookbuild-worker-") as tmp:
        folder = Path(tmp)
        for line in sys.stdin:
            try:
                argv = json.loads(line)
            except json.JSONDecodeError:
                return 2
            if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
                return 2
            if passes.environment(_settings(root)) != digest:
                _answer({"stale": True})
                return 0
            code = _build(argv, folder)
            text = {k: (folder / k).read_text(encoding="utf-8", errors="replace") for k in ("stdout", "stderr")}
            _answer({"status": code, **text})
    return 0


def where_it_failed(log: str, root: Path) -> str:
    """``: FILE:LINE: the error`` from what a process that did not start printed (its traceback's last
    line, and the innermost file and line it names: a syntax error in the engine is told where it is)."""
    import re
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    if not lines:
        return ""
    frames = re.findall(r'^\s*File "([^"]+)", line (\d+)', log, re.M)
    if not frames:
        return f": {lines[-1]}"
    file, line = frames[-1]
    try:
        file = Path(file).resolve().relative_to(Path(root).resolve()).as_posix()
    except (ValueError, OSError):
        pass
    return f": {file}:{line}: {lines[-1]}"


class Warm:
    """The driver's side: a worker started on first use and again whenever it says it is stale or died."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.proc: subprocess.Popen | None = None
        self.log = None        # the worker's own stderr (what it says if it cannot start)
        self.failure = ""

    def _start(self) -> subprocess.Popen | None:
        """A new worker, ready; None when it could not start (``self.failure`` says why, in one line)."""
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self.proc = subprocess.Popen([sys.executable, "-m", "bookbuild.worker", str(self.root), str(os.getpid())],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, cwd=self.root, start_new_session=True)
        procs.register(self.proc.pid, "group")
        if self.proc.stdout.readline():
            return self.proc
        self.stop()   # it ended before it was ready: an engine that does not import, say
        self.log.seek(0)
        self.failure = "bookbuild: the build's worker did not start" + where_it_failed(self.log.read(), self.root)
        return None

    def _ask(self, proc: subprocess.Popen, argv: list[str]) -> dict:
        """Send one build and read the first answer (a dead worker answers ``stale``: start another)."""
        try:
            proc.stdin.write(json.dumps(argv) + "\n")
            proc.stdin.flush()
        except OSError:
            return {"stale": True}
        return json.loads(proc.stdout.readline() or '{"stale": true}')

    def run(self, argv: list[str], started=None) -> subprocess.CompletedProcess:
        """One build; ``started(pid)`` is called when it runs (so the caller can stop it). A worker that
        cannot start, or dies, is the build's failure, in one line, never an exception."""
        self.failure = "bookbuild: the build's worker kept restarting (the code changed while it started)"
        for _ in range(5):   # each ``stale`` answer: the code or data changed since the worker started
            proc = self.proc if self.proc is not None and self.proc.poll() is None else self._start()
            if proc is None:
                break
            reply = self._ask(proc, argv)
            if reply.get("stale"):
                self.stop()
                continue
            if started:
                started(reply["pid"])
            done = json.loads(proc.stdout.readline() or "{}")
            if "status" not in done:   # the worker itself died while the build ran
                self.stop()
                return subprocess.CompletedProcess(argv, 70, "", "bookbuild: the build's worker died during the build\n")
            return subprocess.CompletedProcess(argv, done["status"], done.get("stdout", ""), done.get("stderr", ""))
        return subprocess.CompletedProcess(argv, 1, "", self.failure + "\n")

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is not None:
            procs.unregister(p.pid)
            try:
                p.stdin.close()
            except OSError:
                pass
            procs.kill_tree(p.pid, group=True)
            p.wait()


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), int(sys.argv[2])))
