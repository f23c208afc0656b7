"""The appendix's figures, each described once from the physics functions (never from re-typed
formulas). Defaults are the appendix's reference configuration (:data:`mlsysim.scenario.REFERENCE`,
16-bit keys and values, a 32,768-token agent context)."""
from __future__ import annotations

import numpy as np

from ..physics import (attainable_performance, attention_crossover_length, batched_step_time, compute_bound_batch,
                       decode_intensity, decode_time_per_token, kingman_wait, kv_bytes_at, kv_bytes_per_token,
                       prefill_time, prefill_time_per_token, ridge_point, weights_read)
from ..scenario import REFERENCE
from ..units import PRECISION_BYTES, Q_
from .spec import _COLORS, U, Axis, FigureSpec, Panel, RefLine, Series, T, _f, _tokens

REFERENCE_PRECISION = REFERENCE["precision"]
REFERENCE_KV_BYTES = 2
REFERENCE_CONTEXT = 32_768
KNEE_CA2, KNEE_CS2 = 2.0, 1.0
KNEE_MARKS = (0.5, 0.7, 0.9)


def _read(m, tokens) -> float:
    """Parameters a pass of ``tokens`` tokens reads (all of a dense model's; a mixture's experts reached)."""
    return weights_read(m.parameters.to("count").magnitude, m.active_count, m.experts, m.experts_per_token, tokens)


def _intensity(m, tokens, b) -> float:
    """FLOP per byte of a pass of ``tokens`` tokens: 2 N_a B / (N_read(B) b), 2B/b for a dense model."""
    return 2 * m.active_count * tokens / (_read(m, tokens) * b.to("byte").magnitude)


def _resolve(accel, model):
    from ..registry import Hardware, Models
    a = Hardware.Cloud.get(accel or REFERENCE["accelerator"]) if accel is None or isinstance(accel, str) else accel
    m = Models.Language.get(model or REFERENCE["model"]) if model is None or isinstance(model, str) else model
    return a, m


# ───────────────────────────── (1) roofline ─────────────────────────────

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
    i_pre = _intensity(m, prompt_tokens, b)  # 2S/b: S tokens share one read of the weights (a mixture: of its experts)
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
    i_bstar = _intensity(m, b_star, b)   # on the ridge for a dense model; below it for a mixture of experts
    marks = {"decode_b1": (i_dec, perf(i_dec)), "ridge": (ridge, perf(ridge)),
             "decode_bstar": (i_bstar, perf(i_bstar)), "prefill": (i_pre, perf(i_pre))}
    panel = Panel(
        Axis(T("Arithmetic intensity 𝓘 (FLOP/byte)", "算术强度 𝓘（FLOP/字节）"), T("𝓘", "𝓘"), U["fpb"], log=True,
             range=(lo, hi), hoverformat=",.0f"),
        Axis(T("Attainable rate P (FLOP/s)", "可达速率 P（FLOP/s）"), T("P", "P"), U["fps"], log=True,
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
    n = m.active_count   # the parameters a token reaches (a mixture of experts' active ones)
    s_star = attention_crossover_length(n, m.layers, m.hidden_dim)
    s = np.logspace(np.log10(s_star / 100), np.log10(min(s_star * 30, 1e7)), points)
    per_tok = prefill_time_per_token(n, peak).to("second").magnitude
    weight = s * per_tok
    total = np.array([prefill_time(n, m.layers, m.hidden_dim, v, peak).to("second").magnitude for v in s])
    attention = total - weight
    t_star = prefill_time(n, m.layers, m.hidden_dim, s_star, peak).to("second").magnitude
    panel = Panel(Axis(T("Prompt length S (tokens)", "提示词长度 S（词元）"), T("S", "S"), U["tokens"], log=True,
                       hoverformat=",.0f"),
                  Axis(T("Prefill time T<sub>prefill</sub> (s)", "预填充时间 T<sub>prefill</sub>（s）"),
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
    n = m.active_count   # per-token arithmetic and one stream's read: a mixture of experts' active parameters
    b_star = compute_bound_batch(peak, bw, b)
    batch = np.unique(np.concatenate([np.logspace(0, np.log10(b_star * 16), points), [b_star]]))
    step = np.array([batched_step_time(n, b, bw, peak, v, read_params=_read(m, v)).to("second").magnitude
                     for v in batch]) * 1e3
    floor_ms = decode_time_per_token(n, b, bw).to("second").magnitude * 1e3
    comp = batch * prefill_time_per_token(n, peak).to("second").magnitude * 1e3
    panel = Panel(Axis(T("Batch size B (streams)", "批大小 B（流数）"), T("B", "B"), U["streams"], log=True,
                       hoverformat=",.0f"),
                  Axis(T("Step time t<sub>step</sub> (ms)", "单步耗时 t<sub>step</sub>（ms）"),
                       T("t<sub>step</sub>", "t<sub>step</sub>"), U["ms"], log=True,
                       range=(floor_ms / 3, float(step.max()) * 2), hoverformat=",.3~g"),
                  legend="upper left")
    series = [
        Series("step", "line", _f(batch), _f(step), T("Step time t<sub>step</sub>(B)", "单步耗时 t<sub>step</sub>(B)"),
               _COLORS["total"], width=2.2),
        Series("compute", "line", _f(batch), _f(comp), T("Compute term 2NB/π", "计算项 2NB/π"), _COLORS["comp"],
               dash="dash", width=1.2),
        Series("turn", "markers", [b_star], [floor_ms],
               T(f"Compute-bound batch B* = πb/2β = {b_star:,.0f}", f"受计算限制的批大小 B* = πb/2β = {b_star:,.0f}"),
               _COLORS["mark"], size=9, labels=[T("Compute-bound batch B*", "受计算限制的批大小 B*")]),
    ]
    lines = [RefLine("floor", "y", floor_ms, _COLORS["mem"], "dash", 1.2,
                     T("Memory floor Nb/β", "受内存带宽限制的下限 Nb/β")),
             RefLine("turn_line", "x", b_star, _COLORS["grey"], "dot", 1.0)]
    data = {"batch": batch, "step_ms": step, "floor_ms": floor_ms, "compute_ms": comp,
            "compute_bound_batch": b_star, "accelerator": a.name, "model": m.name, "precision": precision}
    return FigureSpec("batch", [panel], series, lines, data=data)


# ───────────────────────────── (4) attention state by design ─────────────────────────────

def kv_design_spec(model=None, *, kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT,
                   gqa_kv_heads: int | None = None) -> FigureSpec:
    """Bytes of keys and values per token, and at ``context`` tokens, for MHA / GQA / MQA with the model's layers
    and head dimension; GQA with the model's own key-value heads where it is grouped, else ``gqa_kv_heads``."""
    _, m = _resolve(None, model)
    kvb = Q_(kv_bytes, "byte")
    gqa = m.kv_heads if m.attention_design == "GQA" or gqa_kv_heads is None else gqa_kv_heads
    designs = [("MHA", T("Multi-head", "多头"), m.heads), ("GQA", T("Grouped-query", "分组查询"), gqa),
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

