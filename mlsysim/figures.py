"""The book's figures: one description per figure, drawn by plotly (HTML) and by matplotlib (PDF).

Each ``*_spec`` function computes a :class:`FigureSpec` once, from the physics functions (never from
re-typed formulas): the plotted series, reference lines, bands and annotations, the axes with their
scales and units, and every label in both book languages (``en``, ``zh``). Two renderers draw the
same description, so the interactive and the static figure cannot disagree:

* :func:`to_plotly` -> a ``plotly.graph_objects.Figure`` (hover shows each point's values with units
  in the chosen language, legend entries toggle series, log axes stay log);
* :func:`to_matplotlib` -> a matplotlib figure, saved as deterministic SVG by :func:`save_svg`.

:func:`book_figure` writes the static SVG for the book's language (``QUARTO_PROFILE``) and returns a
:class:`BookFigure`, which displays through the standard IPython repr methods only: ``_repr_html_``
(the plotly figure as a ``<div class="mlsysim-plot">`` holding its JSON, drawn by the book's own
``plotly.js``) and ``_repr_markdown_`` (the static SVG, which formats without HTML use).

The legacy ``*_figure`` functions return ``(matplotlib figure, data)`` as before. Defaults are the
appendix's reference configuration (``ServingRef``): Llama-3-70B on H100 with 8-bit weights, 16-bit
keys and values, a 32,768-token agent context.
"""
from __future__ import annotations

import html as _html
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .physics import (attainable_performance, attention_crossover_length, batched_step_time, compute_bound_batch,
                      decode_intensity, decode_time_per_token, kingman_wait, kv_bytes_at, kv_bytes_per_token,
                      prefill_time, prefill_time_per_token, ridge_point)
from .units import PRECISION_BYTES, Q_

LANGS = ("en", "zh")
#: salt for matplotlib's SVG ids, so the same figure gives the same bytes on every run
SVG_SALT = "mlsysim"
#: scenario defaults, as in the appendix's ServingRef and QueueKnee cells
REFERENCE_ACCELERATOR = "H100"
REFERENCE_MODEL = "Llama3_1_70B"
REFERENCE_PRECISION = "fp8"
REFERENCE_KV_BYTES = 2
REFERENCE_CONTEXT = 32_768
KNEE_CA2, KNEE_CS2 = 2.0, 1.0
KNEE_MARKS = (0.5, 0.7, 0.9)

_COLORS = {"roof": "#1f4e79", "mem": "#2e7d32", "comp": "#c62828", "mark": "#ef6c00", "grey": "#757575",
           "total": "#1f4e79", "dark": "#525252", "keep": "#08519c", "discard": "#a50f15", "black": "#212121",
           "fill": "#c6dbef", "band_keep": "#dbe9f6", "band_swap": "#e5f5e0", "band_discard": "#fde0dd"}
#: the same hues for the dark page theme (book.js/figures.js swap them when the reader toggles the theme)
DARK = {"#1f4e79": "#7fb2e5", "#2e7d32": "#81c784", "#c62828": "#ef7b7b", "#ef6c00": "#ffb74d",
        "#757575": "#9e9e9e", "#525252": "#bdbdbd", "#08519c": "#6baed6", "#a50f15": "#fc9272",
        "#212121": "#eeeeee", "#c6dbef": "#2b4a6b", "#dbe9f6": "#1d2f45", "#e5f5e0": "#1f3a24",
        "#fde0dd": "#4a2323"}


def book_lang(default: str = "en") -> str:
    """The book's language from ``QUARTO_PROFILE`` (a comma-separated list; the first of en/zh wins)."""
    for p in os.environ.get("QUARTO_PROFILE", "").split(","):
        p = p.strip().lower()
        if p in LANGS:
            return p
    return default


def T(en: str, zh: str) -> dict:
    """A label in both book languages."""
    return {"en": en, "zh": zh}


def _pick(text, lang: str) -> str:
    if text is None:
        return ""
    if isinstance(text, str):
        return text
    if lang not in text:
        raise ValueError(f"figure language must be one of {', '.join(LANGS)}, got {lang!r}")
    return text[lang]


# ───────────────────────────── the description ─────────────────────────────

@dataclass
class Axis:
    """One axis: its title, the quantity's short name and unit for hover text, scale and range."""
    title: dict
    name: dict
    unit: dict
    log: bool = False
    range: tuple | None = None          # data units (not log10)
    hoverformat: str = ",.4~g"          # d3-format of the value in hover text
    categories: list | None = None      # categorical axis: tick labels per language ([{en, zh}, ...])


@dataclass
class Series:
    """Plotted data. ``kind``: ``line``, ``markers``, ``bar`` (vertical), ``hbar`` (horizontal, from ``base``)."""
    key: str
    kind: str
    x: list
    y: list
    name: dict | None = None            # legend entry (None: not in the legend)
    color: str | list = "#1f4e79"
    dash: str = "solid"                 # solid | dash | dot
    width: float = 2.0
    symbol: str = "circle"              # circle | square | triangle-up
    hollow: bool = False
    size: float = 8.0
    labels: list | None = None          # per-point names for hover, each {en, zh} or str
    text: list | None = None            # per-point text drawn next to the point / on the bar
    base: list | None = None            # hbar: left ends
    fill_to: str | None = None          # key of a series to shade between (where this one is above)
    fill_name: dict | None = None
    fill_color: str | None = None
    panel: int = 0


@dataclass
class RefLine:
    """A vertical (``axis='x'``) or horizontal (``axis='y'``) reference line across a panel."""
    key: str
    axis: str
    value: float
    color: str = "#757575"
    dash: str = "dot"
    width: float = 1.0
    name: dict | None = None
    panel: int = 0


@dataclass
class Band:
    """A shaded span of x across the whole panel height."""
    key: str
    lo: float
    hi: float
    color: str
    panel: int = 0


@dataclass
class Note:
    """Text at a data point (offset in points); ``arrow_from`` draws an arrow from that data point."""
    key: str
    x: float
    y: float
    text: dict
    color: str = "#212121"
    dx: float = 0.0
    dy: float = 0.0
    anchor: str = "center"              # left | center | right
    arrow_from: tuple | None = None
    panel: int = 0


@dataclass
class Panel:
    x: Axis
    y: Axis
    legend: str | None = "lower right"  # legend corner, or None


@dataclass
class FigureSpec:
    """Everything a figure shows, computed once; ``data`` keeps the physics values the cells check."""
    key: str
    panels: list
    series: list
    lines: list = field(default_factory=list)
    bands: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    size: tuple = (6.4, 4.0)            # inches, for the static figure; the HTML figure is responsive
    data: dict = field(default_factory=dict)

    def series_by_key(self, key: str) -> Series:
        return next(s for s in self.series if s.key == key)


def _f(v) -> list:
    return [float(x) for x in np.asarray(v, dtype=float)]


def _tokens(x) -> str:
    return f"{x:,.0f}"


# ───────────────────────────── units, in both languages ─────────────────────────────

U = {
    "fpb": T("FLOP/byte", "FLOP/字节"), "fps": T("FLOP/s", "FLOP/秒"), "tokens": T("tokens", "词元"),
    "s": T("s", "秒"), "ms": T("ms", "毫秒"), "kb": T("kB", "kB"), "gb": T("GB", "GB"), "none": T("", ""),
    "service": T("service times", "个服务时间"), "tps": T("tasks/s", "任务/秒"), "streams": T("streams", "条流"),
}


def _resolve(accel, model):
    from .registry import Hardware, Models
    a = accel
    if accel is None:
        a = Hardware.Cloud.get(REFERENCE_ACCELERATOR)
    elif isinstance(accel, str):
        a = Hardware.Cloud.get(accel)
    if model is None:
        m = Models.Language.get(REFERENCE_MODEL)
    elif isinstance(model, str):
        m = Models.Language.get(model)
    else:
        m = model
    return a, m


# ───────────────────────────── (1) roofline ─────────────────────────────

def roofline_bounds(accel, precision: str, prompt_tokens: int) -> tuple[float, float]:
    """The roofline's intensity range: a decade below decode and above the prefill, both on whole decades."""
    b = PRECISION_BYTES[precision]
    ridge = ridge_point(accel.compute.peak(precision), accel.memory.bandwidth).magnitude
    i_dec = decode_intensity(b).magnitude
    i_pre = prompt_tokens * i_dec
    return 10 ** np.floor(np.log10(min(i_dec, ridge) / 3)), 10 ** np.ceil(np.log10(max(i_pre, ridge) * 3))


def roofline_spec(accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                  prompt_tokens: int = REFERENCE_CONTEXT, points: int = 120, x_range=None, y_range=None,
                  peak=None, bandwidth=None) -> FigureSpec:
    """Attainable FLOP/s against arithmetic intensity (log-log), with decode at B = 1, decode at the
    compute-bound batch B* (which sits on the ridge), and a prefill of ``prompt_tokens`` tokens.
    ``peak``/``bandwidth`` (quantities) replace the registry's; ``x_range``/``y_range`` fix the axes."""
    a, m = _resolve(accel, model)
    peak = peak if peak is not None else a.compute.peak(precision)
    bw = bandwidth if bandwidth is not None else a.memory.bandwidth
    b = PRECISION_BYTES[precision]
    ridge = ridge_point(peak, bw).magnitude
    i_dec = decode_intensity(b).magnitude
    b_star = compute_bound_batch(peak, bw, b)
    i_pre = (prompt_tokens * decode_intensity(b)).magnitude  # 2S/b: S tokens share one read of the weights
    if x_range is None:
        lo = 10 ** np.floor(np.log10(min(i_dec, ridge) / 3))
        hi = 10 ** np.ceil(np.log10(max(i_pre, ridge) * 3))
    else:
        lo, hi = x_range
    x = np.logspace(np.log10(lo), np.log10(hi), points)
    if lo < ridge < hi:  # the roof's corner is a plotted point, however few points
        x = np.unique(np.concatenate([x, [ridge]]))

    def perf(i):
        return attainable_performance(Q_(i, "flop/byte"), peak, bw).to("flop/second").magnitude

    y = np.array([perf(v) for v in x])
    i_bstar = (b_star * decode_intensity(b)).magnitude
    marks = {"decode_b1": (i_dec, perf(i_dec)), "ridge": (ridge, perf(ridge)),
             "decode_bstar": (i_bstar, perf(i_bstar)), "prefill": (i_pre, perf(i_pre))}
    panel = Panel(
        Axis(T("Arithmetic intensity 𝓘 (FLOP/byte)", "计算强度 𝓘（FLOP/字节）"), T("𝓘", "𝓘"), U["fpb"], log=True,
             range=(lo, hi), hoverformat=",.0f"),
        Axis(T("Attainable rate P (FLOP/s)", "可达速率 P（FLOP/秒）"), T("P", "P"), U["fps"], log=True,
             range=y_range, hoverformat=".3~s"),
        legend="lower right")
    series = [
        Series("roof", "line", _f(x), _f(y), T("Roof P = min(π, 𝓘β)", "屋顶 P = min(π, 𝓘β)"), _COLORS["roof"],
               width=2.2),
        Series("decode_b1", "markers", [i_dec], [perf(i_dec)],
               T(f"Decode, B = 1: 2/b = {i_dec:.0f} FLOP/byte", f"解码，B = 1：2/b = {i_dec:.0f} FLOP/字节"),
               _COLORS["mem"], symbol="circle", size=9,
               labels=[T("Decode at batch 1 (2/b)", "批大小为 1 的解码（2/b）")]),
        Series("ridge", "markers", [i_bstar], [perf(i_bstar)],
               T(f"Ridge 𝓘* = π/β = {ridge:,.0f} FLOP/byte (B = B*)", f"屋脊点 𝓘* = π/β = {ridge:,.0f} FLOP/字节（B = B*）"),
               _COLORS["mark"], symbol="square", hollow=True, size=10,
               labels=[T(f"Ridge point: decode at B* = {b_star:,.0f}", f"屋脊点：B* = {b_star:,.0f} 的解码")]),
        Series("prefill", "markers", [i_pre], [perf(i_pre)],
               T(f"Prefill, S = {_tokens(prompt_tokens)}: 2S/b", f"预填充，S = {_tokens(prompt_tokens)}：2S/b"),
               _COLORS["comp"], symbol="triangle-up", size=10,
               labels=[T(f"Prefill of {_tokens(prompt_tokens)} tokens (2S/b)",
                         f"{_tokens(prompt_tokens)} 个词元的预填充（2S/b）")]),
    ]
    lines = [RefLine("ridge_line", "x", ridge, _COLORS["grey"], "dot", 1.0)]
    data = {"intensity": x, "attainable": y, "ridge_x": ridge, "peak": peak.to("flop/second").magnitude,
            "bandwidth": bw.to("byte/second").magnitude, "compute_bound_batch": b_star, "markers": marks,
            "accelerator": a.name, "model": m.name, "precision": precision, "prompt_tokens": prompt_tokens}
    return FigureSpec("roofline", [panel], series, lines, data=data)


# ───────────────────────────── (2) prefill vs prompt length ─────────────────────────────

def prefill_spec(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120) -> FigureSpec:
    """T_prefill(S) with its weight term 2NS/π and attention term 2LdS²/π, crossing at S* = N/(Ld)."""
    a, m = _resolve(accel, model)
    peak = a.compute.peak(precision)
    n = m.parameters.to("count").magnitude
    s_star = attention_crossover_length(n, m.layers, m.hidden_dim)
    s = np.logspace(np.log10(s_star / 100), np.log10(min(s_star * 30, 1e7)), points)
    per_tok = prefill_time_per_token(n, peak).to("second").magnitude
    weight = s * per_tok
    total = np.array([prefill_time(n, m.layers, m.hidden_dim, v, peak).to("second").magnitude for v in s])
    attention = total - weight
    t_star = prefill_time(n, m.layers, m.hidden_dim, s_star, peak).to("second").magnitude
    panel = Panel(Axis(T("Prompt length S (tokens)", "提示长度 S（词元）"), T("S", "S"), U["tokens"], log=True,
                       hoverformat=",.0f"),
                  Axis(T("Prefill time T<sub>prefill</sub> (s)", "预填充时间 T<sub>prefill</sub>（秒）"),
                       T("T<sub>prefill</sub>", "T<sub>prefill</sub>"), U["s"], log=True, hoverformat=".3~g"),
                  legend="upper left")
    series = [
        Series("total", "line", _f(s), _f(total), T("Total (2NS + 2LdS²)/π", "合计 (2NS + 2LdS²)/π"),
               _COLORS["total"], width=2.2),
        Series("weight", "line", _f(s), _f(weight), T("Weight term 2NS/π", "权重项 2NS/π"), _COLORS["mem"],
               dash="dash", width=1.4),
        Series("attention", "line", _f(s), _f(attention), T("Attention term 2LdS²/π", "注意力项 2LdS²/π"),
               _COLORS["comp"], dash="dash", width=1.4),
        Series("crossover", "markers", [s_star], [t_star / 2],
               T(f"Crossover S* = N/(Ld) = {s_star:,.0f}", f"交叉长度 S* = N/(Ld) = {s_star:,.0f}"),
               _COLORS["mark"], size=9, labels=[T("Crossover S*: both terms equal", "交叉长度 S*：两项相等")]),
    ]
    lines = [RefLine("crossover_line", "x", s_star, _COLORS["grey"], "dot", 1.0)]
    data = {"seq_len": s, "total_s": total, "weight_s": weight, "attention_s": attention,
            "crossover_x": s_star, "crossover_y": t_star / 2, "accelerator": a.name, "model": m.name,
            "precision": precision}
    return FigureSpec("prefill", [panel], series, lines, data=data)


# ───────────────────────────── (3) step time vs batch ─────────────────────────────

def batch_spec(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120) -> FigureSpec:
    """t_step(B) = max(Nb/β, 2NB/π): flat at the memory floor until B* = πb/2β, then compute-bound."""
    a, m = _resolve(accel, model)
    peak, bw = a.compute.peak(precision), a.memory.bandwidth
    b = PRECISION_BYTES[precision]
    n = m.parameters.to("count").magnitude
    b_star = compute_bound_batch(peak, bw, b)
    batch = np.unique(np.concatenate([np.logspace(0, np.log10(b_star * 16), points), [b_star]]))
    step = np.array([batched_step_time(n, b, bw, peak, v).to("second").magnitude for v in batch]) * 1e3
    floor_ms = decode_time_per_token(n, b, bw).to("second").magnitude * 1e3
    comp = batch * prefill_time_per_token(n, peak).to("second").magnitude * 1e3
    panel = Panel(Axis(T("Batch size B (streams)", "批大小 B（条流）"), T("B", "B"), U["streams"], log=True,
                       hoverformat=",.0f"),
                  Axis(T("Step time t<sub>step</sub> (ms)", "单步时间 t<sub>step</sub>（毫秒）"),
                       T("t<sub>step</sub>", "t<sub>step</sub>"), U["ms"], log=True,
                       range=(floor_ms / 3, float(step.max()) * 2), hoverformat=",.3~g"),
                  legend="upper left")
    series = [
        Series("step", "line", _f(batch), _f(step), T("Step time t<sub>step</sub>(B)", "单步时间 t<sub>step</sub>(B)"),
               _COLORS["total"], width=2.2),
        Series("compute", "line", _f(batch), _f(comp), T("Compute term 2NB/π", "计算项 2NB/π"), _COLORS["comp"],
               dash="dash", width=1.2),
        Series("turn", "markers", [b_star], [floor_ms],
               T(f"Compute-bound batch B* = πb/2β = {b_star:,.0f}", f"计算受限批大小 B* = πb/2β = {b_star:,.0f}"),
               _COLORS["mark"], size=9, labels=[T("Compute-bound batch B*", "计算受限批大小 B*")]),
    ]
    lines = [RefLine("floor", "y", floor_ms, _COLORS["mem"], "dash", 1.2,
                     T("Memory floor Nb/β", "内存下限 Nb/β")),
             RefLine("turn_line", "x", b_star, _COLORS["grey"], "dot", 1.0)]
    data = {"batch": batch, "step_ms": step, "floor_ms": floor_ms, "compute_ms": comp,
            "compute_bound_batch": b_star, "accelerator": a.name, "model": m.name, "precision": precision}
    return FigureSpec("batch", [panel], series, lines, data=data)


# ───────────────────────────── (4) attention state by design ─────────────────────────────

def kv_design_spec(model=None, *, kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT) -> FigureSpec:
    """Bytes of keys and values per token, and at ``context`` tokens, for MHA / GQA / MQA."""
    _, m = _resolve(None, model)
    kvb = Q_(kv_bytes, "byte")
    designs = [("MHA", T("Multi-head", "多头"), m.heads), ("GQA", T("Grouped-query", "分组查询"), m.kv_heads),
               ("MQA", T("Multi-query", "多查询"), 1)]
    cats = [T(f"{d}<br>H<sub>kv</sub> = {h}", f"{d}<br>H<sub>kv</sub> = {h}") for d, _, h in designs]
    per_token = np.array([kv_bytes_per_token(m, kvb, kv_heads=h).to("byte").magnitude for _, _, h in designs])
    at_ctx = np.array([kv_bytes_at(context, Q_(v, "byte")).to("GB").magnitude for v in per_token])
    colors = [_COLORS["comp"], _COLORS["roof"], _COLORS["mem"]]
    kb = per_token / 1e3
    panels = [
        Panel(Axis(T("Attention design", "注意力设计"), T("Design", "设计"), U["none"], categories=cats),
              Axis(T("Per token m<sub>token</sub> (kB)", "每词元 m<sub>token</sub>（kB）"),
                   T("m<sub>token</sub>", "m<sub>token</sub>"), U["kb"], log=True,
                   range=(float(kb.min()) / 3, float(kb.max()) * 4), hoverformat=",.1f"), legend=None),
        Panel(Axis(T("Attention design", "注意力设计"), T("Design", "设计"), U["none"], categories=cats),
              Axis(T(f"At S = {_tokens(context)}: M<sub>KV</sub> (GB)", f"S = {_tokens(context)} 时 M<sub>KV</sub>（GB）"),
                   T("M<sub>KV</sub>", "M<sub>KV</sub>"), U["gb"], log=True,
                   range=(float(at_ctx.min()) / 3, float(at_ctx.max()) * 4), hoverformat=",.2f"), legend=None),
    ]
    labels = [T(f"{name['en']} attention ({d})", f"{name['zh']}注意力（{d}）") for d, name, _ in designs]
    series = [
        Series("per_token_kb", "bar", [0, 1, 2], _f(kb), None, colors, labels=labels,
               text=[f"{v:,.1f}" for v in kb], panel=0),
        Series("gb_at_context", "bar", [0, 1, 2], _f(at_ctx), None, colors, labels=labels,
               text=[f"{v:,.2f}" for v in at_ctx], panel=1),
    ]
    data = {"designs": [d for d, _, _ in designs], "kv_heads": [h for _, _, h in designs],
            "bytes_per_token": per_token, "gb_at_context": at_ctx, "context": context, "model": m.name}
    return FigureSpec("kv-designs", panels, series, size=(6.4, 3.4), data=data)


# ───────────────────────────── (5) queueing knee ─────────────────────────────

def queueing_spec(ca2: float = KNEE_CA2, cs2: float = KNEE_CS2, *, marks=KNEE_MARKS, rho_max: float = 0.95,
                  points: int = 120) -> FigureSpec:
    """Kingman's mean wait W_q/E[S] against utilization ρ, with the appendix's three utilizations marked."""
    rho = np.linspace(0, rho_max, points)
    wait = np.array([kingman_wait(ca2, cs2, r) for r in rho])
    mark_w = [kingman_wait(ca2, cs2, r) for r in marks]
    panel = Panel(Axis(T("Utilization ρ", "利用率 ρ"), T("ρ", "ρ"), U["none"], range=(0.0, 1.0), hoverformat=".2f"),
                  Axis(T("Mean wait W<sub>q</sub>/E[S] (service times)", "平均等待 W<sub>q</sub>/E[S]（服务时间）"),
                       T("W<sub>q</sub>/E[S]", "W<sub>q</sub>/E[S]"), U["service"],
                       range=(0.0, float(wait.max()) * 1.05), hoverformat=".2f"),
                  legend="upper left")
    series = [
        Series("wait", "line", _f(rho), _f(wait),
               T(f"Kingman, c<sub>a</sub>² = {ca2:g}, c<sub>s</sub>² = {cs2:g}",
                 f"Kingman 近似，c<sub>a</sub>² = {ca2:g}，c<sub>s</sub>² = {cs2:g}"), _COLORS["total"], width=2.2),
        Series("marks", "markers", [float(r) for r in marks], [float(w) for w in mark_w],
               T("Utilizations quoted in the text", "正文引用的利用率"), _COLORS["mark"], size=9,
               labels=[T(f"ρ = {r:.0%}", f"ρ = {r:.0%}") for r in marks], text=[f"{w:.1f}" for w in mark_w]),
    ]
    data = {"rho": rho, "wait": wait, "marks_rho": list(marks), "marks_wait": mark_w, "ca2": ca2, "cs2": cs2}
    return FigureSpec("queueing-knee", [panel], series, size=(6.4, 3.8), data=data)


# ───────────────────────────── Lecture 19: agent stalls ─────────────────────────────

def _seconds(x) -> float:
    """A duration as a float in seconds (a pint quantity or a bare number of seconds)."""
    return float(x.to("second").magnitude) if hasattr(x, "to") else float(x)


#: the lecture's interception types in Chinese (a row label not listed here stays as given)
ROW_LABELS_ZH = {"in-process": "进程内", "file read": "读文件", "index lookup": "索引查询", "warm sandbox": "热沙箱",
                 "cold sandbox": "冷沙箱", "web/API": "网页/API", "sub-agent": "子智能体", "human turn": "人类回合"}


def policy_map_spec(t_swap, t_star, rows, stall=None) -> FigureSpec:
    """The keep/swap/discard policy map of Lecture 19: stall duration on a log axis, the break-evens
    ``t_swap`` (keep|swap) and ``t_star`` (swap|discard) as vertical lines, each interception type of
    ``rows`` — ``(label, lo, hi)``, ``hi`` may be infinite; a label is a string or ``{en, zh}`` — as a
    horizontal band, and ``stall`` (the standing session's stall) dashed."""
    a, b = _seconds(t_swap), _seconds(t_star)
    spans = [(lab, _seconds(lo), _seconds(hi)) for lab, lo, hi in rows]
    finite = [h for _, _, h in spans if math.isfinite(h)] + [b]
    x_min = min(lo for _, lo, _ in spans) / 3
    x_max = max(finite) * 30
    n = len(spans)

    def lab2(lab):
        return lab if isinstance(lab, dict) else T(lab, ROW_LABELS_ZH.get(lab, lab))

    cats = [lab2(lab) for lab, _, _ in reversed(spans)]   # bottom to top, the first row on top
    ys = [n - 1 - i for i in range(n)]
    lefts = [lo for _, lo, _ in spans]
    rights = [hi if math.isfinite(hi) else x_max for _, _, hi in spans]
    panel = Panel(Axis(T("Stall duration (s, log scale)", "停顿时长（秒，对数坐标）"), T("Stall", "停顿"), U["s"],
                       log=True, range=(x_min, x_max), hoverformat=".3~g"),
                  Axis(T("", ""), T("Interception", "拦截类型"), U["none"], categories=cats, range=(-1.2, n + 0.2)),
                  legend=None)
    series = [Series("rows", "hbar", rights, ys, T("Stall range", "停顿范围"), _COLORS["dark"],
                     labels=[lab2(lab) for lab, _, _ in spans], base=lefts)]
    bands = [Band("keep", x_min, a, _COLORS["band_keep"]), Band("swap", a, b, _COLORS["band_swap"]),
             Band("discard", b, x_max, _COLORS["band_discard"])]
    lines = [RefLine("t_swap", "x", a, _COLORS["keep"], "solid", 2.0, T("keep | swap break-even", "保留 | 换出 盈亏平衡点")),
             RefLine("t_star", "x", b, _COLORS["discard"], "solid", 2.0,
                     T("swap | discard break-even", "换出 | 丢弃 盈亏平衡点"))]
    notes = [Note("keep_swap", a, n - 0.35, T("keep | swap", "保留 | 换出"), _COLORS["keep"], dy=4),
             Note("swap_discard", b, n - 0.35, T("swap | discard", "换出 | 丢弃"), _COLORS["discard"], dy=4)]
    for (lab, lo, hi), y in zip(spans, ys):
        if not math.isfinite(hi):
            notes.append(Note(f"open_{y}", x_max, y, T("", ""), _COLORS["dark"], arrow_from=(x_max / 3, y)))
    if stall is not None:
        s = _seconds(stall)
        lines.append(RefLine("stall", "x", s, _COLORS["black"], "dash", 1.0, T("standing stall", "常设会话的停顿")))
        notes.append(Note("stall_note", s, -0.9, T("standing stall", "常设会话的停顿"), _COLORS["black"], dy=-4))
    data = {"t_swap": a, "t_star": b, "rows": spans, "stall": None if stall is None else _seconds(stall),
            "x_range": (x_min, x_max)}
    return FigureSpec("lec19-policy-map", [panel], series, lines, bands, notes, size=(7.5, 4.2), data=data)


def overcommit_spec(resident, link_bandwidth, bytes_per_task, durations, crossover=None, *, marks=(),
                    points: int = 400) -> FigureSpec:
    """Tasks per second against session duration: resident-only admission gives B / T (``resident``
    sessions, duration T); swap-bound overcommit gives β_PCIe / bytes-per-task, flat in T. ``marks`` is a
    sequence of (label, duration) points; a label is a string or ``{en, zh}``."""
    bw = float(link_bandwidth.to("byte/second").magnitude) if hasattr(link_bandwidth, "to") else float(link_bandwidth)
    per = float(bytes_per_task.to("byte").magnitude) if hasattr(bytes_per_task, "to") else float(bytes_per_task)
    lo, hi = (_seconds(d) for d in durations)
    t = np.linspace(lo, hi, points)
    x_res = resident / t
    x_swap = np.full_like(t, bw / per)
    top = float(max(x_res.max(), x_swap.max())) * 1.1
    panel = Panel(Axis(T("Session duration T (s)", "会话时长 T（秒）"), T("T", "T"), U["s"], range=(lo, hi),
                       hoverformat=",.1f"),
                  Axis(T("Tasks per second per card", "每卡每秒任务数"), T("X", "X"), U["tps"], range=(0.0, top),
                       hoverformat=".3f"),
                  legend="upper right")
    series = [
        Series("resident", "line", _f(t), _f(x_res), T("Resident-only admission, B / T", "仅常驻准入，B / T"),
               _COLORS["dark"], width=2.0),
        Series("swap", "line", _f(t), _f(x_swap), T("Swap-bound overcommit, β / 2nK", "换出受限超额准入，β / 2nK"),
               _COLORS["keep"], width=2.0, fill_to="resident", fill_name=T("Overcommit pays", "超额准入划算"),
               fill_color=_COLORS["fill"]),
    ]
    notes, lines = [], []
    if crossover is not None:
        c = _seconds(crossover)
        lines.append(RefLine("crossover", "x", c, _COLORS["discard"], "dash", 1.5))
        notes.append(Note("crossover_note", c * 1.05, bw / per * 1.35, T("crossover", "交叉点"), _COLORS["discard"],
                          anchor="left", arrow_from=None))
    if marks:
        labs = [lab if isinstance(lab, dict) else T(lab, {"standing session": "常设会话"}.get(lab, lab))
                for lab, _ in marks]
        xs = [_seconds(d) for _, d in marks]
        series.append(Series("marks", "markers", xs, [resident / x for x in xs], None, _COLORS["black"], size=7,
                             labels=labs, text=labs))
    data = {"duration_s": t, "resident": x_res, "swap": x_swap,
            "crossover": None if crossover is None else _seconds(crossover)}
    return FigureSpec("lec19-overcommit", [panel], series, lines, notes=notes, size=(7.0, 4.0), data=data)


# ───────────────────────────── renderer: plotly ─────────────────────────────

_DASH = {"solid": "solid", "dash": "dash", "dot": "dot"}
_MPL_DASH = {"solid": "-", "dash": "--", "dot": ":"}
_MPL_MARK = {"circle": "o", "square": "s", "triangle-up": "^", "diamond": "D"}
_LEGEND_XY = {"lower right": (0.99, 0.02, "right", "bottom"), "upper left": (0.01, 0.99, "left", "top"),
              "upper right": (0.99, 0.99, "right", "top"), "lower left": (0.01, 0.02, "left", "bottom")}


def _axis_key(kind: str, panel: int) -> str:
    return kind if panel == 0 else f"{kind}{panel + 1}"


def _ref(kind: str, panel: int) -> str:
    return kind if panel == 0 else f"{kind}{panel + 1}"


def _hover(spec: FigureSpec, s: Series, lang: str) -> str:
    p = spec.panels[s.panel]
    head = "%{customdata}" if s.labels else _pick(s.name, lang)
    if s.kind == "hbar":  # set with the bar (its range runs from base to end)
        return ""
    rows = [f"<b>{head}</b>"]
    if not p.x.categories:
        rows.append(f"{_pick(p.x.name, lang)} = %{{x:{p.x.hoverformat}}} {_pick(p.x.unit, lang)}".rstrip())
    rows.append(f"{_pick(p.y.name, lang)} = %{{y:{p.y.hoverformat}}} {_pick(p.y.unit, lang)}".rstrip())
    return "<br>".join(rows) + "<extra></extra>"


def _range(ax: Axis):
    if ax.range is None:
        return None
    lo, hi = ax.range
    return [math.log10(lo), math.log10(hi)] if ax.log else [lo, hi]


def plotly_json(spec: FigureSpec, lang: str = "en") -> dict:
    """The plotly figure of ``spec`` as a plain dict (``{"data": [...], "layout": {...}}``), no plotly import."""
    _pick(T("", ""), lang)
    traces = []
    # markers first: where a marker sits on a line (the ridge on the roof), hover names the marker;
    # legendrank keeps the legend in the description's order
    order = sorted(range(len(spec.series)), key=lambda i: spec.series[i].kind != "markers")
    for rank in order:
        s = spec.series[rank]
        xr, yr = _ref("x", s.panel), _ref("y", s.panel)
        base = {"uid": s.key, "name": _pick(s.name, lang) if s.name else s.key, "xaxis": xr, "yaxis": yr,
                "legendrank": 1000 + rank,
                "showlegend": s.name is not None, "hovertemplate": _hover(spec, s, lang),
                "meta": {"key": s.key}}
        if s.labels:
            base["customdata"] = [_pick(v, lang) for v in s.labels]
        if s.kind in ("line", "markers"):
            tr = dict(base, type="scatter", x=list(s.x), y=list(s.y))
            if s.kind == "line":
                # invisible hover targets a little larger than the markers: plotly's hover prefers the
                # smaller radius at equal distance, so a marker on a line (the ridge) wins over the line
                tr.update(mode="lines+markers", line={"color": s.color, "dash": _DASH[s.dash], "width": s.width},
                          marker={"size": 12, "opacity": 0, "color": s.color})
            else:
                mk = {"color": s.color, "size": s.size, "symbol": s.symbol + ("-open" if s.hollow else ""),
                      "line": {"color": s.color, "width": 2 if s.hollow else 0}}
                tr.update(mode="markers+text" if s.text else "markers", marker=mk)
                if s.text:
                    tr.update(text=[_pick(v, lang) for v in s.text], textposition="top left",
                              textfont={"size": 11})
            if s.fill_to is not None:
                other = spec.series_by_key(s.fill_to)
                lower = [min(a, b) for a, b in zip(s.y, other.y)]
                traces.append({"type": "scatter", "uid": s.key + "_fill_base", "x": list(s.x), "y": lower,
                               "xaxis": xr, "yaxis": yr, "mode": "lines", "line": {"width": 0},
                               "showlegend": False, "hoverinfo": "skip", "legendgroup": s.key + "_fill",
                               "meta": {"key": s.key + "_fill_base"}})
                traces.append({"type": "scatter", "uid": s.key + "_fill", "name": _pick(s.fill_name, lang),
                               "x": list(s.x), "y": list(s.y), "xaxis": xr, "yaxis": yr, "mode": "lines",
                               "line": {"width": 0}, "fill": "tonexty", "fillcolor": s.fill_color,
                               "opacity": 0.6, "hoverinfo": "skip", "legendgroup": s.key + "_fill",
                               "meta": {"key": s.key + "_fill"}})
        elif s.kind == "bar":
            tr = dict(base, type="bar", x=list(s.x), y=list(s.y), marker={"color": s.color},
                      text=[_pick(v, lang) for v in s.text] if s.text else None, textposition="outside",
                      width=0.6)
        elif s.kind == "hbar":
            tr = dict(base, type="bar", orientation="h", y=list(s.y), x=list(s.x), base=list(s.base),
                      marker={"color": s.color, "opacity": 0.85}, width=0.55)
            # plotly draws a horizontal bar from base to base + x: x is the length
            tr["x"] = [r - lft for r, lft in zip(s.x, s.base)]
        else:
            raise ValueError(f"figure {spec.key}: unknown series kind {s.kind!r}")
        if s.kind == "hbar":
            unit = _pick(spec.panels[s.panel].x.unit, lang)
            ends = [("∞" if not math.isfinite(h) else f"{h:.3g}") for _, _, h in spec.data.get("rows", [])] \
                or [f"{v:.3g}" for v in s.x]
            tr["customdata"] = [[_pick(lab, lang), f"{e} {unit}"] for lab, e in zip(s.labels, ends)]
            tr["hovertemplate"] = (f"<b>%{{customdata[0]}}</b><br>{_pick(spec.panels[s.panel].x.name, lang)}: "
                                   f"%{{base:.3~g}} – %{{customdata[1]}}<extra></extra>")
        traces.append(tr)
    layout = {"margin": {"l": 70, "r": 20, "t": 30, "b": 60}, "height": int(spec.size[1] * 95),
              "paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)",
              "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans CJK SC', sans-serif",
                       "size": 12, "color": "#212529"},
              "hovermode": "closest", "showlegend": any(s.name for s in spec.series),
              "shapes": [], "annotations": [], "bargap": 0.4, "meta": {"figure": spec.key, "lang": lang}}
    n = len(spec.panels)
    gap = 0.12
    width = (1 - gap * (n - 1)) / n
    for i, p in enumerate(spec.panels):
        xa = {"title": {"text": _pick(p.x.title, lang)}, "type": "log" if p.x.log else "linear",
              "gridcolor": "#dddddd", "zeroline": False, "showline": True, "linecolor": "#888888",
              "domain": [i * (width + gap), i * (width + gap) + width], "anchor": _ref("y", i), "automargin": True}
        ya = {"title": {"text": _pick(p.y.title, lang)}, "type": "log" if p.y.log else "linear",
              "gridcolor": "#dddddd", "zeroline": False, "showline": True, "linecolor": "#888888",
              "anchor": _ref("x", i), "exponentformat": "power" if p.y.log else "none", "automargin": True}
        if p.x.log:
            xa.update(exponentformat="power", dtick=1)
        if p.y.log:
            ya["dtick"] = 1
        for ax, a in ((xa, p.x), (ya, p.y)):
            r = _range(a)
            if r is not None:
                ax["range"] = r
            if a.categories:
                ax.update(type="linear", tickmode="array", tickvals=list(range(len(a.categories))),
                          ticktext=[_pick(c, lang) for c in a.categories], gridcolor="rgba(0,0,0,0)")
        layout[_axis_key("xaxis", i)] = xa
        layout[_axis_key("yaxis", i)] = ya
        if p.legend and i == 0:
            lx, ly, xan, yan = _LEGEND_XY[p.legend]
            layout["legend"] = {"x": lx, "y": ly, "xanchor": xan, "yanchor": yan, "bgcolor": "rgba(0,0,0,0)",
                                "font": {"size": 11}}
    for bd in spec.bands:
        layout["shapes"].append({"type": "rect", "xref": _ref("x", bd.panel), "yref": f"{_ref('y', bd.panel)} domain",
                                 "x0": bd.lo, "x1": bd.hi, "y0": 0, "y1": 1, "fillcolor": bd.color,
                                 "line": {"width": 0}, "layer": "below", "name": bd.key})
    for ln in spec.lines:
        if ln.axis == "x":
            sh = {"type": "line", "xref": _ref("x", ln.panel), "yref": f"{_ref('y', ln.panel)} domain",
                  "x0": ln.value, "x1": ln.value, "y0": 0, "y1": 1}
        else:
            sh = {"type": "line", "yref": _ref("y", ln.panel), "xref": f"{_ref('x', ln.panel)} domain",
                  "y0": ln.value, "y1": ln.value, "x0": 0, "x1": 1}
        sh.update(line={"color": ln.color, "dash": _DASH[ln.dash], "width": ln.width}, name=ln.key)
        if ln.name is not None:  # a named line is also a legend entry (a line trace across the range)
            sh["showlegend"] = True
            sh["legendgroup"] = ln.key
            sh["name"] = _pick(ln.name, lang)
        layout["shapes"].append(sh)
    for nt in spec.notes:
        an = {"x": math.log10(nt.x) if spec.panels[nt.panel].x.log else nt.x,
              "y": math.log10(nt.y) if spec.panels[nt.panel].y.log else nt.y,
              "xref": _ref("x", nt.panel), "yref": _ref("y", nt.panel), "text": _pick(nt.text, lang),
              "showarrow": nt.arrow_from is not None, "font": {"color": nt.color, "size": 11},
              "xanchor": nt.anchor, "yshift": nt.dy, "xshift": nt.dx, "name": nt.key}
        if nt.arrow_from is not None:
            fx, fy = nt.arrow_from
            an.update(axref=an["xref"], ayref=an["yref"],
                      ax=math.log10(fx) if spec.panels[nt.panel].x.log else fx,
                      ay=math.log10(fy) if spec.panels[nt.panel].y.log else fy,
                      arrowhead=2, arrowcolor=nt.color, text="")
        layout["annotations"].append(an)
    return {"data": traces, "layout": layout}


def to_plotly(spec: FigureSpec, lang: str = "en"):
    """``spec`` as a ``plotly.graph_objects.Figure`` in ``lang``."""
    import plotly.graph_objects as go
    return go.Figure(plotly_json(spec, lang))


#: plotly.js options of the book's figures: no plotly logo or cloud link, a small mode bar
PLOTLY_CONFIG = {"displaylogo": False, "showSendToCloud": False, "showEditInChartStudio": False, "responsive": True, "modeBarButtonsToRemove": ["select2d", "lasso2d"],
                 "toImageButtonOptions": {"format": "svg"}}


# ───────────────────────────── renderer: matplotlib ─────────────────────────────

def _plt():
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = SVG_SALT
    import matplotlib.pyplot as plt
    return plt


_SUB = re.compile(r"<sub>(.*?)</sub>")
_SUP = re.compile(r"<sup>(.*?)</sup>")


def mpl_text(s: str) -> str:
    """A label's plotly markup (``<sub>``, ``<sup>``, ``<br>``, 𝓘) as matplotlib text with mathtext."""
    s = s.replace("<br>", "\n").replace("$", r"\$")
    s = _SUB.sub(lambda m: "$_{\\mathrm{" + m.group(1).replace(" ", r"\ ") + "}}$", s)
    s = _SUP.sub(lambda m: "$^{" + m.group(1) + "}$", s)
    return s.replace("𝓘", r"$\mathcal{I}$")


def plain_text(s: str) -> str:
    """A label without markup (for comparing the two renderers' text)."""
    s = s.replace("<br>", "\n")
    return re.sub(r"</?su[bp]>", "", s)


def _rc(lang: str) -> dict:
    """matplotlib settings of a language: Latin text in DejaVu Sans with CJK glyphs from Noto Sans CJK;
    mathtext (subscripts) in the same faces, so a Chinese label with a subscript keeps its glyphs."""
    rc = {"font.family": ["DejaVu Sans", "Noto Sans CJK SC", "sans-serif"], "axes.unicode_minus": False,
          "svg.hashsalt": SVG_SALT}
    if lang == "zh":
        rc.update({"font.family": ["Noto Sans CJK SC", "DejaVu Sans", "sans-serif"],
                   "mathtext.fontset": "custom", "mathtext.rm": "Noto Sans CJK SC", "mathtext.cal": "DejaVu Sans:italic",
                   "mathtext.it": "Noto Sans CJK SC", "mathtext.bf": "Noto Sans CJK SC:bold",
                   "mathtext.sf": "Noto Sans CJK SC"})
    else:
        rc["mathtext.fontset"] = "dejavusans"
    return rc


def to_matplotlib(spec: FigureSpec, lang: str = "en"):
    """``spec`` as a matplotlib figure in ``lang`` (the PDF's static figure)."""
    _pick(T("", ""), lang)
    import matplotlib
    plt = _plt()
    rc = _rc(lang)
    with matplotlib.rc_context(rc):
        fig = _draw_matplotlib(plt, spec, lang)
    fig._mlsysim_rc = rc  # the same fonts when the figure is saved (mathtext is laid out at draw time)
    return fig


def _draw_matplotlib(plt, spec: FigureSpec, lang: str):
    fig, axes = plt.subplots(1, len(spec.panels), figsize=spec.size)
    axes = list(np.atleast_1d(axes))
    for i, (ax, p) in enumerate(zip(axes, spec.panels)):
        if p.x.log:
            ax.set_xscale("log")
        if p.y.log:
            ax.set_yscale("log")
        ax.set_xlabel(mpl_text(_pick(p.x.title, lang)))
        ax.set_ylabel(mpl_text(_pick(p.y.title, lang)))
        if p.x.categories:
            ax.set_xticks(range(len(p.x.categories)), [mpl_text(_pick(c, lang)) for c in p.x.categories], fontsize=8)
        if p.y.categories:
            ax.set_yticks(range(len(p.y.categories)), [mpl_text(_pick(c, lang)) for c in p.y.categories])
    for bd in spec.bands:
        axes[bd.panel].axvspan(bd.lo, bd.hi, color=bd.color, zorder=0, gid=f"band-{bd.key}")
    for s in spec.series:
        ax = axes[s.panel]
        label = mpl_text(_pick(s.name, lang)) if s.name else None
        if s.kind == "line":
            ax.plot(s.x, s.y, color=s.color, linestyle=_MPL_DASH[s.dash], linewidth=s.width, label=label,
                    gid=s.key)
        elif s.kind == "markers":
            kw = {"markerfacecolor": "none", "markeredgewidth": 2} if s.hollow else {}
            ax.plot(s.x, s.y, _MPL_MARK[s.symbol], color=s.color, markersize=s.size * 0.8, label=label,
                    gid=s.key, linestyle="none", **kw)
            for x, y, t in zip(s.x, s.y, s.text or []):
                ax.annotate(mpl_text(_pick(t, lang)), (x, y), xytext=(-6, 6), textcoords="offset points",
                            ha="right", fontsize=8)
        elif s.kind == "bar":
            bars = ax.bar(s.x, s.y, color=s.color, width=0.6, gid=s.key, label=label)
            for rect, t in zip(bars, s.text or []):
                ax.annotate(_pick(t, lang), (rect.get_x() + rect.get_width() / 2, rect.get_height()), ha="center",
                            va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
        elif s.kind == "hbar":
            ax.barh(s.y, [r - lft for r, lft in zip(s.x, s.base)], left=s.base, height=0.55, color=s.color,
                    alpha=0.85, zorder=3, gid=s.key)
        if s.fill_to is not None:
            other = spec.series_by_key(s.fill_to)
            ys, yo = np.asarray(s.y), np.asarray(other.y)
            ax.fill_between(s.x, yo, ys, where=ys > yo, color=s.fill_color, alpha=0.6,
                            label=mpl_text(_pick(s.fill_name, lang)), gid=s.key + "_fill")
    for ln in spec.lines:
        ax = axes[ln.panel]
        label = mpl_text(_pick(ln.name, lang)) if ln.name else None
        if ln.axis == "x":
            ax.axvline(ln.value, color=ln.color, linestyle=_MPL_DASH[ln.dash], linewidth=ln.width, label=label,
                       gid=f"line-{ln.key}")
        else:
            ax.axhline(ln.value, color=ln.color, linestyle=_MPL_DASH[ln.dash], linewidth=ln.width, label=label,
                       gid=f"line-{ln.key}")
    for nt in spec.notes:
        ax = axes[nt.panel]
        text = mpl_text(_pick(nt.text, lang))
        if nt.arrow_from is not None:
            ax.annotate(text, xy=(nt.x, nt.y), xytext=nt.arrow_from, arrowprops=dict(arrowstyle="->", color=nt.color),
                        color=nt.color, fontsize=9)
        else:
            ax.annotate(text, xy=(nt.x, nt.y), xytext=(nt.dx, nt.dy), textcoords="offset points", color=nt.color,
                        ha=nt.anchor, va="bottom" if nt.dy >= 0 else "top", fontsize=9)
    for i, (ax, p) in enumerate(zip(axes, spec.panels)):
        if p.x.range is not None:
            ax.set_xlim(*p.x.range)
        if p.y.range is not None:
            ax.set_ylim(*p.y.range)
        if p.x.categories or p.y.categories:
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
        else:
            _style(ax)
        if p.legend:
            ax.legend(loc=p.legend, fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def _style(ax):
    ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
    ax.grid(True, which="minor", color="#f0f0f0", linewidth=0.4)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


# ───────────────────────────── output ─────────────────────────────

def svg_bytes(fig) -> bytes:
    """The figure as SVG, identical bytes for identical input (fixed hash salt, no date)."""
    import matplotlib
    rc = dict(getattr(fig, "_mlsysim_rc", {}))
    rc.update({"svg.hashsalt": SVG_SALT, "svg.fonttype": "path"})
    with matplotlib.rc_context(rc):
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buf.getvalue()


def save_svg(fig, path, *, close: bool = True) -> Path:
    """Write ``fig`` to ``path`` as deterministic SVG (only if the bytes changed) and close it."""
    path = Path(path)
    if os.environ.get("MLSYSIM_FIGURES") == "off":   # a computation that shows no figure (bookbuild's variants)
        if close:
            _plt().close(fig)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    data = svg_bytes(fig)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    if close:
        _plt().close(fig)
    return path


def plot_div(spec: FigureSpec, lang: str, *, alt: str | None = None, element_id: str | None = None) -> str:
    """The HTML book's figure: a ``div.mlsysim-plot`` holding the plotly JSON, drawn by the book's
    ``figures.js`` with its own ``plotly.js`` (no CDN, no require.js)."""
    payload = json.dumps({"data": plotly_json(spec, lang)["data"], "layout": plotly_json(spec, lang)["layout"],
                          "config": PLOTLY_CONFIG, "dark": DARK}, ensure_ascii=False, separators=(",", ":"),
                         allow_nan=False)
    payload = payload.replace("</", "<\\/")
    label = f' aria-label="{_html.escape(alt)}"' if alt else ""
    return (f'<div class="mlsysim-plot" id="{element_id or "mlsysim-plot-" + spec.key}" data-figure="{spec.key}" lang="{lang}" '
            f'role="img"{label} style="min-height:{int(spec.size[1] * 95)}px">'
            f'<script type="application/json" class="mlsysim-plot-json">{payload}</script></div>')


class BookFigure:
    """One figure in one language, as the book displays it.

    ``_repr_html_``: the interactive plotly figure (under Quarto's Jupyter setup, which sets plotly's
    renderer to ``notebook``/``notebook_connected``, plotly's own notebook output instead).
    ``_repr_markdown_``: the static SVG written by :func:`book_figure` (formats without HTML)."""

    def __init__(self, spec: FigureSpec, lang: str, svg_link: str):
        self.spec, self.lang, self.svg_link = spec, lang, svg_link

    @property
    def data(self) -> dict:
        return self.spec.data

    def _repr_html_(self) -> str:
        try:
            import plotly.io as pio
            quarto = str(pio.renderers.default) in ("notebook", "notebook_connected")
        except Exception:  # noqa: BLE001 - no plotly: the book's own div
            quarto = False
        if quarto:
            bundle = pio.renderers._build_mime_bundle(plotly_json(self.spec, self.lang), pio.renderers.default,
                                                      config=PLOTLY_CONFIG)
            return bundle.get("text/html", "")
        return plot_div(self.spec, self.lang)

    def _repr_markdown_(self) -> str:
        return f"![]({self.svg_link})"

    def __repr__(self) -> str:
        return f"<mlsysim figure {self.spec.key} ({self.lang})>"


def book_figure(spec: FigureSpec, out_dir="figures", *, lang: str | None = None) -> BookFigure:
    """Write ``out_dir/<key>.<lang>.svg`` (the static figure) and return the displayable :class:`BookFigure`.
    ``lang`` defaults to the book's language (:func:`book_lang`). ``out_dir`` is relative to the chapter."""
    lang = lang or book_lang()
    path = Path(out_dir) / f"{spec.key}.{lang}.svg"
    if os.environ.get("MLSYSIM_FIGURES") == "off":   # a computation that shows no figure (bookbuild's variants)
        return BookFigure(spec, lang, path.as_posix())
    from . import diskcache
    key = (str(path.resolve()), _spec_fingerprint(spec, lang))
    if _DRAWN.get(str(path.resolve())) != key or not path.exists():
        cached = _figure_cache(key[1], lang)
        if cached is not None and cached.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            data = cached.read_bytes()
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
        else:
            save_svg(to_matplotlib(spec, lang), path)
            if cached is not None:
                diskcache.store(cached, path.read_bytes())
        _DRAWN[str(path.resolve())] = key
    return BookFigure(spec, lang, path.as_posix())


def _figure_cache(fingerprint: str, lang: str) -> Path | None:
    """Where the SVG of this exact figure is kept between builds (``MLSYSIM_CACHE``, which bookbuild
    sets): keyed by the figure's full description, its language, matplotlib's version and the mlsysim
    package's code, so a cached drawing is always the drawing this code would make."""
    from . import diskcache
    folder = diskcache.folder("figures")
    if folder is None:
        return None
    import matplotlib
    return folder / f"{diskcache.key('figure', fingerprint, lang, matplotlib.__version__)}.svg"



def _spec_fingerprint(spec: FigureSpec, lang: str) -> str:
    return json.dumps(plotly_json(spec, lang), sort_keys=True, allow_nan=False)


_DRAWN: dict = {}


# ───────────────────────────── the appendix's figures ─────────────────────────────

#: the appendix's figures (file stems)
APPENDIX_FIGURES = ("roofline", "prefill", "batch", "kv-designs", "queueing-knee")


def appendix_specs(accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                   kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT,
                   ca2: float = KNEE_CA2, cs2: float = KNEE_CS2) -> dict:
    """The five appendix figure descriptions, name -> FigureSpec."""
    return {
        "roofline": roofline_spec(accel, model, precision, prompt_tokens=context),
        "prefill": prefill_spec(accel, model, precision),
        "batch": batch_spec(accel, model, precision),
        "kv-designs": kv_design_spec(model, kv_bytes=kv_bytes, context=context),
        "queueing-knee": queueing_spec(ca2, cs2),
    }


def write_appendix_figures(out_dir, accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                           kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT,
                           ca2: float = KNEE_CA2, cs2: float = KNEE_CS2, lang: str = "en") -> dict:
    """Draw the five appendix figures in ``lang`` and write ``out_dir/<name>.<lang>.svg``; returns
    name -> (path, data)."""
    specs = appendix_specs(accel, model, precision, kv_bytes=kv_bytes, context=context, ca2=ca2, cs2=cs2)
    return {name: (Path(book_figure(spec, out_dir, lang=lang).svg_link), spec.data) for name, spec in specs.items()}


# ───────────────────────────── legacy API: (matplotlib figure, data) ─────────────────────────────

def _legacy(spec: FigureSpec):
    return to_matplotlib(spec, "en"), spec.data


def roofline_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                    prompt_tokens: int = REFERENCE_CONTEXT, points: int = 120):
    return _legacy(roofline_spec(accel, model, precision, prompt_tokens=prompt_tokens, points=points))


def prefill_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120):
    return _legacy(prefill_spec(accel, model, precision, points=points))


def batch_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120):
    return _legacy(batch_spec(accel, model, precision, points=points))


def kv_design_figure(model=None, *, kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT):
    return _legacy(kv_design_spec(model, kv_bytes=kv_bytes, context=context))


def queueing_figure(ca2: float = KNEE_CA2, cs2: float = KNEE_CS2, *, marks=KNEE_MARKS, rho_max: float = 0.95,
                    points: int = 120):
    return _legacy(queueing_spec(ca2, cs2, marks=marks, rho_max=rho_max, points=points))


def policy_map_figure(t_swap, t_star, rows, stall=None):
    """The policy map as a matplotlib figure (see :func:`policy_map_spec`)."""
    return to_matplotlib(policy_map_spec(t_swap, t_star, rows, stall), "en")


def overcommit_figure(resident, link_bandwidth, bytes_per_task, durations, crossover=None, *, marks=()):
    """The overcommit figure as a matplotlib figure (see :func:`overcommit_spec`)."""
    return to_matplotlib(overcommit_spec(resident, link_bandwidth, bytes_per_task, durations, crossover,
                                         marks=marks), "en")


#: every figure of the book: key -> a builder of its description at the book's reference inputs (for tests)
__all__ = ["FigureSpec", "Series", "Axis", "Panel", "RefLine", "Band", "Note", "T", "LANGS", "book_lang",
           "roofline_spec", "prefill_spec", "batch_spec", "kv_design_spec", "queueing_spec", "policy_map_spec",
           "overcommit_spec", "appendix_specs", "to_plotly", "plotly_json", "to_matplotlib", "plot_div",
           "BookFigure", "book_figure", "svg_bytes", "save_svg", "write_appendix_figures", "APPENDIX_FIGURES",
           "roofline_figure", "prefill_figure", "batch_figure", "kv_design_figure", "queueing_figure",
           "policy_map_figure", "overcommit_figure", "DARK", "PLOTLY_CONFIG", "mpl_text", "plain_text"]



# ───────────────────────────── measurements against floors ─────────────────────────────

_CAL_COLORS = ("#1f4e79", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#757575", "#00838f")


def calibration_data(highlight: str | None = None, measurements=None) -> dict:
    """The plotted points of the calibration figure, with no drawing: for every measured value of the
    measurements registry, the streams per pass (concurrency, batch or stated limit; None for a
    maximum-load run with no stated limit), the achieved fraction, the metric and the accelerator.
    ``highlight`` names the accelerator drawn filled (the reader's choice); the others are hollow."""
    from .measurements import MEASUREMENTS, calibrate
    ms = MEASUREMENTS if measurements is None else measurements
    points = []
    for c in calibrate(ms):
        m = ms[c.entry]
        points.append({"entry": c.entry, "metric": c.metric, "accelerator": m.accelerator.name,
                       "streams": m.streams, "achieved": c.achieved, "highlight": m.accelerator.name == highlight})
    finite = [p["streams"] for p in points if p["streams"] is not None]
    unbounded_x = 10 ** np.ceil(np.log10(max(finite) * 3)) if finite else 1.0
    accels = sorted({p["accelerator"] for p in points})
    return {"points": points, "unbounded_x": float(unbounded_x), "accelerators": accels, "highlight": highlight}


def calibration_figure(data: dict):
    """The calibration figure as a matplotlib figure (see :func:`calibration_spec`); returns (fig, data)."""
    return to_matplotlib(calibration_spec(data), "en"), data


#: per metric: the symbol and the legend words
_CAL_SYMBOLS = {"itl": "circle", "request_latency": "square", "ttft": "triangle-up", "output_throughput": "diamond"}
_CAL_NAMES = {"itl": T("per-token latency", "每词元延迟"), "request_latency": T("request latency", "请求延迟"),
              "ttft": T("time to first token", "首词元时间"), "output_throughput": T("output throughput", "输出吞吐量")}


def calibration_spec(data: dict) -> FigureSpec:
    """The calibration figure as one description (plotly in HTML, matplotlib in the PDF): the achieved
    fraction of the floor against streams per pass, both log; one series per accelerator and metric
    (color: accelerator, symbol: metric, hollow unless it is the highlighted accelerator); maximum-load
    runs with no stated limit at the right edge, marked ∞; the floor itself (η = 1) as a line."""
    color = {a: _CAL_COLORS[i % len(_CAL_COLORS)] for i, a in enumerate(data["accelerators"])}
    series = []
    for a in data["accelerators"]:
        for metric in _CAL_SYMBOLS:
            pts = [p for p in data["points"] if p["accelerator"] == a and p["metric"] == metric]
            if not pts:
                continue
            name = {k: f"{a} · {v}" for k, v in _CAL_NAMES[metric].items()}
            series.append(Series(
                f"cal-{a}-{metric}", "markers",
                [p["streams"] if p["streams"] is not None else data["unbounded_x"] for p in pts],
                [p["achieved"] for p in pts], name=name, color=color[a], symbol=_CAL_SYMBOLS[metric],
                hollow=data["highlight"] is not None and a != data["highlight"], size=8,
                labels=[p["entry"] for p in pts]))
    lo = min(p["achieved"] for p in data["points"]) / 2
    panel = Panel(
        Axis(T("Streams sharing a pass (concurrency or batch), B", "共享一次前向的流数（并发或批大小）B"),
             T("streams", "流数"), T("", ""), log=True, range=(0.7, data["unbounded_x"] * 1.6)),
        Axis(T("Achieved fraction of the floor, η", "达到下限的比例 η"), T("η", "η"), T("", ""), log=True,
             range=(lo, 1.5), hoverformat=".3f"),
        legend="lower left")
    lines = [RefLine("cal-floor", "y", 1.0, name=T("the floor (η = 1)", "下限（η = 1）"))]
    notes = [Note("cal-unbounded", data["unbounded_x"], 1.15, T("∞: maximum load", "∞：满负载"), anchor="right")]
    return FigureSpec("calibration", [panel], series, lines=lines, notes=notes, size=(6.4, 4.2), data=data)


def write_calibration_figure(out_dir, highlight: str | None = None, measurements=None):
    """Draw the calibration figure and write ``out_dir/calibration.svg``; returns (path, data)."""
    data = calibration_data(highlight, measurements)
    if os.environ.get("MLSYSIM_FIGURES") == "off":   # a computation that shows no figure (bookbuild's variants)
        return Path(out_dir) / "calibration.svg", data
    fig, data = calibration_figure(data)
    return save_svg(fig, Path(out_dir) / "calibration.svg"), data


__all__ += ["calibration_data", "calibration_figure", "calibration_spec", "write_calibration_figure"]
