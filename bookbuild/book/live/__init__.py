"""Live mode: the reader's browser runs the chapter's own cells (Pyodide), with the reader's inputs.

What the build adds (:func:`page_data`, :func:`assets`), through the book's additions like every other
reader feature, so that any HTML page (ours, or Quarto's through its post-render step) can carry it:

- one folder per book, ``live/`` at the book's root, shared by all its pages and loaded only when the
  reader opens live mode: ``live.js``, ``manifest.json`` (every file with its size and sha256),
  ``pyodide/`` (Pyodide's core from the npm registry), ``wheels/`` (pint and its pure-Python
  dependencies from PyPI), ``mlsysim.zip`` (the ``mlsysim`` package the chapters import, with its data,
  plus :mod:`.runtime` and :mod:`.numpy_lite`, packed by the build, byte-for-byte reproducible);
- per page whose cells read a scenario, ``<page>.live.json``: the cells the build's variants run, in
  order (:func:`bookbuild.book.variants.cell_records`), the figure cells, which chapter's inputs the page
  offers, and the guards' protected values; and in the page's data script a few bytes (``live``: where
  the folder and the page's live data are), which ``reader.js`` reads to draw the control.

The third-party files come from ``vendor/live/`` (``scripts/vendor_live.py``, pinned in ``vendor.toml``);
the build never downloads. Without them the control says how to get them.
"""
from __future__ import annotations

import hashlib
import io
import json
import tomllib
import zipfile
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).parent
LOCK = HERE / "vendor.toml"
LIVE_JS = HERE.parent / "assets" / "live.js"
FOLDER = "live"                    # in each book, beside the pages
#: the root the cells' files are named under in the browser (guards are recorded by file name)
BROWSER_ROOT = "/book"
#: a figure cell: a ``fig-`` cell, or one kept out of the variants that describes figures
FIGURE_CALL = "book_figure("
#: what a live page's Content-Security-Policy adds to the book's own (scripts and fetches of its own folder
#: only): compiling WebAssembly, which Pyodide needs; not eval, not another host
PAGE_POLICY = {"script-src": ["'wasm-unsafe-eval'"]}


def lock() -> dict:
    return tomllib.loads(LOCK.read_text(encoding="utf-8"))


def vendor_dir(root: Path) -> Path:
    return Path(root) / lock()["folder"]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vendored(root: Path) -> dict[str, Path] | None:
    """The vendored files, book-relative under ``live/`` -> file, or None when any is missing (setup.sh not run)."""
    lk, base = lock(), vendor_dir(root)
    out = {f"pyodide/{n}": base / "pyodide" / n for n in lk["pyodide"]["files"]}
    out.update({f"wheels/{n}": base / "wheels" / n for n in lk["wheels"]})
    return out if all(p.is_file() for p in out.values()) else None


#: the core of a cell's run, which the runtime imports (stdlib only: the page runs the same file)
CELLS_CORE = HERE.parent.parent / "execute" / "cells.py"


def bundle_bytes(lib_dir: Path) -> bytes:
    """``mlsysim`` (code, data and the explorer's script and style) with the live runtime and the numpy subset, as one zip; the same bytes
    for the same files (sorted names, fixed dates)."""
    files = sorted(p for p in Path(lib_dir).rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and p.suffix in (".py", ".toml", ".txt", ".js", ".css"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name: str, data: bytes) -> None:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
        for p in files:
            add("mlsysim/" + p.relative_to(lib_dir).as_posix(), p.read_bytes())
        add("live_runtime.py", (HERE / "runtime.py").read_bytes())
        # the core of a cell's run, under its own name (the runtime imports it as the build does)
        add("bookbuild/__init__.py", b"")
        add("bookbuild/execute/__init__.py", b"")
        add("bookbuild/execute/cells.py", CELLS_CORE.read_bytes())
        add("numpy_lite.py", (HERE / "numpy_lite.py").read_bytes())
    return buf.getvalue()


def write_runtime(root: Path, lib_dir: Path, out_dir: Path) -> dict[str, Any]:
    """Write the bundle and the manifest into ``out_dir`` (the build's folder); returns the folder's
    description: ``assets`` (``live/<name>`` -> file to copy) and ``version`` (a digest of every file), or
    ``unavailable`` (why there is no live mode in this build)."""
    vend = vendored(root)
    if vend is None:   # live.js alone, to say so in the page
        return {"unavailable": "vendor", "assets": {f"{FOLDER}/live.js": LIVE_JS}, "version": "none"}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    data = bundle_bytes(lib_dir)
    digest = _sha256(data)
    bundle = out_dir / f"mlsysim-{digest[:16]}.zip"
    if not bundle.is_file():
        tmp = bundle.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(bundle)
    lk = lock()
    files = {**{k: {"size": p.stat().st_size, "sha256": _pinned(lk, k)} for k, p in vend.items()},
             "mlsysim.zip": {"size": len(data), "sha256": digest},
             "live.js": {"size": LIVE_JS.stat().st_size, "sha256": _sha256(LIVE_JS.read_bytes())}}
    version = _sha256(json.dumps(files, sort_keys=True).encode())[:16]
    manifest = {"pyodide": lk["pyodide"]["version"], "wheels": sorted(lk["wheels"]), "files": files,
                "version": version}
    man = out_dir / f"manifest-{version}.json"
    man.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assets = {f"{FOLDER}/{k}": p for k, p in vend.items()}
    assets.update({f"{FOLDER}/mlsysim.zip": bundle, f"{FOLDER}/manifest.json": man, f"{FOLDER}/live.js": LIVE_JS})
    return {"assets": assets, "version": version}


def _pinned(lk: dict, rel: str) -> str:
    kind, name = rel.split("/", 1)
    return lk["pyodide"]["files"][name] if kind == "pyodide" else lk["wheels"][name]


def chapter_kind(cells: list[dict]) -> str | None:
    """Which scenario a chapter's cells read: ``"appendix"`` (reference_scenario), ``"lecture"``
    (lecture_scenario), or None (no live mode for that page)."""
    code = "\n".join(c["code"] for c in cells)
    if "lecture_scenario()" in code:
        return "lecture"
    if "reference_scenario()" in code:
        return "appendix"
    return None


def figure_cell(cell) -> bool:
    """A cell that draws or describes a figure and that a variant leaves out."""
    o = cell.options
    if o.get("eval") is False:
        return False
    return str(o.get("label") or "").startswith("fig-") or (o.get("variant") is False and FIGURE_CALL in cell.source)


def page_data(doc, records: Callable, keep: Callable, precision: str, guard_map: list[dict] | None) -> dict | None:
    """The page's live data (``<page>.live.json``), or None for a page without a scenario."""
    cells = records(doc, keep)
    kind = chapter_kind(cells)
    if kind is None:
        return None
    figs = [dict(c, figure=c["label"]) for c in records(doc, figure_cell)]
    protects = [{"file": g.get("file"), "line": g.get("line"), "protects": g.get("protects", [])}
                for g in (guard_map or []) if g.get("protects")]
    return {"chapter": kind, "root": BROWSER_ROOT, "precision": precision, "cells": cells, "figures": figs,
            "protects": protects}


def page_pointer(page: str, version: str | None, unavailable: str | None = None) -> dict:
    """What the page's data script says about live mode (a few bytes: the static page does not grow):
    where the book's live folder and the page's live data are, relative to the page."""
    up = "../" * page.count("/")
    stem = page.rsplit("/", 1)[-1]
    stem = stem[: -len(".html")] if stem.endswith(".html") else stem
    out = {"base": f"{up}{FOLDER}/", "data": f"{stem}.live.json", "v": version}
    return dict(out, unavailable=unavailable) if unavailable else out


def data_file(page: str) -> str:
    """The page's live data beside it (``appendix/x.html`` -> ``appendix/x.live.json``)."""
    return (page[: -len(".html")] if page.endswith(".html") else page) + ".live.json"
