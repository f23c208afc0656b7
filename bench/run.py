"""Benchmarks: imports, the CLI, the build's cold / no-change / one-sentence times, the kernel choice,
page weights and (optionally) the test suite. Appends a dated table to bench/results.md.

Timings are measured here, never asserted in tests. The build is measured in a private copy of the
committed sources with its own empty cache, so the numbers do not depend on what was built before.

    python bench/run.py [--tests] [--repeat N]
"""
from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def _time(cmd: list[str], cwd: Path = ROOT, repeat: int = 1, env: dict | None = None) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, **(env or {})})
        runs.append(time.perf_counter() - t)
        if r.returncode != 0:
            raise SystemExit(f"bench: {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    return statistics.median(runs)


def copy_sources(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    return dest


def kernel_start() -> float:
    """A Jupyter kernel, started as Quarto starts one, until ``import mlsysim`` has run in it."""
    code = ("import time; t=time.perf_counter()\n"
            "from jupyter_client.manager import start_new_kernel\n"
            "km, kc = start_new_kernel(kernel_name='python3')\n"
            "kc.execute_interactive('import mlsysim, matplotlib.pyplot', timeout=120)\n"
            "print(time.perf_counter()-t)\n"
            "kc.stop_channels(); km.shutdown_kernel(now=True)\n")
    r = subprocess.run([PY, "-c", code], cwd=ROOT, capture_output=True, text=True)
    try:
        return float(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return float("nan")


def fork_start() -> float:
    """The same, for the build's own worker: fork a process that has imported mlsysim."""
    code = ("import time, os\nimport mlsysim, matplotlib.pyplot\nt=time.perf_counter()\n"
            "pid=os.fork()\n"
            "if pid==0:\n    import mlsysim\n    os._exit(0)\n"
            "os.waitpid(pid, 0)\nprint(time.perf_counter()-t)\n")
    r = subprocess.run([PY, "-c", code], cwd=ROOT, capture_output=True, text=True)
    return float(r.stdout.strip().splitlines()[-1])


def phases(book: Path) -> dict[str, float]:
    """The parts of a build the notes quote, each timed on its own in the rendered copy ``book``:
    the import every chapter process starts from, the appendix executed with an empty and with a
    warm figure/explorer cache, one hardware variant of the appendix, and typst for one book."""
    code = r"""
import json, os, re, sys, time, tempfile
from pathlib import Path
root = Path(sys.argv[1]); sys.path.insert(0, str(root)); out = {}
t = time.perf_counter()
from bookbuild.book.hooks import BookHooks, preload
preload(root, None); out["import"] = time.perf_counter() - t
from bookbuild.execute import RunOptions, execute_chapter
cache = Path(tempfile.mkdtemp())
for label in ("cold", "warm"):
    import mlsysim.figures.book as F; F._DRAWN.clear()
    t = time.perf_counter()
    execute_chapter(root / "appendix/inference-cost.qmd", root, cache / "figs", profile="en",
                    hooks=BookHooks(root, cache_folder=cache))
    out["appendix_" + label] = time.perf_counter() - t
from bookbuild.book.variants import choices, one_choice
from bookbuild.source import parse
doc = parse("appendix/inference-cost.qmd", root)
opts = RunOptions(root=root, fig_dir=cache / "v", md_dir=root, raw_errors=True)
batch = choices(root / "mlsysim" / "data")[:20]
t = time.perf_counter()
for c in batch:
    one_choice(doc, opts, c, "fp8")
out["variant"] = (time.perf_counter() - t) / len(batch)
import typst
typ = root / "_build" / "typst" / "en" / "book.typ"
moved = typ.with_name("bench.typ")   # the images now sit in _book, where the staging folder was swapped in
moved.write_text(re.sub(r"/_book/\.(\w+)\.staging-\d+/\w+/", r"/_book/\1/", typ.read_text(encoding="utf-8")),
                 encoding="utf-8")
t = time.perf_counter(); typst.compile(str(moved), root="/", ignore_system_fonts=False)
out["typst"] = time.perf_counter() - t
print(json.dumps(out))
"""
    r = subprocess.run([PY, "-c", code, str(book)], cwd=book, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench: phases failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def publish(lines: list[str], append: bool) -> None:
    """Print a results table; with ``append``, add it to bench/results.md."""
    print("\n".join(lines))
    if append:
        with open(ROOT / "bench" / "results.md", "a", encoding="utf-8") as fh:
            fh.write("\n" + "\n".join(lines) + "\n")


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9, mtime=0))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", action="store_true", help="also time the whole test suite")
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing of the quick commands")
    a = ap.parse_args()
    rows: dict[str, str] = {}

    def sec(name, v):
        rows[name] = f"{v:.2f}"

    sec("python startup (baseline)", _time([PY, "-c", "pass"], repeat=a.repeat))
    sec("import pint (the floor under mlsysim)", _time([PY, "-c", "import pint"], repeat=a.repeat))
    sec("import mlsysim (warm pint cache)", _time([PY, "-c", "import mlsysim"], repeat=a.repeat))
    with tempfile.TemporaryDirectory() as cold:
        sec("import mlsysim (empty pint cache)", _time([PY, "-c", "import mlsysim"], env={"XDG_CACHE_HOME": cold}))
    sec("python -m mlsysim reference", _time([PY, "-m", "mlsysim", "reference"], repeat=a.repeat))
    sec("kernel: Jupyter kernel start + import mlsysim", kernel_start())
    sec("kernel: fork of a worker that imported mlsysim", fork_start())

    with tempfile.TemporaryDirectory() as tmp:
        book = copy_sources(Path(tmp) / "book")
        build = [PY, "-m", "bookbuild", "render", "--profile", "all", "--root", str(book)]
        sec("build: cold, both books, HTML+PDF, empty cache", _time(build, cwd=book))
        sec("build: no-change rebuild", _time(build, cwd=book, repeat=a.repeat))
        # one sentence of one chapter (the Chinese appendix: an English edit would, rightly, stop the
        # build until its translation is brought up to date)
        ch = book / "appendix" / "inference-cost.zh.qmd"
        text = ch.read_text(encoding="utf-8")
        sentence = "跳转到推导其答案的相应章节。"
        assert sentence in text
        ch.write_text(text.replace(sentence, "跳转到推导其答案的那一节。"), encoding="utf-8")
        sec("build: one prose sentence changed (appendix, zh), HTML+PDF", _time(build, cwd=book))
        ch.write_text(text.replace(sentence, "跳转到推导答案的那一节。"), encoding="utf-8")
        sec("build: one prose sentence changed, HTML only (what preview does)",
            _time(build[:-4] + ["--profile", "zh", "--formats", "html", "--root", str(book)], cwd=book))
        sec("build: --no-cache (everything again)", _time(build + ["--no-cache"], cwd=book))
        page = book / "_book" / "en" / "appendix" / "inference-cost.html"
        data = page.with_name("inference-cost.data.js")
        rows["appendix page (HTML + its data.js), bytes / gzip"] = (
            f"{page.stat().st_size + data.stat().st_size:,} / {gz(page) + gz(data):,}")
        ph = phases(book)
        sec("phase: import numpy, pint, matplotlib (pyplot), mlsysim before forking", ph["import"])
        sec("phase: appendix executed, empty figure/explorer cache", ph["appendix_cold"])
        sec("phase: appendix executed, warm figure/explorer cache", ph["appendix_warm"])
        sec("phase: one hardware variant of the appendix (mean of 20)", ph["variant"])
        sec("phase: typst compile of the English PDF", ph["typst"])
        r = subprocess.run([PY, str(ROOT / "bench" / "page_weight.py"), str(book / "_book")],
                           capture_output=True, text=True)
        heaviest = [ln for ln in r.stdout.splitlines() if "heaviest" in ln.lower()]
        if heaviest:
            rows["heaviest page with its assets (page_weight.py)"] = heaviest[0].split(":", 1)[-1].strip()
    if a.tests:
        sec("pytest (whole suite)", _time([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider"]))
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    publish([f"## {stamp} — {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} "
             f"(load average {load:.1f} at the end)", "", "| what | seconds (or size) |", "|---|---:|",
             *(f"| {k} | {v} |" for k, v in rows.items())], append=True)

if __name__ == "__main__":
    main()
