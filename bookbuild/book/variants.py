"""The appendix for the reader's hardware: every registry accelerator × model, computed at build time.

A chapter whose front matter says ``mlsysim-variants: true`` is run once more per choice, through
:func:`bookbuild.book.live.runtime.run_choice` (the code the reader's browser runs in live mode, shared so
that the two cannot differ) with the scenario passed in (``with mlsysim.scenario.use(choice)``), guards
recorded instead of raised (``mlsysim.guards.recording``) and formats that add decimals rather than refuse
(``mlsysim.fmt.adaptive``). Only the Python cells run,
figure cells (``fig-`` labels), ``#| variant: false`` cells and ``#| eval: false`` cells left out; the
English and the Chinese chapter include the same cells, so they share one set of results. Each choice
yields:

- ``values``: every ``Cls.x_str`` the cells define, as the prose would quote it;
- ``failed``: the guards that do not hold for that choice (file, line, message in English and, where
  the cell gives one, Chinese);
- ``explain``: each value's steps and inputs as the reference build's explanations
  (:func:`.provenance.explain_cell`, after each cell) give them for that choice; the page carries only what
  differs from the reference's (:func:`.provenance.pack_choices`), so that the hover explains the choice;
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
from ..execute import CellTimeout, RunOptions, bounded_process
from ..source import Cell, Document
from ..execute import cells as cells_core
from .live import runtime

class_strs = runtime.class_strs   # (where it has always been importable from)

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


def space_module(library: Path):
    """The library's choice-space declaration (``mlsysim/choice_space.py``, standard library only), loaded
    from its file without importing mlsysim (a no-change rebuild stays fast); kept per file and version."""
    import importlib.util
    path = Path(library) / "choice_space.py"
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    mod = _SPACES.get(key)
    if mod is None:
        import sys
        name = "_mlsysim_choice_space"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod    # (dataclasses look their module up)
        try:
            spec.loader.exec_module(mod)
        finally:
            sys.modules.pop(name, None)
        _SPACES[key] = mod
    return mod


_SPACES: dict = {}


def choices(data_dir: Path, library: Path) -> list[dict[str, str]]:
    """Every choice the reader may make (the library's declared choice space: accelerator × model × weight
    precision, in the registry's order), read from its data files without importing mlsysim."""
    try:
        return space_module(library).read(data_dir).choices()
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []   # the cells report the registry's own error


def not_offered(data_dir: Path, library: Path) -> dict[str, dict]:
    """The registry models the choice space leaves out, with why (:data:`mlsysim.choice_space.NOT_OFFERED`)."""
    try:
        return dict(space_module(library).read(data_dir).not_offered)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def key(choice: dict[str, str]) -> str:
    """A choice's key in the page's data (``mlsysim.choice_space.key``): ``"H100|Llama3_1_70B|fp8"``."""
    return f"{choice['accelerator']}|{choice['model']}|{choice['precision']}"


def cell_records(doc: Document, which: Callable[[Cell], bool] = keep) -> list[dict[str, Any]]:
    """The cells ``which`` keeps, in order, as :mod:`.live.runtime` runs them (and the page's live data ships
    them): file relative to the root, first code line, code, label."""
    return [{"file": c.body.file, "line": c.body.line, "code": "\n".join(c.code) + "\n", "label": c.label or ""}
            for c in doc.cells if which(c)]


def chapter_process(doc: Document, root: Path):
    """As the engine's runner: the chapter's folder as working directory, the project root first on sys.path."""
    return cells_core.in_folder(str((Path(root) / doc.path).parent), str(Path(root).resolve()))


def _time_limit(seconds: float):
    from ..execute.limits import arm, disarm

    @contextlib.contextmanager
    def limit(_cell):
        arm(seconds)
        try:
            yield
        finally:
            disarm()
    return limit


#: what a choice's explanation keeps of each step and input: what can differ between choices, and the name
#: that places it (the rest, the expression and the function, is the cells' code: the reference's)
EXPLAIN_KEEP = ("name", "value", "unit", "entry", "source", "note", "scenario")


def _explainer(out: dict[str, dict]) -> Callable[[dict, dict], None]:
    """``after_cell`` for :func:`.live.runtime.run_choice`: each cell's classes explained as the reference build
    explains them (:func:`.provenance.explain_cell`, after the cell ran, in the chapter's namespace), kept lean."""
    from .provenance import explain_cell

    def after(cell: dict, ns: dict) -> None:
        if "class " not in cell["code"]:
            return
        for attr, e in explain_cell(cell["code"], ns, first_line=1, file=cell["file"], guards=False)["values"].items():
            out[attr] = {part: [{k: d[k] for k in EXPLAIN_KEEP if k in d} for d in e.get(part, [])]
                         for part in ("steps", "inputs")}
    return after


def one_choice(doc: Document, opts: RunOptions, choice: dict[str, str], precision: str) -> dict[str, Any]:
    """The chapter's cells for one choice, in this process, through :func:`.live.runtime.run_choice`: the
    same code the reader's browser runs in live mode (so a live page and a variant cannot differ). The
    result also holds ``explain``: each value's steps and inputs for that choice (:func:`_explainer`)."""
    root = Path(opts.root).resolve()
    explained: dict[str, dict] = {}
    with chapter_process(doc, root):
        res, _ = runtime.run_choice(cell_records(doc), choice, root=str(root), precision=precision,
                                    around_cell=_time_limit(opts.cell_timeout), timeout_types=(CellTimeout,),
                                    timeout_text=f"the cells ran longer than {opts.cell_timeout:g} s for this choice",
                                    profile=opts.profile, after_cell=_explainer(explained),
                                    output_cap=opts.output_cap)
    if "error" not in res:
        res["explain"] = explained
    return res


def variant_job(doc: Document, opts: RunOptions, batch: list[dict[str, str]], *,
                progress: Callable[[Any], None]) -> list[dict[str, Any]]:
    """Run in a pool child: the chapter's cells once per choice of ``batch``, a fresh namespace each."""
    import mlsysim.scenario as S
    precision = S.REFERENCE["precision"]
    out = []
    with bounded_process(opts.output_cap, opts.memory_limit):   # the same bounds as the chapter's own run
        for choice in batch:
            progress((doc.path, 0, f"variant {key(choice)}"))
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
                raise ReferenceOnlyError(None, None, f"{a} is declared reference-only (mlsysim.fmt.reference_only) but "
                                         f"reads {got!r} for {key(r['choice'])} where the reference "
                                         f"reads {reference[a]!r}: compute it from mlsysim.scenario.reference()")


def compact(results: list[dict[str, Any]], reference: dict[str, str],
            guard_map: list[dict] | None = None, provenance: dict[str, dict] | None = None,
            excluded: dict[str, dict] | None = None) -> dict[str, Any]:
    """The page's data: attribute names once, each choice's values as a list of indices into ``values``, the
    texts the choices share (null where equal to the reference text, which the page already shows), failed guards with the ``*_str`` they protect
    (``guard_map``: :func:`.provenance.guard_targets` of the reference run), errors; and the
    accelerators and models to offer, with their names as the registry displays them.

    With ``provenance`` (the reference run's explanations, which the page carries packed by
    :func:`.provenance.pack`): what each choice's explanations change in them (:func:`.provenance.pack_choices`),
    ``explain`` the table the choices share and each choice's ``x`` and ``xu``.

    A value declared reference-only is never in the page's data (the page never swaps it), and one that
    differs from the reference text for any choice is refused: :class:`ReferenceOnlyError`."""
    ref_only = {a for r in results for a in r.get("reference_only", [])}
    check_reference_only(results, reference, ref_only)
    attrs = sorted({a for r in results for a in r.get("values", {})} - ref_only)
    protects = {(g.get("file"), g.get("line")): g.get("protects", []) for g in (guard_map or [])}
    accels: dict[str, str] = {}
    models: dict[str, str] = {}
    precisions: dict[str, int | None] = {}
    for r in results:
        accels.setdefault(r["choice"]["accelerator"], r.get("accelerator", r["choice"]["accelerator"]))
        models.setdefault(r["choice"]["model"], r.get("model", r["choice"]["model"]))
        if precisions.get(r["choice"]["precision"]) is None:   # its width (the part's own precision of that width)
            precisions[r["choice"]["precision"]] = r.get("bits")
    ref = next((r["choice"] for r in results if r.get("reference")), None)
    out = {"attrs": attrs, "choices": {}, "reference": ref,
           "accelerators": [{"name": k, "label": v} for k, v in accels.items()],
           "models": [{"name": k, "label": v} for k, v in models.items()],
           "precisions": [{"name": p, "bits": b} for p, b in precisions.items()],
           "not_offered": [dict(v, name=k) for k, v in (excluded or {}).items()]}
    patches: list = [None] * len(results)
    if provenance and any("explain" in r for r in results):
        from .provenance import pack, pack_choices
        out["explain"], patches = pack_choices(pack(provenance), [r.get("explain") for r in results], ref_only)
    table: dict[str, int] = {}   # every value text once: a choice's values are indices into V.values

    def index(v: str | None) -> int | None:
        return None if v is None else table.setdefault(v, len(table))
    for r, patch in zip(results, patches):
        entry: dict[str, Any] = {k: r[k] for k in ("accelerator", "model", "node", "precision", "pool", "bits", "note")
                                 if k in r}
        if "error" in r:
            entry["error"] = r["error"]
            if "why" in r:
                entry["why"] = r["why"]
        else:
            vals = r["values"]
            entry["v"] = [None if vals.get(a) == reference.get(a) else index(vals.get(a)) for a in attrs]
            if r["failed"]:
                entry["failed"] = [dict(f, protects=protects.get((f["file"], f["line"]), [])) for f in r["failed"]]
            if patch is not None:
                entry["x"] = patch["x"]
                if patch["xu"]:
                    entry["xu"] = patch["xu"]
        out["choices"][key(r["choice"])] = entry
    out["values"] = list(table)
    return out
