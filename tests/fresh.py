"""Commands in fresh interpreters, and broken copies of the registry, for the hostile-input tests.

A fresh interpreter (:func:`run`) gets an environment of the test's own (:func:`isolated_env`: HOME, XDG
folders, temp folder and matplotlib's folder in the test's temporary folder) and keeps its compiled modules
in one folder per test session (``COMPILED``, filled by conftest's ``_compiled_once``), never in the project.
conftest's ``untouched`` fixture checks that nothing in the checkout changed (``unchanged_since``).
:func:`mlsysim_in_process` runs what the command does in the test's own process, on a broken copy of the
registry (:func:`data_copy`). tests/unit/test_hostile_registry.py runs the hostile cases so (the fast
tier); tests/book/test_hostile_environment.py starts the fresh interpreters (a second each: the slow tier).
"""
from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

DATA = ROOT / "mlsysim" / "data"

#: where the fresh processes keep their compiled modules: one temporary folder for the test session, never
#: the project (each process then compiles mlsysim's sources once a session, not once a process)
COMPILED: list[Path] = []


def isolated_env(tmp_path: Path, **extra: str) -> dict:
    """The environment of a subprocess: HOME, XDG folders, temp folder and matplotlib's folder in tmp_path;
    Python's compiled modules in the session's COMPILED folder."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "MLSYSIM_", "MPLCONFIGDIR", "TMPDIR", "TEMP", "TMP", "PYTHONDONTWRITEBYTECODE"))}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"), PYTHONPYCACHEPREFIX=str(COMPILED[-1]))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def run(tmp_path: Path, *args: str, env: dict | None = None, timeout: float = 180):
    """``python <args>`` in a fresh interpreter, in ``tmp_path``, with :func:`isolated_env` unless ``env``."""
    return subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout, env=env if env is not None else isolated_env(tmp_path))


def one_line(r) -> str:
    """The one line ``r`` wrote to stderr (no traceback, no second line)."""
    assert "Traceback" not in r.stderr, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


def data_copy(tmp_path: Path, file: str | None = None, old: str = "", new: str = "") -> Path:
    """A private copy of the registry with ``old`` replaced by ``new`` once in ``file``."""
    d = shutil.copytree(DATA, tmp_path / "data")
    if file:
        p = d / file
        text = p.read_text(encoding="utf-8")
        assert old in text, (file, old)
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return d


def mlsysim_cli(tmp_path: Path, data: Path, *args: str):
    """``python -m mlsysim <args>`` with ``MLSYSIM_DATA_DIR=data``, in a fresh process."""
    return run(tmp_path, "-m", "mlsysim", *args, env=isolated_env(tmp_path, MLSYSIM_DATA_DIR=str(data)))


def a_file(tmp_path: Path) -> Path:
    """A file where a folder is expected: root ignores file modes, so an unwritable folder is one under a
    file (mkdir fails there for everyone)."""
    f = tmp_path / "not-a-folder"
    f.write_text("a file where a folder is expected\n", encoding="utf-8")
    return f


def private_temp(tmp_path: Path, name: str) -> Path:
    """mlsysim's private folder ``name`` in the temp folder :func:`isolated_env` gives (``tmp_path/tmp``)."""
    return tmp_path / "tmp" / f"mlsysim-{os.getuid()}" / name


Ran = collections.namedtuple("Ran", "returncode stdout stderr")
#: mlsysim's modules that never read the data folder: pint's unit registry, built once per process
_KEPT = ("mlsysim.units", "mlsysim.cachedirs")


def _fresh_modules() -> dict:
    return {k: m for k, m in sys.modules.items() if (k == "mlsysim" or k.startswith("mlsysim.")) and k not in _KEPT}


def mlsysim_in_process(monkeypatch, capsys, data: Path | None, *args: str) -> Ran:
    """What ``python -m mlsysim <args>`` (with ``MLSYSIM_DATA_DIR=data``) does, run in this process: the
    package imported afresh, as at a real start (the registry, reference.toml and measurements.toml are
    loaded and checked from ``data``; sys.argv[0] is "-m" during that import, as under ``python -m``),
    then the CLI's main. The modules imported here are dropped afterwards and the session's own put back,
    so every call loads its data anew; their compiled code is kept in the session's COMPILED folder, as a
    fresh process's is. With ``data`` None (the package's own data) and a session whose mlsysim was
    imported from it, the session's modules are used as they are. Warnings a real process would print
    (Python's default filters) count as lines of stderr; any other exception propagates (a traceback fails
    the test). test_the_in_process_run_prints_what_a_fresh_process_prints checks both against the real
    command."""
    import importlib
    import warnings
    own = data is None and "MLSYSIM_DATA_DIR" not in os.environ   # the session's mlsysim is on its own data
    saved = {} if own else _fresh_modules()
    if data is not None:
        monkeypatch.setenv("MLSYSIM_DATA_DIR", str(data))
    else:
        monkeypatch.delenv("MLSYSIM_DATA_DIR", raising=False)
    monkeypatch.setattr(sys, "argv", ["-m", *args])
    monkeypatch.setattr(sys, "pycache_prefix", str(COMPILED[-1]))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    capsys.readouterr()
    for k in saved:
        del sys.modules[k]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.resetwarnings()
            warnings.simplefilter("default")
            for quiet in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.filterwarnings("ignore", category=quiet)
            try:
                status = importlib.import_module("mlsysim.cli").main(list(args))
            except SystemExit as exc:
                status = exc.code
    finally:
        if not own:   # what this run imported goes, even when the session had not imported mlsysim before
            for k in _fresh_modules():
                del sys.modules[k]
            sys.modules.update(saved)
    out, err = capsys.readouterr()
    err += "".join(f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}\n" for w in caught)
    return Ran(status, out, err)
