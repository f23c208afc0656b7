"""The appendix for the reader's hardware: every registry accelerator × model, computed at build time.

A chapter whose front matter says ``mlsysim-variants: true`` is run once more per choice, through the
engine's one runner (:meth:`bookbuild.execute.Runner.run_cells`) with the scenario passed in
(``with mlsysim.scenario.use(choice)``), guards recorded instead of raised (``mlsysim.guards.recording``)
and formats that add decimals rather than refuse (``mlsysim.fmt.adaptive``). Only the Python cells run,
figure cells (``fig-`` labels), ``#| variant: false`` cells and ``#| eval: false`` cells left out; the
English and the Chinese chapter include the same cells, so they share one set of results. Each choice
yields:

- ``values``: every ``Cls.x_str`` the cells define, as the prose would quote it;
- ``failed``: the claims (``check``, not an author's ``pin``) that do not hold for that choice (file, line, message in English and, where
  the cell gives one, Chinese);
- the accelerator, model, node and weight precision actually used (and a note when the accelerator
  publishes no 8-bit rate), or ``error`` when the cells cannot compute that choice at all.

The page then swaps strings; it computes nothing. The reference build is untouched: it still fails on
any broken guard.
"""
from __future__ import annotations

import contextlib
import tomllib
from pathlib import Path
from typing import Any, Callable

from ..errors import BuildError
from ..execute import CellTimeout, Hooks, RunOptions, Runner
from ..source import Cell, Document

FRONT_MATTER_KEY = "mlsysim-variants"


def wanted(doc: Document) -> bool:
    return bool(doc.front_matter.get(FRONT_MATTER_KEY))


def keep(cell: Cell) -> bool:
    """The cells a variant runs: not figures, not ``variant: false`` (the explorer), not ``eval: false``."""
    o = cell.options
    return not (o.get("variant") is False or o.get("eval") is False or str(o.get("label") or "").startswith("fig-"))


def cells_digest(doc: Document) -> list[bytes]:
    """What a variant's result depends on in the chapter: the cells it runs, where they live."""
    return [f"{c.body.file}:{c.body.line}".encode() + c.source.encode() for c in doc.cells if keep(c)]


def choices(data_dir: Path) -> list[dict[str, str]]:
    """Every registry accelerator × model, in the registry's order, read from its data files (without
    importing mlsysim: a no-change rebuild stays fast)."""
    names = {}
    for kind, file in (("accelerator", "accelerators.toml"), ("model", "models.toml")):
        try:
            names[kind] = list(tomllib.loads((Path(data_dir) / file).read_text(encoding="utf-8")))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            names[kind] = []   # the cells report the registry's own error
    return [{"accelerator": a, "model": m} for a in names["accelerator"] for m in names["model"]]


class VariantHooks(Hooks):
    """One choice's run: the scenario in use, guards recorded, formats adaptive."""

    def __init__(self, scenario: Any, root: Path):
        self.scenario, self.root = scenario, Path(root).resolve()
        self.recorder: Any = None

    @contextlib.contextmanager
    def around(self, doc: Document):
        import mlsysim.scenario as S
        from mlsysim.fmt import adaptive
        from mlsysim.guards import recording
        files = {str((self.root / c.body.file).resolve()) for c in doc.cells}
        with S.use(self.scenario), recording(accept=lambda f: str(Path(f).resolve()) in files) as rec, adaptive():
            self.recorder = rec
            yield


def _rel(file: str, root: Path) -> str:
    try:
        return Path(file).resolve().relative_to(root).as_posix()
    except ValueError:
        return file


def class_strs(ns: dict) -> tuple[dict[str, str], list[str]]:
    """Every ``Cls.x_str`` string of the classes a chapter's cells defined, and the names of those declared
    reference-only (``mlsysim.fmt.reference_only``: they describe the reference, whatever the choice)."""
    out, ref_only = {}, []
    for name, obj in list(ns.items()):
        if isinstance(obj, type) and getattr(obj, "__module__", "") == "__main__":
            for attr, v in vars(obj).items():
                if attr.endswith("_str") and isinstance(v, str):
                    out[f"{name}.{attr}"] = str.__str__(v)
                    if getattr(v, "reference_only", False):
                        ref_only.append(f"{name}.{attr}")
    return out, ref_only


def one_choice(doc: Document, opts: RunOptions, choice: dict[str, str], precision: str) -> dict[str, Any]:
    """The chapter's cells for one choice, in this process."""
    import mlsysim.scenario as S
    res: dict[str, Any] = {"choice": choice}
    try:
        sc = S.scenario(choice.get("accelerator"), choice.get("model"), precision)
        res.update(accelerator=sc.accelerator.display_name, model=sc.model.display_name,
                   node=sc.node.display_name if sc.node else "", precision=sc.weight_precision,
                   note=sc.precision_note, reference=sc.is_reference)
        hooks = VariantHooks(sc, opts.root)
        ns = Runner(doc, opts, hooks).run_cells(keep)
    except (Exception, CellTimeout) as e:  # noqa: BLE001 - a choice the cells cannot compute is shown as such
        if isinstance(e, CellTimeout):
            res["error"] = f"the cells ran longer than {opts.cell_timeout:g} s for this choice"
        else:
            res["error"] = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        return res
    res["values"], res["reference_only"] = class_strs(ns)
    res["failed"] = [{"file": _rel(r["file"], opts.root), "line": r["line"], "message": r["message"],
                      "zh": r.get("zh", "")} for r in hooks.recorder.records
                     if not r["passed"] and r.get("audience", "reader") == "reader"]   # an author's pin is never shown
    return res


def variant_job(doc: Document, opts: RunOptions, batch: list[dict[str, str]], *,
                progress: Callable[[Any], None]) -> list[dict[str, Any]]:
    """Run in a pool child: the chapter's cells once per choice of ``batch``, a fresh namespace each."""
    import mlsysim.scenario as S
    precision = S.REFERENCE["precision"]
    out = []
    for choice in batch:
        progress((doc.path, 0, f"variant {choice.get('accelerator')}/{choice.get('model')}"))
        out.append(one_choice(doc, opts, choice, precision))
    return out


class ReferenceOnlyError(BuildError):
    """A value declared to describe the reference follows the reader's choice."""
    kind = "reference-only"


def check_reference_only(results: list[dict[str, Any]], reference: dict[str, str], ref_only: set[str]) -> None:
    for a in sorted(ref_only):
        for r in results:
            got = r.get("values", {}).get(a)
            if got is not None and a in reference and got != reference[a]:
                c = r["choice"]
                raise ReferenceOnlyError(None, None, f"{a} is declared reference-only (mlsysim.fmt.reference_only) but "
                                         f"reads {got!r} for {c['accelerator']} / {c['model']} where the reference "
                                         f"reads {reference[a]!r}: compute it from mlsysim.scenario.reference()")


def compact(results: list[dict[str, Any]], reference: dict[str, str],
            guard_map: list[dict] | None = None) -> dict[str, Any]:
    """The page's data: attribute names once, each choice's values as a list (null where equal to the
    reference text, which the page already shows), failed guards with the ``*_str`` they protect
    (``guard_map``: :func:`.provenance.guard_targets` of the reference run), errors; and the
    accelerators and models to offer, with their names as the registry displays them.

    A value declared reference-only is never in the page's data (the page never swaps it), and one that
    differs from the reference text for any choice is refused: :class:`ReferenceOnlyError`."""
    ref_only = {a for r in results for a in r.get("reference_only", [])}
    check_reference_only(results, reference, ref_only)
    attrs = sorted({a for r in results for a in r.get("values", {})} - ref_only)
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
