"""A live explorer for notebooks: the static explorer's choices plus free values, recomputed by the physics.

:func:`compute_view` is the whole computation (a plain function, testable without a notebook);
:func:`explorer` wraps it in ipywidgets and a plotly ``FigureWidget`` that updates in place, imported
only when called so ``import mlsysim`` stays fast::

    from mlsysim.widgets import explorer, compute_view
    explorer()                                   # in Jupyter: dropdowns, free β, π and context
    compute_view("H200", "Llama3_8B", "fp8", bandwidth=6.0)["shown"]["ridge_flop_per_byte"]

When the reader picks another accelerator, the chosen precision is kept if the new accelerator
publishes it; otherwise the nearest published one (same bytes per weight first, see
:func:`mlsysim.explorer.fallback_precision`) replaces it, and the status line says so.
"""
from __future__ import annotations

import dataclasses
import html

from .explorer import ROWS, TEXT, explorer_roofline, fallback_precision, roofline_ranges, shown_values
from .figures import PLOTLY_CONFIG, plotly_json
from .reference import DEFAULT_CONTEXT, reference_values
from .registry import Hardware, Models
from .scenario import REFERENCE, pool_precision_for
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


def compute_view(accelerator, model, precision: str = REFERENCE["precision"], bandwidth: float | None = None,
                 peak: float | None = None, context: int | None = None, *, lang: str = "en") -> dict:
    """The explorer's view of one choice: ``raw`` (reference_values as a dict, SI units), ``shown``
    (the strings the table prints), ``roofline`` (the figure description, :mod:`mlsysim.figures`),
    ``roofline_plotly`` (its plotly JSON in ``lang``), and the ``bandwidth``/``peak`` used.

    ``bandwidth`` (TB/s) and ``peak`` (TFLOP/s at ``precision``) replace the registry's values when
    given; a peak also makes a precision the accelerator does not publish usable. ``context`` defaults
    to the book's 32,768 tokens, or the model's window where that is shorter (as the book's explorer
    shows it); a longer context than the window raises ``ContextWindowError``."""
    a = _accelerator(accelerator, precision, bandwidth, peak)
    m = Models.Language.get(model) if isinstance(model, str) else model
    if context is None:
        context = min(DEFAULT_CONTEXT, m.context_length) if m.context_length else DEFAULT_CONTEXT
    rv = reference_values(a, m, weight_precision=precision, context=int(context),
                          pool_precision=pool_precision_for(a.name, m.name, precision))
    bounds = roofline_ranges(list(Hardware.Cloud) + [a], int(context))
    spec = explorer_roofline(a, precision, bounds, lang, context=int(context))
    return {"raw": dataclasses.asdict(rv), "shown": shown_values(rv, a, lang), "roofline": spec,
            "roofline_plotly": plotly_json(spec, lang),
            "bandwidth_tb_s": a.memory.bandwidth.to("TB/s").magnitude,
            "peak_tflop_s": a.compute.peak(precision).to("Tflop/s").magnitude}


def view_html(view: dict, lang: str = "en") -> str:
    """The reference table of a :func:`compute_view` result, as HTML (each value cell has ``data-key``)."""
    t = TEXT[lang]
    ctx = f"{view['raw']['context']:,}"
    rows = "".join(f"<tr><th style='text-align:left'>{html.escape(t['rows'][k].format(ctx=ctx, window=''))}</th><td>{sym}</td>"
                   f"<td style='text-align:right' data-key='{k}'><b>{html.escape(view['shown'][k])}</b></td>"
                   f"<td>{html.escape(t['units'][u])}</td></tr>" for k, sym, u in ROWS)
    return f"<table class='mlsysim-explorer-table'>{rows}</table>"


def explorer(accelerator: str = REFERENCE["accelerator"], model: str = REFERENCE["model"],
             precision: str = REFERENCE["precision"], *, lang: str = "en"):
    """An ipywidgets box: accelerator, model, precision, free bandwidth/peak/context, the reference table
    and the roofline as a plotly ``FigureWidget``; every change recomputes through :func:`compute_view`.

    The box carries its parts as attributes (``accelerator``, ``model``, ``precision``, ``bandwidth``,
    ``peak``, ``context``, ``table``, ``status``, ``figure``) and the last view as ``view``."""
    if accelerator not in [a.name for a in Hardware.Cloud]:
        raise ValueError(f"unknown accelerator {accelerator!r}; available: {', '.join(a.name for a in Hardware.Cloud)}")
    return _Explorer(accelerator, model, precision, lang).box


class _Explorer:
    """The explorer's widgets and what each change does (one instance per box)."""

    def __init__(self, accelerator: str, model: str, precision: str, lang: str):
        import ipywidgets as W  # lazy: only notebooks pay for it
        import plotly.graph_objects as go
        self.lang, self.t = lang, TEXT[lang]
        a0 = Hardware.Cloud.get(accelerator)
        p0 = fallback_precision(a0, precision)
        t = self.t
        self.acc = W.Dropdown(options=[(a.display_name, a.name) for a in Hardware.Cloud], value=accelerator,
                              description=t["accelerator"])
        self.mod = W.Dropdown(options=[(m.display_name, m.name) for m in Models.Language], value=model,
                              description=t["model"])
        self.prec = W.Dropdown(options=list(a0.precisions), value=p0, description=t["precision"])
        self.bw = W.BoundedFloatText(min=0.01, max=1000, step=0.05, value=a0.memory.bandwidth.to("TB/s").magnitude,
                                     description="β (TB/s)")
        self.pk = W.BoundedFloatText(min=0.01, max=1e6, step=10, value=a0.compute.peak(p0).to("Tflop/s").magnitude,
                                     description="π (TFLOP/s)")
        self.ctx = W.BoundedIntText(min=1, max=10_000_000, step=1024, value=DEFAULT_CONTEXT, description="T̄")
        self.table, self.status = W.HTML(), W.HTML()
        self.fig = go.FigureWidget(compute_view(accelerator, model, p0, lang=lang)["roofline_plotly"])
        self.fig.layout.height = 380
        self.busy, self.precision = False, p0
        self.box = self._box(W)
        self.acc.observe(self.on_accelerator, "value")
        self.prec.observe(self.on_precision, "value")
        for w in (self.mod, self.bw, self.pk, self.ctx):
            w.observe(self.update, "value")
        self.update()

    def _box(self, W):
        class ExplorerBox(W.VBox):
            pass
        box = ExplorerBox([W.HBox([self.acc, self.mod, self.prec]), W.HBox([self.bw, self.pk, self.ctx]), self.status,
                           W.HBox([self.table, self.fig], layout=W.Layout(flex_flow="row wrap"))])
        box.accelerator, box.model, box.precision = self.acc, self.mod, self.prec
        box.bandwidth, box.peak, box.context = self.bw, self.pk, self.ctx
        box.table, box.status, box.figure, box.config = self.table, self.status, self.fig, PLOTLY_CONFIG
        return box

    def redraw(self, view: dict) -> None:
        new, fig = view["roofline_plotly"], self.fig
        with fig.batch_update():
            for tr, nt in zip(fig.data, new["data"]):
                tr.x, tr.y = nt["x"], nt["y"]
                if "name" in nt:
                    tr.name = nt["name"]
                if "customdata" in nt:
                    tr.customdata = nt["customdata"]
            fig.layout.shapes = new["layout"]["shapes"]
            for k in ("xaxis", "yaxis"):
                fig.layout[k].range = new["layout"][k].get("range")

    def update(self, *_) -> None:
        if self.busy:
            return
        try:
            view = compute_view(self.acc.value, self.mod.value, self.prec.value, bandwidth=self.bw.value,
                                peak=self.pk.value, context=self.ctx.value, lang=self.lang)
        except Exception as exc:  # noqa: BLE001 - show bad input in the widget instead of a traceback
            self.status.value = (f"<p style='color:#c62828'>{html.escape(type(exc).__name__)}: "
                                 f"{html.escape(str(exc))}</p>")
            return
        self.box.view = view
        self.table.value = view_html(view, self.lang)
        self.redraw(view)

    def _registry_values(self, a, p) -> None:
        self.busy = True
        try:
            self.bw.value = a.memory.bandwidth.to("TB/s").magnitude
            self.pk.value = a.compute.peak(p).to("Tflop/s").magnitude
        finally:
            self.busy = False

    def on_accelerator(self, change) -> None:
        a = Hardware.Cloud.get(change["new"])
        want = self.precision            # the reader's precision, read before the list is replaced
        got = fallback_precision(a, want)
        self.busy = True
        try:
            self.prec.options = list(a.precisions)  # (this alone would select the list's first entry)
            self.prec.value = got
        finally:
            self.busy = False
        self._registry_values(a, got)
        self.precision = got
        self.status.value = "" if got == want else \
            f"<p><i>{html.escape(self.t['fallback'].format(accel=a.display_name, want=want, got=got))}</i></p>"
        self.update()

    def on_precision(self, change) -> None:
        if self.busy:
            return
        self.precision = change["new"]
        self._registry_values(Hardware.Cloud.get(self.acc.value), change["new"])
        self.status.value = ""
        self.update()


__all__ = ["compute_view", "explorer", "view_html"]
