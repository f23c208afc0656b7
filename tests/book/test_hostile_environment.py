"""Hostile environments, each in a fresh interpreter (the slow tier: a second or more each).

What only a real start shows: ``import mlsysim`` with an unwritable or file HOME, an unwritable XDG cache
folder, no writable folder at all, a full disk or a truncated cache (pint's disk cache is used or dropped,
never fatal); the command under the C locale and on an ASCII terminal; matplotlib's folder when HOME is a
file; and the real command beside the in-process run tests/unit/test_hostile_registry.py uses for its hostile
files and options (the same status, stdout and one stderr line). Each process's HOME, caches and temp folder
lie in the test's temporary folder (tests/fresh.py), and the project tree is hashed before and after
(``untouched``). The choice of folder itself is checked in-process, in the fast tier
(test_hostile_registry.py: ``pint_cache_folder``, ``use_writable_mplconfigdir``).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from fresh import a_file, data_copy, isolated_env, mlsysim_cli, mlsysim_in_process, one_line, private_temp, run


# ───────────────────────────── the real command beside the in-process run ─────────────────────────────

#: one case of each way the command fails: a registry file refused while the package is imported, a
#: measurement refused inside the command, an option argparse refuses
REAL_PROCESS = [
    ("accelerators.toml", 'vendor = "NVIDIA"', 'vendr = "NVIDIA"', ("list",)),
    ("measurements.toml", "count = 2", "count = true", ("calibrate",)),
    (None, "", "", ("reference", "--kv-bytes=nan")),
]


@pytest.mark.parametrize("file, old, new, args", REAL_PROCESS, ids=["import", "command", "option"])
def test_the_in_process_run_prints_what_a_fresh_process_prints(tmp_path, untouched, monkeypatch, capsys, file, old,
                                                               new, args):
    """The hostile cases run in this process (mlsysim_in_process); the real command, in a fresh interpreter
    whose HOME, caches and temp folder are the test's, must give the same status, stdout and one stderr line
    (no traceback), and write nothing outside the temporary folder."""
    data = data_copy(tmp_path, file, old, new)
    real = mlsysim_cli(tmp_path, data, *args)
    assert real.returncode == 2 and real.stdout == ""
    line = one_line(real)   # the data file named from the command's working folder (tmp_path), as a user typed it
    named = (data / file).relative_to(tmp_path).as_posix() if file else "argument --kv-bytes"
    assert line.startswith(f"mlsysim: error: {named}"), line
    monkeypatch.chdir(tmp_path)   # the in-process run in the real command's working folder
    assert mlsysim_in_process(monkeypatch, capsys, data, *args) == (real.returncode, real.stdout, real.stderr)
    if file is None:   # nothing in the data changed: the session's own modules print the same
        assert mlsysim_in_process(monkeypatch, capsys, None, *args) == (real.returncode, real.stdout, real.stderr)


# ───────────────────────────── a registry mistake: one line, wherever it is imported ─────────────────────────────

#: an author's mistakes in the data (file, old text, new text), each with the line's start after the file
#: (entry and field, or the TOML line) and words it must carry
MISTAKES = [
    ("accelerators.toml", 'memory.bandwidth = { value = "3.35 TB/s"', 'memory.bandwidth = { value = "3.35"',
     ": [H100] memory.bandwidth:", "bandwidth must convert to byte / second"),                          # unit missing
    ("accelerators.toml", 'memory.bandwidth = { value = "3.35 TB/s"', 'memory.bandwidth = { value = 3.35',
     ": [H100] memory.bandwidth:", "has no unit"),                                                       # a bare number
    ("accelerators.toml", 'memory.bandwidth = { value = "3.35 TB/s", source = "nvidia-h100-datasheet"',
     'memory.bandwidth = { value = "3.35 TB/s", source = "nvidia-h100-datashet"',
     ": [H100] memory.bandwidth.source:", "did you mean 'nvidia-h100-datasheet'?"),                      # source key
    ("accelerators.toml", 'memory.capacity = { value = "80 GiB"', 'memory.capacity = { value = "80 GB"',
     ": [H100] memory.capacity:", "whole number written in GiB"),                                        # decimal GB
    ("accelerators.toml", 'memory.capacity = { value = "80 GiB"', 'memory.capacity = { value = "80.5 GiB"',
     ": [H100] memory.capacity:", "whole number written in GiB"),                                        # not whole
    ("models.toml", "kv_heads = 8", "kv_head = 8", ": [Llama3_70B] kv_head:", "did you mean 'kv_heads'?"),  # typo
    ("accelerators.toml", "[H100]\n", "[H100\n", ":9: not valid TOML:", "Expected ']'"),                  # syntax
    ("accelerators.toml", "[H200]\n", "[H100]\n", ":27: not valid TOML:", "each entry needs a unique [name]"),
]
MISTAKE_IDS = ["unit", "bare-number", "source", "decimal-GB", "half-GiB", "field-typo", "toml-syntax", "duplicate"]


def edited_line(path, new: str, where: str) -> str:
    """``:N`` for a message naming an entry's field: the line the edit wrote it on (each edit is one line);
    nothing where the case names its line itself (a TOML syntax error)."""
    if not where.startswith(": ["):
        return ""
    return f":{path.read_text(encoding='utf-8').split(new)[0].count(chr(10)) + 1}"


@pytest.mark.parametrize("file, old, new, where, words", MISTAKES, ids=MISTAKE_IDS)
def test_import_mlsysim_on_a_registry_mistake_prints_one_line(tmp_path, untouched, file, old, new, where, words):
    """``python -c "import mlsysim"`` (a script, not the CLI): the registry's one line on stderr, naming the
    file, the entry and the field, no traceback, a failing status; a script that catches it gets the same
    text (and IPython, which Quarto's kernel runs, prints the one line _render_traceback_ gives)."""
    data = data_copy(tmp_path, file, old, new)
    env = isolated_env(tmp_path, MLSYSIM_DATA_DIR=str(data))
    r = run(tmp_path, "-c", "import mlsysim", env=env)
    assert r.returncode != 0 and r.stdout == ""
    line = one_line(r)
    # the process runs in tmp_path, which holds the copy: the file is named from there, never as an absolute path
    assert line.startswith(f"mlsysim: error: data/{file}{edited_line(data / file, new, where)}{where}"), line
    assert words in line, line
    caught = run(tmp_path, "-c", "try:\n    import mlsysim\nexcept Exception as e:\n"
                 "    print(type(e).__name__); print(e); print(e._render_traceback_())\n", env=env)
    assert caught.returncode == 0 and caught.stderr == "", caught.stderr
    name, text, rendered = caught.stdout.splitlines()
    assert name == "RegistryError" and text == line.removeprefix("mlsysim: error: ")
    assert rendered == repr([line])
    if words == "has no unit":   # once: IPython itself (Jupyter, the kernel Quarto runs)
        shell = run(tmp_path, "-c", "from IPython.testing.globalipapp import start_ipython\n"
                    "r = start_ipython().run_cell('import mlsysim')\nprint('failed:', not r.success)\n", env=env)
        shown = [ln for ln in (shell.stdout + shell.stderr).splitlines() if ln.strip()]
        assert shown == [line, "failed: True"], shown   # the notebook's cell shows the one line, no traceback


#: a measurement refused as the registry's files are (measurements.toml: a count that is not a whole number)
MEASUREMENT = ("measurements.toml", "count = 2", "count = true", ": [nim-llama33-70b-h100x2-5000-500-c1] count:",
               "expected a positive integer")


@pytest.mark.parametrize("file, old, new, where, words", MISTAKES[:1] + MISTAKES[6:7] + [MEASUREMENT],
                         ids=["unit", "toml-syntax", "measurement"])
def test_check_reports_a_registry_mistake_once_before_any_chapter(tmp_path, untouched, file, old, new, where, words):
    """``python -m bookbuild check`` on a broken registry: one line, naming the data file, entry and field
    (not a cell of whichever chapter imported mlsysim first), once for both books, and no chapter run."""
    import shutil
    from conftest import ROOT, SOURCES_IGNORE
    data = data_copy(tmp_path, file, old, new)
    env = isolated_env(tmp_path, MLSYSIM_DATA_DIR=str(data))
    book = shutil.copytree(ROOT, tmp_path / "book", ignore=SOURCES_IGNORE)   # its _build/ is not the checkout's
    r = run(tmp_path, "-m", "bookbuild", "check", "--profile", "all", "--root", str(book), "--no-cache", env=env)
    assert r.returncode != 0, r.stdout + r.stderr
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
    mine = [ln for ln in lines if str(data / file) in ln]
    assert len(mine) == 1 and mine[0].startswith(f"{data / file}{edited_line(data / file, new, where)}{where}") \
        and words in mine[0], lines
    assert "Traceback" not in r.stderr and not any("_cells/" in ln for ln in lines), lines


# ───────────────────────────── the terminal ─────────────────────────────

def test_the_cli_on_an_ascii_terminal_escapes_what_it_cannot_show(tmp_path, untouched):
    env = isolated_env(tmp_path, LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    r = run(tmp_path, "-m", "mlsysim", "reference", env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    # 2 x 70.6e9 flop / 1978.9e12 flop/s = 71.35 us, the "µ" escaped
    assert re.search(r"Prefill time per prompt token +71 \\xb5s$", r.stdout, re.M), r.stdout


# ───────────────────────────── pint's cache in any environment ─────────────────────────────
#
# Root ignores file modes, so an unwritable folder is one under a FILE: mkdir fails there for everyone.

PROBE = r"""
import json, mlsysim
from mlsysim.units import UNIT_CACHE_FOLDER, ureg
print(json.dumps({"cache": str(UNIT_CACHE_FOLDER), "byte": str(ureg.byte.dimensionality),
                  "h100_bytes": mlsysim.Hardware.Cloud.H100.memory.capacity.to("byte").magnitude}))
"""
#: hand derivations: 80 GiB = 80 * 2**30 bytes; a byte is [information]
UNITS_OK = {"byte": "[information]", "h100_bytes": 80 * 2**30}



def _probe(tmp_path: Path, env: dict, prelude: str = "") -> dict:
    import json
    r = run(tmp_path, "-c", prelude + PROBE, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    first, *more = r.stdout.splitlines()
    out = json.loads(first)
    assert {k: out[k] for k in UNITS_OK} == UNITS_OK
    return {**out, "more": more} if more else out



@pytest.mark.parametrize("home", ["a file", "a folder under a file"])
def test_import_with_an_unwritable_home_uses_a_private_temp_cache(tmp_path, untouched, home):
    f = a_file(tmp_path)
    env = isolated_env(tmp_path, HOME=str(f if home == "a file" else f / "home"))
    cold = _probe(tmp_path, env)
    assert cold["cache"] == str(private_temp(tmp_path, "pint"))
    assert any(private_temp(tmp_path, "pint").iterdir())  # pint really wrote its cache there
    assert _probe(tmp_path, env) == cold                     # and reads it back
    assert oct(private_temp(tmp_path, "").stat().st_mode & 0o777) == "0o700"


def test_xdg_cache_home_is_used_when_it_is_writable(tmp_path, untouched):
    env = isolated_env(tmp_path, HOME=str(a_file(tmp_path)), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert _probe(tmp_path, env)["cache"] == str(tmp_path / "xdg" / "pint")


def test_an_unwritable_xdg_cache_home_falls_back(tmp_path, untouched):
    f = a_file(tmp_path)
    env = isolated_env(tmp_path, HOME=str(f), XDG_CACHE_HOME=str(f / "cache"))
    assert _probe(tmp_path, env)["cache"] == str(private_temp(tmp_path, "pint"))


def test_nothing_writable_at_all_disables_the_cache(tmp_path, untouched):
    f = a_file(tmp_path)
    env = isolated_env(tmp_path, HOME=str(f), XDG_CACHE_HOME=str(f / "cache"))
    # no usable temp folder either: the temp folder Python would use is a file
    out = _probe(tmp_path, env, prelude=f"import tempfile; tempfile.tempdir = {str(f)!r}\n")
    assert out["cache"] == "None"


def test_a_cache_that_fails_while_writing_is_dropped(tmp_path, untouched):
    env = isolated_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    prelude = ("import flexcache, os\ncalls = []\n"
               "def full(*a, **k):\n    calls.append(1)\n    raise OSError(28, 'No space left on device')\n"
               "flexcache.DiskCache.rawsave = full\n")
    out = _probe(tmp_path, env, prelude=prelude + "import atexit\natexit.register(lambda: print(len(calls)))\n")
    assert out["cache"] == "None" and int(out["more"][0]) >= 1  # the write was tried, failed, and was dropped


def test_a_truncated_cache_file_is_dropped(tmp_path, untouched):
    env = isolated_env(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    _probe(tmp_path, env)
    pickles = list((tmp_path / "xdg" / "pint").glob("*.pickle"))
    assert pickles
    for p in pickles:
        p.write_bytes(b"")
    assert _probe(tmp_path, env)["cache"] == "None"


def test_the_cli_runs_with_a_home_that_is_a_file(tmp_path, untouched):
    import json
    r = run(tmp_path, "-m", "mlsysim", "reference", "--json", env=isolated_env(tmp_path, HOME=str(a_file(tmp_path))))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    v = json.loads(r.stdout)
    assert round(v["ridge_flop_per_byte"]) == 591 and v["resident_trajectories"] == 48  # the seed's values


@pytest.mark.parametrize("locale_env", [{"LANG": "C"}, {"LANG": "C", "LC_ALL": "C"}])
def test_the_cli_under_the_c_locale(tmp_path, untouched, locale_env):
    r = run(tmp_path, "-m", "mlsysim", "show", "B200", env=isolated_env(tmp_path, **locale_env))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "conflict memory.capacity: 192 GB" in r.stdout and " — " in r.stdout  # Python's UTF-8 mode


# ───────────────────────────── matplotlib's folder ─────────────────────────────

MPL_PROBE = r"""
import json, os
from mlsysim.cachedirs import use_writable_mplconfigdir
chosen = use_writable_mplconfigdir(FALLBACKS) if CALL else None
import matplotlib
print(json.dumps({"chosen": str(chosen), "config": matplotlib.get_configdir(), "cache": matplotlib.get_cachedir()}))
"""


def _mpl(tmp_path: Path, call: bool, fallbacks=(), **env_extra):
    import json
    code = MPL_PROBE.replace("FALLBACKS", repr([str(f) for f in fallbacks])).replace("CALL", str(call))
    r = run(tmp_path, "-c", code, env=isolated_env(tmp_path, HOME=str(a_file(tmp_path)), **env_extra))
    assert r.returncode == 0, r.stderr
    return r, json.loads(r.stdout)


def test_without_a_writable_home_matplotlib_warns_and_makes_a_throwaway_folder(tmp_path, untouched):
    r, out = _mpl(tmp_path, call=False)
    assert "Matplotlib created a temporary cache directory" in r.stderr  # the problem the function solves


def test_use_writable_mplconfigdir_picks_a_private_temp_folder(tmp_path, untouched):
    r, out = _mpl(tmp_path, call=True)
    want = str(private_temp(tmp_path, "matplotlib"))
    assert r.stderr == "" and out == {"chosen": want, "config": want, "cache": want}


def test_use_writable_mplconfigdir_prefers_the_callers_fallback(tmp_path, untouched):
    proj = tmp_path / "project" / "_build" / "cache" / "matplotlib"
    r, out = _mpl(tmp_path, call=True, fallbacks=[a_file(tmp_path) / "x", proj])
    assert r.stderr == "" and out == {"chosen": str(proj), "config": str(proj), "cache": str(proj)}
