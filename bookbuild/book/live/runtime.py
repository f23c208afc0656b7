"""A chapter's cells for one choice: the one piece of code that the build's variants
(:func:`bookbuild.book.variants.one_choice`) and the reader's browser (live mode, under Pyodide) both
run, unchanged. Of bookbuild it imports only the core of a cell's run (:mod:`bookbuild.execute.cells`, the
chapter runner's too: compiling, the displayed value, ``__main__``, the profile, the output cap, the failure's
words), which the build ships to the page beside this file; otherwise the standard library and ``mlsysim``.

``cells``: the chapter's cells a variant keeps, in order, as the build writes them into the page's live
data: ``{"file": path relative to the book's root, "line": its first code line, "code": its code}``.
Each is compiled as the engine's runner compiles it (the core: padded to its file's line numbers, the file
named ``<root>/<file>``) and executed in one fresh ``__main__`` namespace, under ``mlsysim.scenario.use(choice)``,
``mlsysim.guards.recording(accept=<the cells' files>)`` and ``mlsysim.fmt.adaptive()``. The result is
what a variant records: every ``Cls.x_str`` (:func:`class_strs`), the names of those declared
reference-only (which the page never swaps) and the failed guards, or ``error``.

:func:`figures` then runs a chapter's figure cells in the same namespace and returns each figure's
plotly JSON (``mlsysim.figures.plotly_json``), the description the build draws, without writing the
static SVG (``mlsysim.figures.static_figures(False)`` for the duration).
"""
from __future__ import annotations

import contextlib
import types
from typing import Any, Callable, Iterable

from bookbuild.execute import cells as C

#: how long an error message may be in the page's data (as the variants have always cut it)
ERROR_CHARS = 300


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


def error_text(e: BaseException, files: frozenset[str] = frozenset(), output_cap: int = 0) -> str:
    """A cell's failure in one line, worded by the core (:func:`bookbuild.execute.cells.failure_text`)."""
    return " ".join(C.failure_text(e, files, output_cap).split())[:ERROR_CHARS]


def error_fields(e: BaseException, files: frozenset[str] = frozenset(), output_cap: int = 0) -> dict[str, Any]:
    """``error``: the one line (English, as mlsysim words it); ``why``: what it means, for the page to word in
    its own language (``mlsysim.errors.MlsysimError.why``), when the error says."""
    why = getattr(e, "why", None)
    return {"error": error_text(e, files, output_cap), **({"why": dict(why)} if why else {})}


def _filename(root: str, rel: str) -> str:
    return root.rstrip("/") + "/" + rel


def _code(cell: dict, root: str) -> C.CellCode:
    return C.compile_cell(C.padded(cell["code"], cell["line"]), _filename(root, cell["file"]))


def exec_cells(module: types.ModuleType, cells: Iterable[dict], root: str,
               around_cell: Callable[[dict], Any] | None = None,
               after_cell: Callable[[dict, dict], None] | None = None, output_cap: int = 0) -> None:
    """Execute ``cells`` in ``module``'s namespace, in order, their printed output counted against
    ``output_cap`` (0: none) and discarded. ``after_cell(cell, namespace)``, when given, runs after each cell
    (as the engine's hooks do: the build's variants explain each cell's classes there)."""
    ns = module.__dict__
    with C.as_main(module):
        for cell in cells:
            code = _code(cell, root)
            out = C.Outputs(output_cap, keep=False)
            with (around_cell(cell) if around_cell else contextlib.nullcontext()):
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    C.execute(code, ns)
            if after_cell is not None:
                after_cell(cell, ns)


def _bits(precision: str) -> float:
    from mlsysim.units import PRECISION_BYTES
    return PRECISION_BYTES[precision].to("bit").magnitude


def describe(sc) -> dict[str, Any]:
    """What the page says about the scenario a choice computed for."""
    return {"accelerator": sc.accelerator.display_name, "model": sc.model.display_name,
            "node": sc.node.display_name if sc.node else "", "precision": sc.weight_precision,
            "pool": sc.pool_precision, "note": sc.precision_note, "reference": sc.is_reference,
            "bits": int(round(_bits(sc.weight_precision)))}


def run_choice(cells: list[dict], choice: dict[str, Any], *, root: str, precision: str,
               around_cell: Callable[[dict], Any] | None = None, timeout_types: tuple = (),
               timeout_text: str = "", profile: str | None = None,
               after_cell: Callable[[dict, dict], None] | None = None,
               output_cap: int = 0) -> tuple[dict[str, Any], types.ModuleType | None]:
    """The chapter's cells for one choice: ``(result, namespace module)``; the result is a variant's
    (``choice``, the scenario's names, ``values``, ``failed``), or ``error`` when the cells cannot compute
    that choice (the module is then None). ``precision``: the weight precision a choice wants when it
    names none (the reference's). ``timeout_types``: exceptions (not Exceptions) that mean a cell ran out of
    time: the error is then ``timeout_text``. ``profile``: the book's, as ``QUARTO_PROFILE`` while the cells run
    (Quarto sets it: a cell may word its values in the book's language). ``after_cell``: see :func:`exec_cells`
    (live mode passes none). ``output_cap``: the output limit of one cell, as the chapter's (0: none; what the
    cells print is never kept)."""
    import mlsysim.scenario as S
    from mlsysim.fmt import adaptive
    from mlsysim.guards import recording
    res: dict[str, Any] = {"choice": dict(choice)}
    files = {_filename(root, c["file"]) for c in cells}
    try:
        names = {k: v for k, v in choice.items() if k not in ("accelerator", "model", "precision")}
        sc = S.scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision") or precision, **names)
        res.update(describe(sc))
        module = C.new_module()
        with S.use(sc), recording(accept=lambda f: f in files) as rec, adaptive(), C.profile(profile):
            exec_cells(module, cells, root, around_cell, after_cell, output_cap)
    except timeout_types:
        res["error"] = timeout_text
        return res, None
    except (Exception, SystemExit) as e:  # noqa: BLE001 - a choice the cells cannot compute is shown as such
        res.update(error_fields(e, frozenset(files), output_cap))
        return res, None
    res["values"], res["reference_only"] = class_strs(module.__dict__)
    prefix = root.rstrip("/") + "/"
    def where(r: dict) -> dict:
        return {"file": r["file"][len(prefix):] if r["file"].startswith(prefix) else r["file"], "line": r["line"],
                "message": r["message"], "zh": r.get("zh", "")}
    res["failed"] = [where(r) for r in rec.records if not r["passed"] and r.get("audience", "reader") == "reader"]
    # a pin (an identity of the code, or a seed value at the reference) is never shown; one that fails here is
    # the author's (tests/test_every_reader.py fails on it), never the page's data
    res["pins"] = [where(r) for r in rec.records if not r["passed"] and r.get("audience") == "author"]
    return res, module


def figures(module: types.ModuleType, cells: list[dict], choice: dict[str, Any], lang: str, *, root: str,
            precision: str, profile: str | None = None) -> dict[str, Any]:
    """Run the figure cells (``{"file", "line", "code", "figure": label}``, the ``fig-`` cells and the cells
    that describe their figures) after :func:`run_choice`, under the same choice; returns
    ``{"figures": {key: {"data", "layout"}}, "failed": [labels]}`` (a figure whose cell fails keeps the
    reference). Guards of these cells are pins of the figures against the prose, recorded and not reported.
    ``profile``: the book's, as for :func:`run_choice` (the figure cells word what they show in its language)."""
    import mlsysim.scenario as S
    from mlsysim.figures.book import BookFigure, static_figures
    from mlsysim.figures.plotly_figure import plotly_json
    from mlsysim.fmt import adaptive
    from mlsysim.guards import recording
    out: dict[str, Any] = {"figures": {}, "failed": []}
    sc = S.scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision") or precision,
                    **{k: v for k, v in choice.items() if k not in ("accelerator", "model", "precision")})
    ns = module.__dict__
    files = {_filename(root, c["file"]) for c in cells}
    with S.use(sc), recording(accept=lambda f: f in files) as rec, adaptive(), static_figures(False), \
            C.as_main(module), C.profile(profile):
        for cell in cells:
            label = cell.get("figure") or cell.get("label") or ""
            try:
                with contextlib.redirect_stdout(C.Outputs(keep=False)):
                    shown = C.execute(_code(cell, root), ns)
            except Exception as e:  # noqa: BLE001 - that figure stays at the reference
                out["failed"].append({"label": label, "error": error_text(e, frozenset(files))})
                continue
            if isinstance(shown, BookFigure):
                fig = plotly_json(shown.spec, lang)
                out["figures"][shown.spec.key] = {"data": fig["data"], "layout": fig["layout"]}
    # the words of the figure cells (what a figure shows, "the roofline of …"): they follow the choice here,
    # where the figures do, and never in a precomputed choice, which keeps the figures at the reference
    out["pins"] = [{"file": r["file"], "line": r["line"], "message": r["message"]} for r in rec.records
                   if not r["passed"]]   # the figures against the prose: identities, for every choice
    values, ref_only = class_strs(ns)
    out["values"] = {k: v for k, v in values.items() if k not in ref_only and k.split(".")[0] in _classes_of(cells)}
    return out


def _classes_of(cells: list[dict]) -> set[str]:
    """The names of the classes ``cells`` define (top-level ``class X``)."""
    import re
    return {m.group(1) for c in cells for m in re.finditer(r"^class\s+(\w+)", c["code"], flags=re.M)}


def free_inputs(chapter: str, choice: dict[str, Any], precision: str) -> list[dict[str, Any]]:
    """The free inputs a chapter's page offers (``mlsysim.scenario.FREE`` of that chapter), each with its
    reference value for the registry part of ``choice`` (the chosen accelerator's own bandwidth, say)."""
    import mlsysim.scenario as S
    sc = S.scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision") or precision)
    out = []
    for f in S.FREE.values():
        if f.chapter != chapter:
            continue
        ref = f.reference(sc.accelerator, sc.weight_precision)
        out.append({"key": f.key, "unit": f.unit, "label": dict(f.label), "kind": f.kind, "what": f.what,
                    "reference": ref if isinstance(ref, str) else float(ref),
                    "options": list(f.allowed) if f.allowed else None,
                    "low": f.low, "high": f.high if f.high != float("inf") else None})
    return out


def input_problem(choice: dict[str, Any], precision: str) -> dict[str, Any]:
    """The first invalid input of ``choice`` (``mlsysim.scenario`` validates): ``{"text": its one line,
    "why": what it means}`` (see :func:`error_fields`), or ``{}``."""
    import mlsysim.scenario as S
    from mlsysim.errors import MlsysimError
    try:
        S.scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision") or precision,
                   **{k: v for k, v in choice.items() if k not in ("accelerator", "model", "precision")})
    except MlsysimError as e:
        return {"text": str(e), **({"why": dict(e.why)} if e.why else {})}
    return {}


def check_inputs(choice: dict[str, Any], precision: str) -> str:
    """The one-line message of the first invalid input of ``choice``, or ""."""
    return input_problem(choice, precision).get("text", "")
