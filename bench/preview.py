"""The author's loop, measured: ``preview`` in a private copy of the committed sources, and the time from
saving an edit to the page the reader has open showing it (headless Chromium; the page reloads itself
when the preview says a new build is there; a prose edit is first shown in place, before the build, and
that is timed too: until the new word is in the open page). Edits: a prose sentence of the appendix; a scenario input
in one of its cells; a registry value (the A100's bandwidth in mlsysim/data/accelerators.toml: every chapter reads the
registry, and the appendix's page offers the A100).

    python bench/preview.py [--repeat N] [--append]

Each edit is saved, measured, then undone (the undo is a second build, not measured); each run's edit
is a text never built before (nothing comes from the content cache). ``--append``
adds the table to bench/results.md.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PY, ROOT, copy_sources, publish  # noqa: E402

APPENDIX = "appendix/inference-cost.qmd"
WORDS = ["promptly", "quickly", "directly", "readily", "simply", "easily", "swiftly", "neatly", "calmly", "boldly"]
#: (name, file, the text replaced, its replacement for the i-th run (each run a text never built before, so
#: nothing comes from the cache), the word the page must then show (or None))
EDITS = [
    ("prose sentence (appendix)", APPENDIX, "and jump to the section",
     lambda i: f"and {WORDS[i]} jump to the section", lambda i: WORDS[i]),
    ("cell: a scenario input (appendix)", "appendix/_cells/decode-loop.qmd", "    states = 512  #",
     lambda i: f"    states = {600 + i}  #", None),
    ("registry value (accelerators.toml)", "mlsysim/data/accelerators.toml",
     'memory.bandwidth = { value = "2039 GB/s"', lambda i: f'memory.bandwidth = {{ value = "{2040 + i} GB/s"', None),
]


def pv_stop(pv: subprocess.Popen) -> None:
    if pv.poll() is None:
        os.killpg(pv.pid, 2)
        pv.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(pred, timeout=240.0, step=0.01):
    t = time.perf_counter()
    while time.perf_counter() - t < timeout:
        got = pred()
        if got:
            return got
        time.sleep(step)
    raise SystemExit("bench: timed out")


def rebuild_pairs(src: Path, runs: int) -> tuple[list[float], list[float]]:
    """A prose edit rebuilt by a fresh ``python -m bookbuild render`` and by the warm worker, in turn
    (pairs keep the comparison fair when the machine's speed drifts); seconds of each."""
    sys.path.insert(0, str(src))
    from bookbuild.worker import Warm
    f = src / APPENDIX
    original = f.read_text(encoding="utf-8")
    argv = ["render", "--profile", "en", "--root", str(src), "--formats", "html", "--stale-translations", "warn"]
    words = iter(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                  "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"])
    w = Warm(src)
    cold, warm = [], []
    try:
        subprocess.run([PY, "-m", "bookbuild", *argv], cwd=src, capture_output=True, check=True)
        w.run(argv)
        for _ in range(runs):
            for kind, out in (("cold", cold), ("warm", warm)):
                f.write_text(original.replace("and jump", f"and {next(words)} jump", 1), encoding="utf-8")
                t = time.perf_counter()
                if kind == "cold":
                    r = subprocess.run([PY, "-m", "bookbuild", *argv], cwd=src, capture_output=True, text=True)
                else:
                    r = w.run(argv)
                out.append(time.perf_counter() - t)
                if r.returncode != 0:
                    raise SystemExit(f"bench: the {kind} rebuild failed: {r.stderr[-500:]}")
    finally:
        w.stop()
        f.write_text(original, encoding="utf-8")
    return cold, warm


def evaluate(page, js: str):
    """``page.evaluate``, false while the page is between two documents (it reloads itself)."""
    try:
        return page.evaluate(js)
    except Exception:  # noqa: BLE001 - "execution context was destroyed": a navigation under way
        return False


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        src = copy_sources(Path(tmp) / "src")
        if (ROOT / "vendor").is_dir():
            os.symlink(ROOT / "vendor", src / "vendor")
        port = free_port()
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        log = open(Path(tmp) / "preview.log", "w")
        pv = subprocess.Popen([PY, "-m", "bookbuild", "preview", "--profile", "en", "--port", str(port),
                               "--no-browser"], cwd=src, stdout=log, stderr=subprocess.STDOUT, env=env,
                              start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}/appendix/inference-cost.html"
            status = f"http://127.0.0.1:{port}/__bookbuild__/status"
            import urllib.request

            def version():
                try:
                    return json.load(urllib.request.urlopen(status, timeout=2))
                except OSError:
                    return None
            wait_for(lambda: (version() or {}).get("version", 0) >= 1, timeout=600)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
                page = browser.new_page()
                page.goto(url)
                for name, rel, old, new, word in EDITS:
                    f = src / rel
                    original = f.read_text(encoding="utf-8")
                    assert old in original, (rel, old)
                    times, whole = [], []

                    def idle():
                        """No build under way: the last one did not leave the choices for the next."""
                        v = version()
                        return v and not any("being computed again" in w for w in v.get("warnings", []))

                    def save_and_wait(text: str, shows: str | None = None) -> tuple[float, float, float | None]:
                        """Save ``text``; seconds until the open page has reloaded with the new build, until
                        it holds the whole page (the preview shows the text first, the choices next), and
                        until it shows ``shows`` (a prose edit is shown in place before the build)."""
                        wait_for(idle)
                        time.sleep(0.5)
                        v0 = version()["version"]
                        wait_for(lambda: evaluate(page, "(window.__bench = 1) && document.readyState === 'complete'"))
                        t0 = time.perf_counter()
                        f.write_text(text, encoding="utf-8")
                        seen = None
                        if shows:
                            wait_for(lambda: evaluate(page, "document.querySelector('main').textContent"
                                                            f".includes({json.dumps(shows)})"), step=0.005)
                            seen = time.perf_counter() - t0
                        wait_for(lambda: version()["version"] > v0 or not version()["ok"])
                        if not version()["ok"]:
                            raise SystemExit(f"bench: the build failed after {name}: {version()['errors']}")
                        wait_for(lambda: evaluate(page, "window.__bench === undefined && document.readyState"
                                                        " === 'complete'"))
                        shown = time.perf_counter() - t0
                        wait_for(idle)
                        return shown, time.perf_counter() - t0, seen
                    inplace = []
                    for i in range(args.repeat):
                        shown, done, seen = save_and_wait(original.replace(old, new(i), 1), word(i) if word else None)
                        times.append(shown)
                        whole.append(done)
                        if word:
                            inplace.append(seen)
                            assert word(i) in page.inner_text("main"), (name, word(i))
                        save_and_wait(original)
                    if inplace:
                        rows.append((f"preview: {name} → shown in place, before the build",
                                     statistics.median(inplace), min(inplace), max(inplace)))
                    rows.append((f"preview: {name} → page reloaded showing it", statistics.median(times),
                                 min(times), max(times)))
                    if max(whole) - max(times) > 0.5:
                        rows.append((f"preview: {name} → the page whole again (the reader's choices computed)",
                                     statistics.median(whole), min(whole), max(whole)))
                browser.close()
            pv_stop(pv)
            cold, warm = rebuild_pairs(src, args.repeat)
            ratios = sorted(w / c for c, w in zip(cold, warm))
            rows.append(("rebuild after a prose edit (HTML, en): a fresh process, as before the warm worker",
                         statistics.median(cold), min(cold), max(cold)))
            rows.append(("rebuild after a prose edit (HTML, en): the warm worker (paired with the row above)",
                         statistics.median(warm), min(warm), max(warm)))
            rows.append(("warm / fresh, pair by pair (ratio)", statistics.median(ratios), ratios[0], ratios[-1]))
        finally:
            pv_stop(pv)
            log.close()
    load = os.getloadavg()[0]
    table = [f"## {_dt.datetime.now():%Y-%m-%d %H:%M} — the author's loop (bench/preview.py), {platform.machine()}, "
             f"{os.cpu_count()} cores, Python {platform.python_version()} (load average {load:.1f} at the end)",
             "", f"| what | median s | min–max ({args.repeat} runs) |", "|---|---:|---|"]
    table += [f"| {n} | {m:.2f} | {lo:.2f}–{hi:.2f} |" for n, m, lo, hi in rows]
    publish(table, args.append)
    return 0


if __name__ == "__main__":
    sys.exit(main())
