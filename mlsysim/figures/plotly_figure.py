"""Draw a :class:`~.spec.FigureSpec` with plotly: the HTML book's interactive figure (hover shows each
point's values with units in the chosen language, legend entries toggle series, log axes stay log)."""
from __future__ import annotations

import html as _html
import json
import math

from .spec import DARK, Axis, FigureSpec, Series, T, _pick

_DASH = {"solid": "solid", "dash": "dash", "dot": "dot"}
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
        traces += _series_traces(spec, spec.series[rank], rank, lang)
    layout = _layout(spec, lang)
    layout["shapes"] = [_band_shape(bd) for bd in spec.bands] + [_line_shape(ln, lang) for ln in spec.lines]
    layout["annotations"] = [_note_annotation(spec, nt, lang) for nt in spec.notes]
    return {"data": traces, "layout": layout}


def _series_traces(spec: FigureSpec, s: Series, rank: int, lang: str) -> list[dict]:
    """The plotly traces of one series (a filled series adds two traces before its own)."""
    xr, yr = _ref("x", s.panel), _ref("y", s.panel)
    base = {"uid": s.key, "name": _pick(s.name, lang) if s.name else s.key, "xaxis": xr, "yaxis": yr,
            "legendrank": 1000 + rank,
            "showlegend": s.name is not None, "hovertemplate": _hover(spec, s, lang),
            "meta": {"key": s.key}}
    if s.labels:
        base["customdata"] = [_pick(v, lang) for v in s.labels]
    out = []
    if s.kind in ("line", "markers"):
        tr = _scatter(s, base, lang)
        if s.fill_to is not None:
            out += _fill_traces(spec, s, xr, yr, lang)
    elif s.kind == "bar":
        tr = dict(base, type="bar", x=list(s.x), y=list(s.y), marker={"color": s.color},
                  text=[_pick(v, lang) for v in s.text] if s.text else None, textposition="outside",
                  width=0.6)
    elif s.kind == "hbar":
        tr = _hbar(spec, s, base, lang)
    else:
        raise ValueError(f"figure {spec.key}: unknown series kind {s.kind!r}")
    return out + [tr]


def _scatter(s: Series, base: dict, lang: str) -> dict:
    tr = dict(base, type="scatter", x=list(s.x), y=list(s.y))
    if s.kind == "line":
        # invisible hover targets a little larger than the markers: plotly's hover prefers the
        # smaller radius at equal distance, so a marker on a line (the ridge) wins over the line
        tr.update(mode="lines+markers", line={"color": s.color, "dash": _DASH[s.dash], "width": s.width},
                  marker={"size": 12, "opacity": 0, "color": s.color})
        return tr
    mk = {"color": s.color, "size": s.size, "symbol": s.symbol + ("-open" if s.hollow else ""),
          "line": {"color": s.color, "width": 2 if s.hollow else 0}}
    tr.update(mode="markers+text" if s.text else "markers", marker=mk)
    if s.text:
        tr.update(text=[_pick(v, lang) for v in s.text], textposition="top left", textfont={"size": 11})
    return tr


def _fill_traces(spec: FigureSpec, s: Series, xr: str, yr: str, lang: str) -> list[dict]:
    """The shaded area between ``s`` and the series it fills to (where ``s`` is above)."""
    other = spec.series_by_key(s.fill_to)
    lower = [min(a, b) for a, b in zip(s.y, other.y)]
    return [{"type": "scatter", "uid": s.key + "_fill_base", "x": list(s.x), "y": lower,
             "xaxis": xr, "yaxis": yr, "mode": "lines", "line": {"width": 0},
             "showlegend": False, "hoverinfo": "skip", "legendgroup": s.key + "_fill",
             "meta": {"key": s.key + "_fill_base"}},
            {"type": "scatter", "uid": s.key + "_fill", "name": _pick(s.fill_name, lang),
             "x": list(s.x), "y": list(s.y), "xaxis": xr, "yaxis": yr, "mode": "lines",
             "line": {"width": 0}, "fill": "tonexty", "fillcolor": s.fill_color,
             "opacity": 0.6, "hoverinfo": "skip", "legendgroup": s.key + "_fill",
             "meta": {"key": s.key + "_fill"}}]


def _hbar(spec: FigureSpec, s: Series, base: dict, lang: str) -> dict:
    tr = dict(base, type="bar", orientation="h", y=list(s.y), x=list(s.x), base=list(s.base),
              marker={"color": s.color, "opacity": 0.85}, width=0.55)
    # plotly draws a horizontal bar from base to base + x: x is the length
    tr["x"] = [r - lft for r, lft in zip(s.x, s.base)]
    unit = _pick(spec.panels[s.panel].x.unit, lang)
    ends = [("∞" if not math.isfinite(h) else f"{h:.3g}") for _, _, h in spec.data.get("rows", [])] \
        or [f"{v:.3g}" for v in s.x]
    tr["customdata"] = [[_pick(lab, lang), f"{e} {unit}"] for lab, e in zip(s.labels, ends)]
    tr["hovertemplate"] = (f"<b>%{{customdata[0]}}</b><br>{_pick(spec.panels[s.panel].x.name, lang)}: "
                           f"%{{base:.3~g}} – %{{customdata[1]}}<extra></extra>")
    return tr


def _layout(spec: FigureSpec, lang: str) -> dict:
    """The figure's layout: size, fonts, one pair of axes per panel, the legend."""
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
        xa, ya = _axes(p, i, [i * (width + gap), i * (width + gap) + width], lang)
        layout[_axis_key("xaxis", i)] = xa
        layout[_axis_key("yaxis", i)] = ya
        # a figure that shows a legend places it itself (below the plot area unless the panel asks for its
        # corner), also where the static figure has none (``legend=None``): plotly's default, right of the
        # plot area, squeezes that area to its 64 px minimum in a phone's column and the legend then covers it
        if i == 0 and (p.legend or layout["showlegend"]):
            layout["legend"] = _legend(p)
    return layout


def _legend(p) -> dict:
    """The legend of the HTML figure: below the plot area, left-aligned and wrapping, so it never covers
    data at any page width (``legend_web="below"``); or in the panel's corner (``"corner"``)."""
    if p.legend_web == "corner" and p.legend:
        lx, ly, xan, yan = _LEGEND_XY[p.legend]
        return {"x": lx, "y": ly, "xanchor": xan, "yanchor": yan, "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11}}
    return {"orientation": "h", "x": 0, "xanchor": "left", "xref": "container",
            "y": 0, "yanchor": "bottom", "yref": "container", "bgcolor": "rgba(0,0,0,0)", "font": {"size": 11},
            "entrywidthmode": "pixels", "itemsizing": "constant"}


def _axes(p, i: int, domain: list, lang: str) -> tuple[dict, dict]:
    xa = {"title": {"text": _pick(p.x.title, lang)}, "type": "log" if p.x.log else "linear",
          "gridcolor": "#dddddd", "zeroline": False, "showline": True, "linecolor": "#888888",
          "domain": domain, "anchor": _ref("y", i), "automargin": True}
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
    return xa, ya


def _band_shape(bd) -> dict:
    return {"type": "rect", "xref": _ref("x", bd.panel), "yref": f"{_ref('y', bd.panel)} domain",
            "x0": bd.lo, "x1": bd.hi, "y0": 0, "y1": 1, "fillcolor": bd.color,
            "line": {"width": 0}, "layer": "below", "name": bd.key}


def _line_shape(ln, lang: str) -> dict:
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
    return sh


def _note_annotation(spec: FigureSpec, nt, lang: str) -> dict:
    xlog, ylog = spec.panels[nt.panel].x.log, spec.panels[nt.panel].y.log
    an = {"x": math.log10(nt.x) if xlog else nt.x, "y": math.log10(nt.y) if ylog else nt.y,
          "xref": _ref("x", nt.panel), "yref": _ref("y", nt.panel), "text": _pick(nt.text, lang),
          "showarrow": nt.arrow_from is not None, "font": {"color": nt.color, "size": 11},
          "xanchor": nt.anchor, "yshift": nt.dy, "xshift": nt.dx, "name": nt.key}
    if nt.arrow_from is not None:
        fx, fy = nt.arrow_from
        an.update(axref=an["xref"], ayref=an["yref"], ax=math.log10(fx) if xlog else fx,
                  ay=math.log10(fy) if ylog else fy, arrowhead=2, arrowcolor=nt.color, text="")
    return an


def to_plotly(spec: FigureSpec, lang: str = "en"):
    """``spec`` as a ``plotly.graph_objects.Figure`` in ``lang``."""
    import plotly.graph_objects as go
    return go.Figure(plotly_json(spec, lang))


#: plotly.js options of the book's figures: no plotly logo or cloud link, a small mode bar
PLOTLY_CONFIG = {"displaylogo": False, "showSendToCloud": False, "showEditInChartStudio": False, "responsive": True, "modeBarButtonsToRemove": ["select2d", "lasso2d"],
                 "toImageButtonOptions": {"format": "svg"}}



def plot_div(spec: FigureSpec, lang: str, *, alt: str | None = None, element_id: str | None = None,
             static: str | None = None) -> str:
    """The HTML book's figure: a ``div.mlsysim-plot`` holding the plotly JSON, drawn by the book's
    ``figures.js`` with its own ``plotly.js`` (no CDN, no require.js).

    ``static``: the figure's static SVG (relative to the page), shown without JavaScript (``<noscript>``)
    and by figures.js when plotly.js did not load, so the figure is never an empty box. The div is a
    labelled group, not ``role="img"``: it holds plotly's interactive legend and mode bar."""
    fig = plotly_json(spec, lang)
    payload = json.dumps({"data": fig["data"], "layout": fig["layout"],
                          "config": PLOTLY_CONFIG, "dark": DARK}, ensure_ascii=False, separators=(",", ":"),
                         allow_nan=False)
    payload = payload.replace("</", "<\\/")
    label = f' aria-label="{_html.escape(alt)}"' if alt else ""
    attrs, still = "", ""
    if static:
        src = _html.escape(static, quote=True)
        attrs = f' data-static="{src}"'
        still = (f'<noscript><img class="mlsysim-static" src="{src}" alt="{_html.escape(alt or "")}" '
                 f'loading="lazy"></noscript>')
    return (f'<div class="mlsysim-plot" id="{element_id or "mlsysim-plot-" + spec.key}" data-figure="{spec.key}" '
            f'lang="{lang}" role="group"{label}{attrs} style="min-height:{int(spec.size[1] * 95)}px">{still}'
            f'<script type="application/json" class="mlsysim-plot-json">{payload}</script></div>')
