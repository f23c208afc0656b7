"""The appendix's figures, drawn from the physics functions (never from re-typed formulas).

Each ``*_figure`` function returns ``(fig, data)``: a matplotlib figure and a dict of the plotted
arrays and markers, so a test can compare a plotted point with the physics function's value.
Labels are language-neutral (the book's symbols and SI units), so one SVG serves both books;
captions live in the chapters. :func:`save_svg` writes byte-identical SVG for identical input.

Defaults are the appendix's reference configuration (``ServingRef``): Llama-3-70B on H100 with
8-bit weights, 16-bit keys and values, a 32,768-token agent context.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from .physics import (attainable_performance, attention_crossover_length, batched_step_time, compute_bound_batch,
                      decode_intensity, decode_time_per_token, kingman_wait, kv_bytes_at, kv_bytes_per_token,
                      prefill_time, prefill_time_per_token, ridge_point)
from .units import PRECISION_BYTES, Q_

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
           "total": "#1f4e79"}


def _plt():
    import matplotlib
    matplotlib.rcParams["svg.hashsalt"] = SVG_SALT
    import matplotlib.pyplot as plt
    return plt


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


def _style(ax):
    ax.grid(True, which="major", color="#dddddd", linewidth=0.6)
    ax.grid(True, which="minor", color="#f0f0f0", linewidth=0.4)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _tokens(x) -> str:
    return f"{x:,.0f}"


# ───────────────────────────── (1) roofline ─────────────────────────────

def roofline_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                    prompt_tokens: int = REFERENCE_CONTEXT, points: int = 120):
    """Attainable FLOP/s against arithmetic intensity (log-log), with decode at B = 1, decode at the
    compute-bound batch B* (which sits on the ridge), and a prefill of ``prompt_tokens`` tokens."""
    a, m = _resolve(accel, model)
    peak, bw = a.compute.peak(precision), a.memory.bandwidth
    b = PRECISION_BYTES[precision]
    ridge = ridge_point(peak, bw).magnitude
    i_dec = decode_intensity(b).magnitude
    b_star = compute_bound_batch(peak, bw, b)
    i_pre = (prompt_tokens * decode_intensity(b)).magnitude  # 2S/b: S tokens share one read of the weights
    lo = 10 ** np.floor(np.log10(min(i_dec, ridge) / 3))
    hi = 10 ** np.ceil(np.log10(max(i_pre, ridge) * 3))
    x = np.logspace(np.log10(lo), np.log10(hi), points)
    y = np.array([attainable_performance(Q_(v, "flop/byte"), peak, bw).to("flop/second").magnitude for v in x])

    def perf(i):
        return attainable_performance(Q_(i, "flop/byte"), peak, bw).to("flop/second").magnitude

    marks = {"decode_b1": (i_dec, perf(i_dec)), "ridge": (ridge, perf(ridge)),
             "decode_bstar": ((b_star * decode_intensity(b)).magnitude, perf((b_star * decode_intensity(b)).magnitude)),
             "prefill": (i_pre, perf(i_pre))}
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.loglog(x, y, color=_COLORS["roof"], linewidth=2, label=r"$P=\min(\pi,\ \mathcal{I}\beta)$")
    ax.axvline(ridge, color=_COLORS["grey"], linestyle=":", linewidth=1)
    ax.plot(*marks["decode_b1"], "o", color=_COLORS["mem"], markersize=7,
            label=rf"$2/b$  ($B=1$): {marks['decode_b1'][0]:.0f} FLOP/byte")
    ax.plot(*marks["decode_bstar"], "s", color=_COLORS["mark"], markersize=8, fillstyle="none", markeredgewidth=2,
            label=rf"$\mathcal{{I}}^*=\pi/\beta$  ($B=B^*$): {ridge:,.0f} FLOP/byte")
    ax.plot(*marks["prefill"], "^", color=_COLORS["comp"], markersize=8,
            label=rf"$2S/b$  ($S$ = {_tokens(prompt_tokens)})")
    ax.set_xlabel(r"$\mathcal{I}$ (FLOP/byte)")
    ax.set_ylabel(r"$P$ (FLOP/s)")
    ax.set_xlim(lo, hi)
    _style(ax)
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    fig.tight_layout()
    data = {"intensity": x, "attainable": y, "ridge_x": ridge, "peak": peak.to("flop/second").magnitude,
            "bandwidth": bw.to("byte/second").magnitude, "compute_bound_batch": b_star, "markers": marks,
            "accelerator": a.name, "model": m.name, "precision": precision, "prompt_tokens": prompt_tokens}
    return fig, data


# ───────────────────────────── (2) prefill vs prompt length ─────────────────────────────

def prefill_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120):
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
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.loglog(s, total, color=_COLORS["total"], linewidth=2, label=r"$T_{\mathrm{prefill}}(S)=(2NS+2LdS^2)/\pi$")
    ax.loglog(s, weight, color=_COLORS["mem"], linestyle="--", label=r"$2NS/\pi$")
    ax.loglog(s, attention, color=_COLORS["comp"], linestyle="--", label=r"$2LdS^2/\pi$")
    ax.axvline(s_star, color=_COLORS["grey"], linestyle=":", linewidth=1)
    ax.plot([s_star], [t_star / 2], "o", color=_COLORS["mark"], markersize=7,
            label=rf"$S^*=N/(Ld)$ = {s_star:,.0f}")
    ax.set_xlabel(r"$S$ (tokens)")
    ax.set_ylabel(r"$T_{\mathrm{prefill}}$ (s)")
    _style(ax)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    data = {"seq_len": s, "total_s": total, "weight_s": weight, "attention_s": attention,
            "crossover_x": s_star, "crossover_y": t_star / 2, "accelerator": a.name, "model": m.name,
            "precision": precision}
    return fig, data


# ───────────────────────────── (3) step time vs batch ─────────────────────────────

def batch_figure(accel=None, model=None, precision: str = REFERENCE_PRECISION, *, points: int = 120):
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
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.loglog(batch, step, color=_COLORS["total"], linewidth=2, label=r"$t_{\mathrm{step}}(B)$")
    ax.axhline(floor_ms, color=_COLORS["mem"], linestyle="--", linewidth=1, label=r"$Nb/\beta$")
    ax.loglog(batch, comp, color=_COLORS["comp"], linestyle="--", linewidth=1, label=r"$2NB/\pi$")
    ax.axvline(b_star, color=_COLORS["grey"], linestyle=":", linewidth=1)
    ax.plot([b_star], [floor_ms], "o", color=_COLORS["mark"], markersize=7,
            label=rf"$B^*=\pi b/2\beta$ = {b_star:,.0f}")
    ax.set_xlabel(r"$B$")
    ax.set_ylabel(r"$t_{\mathrm{step}}$ (ms)")
    ax.set_ylim(floor_ms / 3, step.max() * 2)
    _style(ax)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    data = {"batch": batch, "step_ms": step, "floor_ms": floor_ms, "compute_ms": comp,
            "compute_bound_batch": b_star, "accelerator": a.name, "model": m.name, "precision": precision}
    return fig, data


# ───────────────────────────── (4) attention state by design ─────────────────────────────

def kv_design_figure(model=None, *, kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT):
    """Bytes of keys and values per token, and at ``context`` tokens, for MHA / GQA / MQA."""
    _, m = _resolve(None, model)
    kvb = Q_(kv_bytes, "byte")
    designs = [("MHA", m.heads), ("GQA", m.kv_heads), ("MQA", 1)]
    labels = [f"{name}\n$H_{{kv}}$ = {h}" for name, h in designs]
    per_token = np.array([kv_bytes_per_token(m, kvb, kv_heads=h).to("byte").magnitude for _, h in designs])
    at_ctx = np.array([kv_bytes_at(context, Q_(v, "byte")).to("GB").magnitude for v in per_token])
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(6.4, 3.4))
    colors = [_COLORS["comp"], _COLORS["roof"], _COLORS["mem"]]
    for ax, vals, ylabel, text in ((ax1, per_token / 1e3, r"$m_{\mathrm{token}}$ (kB)", "{:,.1f}"),
                                   (ax2, at_ctx, rf"$M_{{KV}}$ at $S$ = {_tokens(context)} (GB)", "{:,.2f}")):
        bars = ax.bar(range(3), vals, color=colors, width=0.6)
        ax.set_xticks(range(3), labels, fontsize=8)
        ax.set_ylabel(ylabel)
        ax.set_yscale("log")
        for rect, v in zip(bars, vals):
            ax.annotate(text.format(v), (rect.get_x() + rect.get_width() / 2, v), ha="center", va="bottom",
                        fontsize=8, xytext=(0, 2), textcoords="offset points")
        ax.set_ylim(vals.min() / 3, vals.max() * 4)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    fig.tight_layout()
    data = {"designs": [d for d, _ in designs], "kv_heads": [h for _, h in designs],
            "bytes_per_token": per_token, "gb_at_context": at_ctx, "context": context, "model": m.name}
    return fig, data


# ───────────────────────────── (5) queueing knee ─────────────────────────────

def queueing_figure(ca2: float = KNEE_CA2, cs2: float = KNEE_CS2, *, marks=KNEE_MARKS, rho_max: float = 0.95,
                    points: int = 120):
    """Kingman's mean wait W_q/E[S] against utilization ρ, with the appendix's three utilizations marked."""
    rho = np.linspace(0, rho_max, points)
    wait = np.array([kingman_wait(ca2, cs2, r) for r in rho])
    mark_w = [kingman_wait(ca2, cs2, r) for r in marks]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.plot(rho, wait, color=_COLORS["total"], linewidth=2,
            label=rf"$W_q/\mathbb{{E}}[S]$, $c_a^2$ = {ca2:g}, $c_s^2$ = {cs2:g}")
    ax.plot(marks, mark_w, "o", color=_COLORS["mark"], markersize=7)
    for r, w in zip(marks, mark_w):
        ax.annotate(f"{w:.1f}", (r, w), xytext=(-6, 6), textcoords="offset points", ha="right", fontsize=8)
    ax.set_xlabel(r"$\rho$")
    ax.set_ylabel(r"$W_q/\mathbb{E}[S]$")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, wait.max() * 1.05)
    _style(ax)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    fig.tight_layout()
    data = {"rho": rho, "wait": wait, "marks_rho": list(marks), "marks_wait": mark_w, "ca2": ca2, "cs2": cs2}
    return fig, data


# ───────────────────────────── output ─────────────────────────────

def svg_bytes(fig) -> bytes:
    """The figure as SVG, identical bytes for identical input (fixed hash salt, no date)."""
    import matplotlib
    with matplotlib.rc_context({"svg.hashsalt": SVG_SALT, "svg.fonttype": "path"}):
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buf.getvalue()


def save_svg(fig, path, *, close: bool = True) -> Path:
    """Write ``fig`` to ``path`` as deterministic SVG (only if the bytes changed) and close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = svg_bytes(fig)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    if close:
        _plt().close(fig)
    return path


#: the appendix's figures: file stem -> builder (file names the chapters reference)
APPENDIX_FIGURES = ("roofline", "prefill", "batch", "kv-designs", "queueing-knee")


def write_appendix_figures(out_dir, accel=None, model=None, precision: str = REFERENCE_PRECISION, *,
                           kv_bytes: float = REFERENCE_KV_BYTES, context: int = REFERENCE_CONTEXT,
                           ca2: float = KNEE_CA2, cs2: float = KNEE_CS2) -> dict:
    """Draw the five appendix figures and write ``out_dir/<name>.svg``; returns name -> (path, data).

    Both books include the same figure cell; within one process (one build of both profiles) the
    second call with the same inputs reuses the first one's drawing when the files are still there.
    """
    key = (str(Path(out_dir).resolve()), getattr(accel, "name", accel), getattr(model, "name", model), precision,
           kv_bytes, context, ca2, cs2)
    done = _DRAWN.get(key)
    if done is not None and all(path.exists() for path, _ in done.values()):
        return done
    builders = {
        "roofline": lambda: roofline_figure(accel, model, precision, prompt_tokens=context),
        "prefill": lambda: prefill_figure(accel, model, precision),
        "batch": lambda: batch_figure(accel, model, precision),
        "kv-designs": lambda: kv_design_figure(model, kv_bytes=kv_bytes, context=context),
        "queueing-knee": lambda: queueing_figure(ca2, cs2),
    }
    out = {}
    for name in APPENDIX_FIGURES:
        fig, data = builders[name]()
        out[name] = (save_svg(fig, Path(out_dir) / f"{name}.svg"), data)
    _DRAWN[key] = out
    return out


_DRAWN: dict = {}


__all__ = ["roofline_figure", "prefill_figure", "batch_figure", "kv_design_figure", "queueing_figure",
           "svg_bytes", "save_svg", "write_appendix_figures", "APPENDIX_FIGURES"]



# ───────────────────────────── Lecture 19: agent stalls ─────────────────────────────
def _lec19_seconds(x) -> float:
    """A duration as a float in seconds (a pint quantity or a bare number of seconds)."""
    return float(x.to("second").magnitude) if hasattr(x, "to") else float(x)


def policy_map_figure(t_swap, t_star, rows, stall=None, *, figsize=(7.5, 4.2)):
    """The keep/swap/discard policy map of Lecture 19 (@fig-lec19-policy-map).

    Stall duration on a log axis; the keep-versus-swap break-even ``t_swap`` and the keep-versus-discard
    break-even ``t_star`` as vertical lines; each interception type in ``rows`` — ``(label, lo, hi)``,
    ``hi`` may be infinite — as a horizontal band. ``stall`` marks the standing session's stall.
    Durations are quantities (or floats in seconds). Returns a matplotlib Figure.
    """
    import math

    plt = _plt()

    a, b = _lec19_seconds(t_swap), _lec19_seconds(t_star)
    spans = [(lab, _lec19_seconds(lo), _lec19_seconds(hi)) for lab, lo, hi in rows]
    finite = [h for _, _, h in spans if math.isfinite(h)] + [b]
    x_min = min(lo for _, lo, _ in spans) / 3
    x_max = max(finite) * 30
    fig, ax = plt.subplots(figsize=figsize)
    ax.axvspan(x_min, a, color="#dbe9f6", zorder=0)
    ax.axvspan(a, b, color="#e5f5e0", zorder=0)
    ax.axvspan(b, x_max, color="#fde0dd", zorder=0)
    for i, (lab, lo, hi) in enumerate(spans):
        y = len(spans) - 1 - i
        right = hi if math.isfinite(hi) else x_max
        ax.barh(y, right - lo, left=lo, height=0.55, color="#525252", alpha=0.85, zorder=3)
        if not math.isfinite(hi):
            ax.annotate("", xy=(x_max, y), xytext=(x_max / 3, y),
                        arrowprops=dict(arrowstyle="->", color="#525252"))
    ax.axvline(a, color="#08519c", lw=2)
    ax.axvline(b, color="#a50f15", lw=2)
    ax.text(a, len(spans) - 0.35, " keep | swap", color="#08519c", va="bottom", ha="center", fontsize=9)
    ax.text(b, len(spans) - 0.35, " swap | discard", color="#a50f15", va="bottom", ha="center", fontsize=9)
    if stall is not None:
        s = _lec19_seconds(stall)
        ax.axvline(s, color="black", ls="--", lw=1)
        ax.text(s, -0.9, "standing stall", ha="center", va="top", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(-1.2, len(spans) + 0.2)
    ax.set_yticks(range(len(spans)))
    ax.set_yticklabels([lab for lab, _, _ in reversed(spans)])
    ax.set_xlabel("stall duration (s, log scale)")
    _style(ax)
    fig.tight_layout()
    return fig


def overcommit_figure(resident, link_bandwidth, bytes_per_task, durations, crossover=None, *,
                      marks=(), figsize=(7.0, 4.0)):
    """Tasks per second against session duration (@fig-lec19-overcommit).

    Resident-only admission gives B / T (``resident`` sessions, duration T); swap-bound overcommit gives
    β_PCIe / bytes-per-task, flat in T. ``durations`` is a (start, stop) pair; ``crossover`` marks where
    the two meet; ``marks`` is a sequence of (label, duration) points to annotate (e.g. Config C).
    Quantities or floats (seconds, bytes/s, bytes). Returns a matplotlib Figure.
    """
    plt = _plt()

    bw = float(link_bandwidth.to("byte/second").magnitude) if hasattr(link_bandwidth, "to") else float(link_bandwidth)
    per = float(bytes_per_task.to("byte").magnitude) if hasattr(bytes_per_task, "to") else float(bytes_per_task)
    lo, hi = (_lec19_seconds(d) for d in durations)
    t = np.linspace(lo, hi, 400)
    x_res = resident / t
    x_swap = np.full_like(t, bw / per)
    fig, ax = plt.subplots(figsize=figsize)
    ax.plot(t, x_res, color="#525252", lw=2, label="resident-only admission, B / T")
    ax.plot(t, x_swap, color="#08519c", lw=2, label="swap-bound overcommit, β / 2nK")
    ax.fill_between(t, x_res, x_swap, where=x_swap > x_res, color="#c6dbef", alpha=0.6,
                    label="overcommit pays")
    if crossover is not None:
        c = _lec19_seconds(crossover)
        ax.axvline(c, color="#a50f15", ls="--", lw=1.5)
        ax.annotate("crossover", xy=(c, bw / per), xytext=(c * 1.05, bw / per * 1.35),
                    arrowprops=dict(arrowstyle="->", color="#a50f15"), color="#a50f15", fontsize=9)
    for label, d in marks:
        x = _lec19_seconds(d)
        ax.plot([x], [resident / x], "o", color="black")
        ax.annotate(label, xy=(x, resident / x), xytext=(6, 6), textcoords="offset points", fontsize=9)
    ax.set_xlabel("session duration T (s)")
    ax.set_ylabel("tasks per second per card")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, float(max(x_res.max(), x_swap.max())) * 1.1)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    _style(ax)
    fig.tight_layout()
    return fig


__all__ += ["policy_map_figure", "overcommit_figure"]


# ───────────────────────────── measurements against floors ─────────────────────────────

#: marker per metric: per-token latency, request latency, time to first token, throughput
_CAL_MARKERS = {"itl": "o", "request_latency": "s", "ttft": "^", "output_throughput": "D"}
_CAL_LABELS = {"itl": r"$t_{\mathrm{decode}}/t_{\mathrm{ITL}}$", "request_latency": r"$T/T_{\mathrm{request}}$",
               "ttft": r"$T_{\mathrm{prefill}}/t_{\mathrm{TTFT}}$", "output_throughput": r"$X/X_{\max}$"}
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
    """Achieved fraction of the floor against streams per pass (log axis), one marker per metric and one
    color per accelerator; maximum-load runs with no stated limit sit at the right edge, marked ∞."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    color = {a: _CAL_COLORS[i % len(_CAL_COLORS)] for i, a in enumerate(data["accelerators"])}
    for p in data["points"]:
        x = p["streams"] if p["streams"] is not None else data["unbounded_x"]
        c = color[p["accelerator"]]
        ax.plot([x], [p["achieved"]], _CAL_MARKERS[p["metric"]], color=c, markersize=7,
                markerfacecolor=c if p["highlight"] or data["highlight"] is None else "none", markeredgewidth=1.4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(min(p["achieved"] for p in data["points"]) / 2, 1.5)
    ax.axhline(1, color=_COLORS["grey"], linestyle=":", linewidth=1)
    ticks = [t for t in (1, 10, 100, 1000) if t < data["unbounded_x"]] + [data["unbounded_x"]]
    ax.set_xticks(ticks, [f"{t:,.0f}" for t in ticks[:-1]] + [r"$\infty$"])
    ax.set_xlabel(r"$B$")
    ax.set_ylabel(r"$\eta$")
    metric_handles = [ax.plot([], [], _CAL_MARKERS[k], color="#424242", label=v)[0] for k, v in _CAL_LABELS.items()
                      if any(p["metric"] == k for p in data["points"])]
    accel_handles = [ax.plot([], [], "s", color=color[a], label=a)[0] for a in data["accelerators"]]
    _style(ax)
    leg = ax.legend(handles=metric_handles, loc="lower left", fontsize=8, frameon=False)
    ax.add_artist(leg)
    ax.legend(handles=accel_handles, loc="upper right", fontsize=8, frameon=False, ncol=len(accel_handles))
    fig.tight_layout()
    return fig, data


def write_calibration_figure(out_dir, highlight: str | None = None, measurements=None):
    """Draw the calibration figure and write ``out_dir/calibration.svg``; returns (path, data)."""
    fig, data = calibration_figure(calibration_data(highlight, measurements))
    return save_svg(fig, Path(out_dir) / "calibration.svg"), data


__all__ += ["calibration_data", "calibration_figure", "write_calibration_figure"]
