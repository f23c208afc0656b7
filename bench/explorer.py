"""Explorer benchmark: weight of the built appendix page and time for a selection to update.

Renders the English book from a copy of the sources (``python -m bookbuild render``), opens the
appendix in headless Chromium (/usr/bin/chromium, via playwright), and measures: page bytes, the
explorer's share of them, its embedded JSON, time to build the explorer in Python, and time from a
selection change to the updated values (in-page, and round trip from Python). Prints a table and
appends it to bench/results.md. Usage: python bench/explorer.py [--book DIR]  (DIR: an existing _book)
"""
from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "book"))   # test_browser_explorer.render_book

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]

# the in-page measurement: change the selects, dispatch the events the reader's click would, and time
# until the value cell shows the new entry (the handler is synchronous, so this is the whole update)
_JS = """([accel, model]) => {
  const sa = document.getElementById('mlsysim-explorer-accelerator');
  const sm = document.getElementById('mlsysim-explorer-model');
  const t0 = performance.now();
  sa.value = accel; sa.dispatchEvent(new Event('change'));
  sm.value = model; sm.dispatchEvent(new Event('change'));
  const v = document.querySelector('#mlsysim-explorer [data-key=ridge_flop_per_byte]').textContent;
  return [performance.now() - t0, v];
}"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--book", type=Path, help="an already rendered _book directory (default: render one now)")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from mlsysim.explorer import explorer_data, explorer_html

    t = time.perf_counter()
    frag = explorer_html("en")
    build_s = time.perf_counter() - t
    data_json = re.search(r'id="mlsysim-explorer-data">(.*?)</script>', frag, re.S).group(1)
    entries = sum(len(ms) for ps in explorer_data("en")["values"].values() for ms in ps.values())

    if a.book:
        book = a.book
        render_s = float("nan")
    else:
        from test_browser_explorer import render_book
        tmp = Path(tempfile.mkdtemp(prefix="bench-explorer-"))
        t = time.perf_counter()
        book = render_book(tmp / "src", "en")
        render_s = time.perf_counter() - t
    page_path = book / "en" / "appendix" / "inference-cost.html"
    page_bytes = page_path.read_bytes()

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        pg = b.new_page()
        t = time.perf_counter()
        pg.goto(page_path.as_uri())
        pg.wait_for_selector("#mlsysim-explorer[data-ready='1']")
        load_s = time.perf_counter() - t
        inpage, roundtrip = [], []
        choices = [("H200", "Llama3_8B"), ("B200", "Llama3_405B"), ("MI300X", "Mixtral_8x7B"), ("H100", "Llama3_70B")]
        for k in range(5):
            for accel, model in choices:
                ms, _ = pg.evaluate(_JS, [accel, model])
                inpage.append(ms)
                t = time.perf_counter()
                pg.select_option("#mlsysim-explorer-accelerator", accel)
                pg.select_option("#mlsysim-explorer-model", model)
                pg.wait_for_function("([a, m]) => document.getElementById('mlsysim-explorer').dataset.accelerator === a"
                                     " && document.getElementById('mlsysim-explorer').dataset.model === m",
                                     arg=[accel, model])
                roundtrip.append((time.perf_counter() - t) * 1e3)
        b.close()

    rows = [
        ("built appendix page (en), bytes", f"{len(page_bytes):,}"),
        ("  gzip-compressed, bytes", f"{len(gzip.compress(page_bytes, 9)):,}"),
        ("explorer fragment, bytes", f"{len(frag.encode()):,}"),
        ("  embedded JSON, bytes", f"{len(data_json.encode()):,}"),
        ("  (accelerator, precision, model) entries", f"{entries:,}"),
        ("explorer_html('en') build, s", f"{build_s:.2f}"),
        ("bookbuild render --profile en (HTML+PDF), s", f"{render_s:.1f}"),
        ("page load to explorer ready, ms", f"{load_s * 1e3:.0f}"),
        ("selection update in page (median), ms", f"{statistics.median(inpage):.2f}"),
        ("selection update via playwright round trip (median), ms", f"{statistics.median(roundtrip):.1f}"),
    ]
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    head = (f"\n## {stamp} — explorer (bench/explorer.py) — {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}\n\n| what | value |\n|---|---:|\n")
    body = "".join(f"| {k} | {v} |\n" for k, v in rows)
    print(head + body)
    with open(ROOT / "bench" / "results.md", "a", encoding="utf-8") as fh:
        fh.write(head + body)


if __name__ == "__main__":
    main()
