"""Benchmarks: import time, CLI start, check, full build, test suite. Appends a dated row to bench/results.md.

Timings are measured here, never asserted in tests. Usage: python bench/run.py [--skip-tests] [--skip-build]
"""
from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _time(cmd: list[str], repeat: int = 1) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-tests", action="store_true")
    ap.add_argument("--skip-build", action="store_true")
    a = ap.parse_args()
    py = sys.executable
    rows = {
        "python startup (baseline)": _time([py, "-c", "pass"], 9),
        "import pint (the floor under mlsysim)": _time([py, "-c", "import pint"], 9),
        "import mlsysim": _time([py, "-c", "import mlsysim"], 9),
        "from mlsysim import * + registry use": _time([py, "-c", "from mlsysim import *; Hardware.Cloud.H100.memory.bandwidth"], 5),
        "python -m mlsysim reference": _time([py, "-m", "mlsysim", "reference"], 3),
        "bookbuild check (both languages)": _time([py, "-m", "bookbuild", "check", "--profile", "all"]),
    }
    if not a.skip_build:
        rows["bookbuild render (HTML+PDF, both languages)"] = _time([py, "-m", "bookbuild", "render", "--profile", "all"])
    if not a.skip_tests:
        rows["pytest (whole suite)"] = _time([py, "-m", "pytest", "-q", "-p", "no:cacheprovider"])
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    head = f"\n## {stamp} — {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n\n| what | seconds |\n|---|---:|\n"
    body = "".join(f"| {k} | {v:.2f} |\n" for k, v in rows.items())
    print(head + body)
    with open(ROOT / "bench" / "results.md", "a", encoding="utf-8") as fh:
        fh.write(head + body)


if __name__ == "__main__":
    main()
