"""Lecture 19's figures: the keep/swap/discard policy map and the overcommit figure."""
from __future__ import annotations

import math

import numpy as np

from .spec import _COLORS, U, Axis, Band, FigureSpec, Note, Panel, RefLine, Series, T, _f

def _seconds(x) -> float:
    """A duration as a float in seconds (a pint quantity or a bare number of seconds)."""
    return float(x.to("second").magnitude) if hasattr(x, "to") else float(x)


#: the lecture's interception types in Chinese (a row label not listed here stays as given)
ROW_LABELS_ZH = {"in-process": "进程内", "file read": "读取本地文件", "index lookup": "索引查询", "warm sandbox": "热沙箱",
                 "cold sandbox": "冷沙箱", "web/API": "网页/API", "sub-agent": "子智能体", "human turn": "人工答复"}


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
    panel = Panel(Axis(T("Stall duration (s, log scale)", "停顿时长（s，对数坐标）"), T("Stall", "停顿"), U["s"],
                       log=True, range=(x_min, x_max), hoverformat=".3~g"),
                  Axis(T("", ""), T("Interception", "拦截类型"), U["none"], categories=cats, range=(-1.2, n + 0.2)),
                  legend=None)
    series = [Series("rows", "hbar", rights, ys, T("Stall range", "停顿范围"), _COLORS["dark"],
                     labels=[lab2(lab) for lab, _, _ in spans], base=lefts)]
    bands = [Band("keep", x_min, a, _COLORS["band_keep"]), Band("swap", a, b, _COLORS["band_swap"]),
             Band("discard", b, x_max, _COLORS["band_discard"])]
    lines = [RefLine("t_swap", "x", a, _COLORS["keep"], "solid", 2.0, T("keep | swap break-even", "保留与换出的盈亏平衡点")),
             RefLine("t_star", "x", b, _COLORS["discard"], "solid", 2.0,
                     T("keep | discard break-even", "保留与丢弃的盈亏平衡点"))]
    notes = [Note("keep_swap", a, n - 0.35, T("keep | swap", "保留 | 换出"), _COLORS["keep"], dy=4),
             Note("swap_discard", b, n - 0.35, T("swap | discard", "换出 | 丢弃"), _COLORS["discard"], dy=4)]
    for (lab, lo, hi), y in zip(spans, ys):
        if not math.isfinite(hi):
            notes.append(Note(f"open_{y}", x_max, y, T("", ""), _COLORS["dark"], arrow_from=(x_max / 3, y)))
    if stall is not None:
        s = _seconds(stall)
        lines.append(RefLine("stall", "x", s, _COLORS["black"], "dash", 1.0, T("standing stall", "示例会话的停顿")))
        notes.append(Note("stall_note", s, -0.9, T("standing stall", "示例会话的停顿"), _COLORS["black"], dy=-4))
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
    panel = Panel(Axis(T("Session duration T (s)", "会话时长 T（s）"), T("T", "T"), U["s"], range=(lo, hi),
                       hoverformat=",.1f"),
                  Axis(T("Tasks per second per card", "每卡每秒任务数"), T("X", "X"), U["tps"], range=(0.0, top),
                       hoverformat=".3f"),
                  legend="upper right")
    series = [
        Series("resident", "line", _f(t), _f(x_res), T("Resident-only admission, B / T", "仅驻留准入，B / T"),
               _COLORS["dark"], width=2.0),
        Series("swap", "line", _f(t), _f(x_swap), T("Swap-bound overcommit, β / 2nK", "受换出限制的超额分配，β / 2nK"),
               _COLORS["keep"], width=2.0, fill_to="resident", fill_name=T("Overcommit pays", "超额分配划算"),
               fill_color=_COLORS["fill"]),
    ]
    notes, lines = [], []
    if crossover is not None:
        c = _seconds(crossover)
        lines.append(RefLine("crossover", "x", c, _COLORS["discard"], "dash", 1.5))
        notes.append(Note("crossover_note", c * 1.05, bw / per * 1.35, T("crossover", "交叉点"), _COLORS["discard"],
                          anchor="left", arrow_from=None))
    if marks:
        labs = [lab if isinstance(lab, dict) else T(lab, {"standing session": "示例会话"}.get(lab, lab))
                for lab, _ in marks]
        xs = [_seconds(d) for _, d in marks]
        series.append(Series("marks", "markers", xs, [resident / x for x in xs], None, _COLORS["black"], size=7,
                             labels=labs, text=labs))
    data = {"duration_s": t, "resident": x_res, "swap": x_swap,
            "crossover": None if crossover is None else _seconds(crossover)}
    return FigureSpec("lec19-overcommit", [panel], series, lines, notes=notes, size=(7.0, 4.0), data=data)

