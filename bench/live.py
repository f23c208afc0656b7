"""Live mode's cost in headless Chromium, on a built book served on localhost: from the click on the Live
control to the first recomputed page (cold browser cache, then warm), and per input change (the values,
then the figures), for the appendix and the lecture. Appends a dated table to bench/results.md.

    python bench/live.py [--book _book] [--changes 8] [--no-write]

Times come from live.js's own ``window.MLSYSIM_LIVE.timings`` (performance.now() in the page) and from the
wall clock around each step here; the machine's load average is printed with them, because the machine is
shared (2 cores) and Pyodide's boot is CPU-bound.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import functools
import http.server
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

PAGES = {"appendix": ("en/appendix/inference-cost.html", "bandwidth", ["4", "5", "6", "7", "8", "2.5", "10", "3"]),
         "lecture": ("en/lectures/lecture19-agent-stalls.html", "link_bandwidth", ["32", "48", "100", "128", "16", "64", "80", "200"])}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(book: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(book)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def first(page, url: str) -> dict:
    """Open ``url``, click the Live control, wait for the first recomputed page; the page's timings."""
    outside = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(url.split("/en/")[0]) else
               (outside.append(r.request.url), r.abort()))
    page.goto(url)
    page.wait_for_selector("#mlsysim-live-open")
    t = time.perf_counter()
    page.click("#mlsysim-live-open")
    page.wait_for_function("() => +document.documentElement.getAttribute('data-mlsysim-live-n') >= 1", timeout=300_000)
    wall = time.perf_counter() - t
    tm = page.evaluate("window.MLSYSIM_LIVE.timings")
    assert not outside, outside
    return {"wall_s": wall, **tm}


def changes(page, key: str, values: list[str]) -> dict:
    walls = []
    for v in values:
        n = int(page.evaluate("+document.documentElement.getAttribute('data-mlsysim-live-n')"))
        t = time.perf_counter()
        page.fill(f"#mlsysim-live-{key}", v)
        page.wait_for_function(f"() => +document.documentElement.getAttribute('data-mlsysim-live-n') > {n}", timeout=120_000)
        walls.append(time.perf_counter() - t)
    tm = page.evaluate("window.MLSYSIM_LIVE.timings")
    return {"wall_s": walls, "values_ms": tm["changes"][-len(values):], "figures_ms": tm["figures"][-len(values):]}


def measure(book: Path, n_changes: int) -> dict:
    import playwright.sync_api as sync_api
    httpd, base = serve(book)
    out = {"load_before": os.getloadavg()}
    try:
        with sync_api.sync_playwright() as p:
            b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            for name, (path, key, values) in PAGES.items():
                ctx = b.new_context()                          # an empty browser cache
                page = ctx.new_page()
                out[f"{name}_cold"] = first(page, base + path)
                out[f"{name}_changes"] = changes(page, key, values[:n_changes])
                page.close()
                page = ctx.new_page()                          # the same browser cache, now warm
                out[f"{name}_warm"] = first(page, base + path)
                ctx.close()
            b.close()
    finally:
        httpd.shutdown()
    out["load_after"] = os.getloadavg()
    return out


def table(r: dict) -> str:
    med = statistics.median
    rows = []
    for name in PAGES:
        c, w, ch = r[f"{name}_cold"], r[f"{name}_warm"], r[f"{name}_changes"]
        rows += [
            f"| {name}: click → first recomputed page, empty browser cache (values / with figures) | "
            f"{c['first_ms'] / 1e3:.2f} / {c['first_figures_ms'] / 1e3:.2f} s (of which Pyodide, pint, mlsysim loaded: {c['boot_ms'] / 1e3:.2f} s) |",
            f"| {name}: the same, warm browser cache (second page load) | "
            f"{w['first_ms'] / 1e3:.2f} / {w['first_figures_ms'] / 1e3:.2f} s (loaded: {w['boot_ms'] / 1e3:.2f} s) |",
            f"| {name}: per input change, median of {len(ch['values_ms'])} (values / figures after them) | "
            f"{med(ch['values_ms']):.0f} / {med(ch['figures_ms']):.0f} ms (max {max(ch['values_ms'])} / {max(ch['figures_ms'])}) |",
            f"| {name}: per input change, wall clock here incl. the 120 ms debounce (median) | {med(ch['wall_s']) * 1e3:.0f} ms |",
        ]
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--book", type=Path, default=ROOT / "_book")
    ap.add_argument("--changes", type=int, default=8)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    if not (a.book / "en" / "live" / "manifest.json").is_file():
        raise SystemExit(f"bench: {a.book} has no live/ folder: run scripts/setup.sh, then build the book")
    r = measure(a.book, a.changes)
    when = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    head = (f"## {when} — live mode (bench/live.py), {platform.machine()}, {os.cpu_count()} cores, headless Chromium; "
            f"load average {r['load_before'][0]:.1f} before, {r['load_after'][0]:.1f} after\n\n| what | time |\n|---|---:|\n")
    text = head + table(r) + "\n"
    print(text)
    if not a.no_write:
        with open(ROOT / "bench" / "results.md", "a", encoding="utf-8") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
