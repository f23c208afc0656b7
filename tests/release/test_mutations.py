"""Breaking the model breaks the build: the check fails naming the guard, its cell file and line."""
import os
import re
import subprocess
import sys
from pathlib import Path


from conftest import ROOT, copy_with_edits

DATA = ROOT / "mlsysim" / "data"
#: what a copy of the book leaves out (build products, environments, caches)
IGNORED = ("_build", "_book", ".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info", "vendor")


def _check(root: Path, env_extra=None, profile="en"):
    env = {**os.environ, **(env_extra or {})}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "bookbuild", "check", "--profile", profile, "--root", str(root)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_faster_memory_breaks_the_two_orders_of_magnitude_claim(tmp_path):
    # H100 at 20 TB/s: ratio 1978.9e12 / (2 * 20e12) = 49, below the prose's "two orders of magnitude"
    data = copy_with_edits(DATA, tmp_path / "data", {"accelerators.toml": (
        'memory.bandwidth = { value = "3.35 TB/s"', 'memory.bandwidth = { value = "20 TB/s"')})
    # both books run the lecture before the appendix: in a copy whose Chinese book holds only the appendix,
    # the appendix's own guard is the one that fails
    only_appendix = copy_with_edits(ROOT, tmp_path / "book", {"_quarto-zh.yml": (
        "    - lectures/lecture19-agent-stalls.zh.qmd\n", "")},
        ignore=("_build", "_book", ".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info"))
    r = _check(only_appendix, {"MLSYSIM_DATA_DIR": str(data)}, profile="zh")
    assert r.returncode == 1, r.stdout + r.stderr
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    assert "appendix/_cells/serving-ref.qmd" in r.stderr
    assert "calc-vol3-appendix-inference-serving-ref" in r.stderr
    assert "two orders of magnitude more time than a prompt token (49 times)" in r.stderr
    assert re.search(r"serving-ref\.qmd:\d+", r.stderr), msg
    assert "Traceback" not in r.stderr
    # the real books run the lecture first (English and Chinese); its guard ties the lecture to the appendix's ratio
    book = copy_with_edits(ROOT, tmp_path / "whole", ignore=IGNORED)   # its _build/ is not the checkout's
    for profile in ("en", "zh"):
        r = _check(book, {"MLSYSIM_DATA_DIR": str(data)}, profile=profile)
        assert r.returncode == 1
        assert "lectures/_cells/lec19-break-even.qmd" in r.stderr and "295" in r.stderr


def test_shorter_agent_context_breaks_the_concurrency_guard(tmp_path):
    root = copy_with_edits(ROOT, tmp_path / "book",
                           {"mlsysim/data/reference.toml": ("context = 32768", "context = 16384")},   # the cells' s_agent
                           ignore=("_build", "_book", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info"))
    r = _check(root)
    assert r.returncode == 1
    assert "Node concurrency at 32k must match the KV chapter (48), got 97" in r.stderr
    assert "appendix/_cells/serving-ref.qmd" in r.stderr


def test_a_bad_registry_unit_stops_the_build_naming_the_entry(tmp_path):
    data = copy_with_edits(DATA, tmp_path / "data",
                           {"models.toml": ('parameters = "70.6e9 count"', 'parameters = "70.6e9 byte"')})
    r = _check(copy_with_edits(ROOT, tmp_path / "book", ignore=IGNORED), {"MLSYSIM_DATA_DIR": str(data)})
    assert r.returncode == 1
    assert "[Llama3_70B] parameters" in r.stderr and "Traceback" not in r.stderr


def test_a_guard_both_books_break_is_said_once_with_both_languages(tmp_path):
    # the appendix's cells are shared by the English and the Chinese chapter: at 20 TB/s its guard fails in
    # both books, and the build says it once, naming both (1978.9e12 / (2 * 20e12) = 49 times, by hand)
    data = copy_with_edits(DATA, tmp_path / "data", {"accelerators.toml": (
        'memory.bandwidth = { value = "3.35 TB/s"', 'memory.bandwidth = { value = "20 TB/s"')})
    book = copy_with_edits(ROOT, tmp_path / "book", {},
                           ignore=("_build", "_book", ".git", ".venv", "__pycache__", ".pytest_cache", "*.egg-info"))
    r = _check(book, {"MLSYSIM_DATA_DIR": str(data)}, profile="all")
    assert r.returncode == 1, r.stdout + r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "serving-ref.qmd" in ln]
    # every guard of the cell that fails is said (not only the first), each once, with both languages
    assert sum(ln.endswith("(49 times) (en, zh)") for ln in lines) == 1, r.stderr
    assert lines and all(ln.endswith("(en, zh)") for ln in lines), r.stderr
    assert len(set(r.stderr.splitlines())) == len(r.stderr.splitlines())   # no line twice
