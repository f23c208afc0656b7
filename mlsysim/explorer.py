"""The static reference-value explorer of the HTML book: no kernel, no network, no formula in JavaScript.

At build time :func:`explorer_data` calls :func:`mlsysim.reference.reference_values` for every
accelerator × model × precision the accelerator publishes, formats each value once with
:mod:`mlsysim.fmt` (the appendix table's precision), and draws each (accelerator, precision)
roofline as a small SVG fragment. :func:`explorer_html` embeds all of it as JSON; the page's
script only looks values up and swaps precomputed strings. A precision an accelerator does not
publish has no entry: its option is disabled and marked "not published", never shown as zero.

:func:`static_table_markdown` gives the PDF's replacement: a pipe table across the registry's
accelerators for the reference model. :func:`book_lang` reads the book's language from
``QUARTO_PROFILE`` (set by Quarto, and by our build, while a chapter executes).
"""
from __future__ import annotations

import dataclasses
import html
import json
import math
import os

from .fmt import FormatPrecisionError, fmt, fmt_int
from .physics import attainable_performance, decode_intensity, ridge_point
from .reference import DEFAULT_CONTEXT, DEFAULT_RESERVE, ReferenceValues, reference_values
from .registry import Hardware, Models
from .units import PRECISION_BYTES, Q_

LANGS = ("en", "zh")
DEFAULT_SELECTION = {"accelerator": "H100", "model": "Llama3_1_70B", "precision": "fp8"}
#: when the chosen precision is not published: prefer one with the same bytes, then this order
#: bytes per stored key/value element, as in the appendix
KV_BYTES = 2
FALLBACK_ORDER = ("fp8", "int8", "bf16", "fp16", "fp4", "tf32", "fp32", "fp64")

#: ReferenceValues fields stored per entry (the selection keys are the JSON path, not repeated)
ROW_FIELDS = tuple(f.name for f in dataclasses.fields(ReferenceValues)
                   if f.name not in ("accelerator", "model", "weight_precision", "kv_bytes", "context"))

#: displayed rows: key, symbol (HTML), unit key; the values are formatted by :func:`shown_values`
ROWS = (
    ("bandwidth", "β", "tbs"),
    ("peak", "π", "tflops"),
    ("ridge_flop_per_byte", "𝓘<sup>*</sup>", "opb"),
    ("decode_floor_s", "t<sub>decode</sub>", "ms"),
    ("prefill_per_token_s", "t<sub>prefill</sub>", "us"),
    ("decode_to_prefill_ratio", "t<sub>decode</sub> / t<sub>prefill</sub>", ""),
    ("attention_crossover_tokens", "S<sup>*</sup>", "tokens"),
    ("kv_bytes_per_token", "m<sub>token</sub>", "bytes"),
    ("kv_bytes_at_context", "M<sub>KV</sub>(T̄)", "gb"),
    ("node", "", ""),
    ("node_kv_pool_bytes", "M<sub>dynamic</sub>", "gb"),
    ("resident_trajectories", "B<sub>max</sub>", ""),
)
SHOWN_KEYS = tuple(k for k, _, _ in ROWS)

TEXT = {
    "en": {
        "accelerator": "Accelerator", "model": "Model", "precision": "Weight precision",
        "quantity": "Quantity", "symbol": "Symbol", "value": "Value", "unit": "Unit",
        "not_published": "not published", "no_node": "no registry node", "does_not_fit": "does not fit",
        "fallback": "{accel} publishes no dense {want} rate; showing {got}.",
        "caption": "Reference values for the chosen accelerator, model and weight precision, computed by MLSysIM "
                   "when the book was built (keys and values at {kv} bytes, contexts of {ctx} tokens, 16-bit weights "
                   "and a {reserve} GB reserve for the node pool).",
        "roofline": "Roofline of the chosen accelerator at the chosen precision: attainable operations per second "
                    "against arithmetic intensity, with decode at batch one and a prefill of {ctx} tokens marked.",
        "x_axis": "𝓘 (FLOP/byte)", "y_axis": "P (FLOP/s)",
        "units": {"tbs": "TB/s", "tflops": "TFLOP/s", "opb": "operations per byte", "ms": "ms", "us": "µs",
                  "tokens": "tokens", "bytes": "bytes", "gb": "GB", "": ""},
        "rows": {
            "bandwidth": "Memory bandwidth", "peak": "Peak rate at the weight precision",
            "ridge_flop_per_byte": "Ridge point", "decode_floor_s": "Decode floor per output token",
            "prefill_per_token_s": "Prefill time per prompt token", "decode_to_prefill_ratio": "Decode/prefill ratio",
            "attention_crossover_tokens": "Attention crossover length",
            "kv_bytes_per_token": "Attention state per token",
            "kv_bytes_at_context": "Attention state at {ctx} tokens", "node": "Node",
            "node_kv_pool_bytes": "Attention-state pool per node",
            "resident_trajectories": "Resident trajectories per node at {ctx} tokens",
        },
        "table_headers": ("Accelerator", "Weight precision", "Ridge point (operations per byte)",
                          "Decode floor (ms)", "Prefill per token (µs)", "Decode/prefill ratio",
                          "Pool per node (GB)", "Resident trajectories"),
    },
    "zh": {
        "accelerator": "加速器", "model": "模型", "precision": "权重精度",
        "quantity": "量", "symbol": "符号", "value": "数值", "unit": "单位",
        "not_published": "未公布", "no_node": "注册表中无此节点", "does_not_fit": "放不下",
        "fallback": "{accel} 未公布稠密 {want} 速率；改为显示 {got}。",
        "caption": "所选加速器、模型与权重精度的参考值，由 MLSysIM 在构建本书时计算（键值每元素 {kv} 字节，"
                   "上下文 {ctx} 个词元；节点内存池按 16 位权重并预留 {reserve} GB 计算）。",
        "roofline": "所选加速器在所选精度下的屋顶线：可达运算速率与计算强度的关系，标出批大小为一的解码和 {ctx} 个词元的预填充。",
        "x_axis": "𝓘（FLOP/字节）", "y_axis": "P（FLOP/秒）",
        "units": {"tbs": "TB/s", "tflops": "万亿次运算/秒", "opb": "次运算/字节", "ms": "ms", "us": "µs",
                  "tokens": "词元", "bytes": "字节", "gb": "GB", "": ""},
        "rows": {
            "bandwidth": "加速器内存带宽", "peak": "权重精度下的峰值运算速率",
            "ridge_flop_per_byte": "屋脊点", "decode_floor_s": "每个输出词元的解码下限",
            "prefill_per_token_s": "每个提示词元的预填充时间", "decode_to_prefill_ratio": "解码与预填充时间之比",
            "attention_crossover_tokens": "注意力交叉长度", "kv_bytes_per_token": "每词元的注意力状态",
            "kv_bytes_at_context": "{ctx} 个词元时的注意力状态", "node": "节点",
            "node_kv_pool_bytes": "每节点注意力状态池", "resident_trajectories": "每节点常驻轨迹数（{ctx} 个词元）",
        },
        "table_headers": ("加速器", "权重精度", "屋脊点（次运算/字节）", "解码下限（ms）", "每词元预填充（µs）",
                          "解码与预填充之比", "每节点内存池（GB）", "常驻轨迹数"),
    },
}


def book_lang(default: str = "en") -> str:
    """The book's language from ``QUARTO_PROFILE`` (a comma-separated list; the first of en/zh wins)."""
    for p in os.environ.get("QUARTO_PROFILE", "").split(","):
        p = p.strip().lower()
        if p in LANGS:
            return p
    return default


def _text(lang: str) -> dict:
    if lang not in TEXT:
        raise ValueError(f"explorer language must be one of {', '.join(LANGS)}, got {lang!r}")
    return TEXT[lang]


def shown(x: float, precision: int) -> str:
    """``fmt(x, precision)``, with more decimals only where the appendix's precision would hide the value."""
    for p in range(precision, precision + 5):
        try:
            return str(fmt(x, p))
        except FormatPrecisionError:
            continue
    return f"{x:.3g}"


def shown_values(rv: ReferenceValues, accel, lang: str = "en") -> dict[str, str]:
    """Every displayed value of ``rv`` as the appendix table prints it (ridge integer, decode floor in ms
    with one decimal, prefill in µs as an integer, crossover to the nearest thousand, pool in GB)."""
    t = _text(lang)
    peak = accel.compute.peak(rv.weight_precision)
    cross = rv.attention_crossover_tokens
    if rv.node is None:
        pool = resident = t["no_node"]
    elif not rv.node_kv_pool_bytes:
        pool, resident = f"0 ({t['does_not_fit']})", "0"
    else:
        pool, resident = shown(rv.node_kv_pool_bytes / 1e9, 1), str(fmt_int(rv.resident_trajectories))
    return {
        "bandwidth": shown(accel.memory.bandwidth.to("TB/s").magnitude, 2),
        "peak": shown(peak.to("Tflop/s").magnitude, 0),
        "ridge_flop_per_byte": shown(rv.ridge_flop_per_byte, 0),
        "decode_floor_s": shown(rv.decode_floor_s * 1e3, 1),
        "prefill_per_token_s": shown(rv.prefill_per_token_s * 1e6, 0),
        "decode_to_prefill_ratio": shown(rv.decode_to_prefill_ratio, 0),
        "attention_crossover_tokens": str(fmt_int(round(cross, -3))) if cross >= 10_000 else shown(cross, 0),
        "kv_bytes_per_token": str(fmt_int(rv.kv_bytes_per_token)),
        "kv_bytes_at_context": shown(rv.kv_bytes_at_context / 1e9, 1),
        "node": rv.node if rv.node is not None else t["no_node"],
        "node_kv_pool_bytes": pool,
        "resident_trajectories": resident,
    }


def fallback_precision(accel, want: str) -> str:
    """The precision shown when ``accel`` does not publish ``want``: same bytes first, then FALLBACK_ORDER."""
    have = accel.precisions
    if want in have:
        return want
    same = [p for p in have if PRECISION_BYTES[p] == PRECISION_BYTES.get(want)]
    if same:
        return same[0]
    return next((p for p in FALLBACK_ORDER if p in have), have[0])


# ───────────────────────────── the roofline, as a small SVG ─────────────────────────────

_W, _H = 420, 250
_ML, _MR, _MT, _MB = 58, 14, 12, 40


def _bounds(accels) -> tuple[int, int, int, int]:
    """Common decade ranges over every (accelerator, precision), so two choices compare by eye."""
    xs, ys = [], []
    for a in accels:
        for p in a.precisions:
            b = PRECISION_BYTES[p]
            i_dec = decode_intensity(b).magnitude
            xs += [i_dec, DEFAULT_CONTEXT * i_dec]
            ys += [attainable_performance(Q_(i_dec, "flop/byte"), a.compute.peak(p), a.memory.bandwidth)
                   .to("flop/second").magnitude, a.compute.peak(p).to("flop/second").magnitude]
    return (math.floor(math.log10(min(xs) / 1.5)), math.ceil(math.log10(max(xs) * 1.5)),
            math.floor(math.log10(min(ys) / 1.5)), math.ceil(math.log10(max(ys) * 1.5)))


class _Axes:
    def __init__(self, bounds):
        self.x0, self.x1, self.y0, self.y1 = bounds

    def x(self, v: float) -> float:
        return round(_ML + (math.log10(v) - self.x0) / (self.x1 - self.x0) * (_W - _ML - _MR), 1)

    def y(self, v: float) -> float:
        return round(_H - _MB - (math.log10(v) - self.y0) / (self.y1 - self.y0) * (_H - _MT - _MB), 1)


def _frame_svg(ax: _Axes, t: dict, inner: str) -> str:
    parts = [f'<svg id="mlsysim-explorer-roofline-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" '
             f'width="100%" style="max-width:{_W * 1.5:.0f}px" role="img" aria-labelledby="mlsysim-explorer-roofline-title">',
             f'<title id="mlsysim-explorer-roofline-title">{html.escape(t["roofline"].format(ctx=f"{DEFAULT_CONTEXT:,}"))}</title>',
             '<g class="frame" stroke="currentColor" stroke-opacity="0.15" stroke-width="0.7">']
    for k in range(ax.x0, ax.x1 + 1):
        parts.append(f'<line x1="{ax.x(10 ** k)}" y1="{_MT}" x2="{ax.x(10 ** k)}" y2="{_H - _MB}"/>')
    for k in range(ax.y0, ax.y1 + 1):
        parts.append(f'<line x1="{_ML}" y1="{ax.y(10 ** k)}" x2="{_W - _MR}" y2="{ax.y(10 ** k)}"/>')
    parts.append('</g><g class="ticks" fill="currentColor" font-size="10" font-family="sans-serif">')
    for k in range(ax.x0, ax.x1 + 1):
        parts.append(f'<text x="{ax.x(10 ** k)}" y="{_H - _MB + 14}" text-anchor="middle">10<tspan dy="-4" '
                     f'font-size="7">{k}</tspan></text>')
    for k in range(ax.y0, ax.y1 + 1):
        parts.append(f'<text x="{_ML - 4}" y="{ax.y(10 ** k) + 3}" text-anchor="end">10<tspan dy="-4" '
                     f'font-size="7">{k}</tspan></text>')
    parts.append(f'<text x="{(_ML + _W - _MR) / 2}" y="{_H - 6}" text-anchor="middle" font-size="11">'
                 f'{html.escape(t["x_axis"])}</text>')
    parts.append(f'<text transform="translate(12 {(_MT + _H - _MB) / 2}) rotate(-90)" text-anchor="middle" '
                 f'font-size="11">{html.escape(t["y_axis"])}</text></g>')
    parts.append(f'<g id="mlsysim-explorer-roofline-data">{inner}</g></svg>')
    return "".join(parts)


def roofline_fragment(accel, precision: str, ax: _Axes, *, peak=None, bandwidth=None) -> str:
    """The roof, the ridge and the decode (B = 1) and prefill points of one choice, as SVG elements.

    Every coordinate comes from the physics functions (``attainable_performance``, ``ridge_point``,
    ``decode_intensity``); ``peak``/``bandwidth`` override the registry's (quantities)."""
    peak = peak if peak is not None else accel.compute.peak(precision)
    bw = bandwidth if bandwidth is not None else accel.memory.bandwidth
    b = PRECISION_BYTES[precision]

    def perf(i):
        return attainable_performance(Q_(i, "flop/byte"), peak, bw).to("flop/second").magnitude

    ridge = ridge_point(peak, bw).magnitude
    xs = [10.0 ** ax.x0, ridge, 10.0 ** ax.x1]
    pts = " ".join(f"{ax.x(v)},{ax.y(perf(v))}" for v in xs)
    i_dec = decode_intensity(b).magnitude
    i_pre = DEFAULT_CONTEXT * i_dec
    xr, yr = ax.x(ridge), ax.y(perf(ridge))
    xd, yd = ax.x(i_dec), ax.y(perf(i_dec))
    xp, yp = ax.x(i_pre), ax.y(perf(i_pre))
    return (f'<polyline points="{pts}" fill="none" stroke="#1f4e79" stroke-width="2.2"/>'
            f'<line x1="{xr}" y1="{yr}" x2="{xr}" y2="{_H - _MB}" stroke="#757575" stroke-dasharray="2 3"/>'
            f'<circle cx="{xr}" cy="{yr}" r="4" fill="none" stroke="#ef6c00" stroke-width="2"/>'
            f'<text x="{xr + 6}" y="{yr + 14}" font-size="10" font-family="sans-serif" fill="currentColor">'
            f'𝓘* = {html.escape(shown(ridge, 0))}</text>'
            f'<circle cx="{xd}" cy="{yd}" r="4" fill="#2e7d32"/>'
            f'<text x="{xd + 6}" y="{yd + 4}" font-size="10" font-family="sans-serif" fill="currentColor">'
            f'2/b (B = 1)</text>'
            f'<path d="M{xp} {yp - 5} l4.5 8 h-9 z" fill="#c62828"/>'
            f'<text x="{xp}" y="{yp + 16}" font-size="10" font-family="sans-serif" fill="currentColor" '
            f'text-anchor="middle">2S/b</text>')


# ───────────────────────────── data and page ─────────────────────────────

def explorer_data(lang: str = "en", *, context: int = DEFAULT_CONTEXT) -> dict:
    """Everything the explorer shows, computed now: values, display strings, rooflines, fallbacks."""
    t = _text(lang)
    accels, models = list(Hardware.Cloud), list(Models.Language)
    all_prec = [p for p in PRECISION_BYTES if any(p in a.precisions for a in accels)]
    ax = _Axes(_bounds(accels))
    values, roof, fallback = {}, {}, {}
    for a in accels:
        values[a.name], roof[a.name], fallback[a.name] = {}, {}, {}
        for p in all_prec:
            if p not in a.precisions:
                got = fallback_precision(a, p)
                fallback[a.name][p] = [got, t["fallback"].format(accel=a.display_name, want=p, got=got)]
                continue
            roof[a.name][p] = roofline_fragment(a, p, ax)
            values[a.name][p] = {}
            for m in models:
                # a model whose window is shorter than the book's context is shown at its window
                ctx = min(context, m.context_length) if m.context_length else context
                rv = reference_values(a, m, weight_precision=p, kv_bytes=KV_BYTES, context=ctx)
                raw = dataclasses.asdict(rv)
                sv = shown_values(rv, a, lang)
                values[a.name][p][m.name] = {"raw": [raw[f] for f in ROW_FIELDS], "shown": [sv[k] for k in SHOWN_KEYS]}
                if ctx != context:
                    values[a.name][p][m.name]["context"] = ctx
    return {
        "lang": lang, "context": context, "kv_bytes": float(KV_BYTES), "default": dict(DEFAULT_SELECTION),
        "accelerators": [{"name": a.name, "label": a.display_name, "precisions": list(a.precisions)} for a in accels],
        "models": [{"name": m.name, "label": m.display_name} for m in models],
        "precisions": all_prec,
        "unavailable": {a.name: [p for p in all_prec if p not in a.precisions] for a in accels},
        "fields": list(ROW_FIELDS), "shown_keys": list(SHOWN_KEYS),
        "values": values, "fallback": fallback, "roofline": roof, "bounds": [ax.x0, ax.x1, ax.y0, ax.y1],
    }


def lookup(data: dict, accelerator: str, model: str, precision: str) -> dict | None:
    """The ``reference_values`` dict an entry of ``data`` stores (None when the precision is unpublished)."""
    entry = data["values"].get(accelerator, {}).get(precision, {}).get(model)
    if entry is None:
        return None
    out = dict(zip(data["fields"], entry["raw"]))
    out.update(accelerator=accelerator, model=model, weight_precision=precision, kv_bytes=data["kv_bytes"],
               context=entry.get("context", data["context"]))
    return out


_CSS = """
#mlsysim-explorer{border:1px solid rgba(127,127,127,.35);border-radius:6px;padding:.8em 1em;margin:1em 0}
#mlsysim-explorer .mx-controls{display:flex;flex-wrap:wrap;gap:.6em 1.2em;margin-bottom:.6em}
#mlsysim-explorer label{display:flex;flex-direction:column;font-size:.85em;gap:.2em}
#mlsysim-explorer select{font:inherit;font-size:1em;padding:.15em .3em;max-width:18em}
#mlsysim-explorer .mx-status{min-height:1.2em;font-size:.85em;font-style:italic;margin:.2em 0}
#mlsysim-explorer .mx-body{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
#mlsysim-explorer table{border-collapse:collapse;font-size:.88em;flex:1 1 24em}
#mlsysim-explorer th,#mlsysim-explorer td{padding:.18em .5em;border-bottom:1px solid rgba(127,127,127,.25);text-align:left}
#mlsysim-explorer td.mx-v{text-align:right;font-variant-numeric:tabular-nums;font-weight:600;white-space:nowrap}
#mlsysim-explorer figure{flex:1 1 20em;margin:0}
#mlsysim-explorer figcaption,#mlsysim-explorer caption{font-size:.8em;text-align:left;caption-side:bottom;opacity:.8;padding-top:.3em}
"""

# The script looks values up and swaps strings; it computes nothing.
_JS = """
(function(){
var root=document.getElementById('mlsysim-explorer');
var D=JSON.parse(document.getElementById('mlsysim-explorer-data').textContent);
var sa=document.getElementById('mlsysim-explorer-accelerator'),
    sm=document.getElementById('mlsysim-explorer-model'),
    sp=document.getElementById('mlsysim-explorer-precision'),
    st=document.getElementById('mlsysim-explorer-status'),
    g=document.getElementById('mlsysim-explorer-roofline-data');
function avail(){var u=D.unavailable[sa.value]||[];
  for(var i=0;i<sp.options.length;i++){var o=sp.options[i],off=u.indexOf(o.value)>=0;
    o.disabled=off;o.textContent=off?o.getAttribute('data-off'):o.value;}}
function show(want){var a=sa.value,m=sm.value,p=want||sp.value,msg='';
  var fb=(D.fallback[a]||{})[p]; if(fb){msg=fb[1];p=fb[0];} sp.value=p;
  var e=D.values[a][p][m];
  for(var i=0;i<D.shown_keys.length;i++){var c=root.querySelector('[data-key="'+D.shown_keys[i]+'"]');if(c)c.textContent=e.shown[i];}
  g.innerHTML=D.roofline[a][p];st.textContent=msg;
  root.setAttribute('data-accelerator',a);root.setAttribute('data-model',m);root.setAttribute('data-precision',p);}
var last=sp.value;
sa.addEventListener('change',function(){avail();show(last);});
sm.addEventListener('change',function(){show();});
sp.addEventListener('change',function(){last=sp.value;show();});
avail();show();root.setAttribute('data-ready','1');
})();
"""


class ExplorerHTML(str):
    """The explorer's markup: a ``str`` with ``_repr_html_`` so Quarto and our build emit raw HTML."""

    def _repr_html_(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"<mlsysim explorer, {len(self):,} characters of HTML>"


def explorer_html(lang: str | None = None, *, context: int = DEFAULT_CONTEXT, data: dict | None = None) -> ExplorerHTML:
    """The self-contained explorer (markup, CSS, JSON data, script) in ``lang`` (default: :func:`book_lang`);
    ``data`` reuses an :func:`explorer_data` result of the same language and context."""
    lang = lang or book_lang()
    t = _text(lang)
    if data is None:
        data = explorer_data(lang, context=context)
    elif data["lang"] != lang or data["context"] != context:
        raise ValueError(f"explorer data is for {data['lang']}/{data['context']}, not {lang}/{context}")
    sel = data["default"]
    a0 = Hardware.Cloud.get(sel["accelerator"])
    entry = data["values"][sel["accelerator"]][sel["precision"]][sel["model"]]
    ctx = f"{context:,}"
    esc = html.escape

    def options(items, chosen):
        return "".join(f'<option value="{esc(v)}"{" selected" if v == chosen else ""}>{esc(lab)}</option>'
                       for v, lab in items)

    prec_opts = "".join(
        f'<option value="{p}" data-off="{esc(p + " — " + t["not_published"])}"'
        f'{" selected" if p == sel["precision"] else ""}{" disabled" if p not in a0.precisions else ""}>'
        f'{esc(p if p in a0.precisions else p + " — " + t["not_published"])}</option>' for p in data["precisions"])
    rows = []
    for (key, sym, unit), val in zip(ROWS, entry["shown"]):
        rows.append(f'<tr><th scope="row">{esc(t["rows"][key].format(ctx=ctx))}</th><td>{sym}</td>'
                    f'<td class="mx-v" data-key="{key}">{esc(val)}</td><td>{esc(t["units"][unit])}</td></tr>')
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    ax = _Axes(tuple(data["bounds"]))
    svg = _frame_svg(ax, t, data["roofline"][sel["accelerator"]][sel["precision"]])
    page = (
        f'<div id="mlsysim-explorer" class="mlsysim-explorer" lang="{lang}" data-accelerator="{sel["accelerator"]}" '
        f'data-model="{sel["model"]}" data-precision="{sel["precision"]}">'
        f"<style>{_CSS}</style>"
        f'<div class="mx-controls">'
        f'<label>{esc(t["accelerator"])}<select id="mlsysim-explorer-accelerator">'
        f'{options([(a["name"], a["label"]) for a in data["accelerators"]], sel["accelerator"])}</select></label>'
        f'<label>{esc(t["model"])}<select id="mlsysim-explorer-model">'
        f'{options([(m["name"], m["label"]) for m in data["models"]], sel["model"])}</select></label>'
        f'<label>{esc(t["precision"])}<select id="mlsysim-explorer-precision">{prec_opts}</select></label>'
        f"</div>"
        f'<p id="mlsysim-explorer-status" class="mx-status" aria-live="polite"></p>'
        f'<div class="mx-body">'
        f'<table id="mlsysim-explorer-table" data-quarto-disable-processing="true"><caption>{esc(t["caption"].format(kv=fmt_int(data["kv_bytes"]), ctx=ctx, reserve=fmt_int(DEFAULT_RESERVE.to("GB").magnitude)))}</caption>'
        f'<thead><tr><th>{esc(t["quantity"])}</th><th>{esc(t["symbol"])}</th><th>{esc(t["value"])}</th>'
        f'<th>{esc(t["unit"])}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'<figure id="mlsysim-explorer-roofline">{svg}'
        f'<figcaption>{esc(t["roofline"].format(ctx=ctx))}</figcaption></figure>'
        f"</div>"
        f'<script type="application/json" id="mlsysim-explorer-data">{payload}</script>'
        f"<script>{_JS}</script>"
        f"</div>")
    return ExplorerHTML(page)


def static_table_markdown(lang: str | None = None, model=None, *, context: int = DEFAULT_CONTEXT) -> str:
    """A pipe table of the reference values across the registry's accelerators for ``model`` (the PDF's
    stand-in for the explorer): fp8 weights, or the fallback precision where fp8 is not published."""
    lang = lang or book_lang()
    t = _text(lang)
    m = model if model is not None and not isinstance(model, str) else Models.Language.get(
        model or DEFAULT_SELECTION["model"])
    head = t["table_headers"]
    lines = ["| " + " | ".join(head) + " |", "|:--|:--|" + "--:|" * (len(head) - 2)]
    for a in Hardware.Cloud:
        p = fallback_precision(a, DEFAULT_SELECTION["precision"])
        rv = reference_values(a, m, weight_precision=p, context=context)
        s = shown_values(rv, a, lang)
        cells = [a.display_name, p, s["ridge_flop_per_byte"], s["decode_floor_s"], s["prefill_per_token_s"],
                 s["decode_to_prefill_ratio"], s["node_kv_pool_bytes"], s["resident_trajectories"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


__all__ = ["explorer_html", "explorer_data", "lookup", "static_table_markdown", "shown_values", "book_lang",
           "fallback_precision", "roofline_fragment", "ExplorerHTML", "ROWS", "SHOWN_KEYS", "ROW_FIELDS"]
