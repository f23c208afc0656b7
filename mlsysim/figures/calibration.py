"""The calibration figure: published measurements against the floors under them."""
from __future__ import annotations

import numpy as np

from .spec import Axis, FigureSpec, Note, Panel, RefLine, Series, T

_CAL_COLORS = ("#1f4e79", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#757575", "#00838f")


def calibration_data(highlight: str | None = None, measurements=None) -> dict:
    """The plotted points of the calibration figure, with no drawing: for every measured value of the
    measurements registry, the streams per pass (concurrency, batch or stated limit; None for a
    maximum-load run with no stated limit), the achieved fraction, the metric and the accelerator.
    ``highlight`` names the accelerator drawn filled (the reader's choice); the others are hollow."""
    from ..measurements import MEASUREMENTS, calibrate
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


#: per metric: the symbol and the legend words
_CAL_SYMBOLS = {"itl": "circle", "request_latency": "square", "ttft": "triangle-up", "output_throughput": "diamond"}
_CAL_NAMES = {"itl": T("inter-token latency", "词元间延迟"), "request_latency": T("request latency", "请求延迟"),
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
        Axis(T("Concurrency or batch (c or B)", "并发数或批大小（c 或 B）"),
             T("streams", "流数"), T("", ""), log=True, range=(0.7, data["unbounded_x"] * 1.6)),
        Axis(T("Achieved fraction of the floor, η", "下限达成率 η"), T("η", "η"), T("", ""), log=True,
             range=(lo, 1.5), hoverformat=".3f"),
        legend="lower left")
    lines = [RefLine("cal-floor", "y", 1.0, name=T("the floor (η = 1)", "下限（η = 1）"))]
    notes = [Note("cal-unbounded", data["unbounded_x"], 1.15, T("∞: maximum load", "∞：满负载"), anchor="right")]
    return FigureSpec("calibration", [panel], series, lines=lines, notes=notes, size=(6.4, 4.2), data=data)

