"""Which project files a computation opens while it runs (one audit hook per process), and, for a
chapter's run, every other input its code reads (:func:`record_inputs`): files outside the project (in
HOME, anywhere), paths looked up (``os.path.exists``, ``Path.is_file``: a file created later counts),
folders listed (``glob("notes/*.md")``, ``os.listdir``), environment variables read.

The cache checks them on reuse, so a cell (or a check) that reads a data file its key did not foresee
still re-runs when that file changes. Imports count (a compiled ``__pycache__/x.pyc`` as its ``x.py``).
What the build's environment digest already covers (Python and its installed packages, the code trees,
the data folders, the fonts) is not recorded again; nor are the folders the import system lists, nor
``/dev`` (a device is no input a cache can key).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import site
import sys
import threading
from pathlib import Path
from typing import Iterable

_ACTIVE: list["_Recorder"] = []
_INPUTS: list["_Inputs"] = []
_INSTALLED = [False]
_LOOKING = threading.local()
#: variables the runner itself sets for the cells (their values follow from the chapter's key)
SET_BY_THE_RUNNER = frozenset({"QUARTO_PROFILE", "MPLBACKEND"})


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


def _prefixes(paths: Iterable[Path | str]) -> list[str]:
    out = []
    for p in paths:
        with contextlib.suppress(OSError, ValueError):
            out.append(os.path.realpath(os.path.expanduser(str(p))).rstrip(os.sep) + os.sep)
    return out


def system_folders() -> list[str]:
    """Python and its installed packages (the environment digest covers them by version)."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.PREFIXES}
    with contextlib.suppress(AttributeError):
        paths.update(site.getsitepackages())
    paths.update(p for p in sys.path if p and "site-packages" in p)
    return _prefixes(sorted(paths))


class _Inputs:
    """What a chapter's run read beyond the project's files (see the module's docstring)."""

    def __init__(self, root: Path, skip: list[Path], covered: list[Path]):
        self.base = os.path.realpath(root) + os.sep
        self.skips = _prefixes(skip)
        self.covered = _prefixes(covered) + system_folders() + ["/dev/"]
        self.files: set[str] = set()
        self.folders: set[str] = set()
        self.env: set[str] = set()
        self.processes: set[str] = set()   # programs a cell started: what they read is not seen

    def _mine(self, p: str) -> str | None:
        """``p`` as recorded (relative inside the project, absolute outside), or None when it is covered."""
        p = os.path.realpath(p)
        if any((p + os.sep).startswith(c) for c in self.skips + self.covered):
            return None
        return os.path.relpath(p, self.base) if (p + os.sep).startswith(self.base) else p

    def file(self, p: str) -> None:
        if not (os.path.realpath(p) + os.sep).startswith(self.base):   # the project's: _Recorder's
            mine = self._mine(p)
            if mine is not None:
                self.files.add(mine)

    def folder(self, p: str) -> None:
        mine = self._mine(p)
        if mine is not None:
            self.folders.add(mine)

    def as_lists(self) -> dict[str, list[str]]:
        out = {"files": sorted(self.files), "folders": sorted(self.folders), "env": sorted(self.env - SET_BY_THE_RUNNER)}
        if self.processes:
            out["processes"] = sorted(self.processes)
        return out


def _importing() -> bool:
    """The import system is what lists a folder (it lists every folder on ``sys.path``)."""
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename.startswith("<frozen importlib"):
            return True
        f = f.f_back
    return False


def _listed(args) -> None:
    path = args[0] if args else None
    if isinstance(path, int) or _importing():
        return
    try:
        p = os.path.abspath(os.fsdecode(path if path is not None else "."))
    except (TypeError, ValueError):
        return
    for r in _INPUTS:
        r.folder(p)


#: the audit events of a program started (its reads, its variables are out of sight)
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.startfile"})


#: programs whose inputs the environment digest covers (fontconfig's listing: the installed fonts, which
#: ``cache.installed_fonts`` keys; matplotlib runs it to build its font list)
COVERED_PROGRAMS = frozenset({"fc-list", "fc-match"})


def _started(event, args) -> None:
    """A program started: its name (subprocess.Popen's event is (executable, args, cwd, env), the others' start
    with the program), unless fontconfig's."""
    what = (args[0] or args[1]) if event == "subprocess.Popen" else args[0]
    if isinstance(what, (list, tuple)):
        what = what[0] if what else event
    try:
        name = os.fsdecode(what)
    except (TypeError, ValueError):
        name = event
    if os.path.basename(name) not in COVERED_PROGRAMS:
        for i in _INPUTS:
            i.processes.add(name[:200])


def _hook(event, args):
    if getattr(_LOOKING, "up", False):   # a lookup being recorded, or the runner's own reads (:func:`unrecorded`)
        return
    if event in PROCESS_EVENTS:
        if _INPUTS:
            _started(event, args)
        return
    if event in ("os.listdir", "os.scandir"):
        if _INPUTS:
            _listed(args)
        return
    if event != "open" or not (_ACTIVE or _INPUTS) or not args or isinstance(args[0], int):
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
    for i in _INPUTS:
        i.file(p)


def _looked_up(path, dir_fd=None) -> None:
    """A path whose existence, kind or size was looked up (``os.stat``, ``os.path.exists``, ``Path.is_file``):
    recorded as a file read, so that creating, removing or changing it runs the cell again."""
    if dir_fd is not None or isinstance(path, int):
        return
    try:
        p = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    for r in _ACTIVE:
        r.note(p)
    for i in _INPUTS:
        i.file(p)




def _asked_by_a_cell() -> bool:
    """A lookup made by a cell's code, or by code a cell called: not the runner's own (it resolves the
    project's folders, looks for its outputs) nor an import's."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if name.endswith(".qmd") or name.startswith("<inline "):
            return True
        if name.startswith("<frozen importlib"):
            return False
        f = f.f_back
    return False


def _watching(real):
    """``os.stat`` or ``os.lstat`` that records the path looked up (Python has no audit event for it; the
    import system calls its own ``stat`` and is not seen)."""
    def stat(path, *args, **kwargs):
        if (_ACTIVE or _INPUTS) and not getattr(_LOOKING, "up", False) and _asked_by_a_cell():
            _LOOKING.up = True   # recording resolves the path, which stats it again
            try:
                _looked_up(path, kwargs.get("dir_fd"))
            finally:
                _LOOKING.up = False
        return real(path, *args, **kwargs)
    stat.__name__, stat.__doc__, stat.__wrapped__ = real.__name__, real.__doc__, real
    return stat


def _watch_lookups() -> None:
    if not hasattr(os.stat, "__wrapped__"):
        os.stat, os.lstat = _watching(os.stat), _watching(os.lstat)


class _WatchedEnviron(os._Environ):
    """``os.environ`` while a chapter runs: every variable read (``os.environ[...]``, ``get``, ``getenv``,
    ``in``) is recorded."""

    def __getitem__(self, key):
        for i in _INPUTS:
            i.env.add(str(key))
        return super().__getitem__(key)

    def __contains__(self, key):
        for i in _INPUTS:
            i.env.add(str(key))
        return super().__contains__(key)


@contextlib.contextmanager
def unrecorded():
    """The runner's own reads in this thread (ending what the cells started reads ``/proc``): no input."""
    before = getattr(_LOOKING, "up", False)
    _LOOKING.up = True
    try:
        yield
    finally:
        _LOOKING.up = before


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


def record_inputs(root: Path, skip: list[Path], covered: list[Path]) -> _Inputs:
    """From now on in this process (a chapter's own): the inputs its code reads beyond the project's files
    (``skip``: the build's own folders; ``covered``: what the environment digest covers)."""
    _install()
    _watch_lookups()
    i = _Inputs(root, skip, covered)
    _INPUTS.append(i)
    if type(os.environ) is os._Environ:
        os.environ.__class__ = _WatchedEnviron
    return i


def listing_digest(path: Path) -> str:
    """A folder by the names it holds (and each one's kind): what a listing or a glob of it returns."""
    try:
        names = sorted(f"{e.name}{'/' if e.is_dir() else ''}" for e in os.scandir(path))
    except OSError:
        return "missing"
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


def value_digest(value: str | None) -> str:
    """A variable by the digest of its value (a secret in the environment is not written to the cache)."""
    return "unset" if value is None else hashlib.sha256(value.encode("utf-8", "surrogateescape")).hexdigest()


def input_digests(root: Path, inputs: dict[str, list[str]]) -> dict[str, dict[str, str]]:
    """What the recorded inputs hold now (in the build's process, whose environment the chapters inherit):
    files by content, folders by their names, variables by their value's digest."""
    from ..cache import file_digest
    root = Path(root)
    out = {"files": {f: file_digest(root / f) for f in inputs.get("files", ())},
           "folders": {d: listing_digest(root / d) for d in inputs.get("folders", ())},
           "env": {v: value_digest(os.environ.get(v)) for v in inputs.get("env", ())}}
    if inputs.get("processes"):
        out["processes"] = {p: "unseen" for p in inputs["processes"]}
    return out


def inputs_changed(root: Path, recorded: dict[str, dict[str, str]]) -> bool:
    """An input recorded by :func:`input_digests` holds something else now; a chapter whose cells started a
    program always has (what the program read is not seen: the chapter runs again in every build)."""
    if recorded.get("processes"):
        return True
    return input_digests(root, {k: list(v) for k, v in recorded.items()}) != recorded


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
