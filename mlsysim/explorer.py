"""The static reference-value explorer of the HTML book: no kernel, no network, no formula in JavaScript.

At build time :func:`explorer_data` calls :func:`mlsysim.reference.reference_values` for every
accelerator × model × precision the accelerator publishes, formats each value once with
:mod:`mlsysim.fmt` (the appendix table's precision), and computes each (accelerator, precision)
roofline with :func:`mlsysim.figures.roofline_spec` (the appendix figure's description, on common
axes). :func:`explorer_html` embeds all of it as JSON; the page's script only looks values up, swaps
precomputed strings and hands the precomputed roofline arrays to plotly (``assets/figures.js``). A precision an accelerator does not
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
from functools import lru_cache
from pathlib import Path

from .fmt import fmt_int
from .physics import attainable_performance, decode_intensity
from .reference import DEFAULT_CONTEXT, DEFAULT_RESERVE, ReferenceValues, display_values, scenario_values
from .registry import Hardware, Models
from .scenario import REFERENCE, SPACE, Scenario, nearest_precision, scenario  # one fallback rule for the book and the explorer
from .units import PRECISION_BYTES, Q_
from .figures import book_lang, plot_div, plotly_json, roofline_spec
from .figures.book import html_block

LANGS = ("en", "zh")
DEFAULT_SELECTION = dict(REFERENCE)  # the book's reference (data/reference.toml)
#: bytes per stored key/value element, as in the appendix
KV_BYTES = 2

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
        "caption": "The appendix's values for the chosen accelerator, model and weight precision, computed by MLSysIM "
                   "when the book was built (keys and values at {kv} bytes, contexts of {ctx} tokens or the model's "
                   "window where it is shorter; the node pool holds the weights at the chosen precision, the "
                   "reference configuration's at {pool_bits} bits as the appendix sizes it, and a {reserve} GB reserve; "
                   "an accelerator's memory, sold in \"GB\", is read as GiB).",
        "roofline": "Roofline of the chosen accelerator at the chosen precision: attainable operations per second "
                    "against arithmetic intensity, with decode at batch one and a prefill of {ctx} tokens marked.",
        "x_axis": "𝓘 (FLOP/byte)", "y_axis": "P (FLOP/s)",
        "notebook": "Take this explorer away as a live Jupyter notebook, with free values of β, π and context: ",
        "units": {"tbs": "TB/s", "tflops": "TFLOP/s", "opb": "operations per byte", "ms": "ms", "us": "µs",
                  "tokens": "tokens", "bytes": "bytes", "gb": "GB", "": ""},
        "rows": {
            "bandwidth": "Memory bandwidth", "peak": "Peak rate at the weight precision",
            "ridge_flop_per_byte": "Ridge point", "decode_floor_s": "Decode floor per output token",
            "prefill_per_token_s": "Prefill time per prompt token", "decode_to_prefill_ratio": "Decode/prefill ratio",
            "attention_crossover_tokens": "Attention crossover length",
            "kv_bytes_per_token": "Attention state per token",
            "kv_bytes_at_context": "Attention state at {ctx} tokens{window}", "node": "Node",
            "node_kv_pool_bytes": "Attention-state pool per node",
            "resident_trajectories": "Resident trajectories per node at {ctx} tokens{window}",
        },
        "window": " (the model's window)",
        "table_headers": ("Accelerator", "Weight precision", "Ridge point (operations per byte)",
                          "Decode floor (ms)", "Prefill per token (µs)", "Decode/prefill ratio",
                          "Pool per node (GB)", "Resident trajectories"),
    },
    "zh": {
        "accelerator": "加速器", "model": "模型", "precision": "权重精度",
        "quantity": "量", "symbol": "符号", "value": "数值", "unit": "单位",
        "not_published": "未公布", "no_node": "注册表中无此节点", "does_not_fit": "放不下",
        "fallback": "{accel} 未公布稠密 {want} 算力；改为显示 {got}。",
        "caption": "所选加速器、模型与权重精度下本附录的各项数值，由 MLSysIM 在构建本书时计算（键值每元素 {kv} 字节，"
                   "上下文 {ctx} 个词元，模型窗口更短时取其窗口；节点的注意力状态池按所选精度存放权重，"
                   "参考配置按本附录的做法取 {pool_bits} 位，并预留 {reserve} GB；加速器内存的标称“GB”一律按 GiB 计）。",
        "roofline": "所选加速器在所选精度下的屋顶线：可达运算速率与算术强度的关系，标出批大小为 1 的解码和 {ctx} 个词元的预填充。",
        "x_axis": "𝓘（FLOP/字节）", "y_axis": "P（FLOP/s）",
        "notebook": "这个探索器也有可下载的 Jupyter 笔记本版本，可实时运行并自由设定 β、π 和上下文长度：",
        "units": {"tbs": "TB/s", "tflops": "万亿次运算/秒", "opb": "次运算/字节", "ms": "ms", "us": "µs",
                  "tokens": "词元", "bytes": "字节", "gb": "GB", "": ""},
        "rows": {
            "bandwidth": "加速器内存带宽", "peak": "权重精度下的峰值运算速率",
            "ridge_flop_per_byte": "屋脊点", "decode_floor_s": "每个输出词元的解码下限",
            "prefill_per_token_s": "每个提示词元的预填充时间", "decode_to_prefill_ratio": "解码与预填充时间之比",
            "attention_crossover_tokens": "注意力交叉长度", "kv_bytes_per_token": "每词元的注意力状态",
            "kv_bytes_at_context": "{ctx} 个词元{window}时的注意力状态", "node": "节点",
            "node_kv_pool_bytes": "每节点注意力状态池", "resident_trajectories": "每节点驻留轨迹数（{ctx} 个词元{window}）",
        },
        "window": "（模型窗口）",
        "table_headers": ("加速器", "权重精度", "屋脊点（次运算/字节）", "解码下限（ms）", "每词元预填充（µs）",
                          "解码与预填充之比", "每节点注意力状态池（GB）", "驻留轨迹数"),
    },
}


def _text(lang: str) -> dict:
    if lang not in TEXT:
        raise ValueError(f"explorer language must be one of {', '.join(LANGS)}, got {lang!r}")
    return TEXT[lang]


def shown_values(rv: ReferenceValues, accel, lang: str = "en") -> dict[str, str]:
    """Every displayed value of ``rv`` as the appendix table prints it (:func:`mlsysim.reference.display_values`,
    which the CLI prints too: one rounding), the node by the name a reader knows."""
    return display_values(rv, accel, lang)


def fallback_precision(accel, want: str) -> str:
    """The precision shown when ``accel`` does not publish ``want`` (:func:`mlsysim.scenario.nearest_precision`)."""
    return nearest_precision(accel, want)


# ───────────────────────────── the roofline (plotly, from mlsysim.figures) ─────────────────────────────

def roofline_ranges(accels, context: int = DEFAULT_CONTEXT) -> tuple[int, int, int, int]:
    """Common decade ranges (log10) over every (accelerator, precision), so two choices compare by eye."""
    xs, ys = [], []
    for a in accels:
        for p in a.precisions:
            b = PRECISION_BYTES[p]
            i_dec = decode_intensity(b).magnitude
            xs += [i_dec, context * i_dec]
            ys += [attainable_performance(Q_(i_dec, "flop/byte"), a.compute.peak(p), a.memory.bandwidth)
                   .to("flop/second").magnitude, a.compute.peak(p).to("flop/second").magnitude]
    return (math.floor(math.log10(min(xs) / 1.5)), math.ceil(math.log10(max(xs) * 1.5)),
            math.floor(math.log10(min(ys) / 1.5)), math.ceil(math.log10(max(ys) * 1.5)))


def explorer_roofline(accel, precision: str, bounds, lang: str = "en", *, context: int = DEFAULT_CONTEXT,
                      peak=None, bandwidth=None):
    """The explorer's roofline of one choice: the appendix roofline's description (roof, decode at B = 1,
    the ridge, a prefill of ``context`` tokens) on the common ``bounds``; the roof is drawn through its
    three corners (two ends and the ridge), which is exact on log-log axes."""
    x0, x1, y0, y1 = bounds
    return roofline_spec(accel, None, precision, prompt_tokens=context, points=2, x_range=(10.0 ** x0, 10.0 ** x1),
                         y_range=(10.0 ** y0, 10.0 ** y1), peak=peak, bandwidth=bandwidth)


def roofline_arrays(spec, lang: str) -> dict:
    """What changes between two explorer choices: each trace's x, y, legend name and hover labels, and
    the ridge line's position (the figure's shape, colours and axes stay)."""
    fig = plotly_json(spec, lang)
    traces = [{"x": t["x"], "y": t["y"], "name": t.get("name"), "customdata": t.get("customdata")}
              for t in fig["data"]]
    return {"traces": traces, "ridge": spec.data["ridge_x"]}


# ───────────────────────────── data and page ─────────────────────────────

def explorer_data(lang: str = "en", *, context: int = DEFAULT_CONTEXT) -> dict:
    """Everything the explorer shows, computed now: values, display strings, rooflines, fallbacks.
    (Kept between builds by :mod:`mlsysim.diskcache` when a build asks for it.)"""
    from .diskcache import json_memo
    return json_memo("explorer", (lang, int(context)), lambda: _explorer_data(lang, context=context))


def row_labels(lang: str, context: int, window: bool = False) -> dict[str, str]:
    """The rows' names at ``context`` tokens (``window``: the model's window capped the book's context)."""
    t = _text(lang)
    return {k: t["rows"][k].format(ctx=f"{context:,}", window=t["window"] if window else "") for k in SHOWN_KEYS}


@lru_cache(maxsize=4)
def _choices(context: int) -> dict[tuple[str, str, str], tuple[Scenario, ReferenceValues]]:
    """The scenario and values of every offered (accelerator, precision, model) at ``context``: the same
    in every language (only their display differs), so computed once a process (the registry and the
    choice space are read once, at import; both are immutable records)."""
    out = {}
    for a in (Hardware.Cloud.get(a) for a in SPACE.accelerators):
        for p in a.precisions:
            for m in (Models.Language.get(m) for m in SPACE.models):
                # the scenario of this choice: its pool precision, the context capped at the model's window
                sc = scenario(a.name, m.name, p, context=context, cap_context=True)
                out[a.name, p, m.name] = sc, scenario_values(sc, kv_bytes=KV_BYTES)
    return out


def _explorer_data(lang: str, *, context: int) -> dict:
    t = _text(lang)
    accels = [Hardware.Cloud.get(a) for a in SPACE.accelerators]
    models = [Models.Language.get(m) for m in SPACE.models]   # the models the appendix's equations cover
    all_prec = [p for p in PRECISION_BYTES if any(p in a.precisions for a in accels)]
    bounds = roofline_ranges(accels, context)
    choices = _choices(context)
    values, roof, fallback, labels = {}, {}, {}, {str(context): row_labels(lang, context)}
    for a in accels:
        values[a.name], roof[a.name], fallback[a.name] = {}, {}, {}
        for p in all_prec:
            if p not in a.precisions:
                got = fallback_precision(a, p)
                fallback[a.name][p] = [got, t["fallback"].format(accel=a.display_name, want=p, got=got)]
                continue
            roof[a.name][p] = roofline_arrays(explorer_roofline(a, p, bounds, lang, context=context), lang)
            values[a.name][p] = {}
            for m in models:
                sc, rv = choices[a.name, p, m.name]
                raw = dataclasses.asdict(rv)
                sv = shown_values(rv, a, lang)
                values[a.name][p][m.name] = {"raw": [raw[f] for f in ROW_FIELDS], "shown": [sv[k] for k in SHOWN_KEYS]}
                if sc.context_capped:
                    values[a.name][p][m.name]["context"] = sc.context
                    labels.setdefault(str(sc.context), row_labels(lang, sc.context, window=True))
    return {
        "lang": lang, "context": context, "kv_bytes": float(KV_BYTES), "default": dict(DEFAULT_SELECTION),
        "accelerators": [{"name": a.name, "label": a.display_name, "precisions": list(a.precisions)} for a in accels],
        "models": [{"name": m.name, "label": m.display_name} for m in models],
        "precisions": all_prec,
        "unavailable": {a.name: [p for p in all_prec if p not in a.precisions] for a in accels},
        "fields": list(ROW_FIELDS), "shown_keys": list(SHOWN_KEYS),
        "values": values, "fallback": fallback, "roofline": roof, "bounds": list(bounds), "labels": labels,
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


def _asset(name: str) -> str:
    """The explorer's style or script, from ``mlsysim/assets/`` (package data, shipped with the live bundle)."""
    return (Path(__file__).parent / "assets" / name).read_text(encoding="utf-8")


_CSS = _asset("explorer.css")

# The script looks values up and swaps strings; it computes nothing.
_JS = _asset("explorer.js")


def notebook_data_url(path) -> str:
    """A notebook file as a ``data:`` URL (base64), for a download link that needs no file next to the page."""
    import base64
    from pathlib import Path
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ValueError(f"{p}: the explorer notebook cannot be read ({e.strerror})") from None
    return "data:application/x-ipynb+json;base64," + base64.b64encode(raw).decode("ascii")


class ExplorerHTML(str):
    """The explorer's markup: a ``str`` shown as a raw HTML block of markdown, so Quarto and our build
    both emit it as raw HTML (a ``text/html`` output would make Quarto load require.js and jQuery from a
    CDN, as for a JavaScript widget)."""

    def _repr_markdown_(self) -> str:
        return html_block(str(self))

    def __repr__(self) -> str:
        return f"<mlsysim explorer, {len(self):,} characters of HTML>"


def explorer_html(lang: str | None = None, *, context: int = DEFAULT_CONTEXT, data: dict | None = None,
                  notebook=None) -> ExplorerHTML:
    """The self-contained explorer (markup, CSS, JSON data, script) in ``lang`` (default: :func:`book_lang`);
    ``data`` reuses an :func:`explorer_data` result of the same language and context; ``notebook`` (a path to
    the live ``explorer.ipynb`` in that language) adds a link that downloads it, embedded in the page as a
    ``data:`` URL so it works offline, from ``file:``, and under Quarto alike."""
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
        rows.append(f'<tr><th scope="row" data-label="{key}">{esc(row_labels(lang, context)[key])}</th><td>{sym}</td>'
                    f'<td class="mx-v" data-key="{key}">{esc(val)}</td><td>{esc(t["units"][unit])}</td></tr>')
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    spec = explorer_roofline(a0, sel["precision"], tuple(data["bounds"]), lang, context=context)
    plot = plot_div(spec, lang, alt=t["roofline"].format(ctx=ctx), element_id="mlsysim-explorer-plot")
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
        f'<table id="mlsysim-explorer-table" data-quarto-disable-processing="true"><caption>{esc(t["caption"].format(kv=fmt_int(data["kv_bytes"]), ctx=ctx, reserve=fmt_int(DEFAULT_RESERVE.to("GB").magnitude), pool_bits=fmt_int(PRECISION_BYTES[REFERENCE["pool_precision"]].to("bit").magnitude)))}</caption>'
        f'<thead><tr><th>{esc(t["quantity"])}</th><th>{esc(t["symbol"])}</th><th>{esc(t["value"])}</th>'
        f'<th>{esc(t["unit"])}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>'
        f'<figure id="mlsysim-explorer-roofline">{plot}'
        f'<figcaption>{esc(t["roofline"].format(ctx=ctx))}</figcaption></figure>'
        f"</div>"
        + (f'<p class="mx-notebook">{esc(t["notebook"])}<a href="{notebook_data_url(notebook)}" '
           f'download="explorer.ipynb" type="application/x-ipynb+json"><code>explorer.ipynb</code></a></p>'
           if notebook is not None else "")
        + f'<script type="application/json" id="mlsysim-explorer-data">{payload}</script>'
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
        sc = scenario(a.name, m.name, DEFAULT_SELECTION["precision"], context=context, cap_context=True)
        p = sc.weight_precision
        rv = scenario_values(sc)
        s = shown_values(rv, a, lang)
        cells = [a.display_name, p, s["ridge_flop_per_byte"], s["decode_floor_s"], s["prefill_per_token_s"],
                 s["decode_to_prefill_ratio"], s["node_kv_pool_bytes"], s["resident_trajectories"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


__all__ = ["explorer_html", "explorer_data", "lookup", "static_table_markdown", "shown_values", "book_lang",
           "fallback_precision", "notebook_data_url", "explorer_roofline", "roofline_arrays", "roofline_ranges", "ExplorerHTML", "ROWS", "SHOWN_KEYS", "ROW_FIELDS"]
