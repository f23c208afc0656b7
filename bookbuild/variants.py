"""The appendix for the reader's hardware: every registry accelerator × model, computed at build time.

A chapter whose front matter says ``mlsysim-variants: true`` is executed once more per choice, by its
own cells: the build sets the scenario override (``MLSYSIM_SCENARIO``, which
:func:`mlsysim.reference_scenario` reads), records guards instead of raising them
(``MLSYSIM_GUARDS=record``) and skips drawing figures (``MLSYSIM_FIGURES=off``). Only the Python
chunks run (the prose is the same), so the English and the Chinese chapter, which include the same
cells, share one set of results. Each choice yields:

- ``values``: every ``Cls.x_str`` the cells define, as the prose would quote it;
- ``failed``: the guards that do not hold for that choice (file, line, message in English and, where
  the cell gives one, Chinese);
- the accelerator, model, node and weight precision actually used (and a note when the accelerator
  publishes no 8-bit rate), or ``error`` when the cells cannot compute that choice at all.

The page then swaps strings; it computes nothing. The reference build is untouched: it still fails on
any broken guard.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

from .execute import _rel, expand_includes, parse_options
from .lint import find_fences, front_matter_end

FRONT_MATTER_KEY = "mlsysim-variants"
PRECISION = "fp8"   # the appendix's 8-bit weights; the nearest published precision where absent


def chunks(path: Path, root: Path) -> list[tuple[str, str, int]]:
    """The chapter's Python chunks as (source, file, first line), skipping figure chunks (``fig-``
    labels), ``#| variant: false`` chunks (the explorer: it already spans every choice) and
    ``#| eval: false`` chunks."""
    lines = expand_includes(path, root)
    texts = [t for t, _ in lines]
    fm = front_matter_end(texts)
    out = []
    for f in find_fences(texts):
        if f.start <= fm or f.exec_lang != "python":
            continue
        body = list(range(f.start + 1, f.end if f.closed else f.end + 1))
        if not body:
            continue
        code = [texts[k] for k in body]
        head = lines[f.start][1]
        opts, _ = parse_options(code, f.info, head)
        label = str(opts.get("label") or "")
        if opts.get("variant") is False or opts.get("eval") is False or label.startswith("fig-"):
            continue
        o = lines[body[0]][1]
        out.append(("\n" * (o.line - 1) + "\n".join(code) + "\n", o.file, o.line))
    return out


def choices(root: Path | None = None) -> list[dict[str, str]]:
    """Every registry accelerator × model (the precision is the appendix's), read from the registry's
    data files in their order (without importing mlsysim: a no-change rebuild stays fast)."""
    import tomllib
    from .cache import mlsysim_dir
    data = os.environ.get("MLSYSIM_DATA_DIR")
    folder = Path(data) if data else (mlsysim_dir(root) or Path(".")) / "data"
    names = {}
    for kind, file in (("accelerator", "accelerators.toml"), ("model", "models.toml")):
        try:
            names[kind] = list(tomllib.loads((folder / file).read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError):
            names[kind] = []   # the cells report the registry's own error
    return [{"accelerator": a, "model": m} for a in names["accelerator"] for m in names["model"]]


def _class_strs(ns: dict) -> dict[str, str]:
    out = {}
    for name, obj in list(ns.items()):
        if isinstance(obj, type) and getattr(obj, "__module__", "") == "__main__":
            for attr, v in vars(obj).items():
                if attr.endswith("_str") and isinstance(v, str):
                    out[f"{name}.{attr}"] = str.__str__(v)
    return out


def run_batch(root: Path, path: Path, batch: list[dict[str, str]], cell_timeout: float = 0,
              progress=None) -> list[dict[str, Any]]:
    """Execute the chapter's chunks once per choice of ``batch`` (in this process, a fresh namespace
    each); returns one result per choice. Runs in a chapter worker process (see kernel.py)."""
    from .kernel import CellTimeout, arm, disarm
    root = Path(root).resolve()
    code = [(compile(src, str(root / file), "exec"), file) for src, file, _ in chunks(path, root)]
    os.chdir(Path(path).parent)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import mlsysim.guards as G
    import mlsysim.scenario as S
    results = []
    for choice in batch:
        if progress is not None:
            progress(str(path), 0, f"variant {choice.get('accelerator')}/{choice.get('model')}")
        ns: dict[str, Any] = {"__name__": "__main__"}
        res: dict[str, Any] = {"choice": choice}
        try:
            sc = S.scenario(choice.get("accelerator"), choice.get("model"), PRECISION)
            res.update(accelerator=sc.accelerator.display_name, model=sc.model.display_name,
                       node=sc.node.display_name if sc.node else "", precision=sc.weight_precision,
                       note=sc.precision_note, reference=sc.is_reference)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
                    S.use(sc), G.recording() as rec:
                for c, _file in code:
                    arm(cell_timeout)
                    try:
                        exec(c, ns)
                    finally:
                        disarm()
            res["values"] = _class_strs(ns)
            res["failed"] = [{"file": _rel(Path(r["file"]), root), "line": r["line"], "message": r["message"],
                              "zh": r.get("zh", "")} for r in rec.records if not r["passed"]]
        except CellTimeout:
            res["error"] = f"the cells ran longer than {cell_timeout:g} s for this choice"
        except Exception as e:  # noqa: BLE001 - a choice the cells cannot compute is shown as such
            res["error"] = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        results.append(res)
    return results


def compact(results: list[dict[str, Any]], reference: dict[str, str],
            guard_map: list[dict] | None = None) -> dict[str, Any]:
    """The page's data: attribute names once, each choice's values as a list (null where equal to the
    reference text, which the page already shows), failed guards with the ``*_str`` they protect
    (``guard_map``: bookbuild.provenance.guard_targets of the reference run), errors; and the
    accelerators and models to offer, with their names as the registry displays them."""
    attrs = sorted({a for r in results for a in r.get("values", {})})
    protects = {(g.get("file"), g.get("line")): g.get("protects", []) for g in (guard_map or [])}
    accels: dict[str, str] = {}
    models: dict[str, str] = {}
    for r in results:
        accels.setdefault(r["choice"]["accelerator"], r.get("accelerator", r["choice"]["accelerator"]))
        models.setdefault(r["choice"]["model"], r.get("model", r["choice"]["model"]))
    ref = next((r["choice"] for r in results if r.get("reference")), None)
    out = {"attrs": attrs, "choices": {}, "reference": ref,
           "accelerators": [{"name": k, "label": v} for k, v in accels.items()],
           "models": [{"name": k, "label": v} for k, v in models.items()]}
    for r in results:
        key = f"{r['choice']['accelerator']}|{r['choice']['model']}"
        entry: dict[str, Any] = {k: r[k] for k in ("accelerator", "model", "node", "precision", "note") if k in r}
        if "error" in r:
            entry["error"] = r["error"]
        else:
            vals = r["values"]
            entry["v"] = [None if vals.get(a) == reference.get(a) else vals.get(a) for a in attrs]
            if r["failed"]:
                entry["failed"] = [dict(f, protects=protects.get((f["file"], f["line"]), [])) for f in r["failed"]]
        out["choices"][key] = entry
    return out
