"""Draw a :class:`~.spec.FigureSpec` with matplotlib: the PDF's static figure, saved as deterministic SVG."""
from __future__ import annotations

import functools
import io
import os
import re
import warnings
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


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_LOG_LABEL = re.compile(r"\$\\mathdefault\{(-?)(?:([0-9.]+)\\times)?([0-9]+)\^\{(-?[0-9]+)\}\}\$")
_PLAIN_LABEL = re.compile(r"\$\\mathdefault\{(-?[0-9.e+]+)\}\$")


def log_tick_text(label: str) -> str:
    """A log axis's tick label as matplotlib writes it in mathtext (``$\\mathdefault{10^{-3}}$``,
    ``$\\mathdefault{2\\times10^{3}}$``, ``$\\mathdefault{0.5}$``) as plain text with Unicode superscripts
    (``10⁻³``, ``2×10³``, ``0.5``): the same label without a mathtext parse, which costs a log-log figure
    a third of its drawing time. Any other label is returned unchanged."""
    m = _LOG_LABEL.fullmatch(label)
    if m:
        sign, coeff, base, exp = m.groups()
        return f"{sign}{coeff + '×' if coeff else ''}{base}{exp.translate(_SUPERSCRIPT)}"
    m = _PLAIN_LABEL.fullmatch(label)
    return m.group(1) if m else label


@functools.cache
def _plain_log_formatter():
    from matplotlib.ticker import LogFormatterSciNotation

    class PlainLogFormatter(LogFormatterSciNotation):
        """matplotlib's log-axis formatter, its labels as :func:`log_tick_text` writes them."""

        def __call__(self, x, pos=None):
            return log_tick_text(super().__call__(x, pos))
    return PlainLogFormatter


def _plain_log_ticks(axis) -> None:
    """The log ``axis``'s major and minor tick labels as :func:`log_tick_text` writes them (matplotlib's
    own choice of which ticks to label: its default formatters for a log scale, base 10)."""
    formatter = _plain_log_formatter()
    axis.set_major_formatter(formatter(10))
    axis.set_minor_formatter(formatter(10, labelOnlyBase=False))


class FigureGlyphError(RuntimeError):
    """A figure's text would be drawn with a placeholder glyph (a box): a font is missing or unknown."""


#: the font families each language's labels must be set in (no fallback to another font allowed)
REQUIRED_FONTS = {"en": ("DejaVu Sans",), "zh": ("Noto Sans CJK SC", "DejaVu Sans")}
_GLYPH_WARNING = re.compile(r"missing from font|does not have a glyph|substituting with a dummy symbol")
_FONTS_CHECKED = False


def ensure_fonts(force: bool = False) -> list[str]:
    """Bring matplotlib's font list up to date with the fonts on disk, once per process.

    matplotlib keeps its list of fonts in ``<MPLCONFIGDIR>/fontlist-v*.json`` and never looks again: a list
    written before a font was installed (Noto Sans CJK from ``fonts-noto-cjk``) makes every Chinese label a
    row of boxes. Every font file the system's font search finds that the list lacks is added, and the
    list is written back, so later processes read the complete one. Returns the files added."""
    global _FONTS_CHECKED
    if _FONTS_CHECKED and not force:
        return []
    from matplotlib import font_manager as fm
    known = {os.path.realpath(e.fname) for e in fm.fontManager.ttflist + fm.fontManager.afmlist}
    added = []
    for f in sorted(fm.findSystemFonts(fontext="ttf")):
        if os.path.realpath(f) in known:
            continue
        try:
            fm.fontManager.addfont(f)
        except Exception:  # noqa: BLE001 - a font FreeType cannot read is not ours to draw with
            continue
        added.append(f)
    if added:
        import matplotlib
        try:
            fm.json_dump(fm.fontManager, Path(matplotlib.get_cachedir(), f"fontlist-v{fm.FontManager.__version__}.json"))
        except OSError:
            pass
    _FONTS_CHECKED = True
    return added


def resolved_fonts(lang: str) -> dict[str, str]:
    """The font file each required family of ``lang`` resolves to, with no fallback; raises
    :class:`FigureGlyphError` naming a family matplotlib does not have."""
    from matplotlib import font_manager as fm
    ensure_fonts()
    out = {}
    for family in REQUIRED_FONTS.get(lang, REQUIRED_FONTS["en"]):
        try:
            out[family] = fm.fontManager.findfont(fm.FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            raise FigureGlyphError(
                f"the {lang} figures need the font {family!r}, which matplotlib does not find"
                + (" (install it: apt-get install fonts-noto-cjk)" if "CJK" in family else "")) from None
    return out


def font_identity(lang: str) -> str:
    """What a drawing in ``lang`` depends on besides its description: matplotlib's version and every font
    file its labels resolve to (path, size, modification time), for the figure cache's key."""
    import matplotlib
    parts = [f"matplotlib {matplotlib.__version__}"]
    for family, path in sorted(resolved_fonts(lang).items()):
        try:
            st = os.stat(path)
            parts.append(f"{family}={path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{family}={path}:missing")
    return "|".join(parts)


class _GlyphGuard:
    """Turn matplotlib's missing-glyph warnings into :class:`FigureGlyphError` for one figure."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self._seen = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        bad = []
        for w in self._seen:
            msg = str(w.message)
            if _GLYPH_WARNING.search(msg):
                if msg not in bad:
                    bad.append(msg)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if bad and exc[0] is None:
            raise FigureGlyphError(f"{self.what}: {bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
                                   + ": matplotlib fell back to a placeholder glyph")
        return False


def to_matplotlib(spec: FigureSpec, lang: str = "en"):
    """``spec`` as a matplotlib figure in ``lang`` (the PDF's static figure). A label with a character
    its fonts lack raises :class:`FigureGlyphError` instead of drawing a box."""
    _pick(T("", ""), lang)
    import matplotlib
    plt = _plt()
    rc = _rc(lang)
    resolved_fonts(lang)
    with matplotlib.rc_context(rc), _GlyphGuard(f"figure {spec.key} ({lang})"):
        fig = _draw_matplotlib(plt, spec, lang)
    fig._mlsysim_rc = rc  # the same fonts when the figure is saved (mathtext is laid out at draw time)
    fig._mlsysim_what = f"figure {spec.key} ({lang})"
    return fig


def _draw_matplotlib(plt, spec: FigureSpec, lang: str):
    fig, axes = plt.subplots(1, len(spec.panels), figsize=spec.size)
    axes = list(np.atleast_1d(axes))
    for i, (ax, p) in enumerate(zip(axes, spec.panels)):
        if p.x.log:
            ax.set_xscale("log")
            _plain_log_ticks(ax.xaxis)
        if p.y.log:
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
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
    fig.tight_layout()
    outside = False
    for ax, p in zip(axes, spec.panels):
        if p.legend:
            outside = _place_legend(fig, ax, p.legend) or outside
    if outside:
        fig.tight_layout()
    return fig


_CORNERS = ("upper left", "upper right", "lower left", "lower right")


def _place_legend(fig, ax, corner: str) -> bool:
    """The panel's legend in its preferred corner if it covers no data there, else in the first other
    corner that is clear, else below the axes. Returns True when it went below (outside the axes)."""
    handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return False
    renderer = fig.canvas.get_renderer()
    for loc in (corner,) + tuple(c for c in _CORNERS if c != corner):
        leg = ax.legend(loc=loc, fontsize=8, frameon=False)
        if legend_overlap(ax, leg, renderer) is None:
            return False
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=min(2, len(handles)), fontsize=8, frameon=False)
    return True


def legend_overlap(ax, leg, renderer=None) -> str | None:
    """What of the panel's data the legend box covers (a line, a marker, a bar, a note), or None. Lines are
    followed in display coordinates every 2 px; shaded bands behind the data do not count."""
    renderer = renderer or ax.figure.canvas.get_renderer()
    box = leg.get_window_extent(renderer).padded(-1)
    x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1

    def inside(pts) -> bool:
        return bool(np.any((pts[:, 0] > x0) & (pts[:, 0] < x1) & (pts[:, 1] > y0) & (pts[:, 1] < y1)))
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if not len(xy):
            continue
        if line.get_linestyle() in ("None", "none", "", " "):
            r = line.get_markersize() / 2 * ax.figure.dpi / 72
            grown = leg.get_window_extent(renderer).padded(r)
            if np.any((xy[:, 0] > grown.x0) & (xy[:, 0] < grown.x1) & (xy[:, 1] > grown.y0) & (xy[:, 1] < grown.y1)):
                return f"the markers of {line.get_label() or line.get_gid()}"
            continue
        pts = [xy[:1]]
        for a, b in zip(xy[:-1], xy[1:]):
            n = max(1, int(np.hypot(*(b - a)) // 2))
            pts.append(a + (b - a) * (np.arange(1, n + 1)[:, None] / n))
        if inside(np.vstack(pts)):
            return f"the line {line.get_label() if not str(line.get_label()).startswith('_') else line.get_gid()}"
    for patch in ax.patches:
        if str(patch.get_gid() or "").startswith("band-") or not patch.get_visible():
            continue
        bb = patch.get_window_extent(renderer)
        if bb.x1 > x0 and bb.x0 < x1 and bb.y1 > y0 and bb.y0 < y1:
            return "a bar"
    for t in ax.texts:
        bb = t.get_window_extent(renderer)
        if bb.width and bb.x1 > x0 and bb.x0 < x1 and bb.y1 > y0 and bb.y0 < y1:
            return f"the note “{t.get_text()}”"
    return None


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
    what = getattr(fig, "_mlsysim_what", "figure")
    with matplotlib.rc_context(rc), _GlyphGuard(what):
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    data = standalone_svg(buf.getvalue())
    bad = placeholder_glyphs(data)
    if bad:
        raise FigureGlyphError(f"{what}: {bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
    return data


_DOCTYPE = re.compile(rb"<!DOCTYPE[^>]*>\s*")
_ID = re.compile(rb'(<[A-Za-z][^<>]*?\sid=")([^"]+)(")')
_EMPTY_PATH = re.compile(rb'<path((?:(?!\sd=)[^<>])*?)\s*/>')


def standalone_svg(data: bytes) -> bytes:
    """matplotlib's SVG made a valid SVG document on its own, as EPUB 3 requires of an image (epubcheck): no
    DOCTYPE naming an external DTD, every ``id`` once (the bars of one series share the series' gid; the
    second and later get ``-2``, ``-3``, …), and a ``d`` on every path (a glyph with no outline, the space)."""
    data = _DOCTYPE.sub(b"", data)
    seen: dict[bytes, int] = {}

    def one(m: re.Match) -> bytes:
        n = seen.get(m.group(2), 0) + 1
        seen[m.group(2)] = n
        return m.group(0) if n == 1 else m.group(1) + m.group(2) + b"-%d" % n + m.group(3)
    data = _ID.sub(one, data)
    return _EMPTY_PATH.sub(lambda m: b'<path' + m.group(1) + b' d=""/>', data)


_GLYPH_DEF = re.compile(rb'<path id="([^"]+)-([0-9a-f]+)"')
_TEXT_GROUP = re.compile(rb'<g id="(text_\d+)">\s*<!-- (.*?) -->(.*?)(?=<g id="text_\d+">|</svg>)', re.S)
_USE = re.compile(rb'xlink:href="#([^"]+)-([0-9a-f]+)"')
_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")


def placeholder_glyphs(svg: bytes | str) -> list[str]:
    """Placeholder glyphs in a matplotlib SVG drawn with ``svg.fonttype = path`` (glyphs as ``<path
    id="<font>-<glyph index>">``): glyphs of matplotlib's last-resort font (its tofu boxes), glyph 0 of any
    font (``.notdef``), and labels whose CJK characters are fewer than the CJK-font glyphs drawing them
    (mathtext's dummy symbol). Returns one sentence per problem, naming the label."""
    data = svg.encode("utf-8") if isinstance(svg, str) else svg
    out = []
    bad_fonts = set()
    for ps, gid in _GLYPH_DEF.findall(data):
        name = ps.decode("utf-8", "replace")
        if name.lower().startswith("lastresort") or int(gid, 16) == 0:
            bad_fonts.add((name, int(gid, 16)))
    for gid_, comment, body in _TEXT_GROUP.findall(data):
        text = comment.decode("utf-8", "replace")
        uses = _USE.findall(body)
        boxes = [u for u in uses if (u[0].decode("utf-8", "replace"), int(u[1], 16)) in bad_fonts]
        cjk_needed = len(_CJK.findall(text))
        cjk_drawn = sum(1 for ps, _ in uses if b"CJK" in ps)
        if boxes:
            out.append(f"label “{text}” is drawn with {len(boxes)} placeholder glyph(s) "
                       f"({boxes[0][0].decode('utf-8', 'replace')})")
        elif cjk_needed > cjk_drawn:
            out.append(f"label “{text}” has {cjk_needed} CJK characters but only {cjk_drawn} CJK-font glyphs")
    if bad_fonts and not out:
        out.append("placeholder glyphs: " + ", ".join(f"{n}-{g:x}" for n, g in sorted(bad_fonts)[:3]))
    return out


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

