"""A page of the rendered book as a reader loads it: headless Chromium, a local server, each page reloaded
in turn; ms from navigation start to the first paint, the DOM interactive, the load event and every
figure drawn (``data-ready="1"``). With ``--figures-js REV`` the same build is also served with the
``figures.js`` of git revision REV, and the two are reloaded in turn (paired, same machine, same moment).

    python bench/page_load.py [BOOK_DIR] [--figures-js REV] [--repeat N] [--append]

BOOK_DIR: a rendered book (default ``_book``); the pages measured are the appendix in both languages.
"""
from __future__ import annotations

import argparse
import datetime as _dt
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from preview import free_port  # noqa: E402
from run import ROOT, publish  # noqa: E402

PAGES = ["en/appendix/inference-cost.html", "zh/appendix/inference-cost.zh.html"]
DRAWN = "() => Array.from(document.querySelectorAll('.mlsysim-plot')).every(p => p.getAttribute('data-ready') === '1')"
NAV = "JSON.stringify(performance.getEntriesByType('navigation')[0])"
PAINT = "(performance.getEntriesByType('paint').map(e => e.startTime)[0]) || 0"


def measure(page) -> dict[str, float]:
    page.reload(wait_until="load")
    page.wait_for_function(DRAWN, timeout=60_000)
    drawn = page.evaluate("performance.now()")
    nav = json.loads(page.evaluate(NAV))
    return {"first paint": page.evaluate(PAINT), "DOM interactive": nav["domInteractive"],
            "load event": nav["loadEventEnd"], "every figure drawn": drawn}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("book", nargs="?", default=str(ROOT / "_book"))
    ap.add_argument("--figures-js", metavar="REV", default=None)
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--append", action="store_true")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    book = Path(args.book).resolve()
    with tempfile.TemporaryDirectory(prefix="bench-page-") as tmp:
        books = {"this build": book}
        if args.figures_js:
            other = Path(tmp) / "other"
            shutil.copytree(book, other)
            js = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.figures_js}:bookbuild/book/assets/figures.js"],
                                capture_output=True, text=True, check=True).stdout
            for lang in ("en", "zh"):
                (other / lang / "assets" / "figures.js").write_text(js, encoding="utf-8")
            books[f"figures.js of {args.figures_js}"] = other
        servers, urls = [], {}
        for name, folder in books.items():
            port = free_port()
            servers.append(subprocess.Popen([sys.executable, "-m", "http.server", str(port), "-b", "127.0.0.1",
                                             "-d", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            urls[name] = f"http://127.0.0.1:{port}/"
        time.sleep(1.0)
        rows = {}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
                for rel in PAGES:
                    pages = {}
                    for name, url in urls.items():
                        pages[name] = browser.new_page()
                        pages[name].goto(url + rel, wait_until="load")
                    got = {name: [] for name in urls}
                    for _ in range(args.repeat):   # in turn: the same moment for both
                        for name, pg in pages.items():
                            got[name].append(measure(pg))
                    for name in urls:
                        runs = got[name][1:] if len(got[name]) > 1 else got[name]   # the first warms the cache
                        rows[(rel, name)] = {k: [r[k] for r in runs] for k in runs[0]}
                    for pg in pages.values():
                        pg.close()
                browser.close()
        finally:
            for s in servers:
                s.terminate()
    keys = ["first paint", "DOM interactive", "load event", "every figure drawn"]
    table = [f"## {_dt.datetime.now():%Y-%m-%d %H:%M} — page load (bench/page_load.py), {platform.machine()}, "
             f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f}); ms, median (min–max) of "
             f"{max(1, args.repeat - 1)} reloads", "",
             "| page | served | " + " | ".join(keys) + " |", "|---|---|" + "---:|" * len(keys)]
    for (rel, name), v in rows.items():
        cells = [f"{statistics.median(v[k]):.0f} ({min(v[k]):.0f}–{max(v[k]):.0f})" for k in keys]
        table.append(f"| {rel} | {name} | " + " | ".join(cells) + " |")
    publish(table, args.append)
    return 0


if __name__ == "__main__":
    sys.exit(main())
