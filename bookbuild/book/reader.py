"""The reader's page: each page's data (how every number was computed, the chapter for every registry
choice) and the scripts that use it, as additions to an HTML book that any renderer made.

:func:`additions` turns one executed profile into a :class:`~bookbuild.render.additions.Additions`: per page, a
data script beside it (``appendix/x.data.js``: ``window.MLSYSIM_PAGE = {...}``, with the interface strings
its scripts say, :func:`page_strings`) and the script tags the
page needs (the vendored plotly.js and ``figures.js`` where the page has an interactive figure; the
data and ``reader.js`` where it has data); the shared assets (``assets/reader.js``, ``assets/figures.js``,
``assets/vendor/``). :mod:`bookbuild.render` applies them to our pages; the Quarto post-render step
applies the same to Quarto's.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..render.pages import page_for
from ..render.strings import strings
from ..render.additions import Additions, PageAddition
from . import live as L
from .hooks import library_script_hashes
from .provenance import pack

ASSETS = Path(__file__).parent / "assets"
#: the layer's interface strings, one file per language (``ui/<lang>.toml``: a table per script)
UI = Path(__file__).parent / "ui"
#: the book's own plotly.js (partial bundle, see assets/vendor/README.md) and the script that draws figures
PLOTLY_JS = "assets/vendor/plotly-basic.min.js"
FIGURES_JS = "assets/figures.js"
READER_JS = "assets/reader.js"
READER_CSS = "assets/reader.css"
VENDOR_FILES = ("plotly-basic.min.js", "plotly-basic.LICENSE", "README.md")
#: a page with an interactive figure holds this (mlsysim.figures.plot_div)
PLOT_MARK = 'class="mlsysim-plot'
#: an inline value as the executed markdown and the rendered page mark it (hooks.value_span)
VALUE_MD, VALUE_MARK = ".mlsysim-v ", 'class="mlsysim-v"'


def data_file(page: str) -> str:
    """The script next to a page that carries its reader data (``appendix/x.html`` -> ``appendix/x.data.js``)."""
    return page[: -len(".html")] + ".data.js" if page.endswith(".html") else page + ".data.js"


def page_strings(lang: str, live: bool) -> dict[str, dict]:
    """What the page's scripts say, in its language (English where the language has no file): reader.js's
    table, and live.js's where the page has live mode (reader.js hands it on)."""
    u = strings(UI, lang)
    return {"reader": u["reader"], **({"live": u["live"]} if live else {})}


def data_script(data: dict[str, Any], lang: str) -> str:
    payload = json.dumps(dict(data, lang=lang), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "window.MLSYSIM_PAGE = " + payload.replace("</", "<\\/") + ";\n"


def assets() -> dict[str, Path]:
    """The files every book carries for its reader features (destination in the book -> source)."""
    out = {FIGURES_JS: ASSETS / "figures.js", READER_JS: ASSETS / "reader.js", READER_CSS: ASSETS / "reader.css"}
    out.update({f"assets/vendor/{n}": ASSETS / "vendor" / n for n in VENDOR_FILES})
    return out


def additions(lang: str, chapters: list[tuple[str, str, dict, dict | None]], live: dict | None = None) -> Additions:
    """``chapters``: (source, executed markdown, provenance explanations, compact variants or None).
    ``live``: live mode (:mod:`.live`): ``runtime`` (:func:`.live.write_runtime`'s result) and ``pages``
    (source -> :func:`.live.page_data`)."""
    out = Additions(assets=assets(), own_scripts=library_script_hashes()
                    if any("<script" in md for _, md, _, _ in chapters) else [])
    runtime = (live or {}).get("runtime") or {}
    out.assets.update(runtime.get("assets", {}))
    for source, markdown, provenance, variants in chapters:
        page = page_for(source)
        add = PageAddition()
        if PLOT_MARK in markdown:
            add.scripts += [(PLOTLY_JS, True), (FIGURES_JS, False)]
            add.marks.append(PLOT_MARK)
        if VALUE_MD in markdown:
            add.marks.append(VALUE_MARK)
        data = {}
        if provenance:
            data["provenance"] = pack(provenance)
        if variants is not None:
            data["variants"] = variants
        live_page = (live or {}).get("pages", {}).get(source)
        if live_page is not None:   # live mode: its data beside the page, loaded on demand; a pointer here
            add.files[L.data_file(page)] = json.dumps(dict(live_page, lang=lang), ensure_ascii=False,
                                                      sort_keys=True, separators=(",", ":")) + "\n"
            data["live"] = L.page_pointer(page, runtime.get("version"), runtime.get("unavailable"))
            if not runtime.get("unavailable"):   # Pyodide compiles its WebAssembly: this page's policy allows that
                add.policy = dict(L.PAGE_POLICY)
        if data:
            data["ui"] = page_strings(lang, "live" in data)
            add.files[data_file(page)] = data_script(data, lang)
            add.scripts += [(data_file(page), True), (READER_JS, False)]
        if add.scripts or add.files:
            add.styles.append(READER_CSS)
            out.pages[page] = add
    return out
