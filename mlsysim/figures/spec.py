"""What a figure shows, described once: axes, series, reference lines, bands and notes, every label in
both book languages. The renderers (:mod:`.plotly_figure`, :mod:`.matplotlib_figure`) draw a
:class:`FigureSpec`; the catalog (:mod:`.catalog`, :mod:`.lecture`, :mod:`.calibration`) builds one per
figure from the physics functions."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

LANGS = ("en", "zh")

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
    """One pair of axes. ``legend``: the corner the static (PDF) figure prefers for its legend, or None for
    no legend; the drawing moves it to another corner, or below the axes, where it would cover data.
    ``legend_web``: where the HTML figure puts its legend: ``"below"`` the plot area (clear of the data
    at every page width, the default) or ``"corner"`` (inside, at ``legend``)."""
    x: Axis
    y: Axis
    legend: str | None = "lower right"  # legend corner, or None
    legend_web: str = "below"


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
    "fpb": T("FLOP/byte", "FLOP/字节"), "fps": T("FLOP/s", "FLOP/s"), "tokens": T("tokens", "词元"),
    "s": T("s", "s"), "ms": T("ms", "ms"), "kb": T("kB", "kB"), "gb": T("GB", "GB"), "none": T("", ""),
    "service": T("service times", "个服务时间"), "tps": T("tasks/s", "任务/秒"), "streams": T("streams", "条流"),
}

