"""Draw a :class:`~.spec.FigureSpec` with matplotlib: the PDF's static figure, saved as deterministic SVG."""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from .spec import FigureSpec, T, _pick

#: salt for matplotlib's SVG ids, so the same figure gives the same bytes on every run
SVG_SALT = "mlsysim"
_MPL_DASH = {"solid": "-", "dash": "--", "dot": ":"}
_MPL_MARK = {"circle": "o", "square": "s", "triangle-up": "^", "diamond": "D"}

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
    path.parent.mkdir(parents=True, exist_ok=True)
    data = svg_bytes(fig)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    if close:
        _plt().close(fig)
    return path

