"""A live explorer for notebooks: the static explorer's choices plus free values, recomputed by the physics.

:func:`compute_view` is the whole computation (a plain function, testable without a notebook);
:func:`explorer` wraps it in ipywidgets, imported only when called so ``import mlsysim`` stays fast::

    from mlsysim.widgets import explorer, compute_view
    explorer()                                   # in Jupyter: dropdowns, free β, π and context
    compute_view("H200", "Llama3_8B", "fp8", bandwidth=6.0)["shown"]["ridge_flop_per_byte"]
"""
from __future__ import annotations

import dataclasses

from .explorer import ROWS, TEXT, _Axes, _bounds, _frame_svg, roofline_fragment, shown_values
from .reference import DEFAULT_CONTEXT, reference_values
from .registry import Hardware, Models
from .units import PRECISION_BYTES, Q_


def _accelerator(accelerator, precision: str, bandwidth, peak):
    """The registry accelerator, with bandwidth (TB/s) and/or the peak at ``precision`` (TFLOP/s) replaced."""
    a = Hardware.Cloud.get(accelerator) if isinstance(accelerator, str) else accelerator
    if precision not in PRECISION_BYTES:
        raise ValueError(f"unknown precision {precision!r}; available: {', '.join(PRECISION_BYTES)}")
    if bandwidth is not None:
        if not bandwidth > 0:
            raise ValueError(f"bandwidth must be a positive number of TB/s, got {bandwidth}")
        a = dataclasses.replace(a, memory=dataclasses.replace(a.memory, bandwidth=Q_(float(bandwidth), "TB/s")))
    if peak is not None:
        if not peak > 0:
            raise ValueError(f"peak must be a positive number of TFLOP/s, got {peak}")
        flops = dict(a.compute.precision_flops)
        flops[precision] = Q_(float(peak), "Tflop/s")
        a = dataclasses.replace(a, compute=dataclasses.replace(a.compute, precision_flops=flops))
    return a


def compute_view(accelerator, model, precision: str = "fp8", bandwidth: float | None = None,
                 peak: float | None = None, context: int | None = None, *, lang: str = "en") -> dict:
    """The explorer's view of one choice: ``raw`` (reference_values as a dict, SI units), ``shown``
    (the strings the table prints), ``roofline_svg``, and the ``bandwidth``/``peak`` used.

    ``bandwidth`` (TB/s) and ``peak`` (TFLOP/s at ``precision``) replace the registry's values when
    given; a peak also makes a precision the accelerator does not publish usable. ``context`` defaults
    to the book's 32,768 tokens, or the model's window where that is shorter (as the book's explorer
    shows it); a longer context than the window raises ``ContextWindowError``."""
    a = _accelerator(accelerator, precision, bandwidth, peak)
    m = Models.Language.get(model) if isinstance(model, str) else model
    if context is None:
        context = min(DEFAULT_CONTEXT, m.context_length) if m.context_length else DEFAULT_CONTEXT
    rv = reference_values(a, m, weight_precision=precision, context=int(context))
    registry = list(Hardware.Cloud)
    ax = _Axes(_bounds(registry + [a]))
    svg = _frame_svg(ax, TEXT[lang], roofline_fragment(a, precision, ax))
    return {"raw": dataclasses.asdict(rv), "shown": shown_values(rv, a, lang), "roofline_svg": svg,
            "bandwidth_tb_s": a.memory.bandwidth.to("TB/s").magnitude,
            "peak_tflop_s": a.compute.peak(precision).to("Tflop/s").magnitude}


def view_html(view: dict, lang: str = "en") -> str:
    """The table and roofline of a :func:`compute_view` result, as HTML."""
    import html
    t = TEXT[lang]
    ctx = f"{view['raw']['context']:,}"
    rows = "".join(f"<tr><th style='text-align:left'>{html.escape(t['rows'][k].format(ctx=ctx))}</th><td>{sym}</td>"
                   f"<td style='text-align:right'><b>{html.escape(view['shown'][k])}</b></td>"
                   f"<td>{html.escape(t['units'][u])}</td></tr>" for k, sym, u in ROWS)
    return (f"<div style='display:flex;flex-wrap:wrap;gap:1em'><table>{rows}</table>"
            f"<div style='flex:1 1 20em;max-width:36em'>{view['roofline_svg']}</div></div>")


def explorer(accelerator: str = "H100", model: str = "Llama3_1_70B", precision: str = "fp8", *, lang: str = "en"):
    """An ipywidgets box: accelerator, model, precision, free bandwidth/peak/context; recomputes live."""
    import ipywidgets as W  # lazy: only notebooks pay for it

    t = TEXT[lang]
    acc = W.Dropdown(options=[(a.display_name, a.name) for a in Hardware.Cloud], value=accelerator,
                     description=t["accelerator"])
    mod = W.Dropdown(options=[(m.display_name, m.name) for m in Models.Language], value=model,
                     description=t["model"])
    prec = W.Dropdown(description=t["precision"])
    bw = W.BoundedFloatText(min=0.01, max=1000, step=0.05, description="β (TB/s)")
    pk = W.BoundedFloatText(min=0.01, max=1e6, step=10, description="π (TFLOP/s)")
    ctx = W.BoundedIntText(min=1, max=10_000_000, step=1024, value=DEFAULT_CONTEXT, description="T̄")
    out = W.HTML()
    busy = {"reset": False}

    def reset_free(*_):
        a = Hardware.Cloud.get(acc.value)
        busy["reset"] = True
        try:
            if prec.options != a.precisions:
                prec.options = a.precisions
            if prec.value not in a.precisions:
                prec.value = precision if precision in a.precisions else a.precisions[0]
            bw.value = a.memory.bandwidth.to("TB/s").magnitude
            pk.value = a.compute.peak(prec.value).to("Tflop/s").magnitude
        finally:
            busy["reset"] = False
        update()

    def update(*_):
        if busy["reset"]:
            return
        try:
            out.value = view_html(compute_view(acc.value, mod.value, prec.value, bandwidth=bw.value, peak=pk.value,
                                               context=ctx.value, lang=lang), lang)
        except Exception as exc:  # show bad input in the widget instead of a traceback
            out.value = f"<p style='color:#c62828'>{type(exc).__name__}: {exc}</p>"

    acc.observe(reset_free, "value")
    prec.observe(reset_free, "value")
    for w in (mod, bw, pk, ctx):
        w.observe(update, "value")
    prec.options = Hardware.Cloud.get(accelerator).precisions
    prec.value = precision
    reset_free()
    return W.VBox([W.HBox([acc, mod, prec]), W.HBox([bw, pk, ctx]), out])


__all__ = ["compute_view", "explorer", "view_html"]
