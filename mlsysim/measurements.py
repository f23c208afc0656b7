"""Published serving measurements (``data/measurements.toml``) and how close each comes to its floor.

Loading follows the registry's rules (:mod:`mlsysim.registry`): every measured value is a quantity
string whose unit must convert to the metric's dimension, finite and positive; every entry names a
source defined in ``sources.toml``, a registry accelerator and model, and a precision the accelerator
publishes. A violation raises :class:`RegistryError` naming file, entry and field, when this module is
imported.

Then the guard: for every measured value, the floor the physics puts under it
(:mod:`mlsysim.physics.serving_floors`). The floors the book prints follow the appendix's equations and
sit a few percent above a strict lower bound (they count the embedding lookup and the output projection
at every prompt position, and the published, rounded-up parameter count); each comparison carries the
strict bound too, and its margin. A measurement that beats its strict bound is physically impossible,
so the registry or the physics is wrong, and importing this module raises :class:`GuardError` naming
the entry, the metric, the strict bound, the printed floor and the measured value.

Achieved fraction: floor / measured for a time (inter-token latency, time to first token, request
latency), measured / ceiling for a throughput; 1 would be the floor itself.

Display: a measured value prints as published, with the source's own digits (``published``, the
quantity string of ``measurements.toml``): 18.58 ms stays "18.58 ms", never "18.6 ms". Only the
floors and fractions, which are ours, are rounded by us.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RegistryError, UnknownEntryError, UnknownPrecisionError
from .guards import check
from .physics.serving_floors import (batch_time_floor, mean_decode_context, strict_batch_time_floor,
                                     strict_decode_floor, strict_prefill_floor, strict_throughput_ceiling,
                                     throughput_ceiling, tp_decode_floor, tp_prefill_floor)
from .physics.kvcache import kv_bytes_per_token
from .registry import DATA_DIR, REGISTRY, Accelerator, Model, Registry, Source, _Loader, check_fields, load_sources
from .units import PRECISION_BYTES

FILE = "measurements.toml"

#: measured metrics: field -> (kind of quantity, SI unit, short label)
METRICS = {
    "itl": ("time", "second", "inter-token latency"),
    "ttft": ("time", "second", "time to first token"),
    "request_latency": ("time", "second", "request latency"),
    "output_throughput": ("rate", "1/second", "output throughput"),
}
#: the physics function that gives each metric's floor (ceiling for throughput), with its declared equation
FLOOR_FUNCTIONS = {"itl": tp_decode_floor, "ttft": tp_prefill_floor, "request_latency": batch_time_floor,
                   "output_throughput": throughput_ceiling}
#: the order rows are shown in
METRIC_ORDER = ("itl", "request_latency", "ttft", "output_throughput")
LOADS = ("concurrency", "batch", "max_seqs", "unbounded")
#: keys and values the source does not describe: the narrowest format the stacks offer (a floor stays a floor)
DEFAULT_KV_PRECISION = "fp8"

_FIELDS = ("source", "table", "accelerator", "count", "model", "weight_precision", "load", "input_tokens",
           "output_tokens", "software", "software_version")
_INTS = ("count", "tensor_parallel", "pipeline_parallel", "streams", "input_tokens", "output_tokens")
#: an entry's fields, in the registry's schema form (field -> (shape, required); see registry.SCHEMAS)
_SCHEMA = {**{f: ("int" if f in _INTS else "text", True) for f in _FIELDS},
           **{f: ("int", False) for f in _INTS if f not in _FIELDS},
           "kv_precision": ("text", False), "note": ("text", False), **{m: ("quantity", False) for m in METRICS}}


@dataclass(frozen=True)
class Measurement:
    """One published row: the served configuration and its measured values (SI quantities)."""

    key: str
    source: Source
    table: str
    accelerator: Accelerator
    count: int
    model: Model
    weight_precision: str
    kv_precision: str
    kv_precision_stated: bool
    tensor_parallel: int | None
    pipeline_parallel: int | None
    load: str
    streams: int | None
    input_tokens: int
    output_tokens: int
    software: str
    software_version: str
    values: Mapping[str, Any]
    note: str = ""
    #: each measured value as the source published it (the quantity string of measurements.toml)
    published: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def latency_bound(self) -> bool:
        """One stream per pass (concurrency or batch 1)."""
        return self.streams == 1


@dataclass(frozen=True)
class Comparison:
    """One measured value against its floor, in SI units (seconds, or tokens per second)."""

    entry: str
    metric: str
    measured: float
    floor: float
    achieved: float  # floor/measured for times, measured/ceiling for throughput; at most 1
    strict: float = math.nan  # the strict lower bound (upper bound for throughput) under the floor
    published: str = ""  # the measured value as the source printed it

    @property
    def kind(self) -> str:
        return METRICS[self.metric][0]

    @property
    def bound(self) -> float:
        """The strict bound, or the printed floor where none was computed."""
        return self.floor if math.isnan(self.strict) else self.strict

    @property
    def margin(self) -> float:
        """How far the printed floor sits above the strict bound: floor/strict − 1 (strict/ceiling − 1)."""
        return (self.floor / self.bound - 1) if self.kind == "time" else (self.bound / self.floor - 1)


def load_measurements(data_dir: Path = DATA_DIR, registry: Registry = REGISTRY) -> dict[str, Measurement]:
    """Read and validate ``measurements.toml`` against ``registry`` (same error style as the registry)."""
    ld = _Loader(data_dir)
    ld.sources = dict(registry.sources) if Path(data_dir) == Path(DATA_DIR) else load_sources(ld)
    out: dict[str, Measurement] = {}
    for key, e in ld.read(FILE).items():
        check_fields(ld, FILE, key, e, _SCHEMA)  # a table, no unknown field, none missing, each of its shape
        src = ld.source(FILE, key, "source", e["source"])
        if e["accelerator"] not in registry.accelerators:
            raise RegistryError(f"{ld.where(FILE, key, 'accelerator')}: unknown accelerator {e['accelerator']!r} "
                                f"(known: {', '.join(registry.accelerators)})")
        if e["model"] not in registry.models:
            raise RegistryError(f"{ld.where(FILE, key, 'model')}: unknown model {e['model']!r} "
                                f"(known: {', '.join(registry.models)}); add it to models.toml with its source")
        accel, model = registry.accelerators[e["accelerator"]], registry.models[e["model"]]
        ints = {f: e[f] for f in _INTS if f in e}
        wp = e["weight_precision"]
        if wp not in PRECISION_BYTES:
            raise RegistryError(f"{ld.where(FILE, key, 'weight_precision')}: unknown precision {wp!r}; "
                                f"use one of {', '.join(PRECISION_BYTES)}")
        try:
            accel.compute.peak(wp)
        except UnknownPrecisionError as exc:
            raise RegistryError(f"{ld.where(FILE, key, 'weight_precision')}: {exc}") from None
        kvp = e.get("kv_precision", DEFAULT_KV_PRECISION)
        if kvp not in PRECISION_BYTES:
            raise RegistryError(f"{ld.where(FILE, key, 'kv_precision')}: unknown precision {kvp!r}; "
                                f"use one of {', '.join(PRECISION_BYTES)}")
        tp, pp = ints.get("tensor_parallel"), ints.get("pipeline_parallel")
        if tp is not None and pp is not None and tp * pp != ints["count"]:
            raise RegistryError(f"{ld.where(FILE, key, 'tensor_parallel')}: tensor_parallel x pipeline_parallel = "
                                f"{tp * pp}, but count = {ints['count']}")
        load = e["load"]
        if load not in LOADS:
            raise RegistryError(f"{ld.where(FILE, key, 'load')}: {load!r} is not one of {', '.join(LOADS)}")
        if (load == "unbounded") != ("streams" not in ints):
            raise RegistryError(f"{ld.where(FILE, key, 'streams')}: give streams for load = {load!r}"
                                if load != "unbounded" else
                                f"{ld.where(FILE, key, 'streams')}: an unbounded load has no streams; "
                                f"use load = \"max_seqs\" for a stated limit")
        values = {}
        published = {}
        for metric, (kind, unit, _) in METRICS.items():
            if metric not in e:
                continue
            q = ld.quantity(FILE, key, metric, e[metric], kind)
            if not math.isfinite(q.magnitude):
                raise RegistryError(f"{ld.where(FILE, key, metric)}: {e[metric]!r} is not finite")
            values[metric] = q.to(unit)
            published[metric] = str(e[metric]).strip()
        if not values:
            raise RegistryError(f"{ld.where(FILE, key, 'values')}: no measured value; give at least one of "
                                f"{', '.join(METRICS)}")
        out[key] = Measurement(
            key=key, source=src, table=e["table"], accelerator=accel, count=ints["count"], model=model,
            weight_precision=wp, kv_precision=kvp, kv_precision_stated="kv_precision" in e,
            tensor_parallel=tp, pipeline_parallel=pp, load=load, streams=ints.get("streams"),
            input_tokens=ints["input_tokens"], output_tokens=ints["output_tokens"], software=e["software"],
            software_version=e["software_version"], values=MappingProxyType(values), note=e.get("note", ""),
            published=MappingProxyType(published))
    return out


# ───────────────────────────── floors and achieved fractions ─────────────────────────────

def floors(m: Measurement) -> dict[str, Any]:
    """The floor (or, for throughput, the ceiling) under each measured value of ``m``, as quantities."""
    a, mod = m.accelerator, m.model
    b = PRECISION_BYTES[m.weight_precision]
    m_token = kv_bytes_per_token(mod, PRECISION_BYTES[m.kv_precision])
    bw, peak = a.memory.bandwidth, a.compute.peak(m.weight_precision)
    n_p = mod.parameters.to("count").magnitude
    common = dict(params=n_p, bytes_per_param=b, kv_bytes_per_token=m_token, layers=mod.layers,
                  width=mod.hidden_dim, bandwidth=bw, peak=peak, accelerators=m.count,
                  input_tokens=m.input_tokens, output_tokens=m.output_tokens)
    out = {}
    for metric in m.values:
        fn = FLOOR_FUNCTIONS[metric]
        if metric == "itl":
            out[metric] = fn(n_p, b, m_token, bw, peak, m.count, m.input_tokens, m.output_tokens)
        elif metric == "ttft":
            out[metric] = fn(n_p, b, mod.layers, mod.hidden_dim, bw, peak, m.count, m.input_tokens)
        else:
            out[metric] = fn(**common, batch=m.streams)
    return out


def strict_params(mod: Model) -> tuple[float, float]:
    """(N, E) for the strict bounds: the exact parameter count (the geometry's where the published count
    rounds up) and the embedding table E = V·d."""
    n_pub = mod.parameters.to("count").magnitude
    return min(n_pub, float(mod.parameters_from_geometry)), float(mod.vocab_size * mod.hidden_dim)


def strict_floors(m: Measurement) -> dict[str, Any]:
    """The strict lower bound (upper bound for throughput) under each measured value of ``m``
    (:mod:`mlsysim.physics.serving_floors`, ``strict_*``): what a measurement can never beat."""
    a, mod = m.accelerator, m.model
    b = PRECISION_BYTES[m.weight_precision]
    m_token = kv_bytes_per_token(mod, PRECISION_BYTES[m.kv_precision])
    bw, peak = a.memory.bandwidth, a.compute.peak(m.weight_precision)
    n_p, e = strict_params(mod)
    common = dict(params=n_p, embedding_params=e, bytes_per_param=b, kv_bytes_per_token=m_token, layers=mod.layers,
                  width=mod.hidden_dim, bandwidth=bw, peak=peak, accelerators=m.count,
                  input_tokens=m.input_tokens, output_tokens=m.output_tokens)
    out = {}
    for metric in m.values:
        if metric == "itl":
            out[metric] = strict_decode_floor(n_p, e, b, m_token, bw, peak, m.count, m.input_tokens, m.output_tokens)
        elif metric == "ttft":
            out[metric] = strict_prefill_floor(n_p, e, b, mod.layers, mod.hidden_dim, bw, peak, m.count,
                                               m.input_tokens)
        elif metric == "request_latency":
            out[metric] = strict_batch_time_floor(**common, batch=m.streams)
        else:
            out[metric] = strict_throughput_ceiling(**common, batch=m.streams)
    return out


def compare(m: Measurement) -> list[Comparison]:
    """Each measured value of ``m`` with its floor, strict bound and achieved fraction, in :data:`METRIC_ORDER`
    (computed once per process for each measurement: :data:`_COMPARED`)."""
    hit = _COMPARED.get(id(m))
    if hit is None or hit[0] is not m:
        hit = (m, tuple(_comparisons(m)))
        _COMPARED[id(m)] = hit
    return list(hit[1])


def _comparisons(m: Measurement) -> list[Comparison]:
    fl, st = floors(m), strict_floors(m)
    rows = []
    for metric in METRIC_ORDER:
        if metric not in m.values:
            continue
        unit = METRICS[metric][1]
        meas, floor = m.values[metric].to(unit).magnitude, fl[metric].to(unit).magnitude
        strict = st[metric].to(unit).magnitude
        achieved = floor / meas if METRICS[metric][0] == "time" else meas / floor
        rows.append(Comparison(m.key, metric, meas, floor, achieved, strict, m.published.get(metric, "")))
    return rows


def calibrate(measurements: Mapping[str, Measurement] | None = None, *, accelerator: str | None = None,
              model: str | None = None) -> list[Comparison]:
    """Every comparison, optionally only for one registry accelerator and/or model (names as in the registry)."""
    ms = MEASUREMENTS if measurements is None else measurements
    return [c for m in ms.values() if (accelerator is None or m.accelerator.name == accelerator)
            and (model is None or m.model.name == model) for c in compare(m)]


#: the comparisons of each measurement, computed once per process (a Measurement is frozen and its
#: floors depend only on it and the registry, which does not change while the process runs)
_COMPARED: dict[int, tuple] = {}


def _show(metric: str, x: float) -> str:
    return f"{x * 1e3:,.2f} ms" if METRICS[metric][0] == "time" else f"{x:,.1f} token/s"


def check_floors(comparisons, where: str = "") -> None:
    """The guard: no measurement may beat its strict lower bound (the printed floor less its margin).
    Raises :class:`GuardError` naming the first that does. A measurement between the strict bound and
    the printed floor is possible (the floor counts a few percent of avoidable work) and is reported as
    an achieved fraction above one by :func:`check_fractions`, not as impossible."""
    for c in comparisons:
        time = c.kind == "time"
        beats = c.measured < c.bound if time else c.measured > c.bound
        what, strict, side = ("floor", "lower", "under") if time else ("ceiling", "upper", "over")
        check(not beats,
              f"{where or FILE}: [{c.entry}] {c.metric}: measured {_show(c.metric, c.measured)} beats even the strict "
              f"{strict} bound {_show(c.metric, c.bound)} {side} its {what} {_show(c.metric, c.floor)} (its {what} "
              f"without the {c.margin:.1%} margin of the embedding lookup, the output projection at every prompt "
              f"position and the rounded parameter count), which is physically impossible: the registry entry or "
              f"the physics (mlsysim.physics.serving_floors) is wrong")


def check_fractions(comparisons, where: str = "") -> None:
    """The book's claim that every server stays above its printed floor: every achieved fraction below one."""
    for c in comparisons:
        check(c.achieved <= 1,
              f"{where or FILE}: [{c.entry}] {c.metric}: measured {_show(c.metric, c.measured)} is within the "
              f"{c.margin:.1%} margin of its printed floor {_show(c.metric, c.floor)} (achieved fraction "
              f"{c.achieved:.3f} > 1): possible, but the appendix says every server stays above its floor")


def setup_label(m: Measurement) -> str:
    """'2 × H100, fp8, TP 2' (parallelism left out when the source does not state it)."""
    par = []
    if m.tensor_parallel is not None:
        par.append(f"TP {m.tensor_parallel}")
    if m.pipeline_parallel not in (None, 1):
        par.append(f"PP {m.pipeline_parallel}")
    return ", ".join([f"{m.count} × {m.accelerator.name}", m.weight_precision] + par)


def load_label(m: Measurement, lang: str = "en") -> str:
    """'c = 1', 'B = 256', '≤ 3,200', or 'max' (满负载) for an unbounded maximum-load run."""
    if m.load == "unbounded" or m.streams is None:
        return TABLE_TEXT[lang]["max_load"]
    return {"concurrency": f"c = {m.streams:,}", "batch": f"B = {m.streams:,}", "max_seqs": f"≤ {m.streams:,}"}[m.load]


# ───────────────────────────── the table (book, CLI) and the summary the prose quotes ─────────────────────────────

#: column headers and metric names in each book language
TABLE_TEXT = {
    "en": {"headers": ["Source", "Setup", "Model", "Load", "In / out", "Metric", "Measured", "Floor", "Achieved"],
           "metrics": {"itl": "ITL", "ttft": "TTFT", "request_latency": "request latency",
                       "output_throughput": "throughput"},
           "ceiling": "(ceiling)", "max_load": "max", "percent": "{} %",
           "legend_floor": "{metric} floor: {formula}  ({function})",
           "legend_ceiling": "{metric} ceiling: {formula}  ({function})",
           "units": {"ms": "ms", "s": "s", "tok/s": "tok/s"}},
    "zh": {"headers": ["来源", "配置", "模型", "负载", "输入 / 输出", "指标", "实测", "下限", "达成率"],
           "metrics": {"itl": "词元间延迟", "ttft": "首词元时间", "request_latency": "请求延迟",
                       "output_throughput": "输出吞吐量"},
           "ceiling": "（上限）", "max_load": "满负载", "percent": "{}%",
           "legend_floor": "{metric}下限：{formula}（{function}）",
           "legend_ceiling": "{metric}上限：{formula}（{function}）",
           "units": {"ms": "ms", "s": "s", "tok/s": "词元/秒"}},
}


def _fmt_value(metric: str, x: float, lang: str = "en") -> str:
    """One of our floors or ceilings (computed, so rounded by us)."""
    u = TABLE_TEXT[lang]["units"]
    if METRICS[metric][0] == "rate":
        return f"{x:,.0f} {u['tok/s']}" if x >= 100 else f"{x:,.1f} {u['tok/s']}"
    return f"{x:,.2f} {u['s']}" if x >= 1 else f"{x * 1e3:,.1f} {u['ms']}"


#: published units and how the table labels them
_PUBLISHED_UNITS = {"ms": "ms", "s": "s", "second": "s", "token/s": "tok/s", "tokens/s": "tok/s", "tok/s": "tok/s"}


def published_digits(raw: str) -> tuple[str, str]:
    """(number, unit) of a published quantity string, the number exactly as published: "18.58 ms" ->
    ("18.58", "ms"), "13818.7 token/s" -> ("13818.7", "token/s")."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(\S.*?)\s*", raw)
    if not m:
        raise ValueError(f"not a published quantity: {raw!r}")
    return m.group(1), m.group(2)


def fmt_published(raw: str, lang: str = "en") -> str:
    """A measured value as published: the source's digits (thousands separated), its unit labelled as
    the table labels units. "18.58 ms" stays "18.58 ms"; "88605.32 ms" prints "88,605.32 ms"."""
    num, unit = published_digits(raw)
    if unit not in _PUBLISHED_UNITS:
        raise ValueError(f"unit {unit!r} of {raw!r} has no table label; add it to _PUBLISHED_UNITS")
    whole, _, frac = num.partition(".")
    shown = f"{int(whole):,}" + (f".{frac}" if frac else "")
    return f"{shown} {TABLE_TEXT[lang]['units'][_PUBLISHED_UNITS[unit]]}"


def _fmt_percent(x: float, lang: str = "en") -> str:
    """Achieved fraction in percent: whole percent from 10 %, one decimal below (never a bare '0 %'); the
    book's percent style per language ("57 %" in English, "57%" in Chinese)."""
    v = f"{x * 100:.0f}" if x >= 0.1 else f"{x * 100:.1f}" if x >= 0.001 else f"{x * 100:.2g}"
    return TABLE_TEXT[lang]["percent"].format(v)


def table_rows(measurements: Mapping[str, Measurement] | None = None, lang: str = "en", *,
               accelerator: str | None = None, model: str | None = None, cite: bool = True) -> list[list[str]]:
    """One row per measured value: source, setup, model, load, lengths, metric, measured, floor (the
    ceiling for throughput, marked), achieved percent. Entry columns are filled on an entry's first row."""
    ms = MEASUREMENTS if measurements is None else measurements
    text = TABLE_TEXT[lang]
    rows = []
    for m in ms.values():
        if (accelerator and m.accelerator.name != accelerator) or (model and m.model.name != model):
            continue
        for i, c in enumerate(compare(m)):
            head = ([f"[@{m.source.cite}]" if cite and m.source.cite else m.source.key, setup_label(m), m.model.display_name,
                     load_label(m, lang), f"{m.input_tokens:,} / {m.output_tokens:,}"] if i == 0 else [""] * 5)
            sep = " " if lang == "en" else ""
            floor = _fmt_value(c.metric, c.floor, lang) + ("" if c.kind == "time" else f"{sep}{text['ceiling']}")
            measured = fmt_published(c.published, lang) if c.published else _fmt_value(c.metric, c.measured, lang)
            rows.append(head + [text["metrics"][c.metric], measured, floor, _fmt_percent(c.achieved, lang)])
    return rows


#: what pandoc's markdown reads as markup in a table cell (registry text is text: escaped, never markup)
_MARKUP = re.compile(r"([\\`*_{}\[\]<>$^~@&|#])")
#: a citation the table may print as one: a plain references.bib key
_CITATION = re.compile(r"^\[@[A-Za-z0-9_][\w:.#%+?/-]*\]$")


def _cell_markdown(text: str) -> str:
    """A table cell's text as markdown: a ``[@key]`` citation as it is, anything else shown as written."""
    if _CITATION.match(text):
        return text
    return _MARKUP.sub(r"\\\1", " ".join(text.split()) if "\n" in text else text)


def table_markdown(measurements=None, lang: str = "en", **kw) -> str:
    """The rows as a pipe table (the appendix prints it; the same columns in both languages)."""
    head = TABLE_TEXT[lang]["headers"]
    lines = ["| " + " | ".join(head) + " |", "|:--|:--|:--|:--|--:|:--|--:|--:|--:|"]
    for r in table_rows(measurements, lang, **kw):
        lines.append("| " + " | ".join(_cell_markdown(c) for c in r) + " |")
    return "\n".join(lines)


def floor_legend(metrics, lang: str = "en") -> list[str]:
    """One line per metric: what its floor (or ceiling) is, the declared equation of the physics function
    that computes it (``FLOOR_FUNCTIONS``) and the function's name."""
    text = TABLE_TEXT[lang]
    lines = []
    for metric in METRIC_ORDER:
        if metric not in metrics:
            continue
        fn = FLOOR_FUNCTIONS[metric]
        eq = fn.equation
        what = text["legend_ceiling" if METRICS[metric][0] == "rate" else "legend_floor"]
        lines.append(what.format(metric=text["metrics"][metric], formula=eq.formula, function=fn.__name__))
    return lines


def table_text(measurements=None, lang: str = "en", **kw) -> str:
    """The same rows as aligned plain text, then a blank line and the equation of each floor shown
    (:func:`floor_legend`) (``python -m mlsysim calibrate``)."""
    body = table_rows(measurements, lang, cite=False, **kw)
    rows = [TABLE_TEXT[lang]["headers"]] + body
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    right = {4, 6, 7, 8}
    table = "\n".join("  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
                      .rstrip() for r in rows)
    names = {v: k for k, v in TABLE_TEXT[lang]["metrics"].items()}
    legend = floor_legend({names[r[5]] for r in body}, lang)
    return table + ("\n\n" + "\n".join(legend) if legend else "")


@dataclass(frozen=True)
class Summary:
    """What the appendix's prose quotes, over the reference accelerator's measurements when the registry
    holds, for it, a throughput at one stream and one at a stated concurrency or batch above one; else
    over every measurement (``on_accelerator`` False)."""

    accelerator: str
    on_accelerator: bool  # False: no (or not enough) measurements for it; the basis is the whole registry
    n_entries: int
    n_publishers: int
    n_accelerators: int
    n_basis: int
    decode_c1: tuple[float, float]  # achieved fraction of the decode floor at one stream (itl, request latency)
    ttft_c1: tuple[float, float]
    streams_max: int  # the largest stated concurrency or batch in the basis
    itl_at_max: float | None  # single-stream decode floor / ITL at that concurrency
    throughput_at_max: float  # achieved fraction of the throughput ceiling there
    throughput_c1: float  # the same at one stream
    overall: tuple[float, float]  # every non-TTFT fraction of the whole registry


def summary(accelerator: str, measurements: Mapping[str, Measurement] | None = None) -> Summary:
    ms = MEASUREMENTS if measurements is None else measurements
    every = list(ms.values())
    own = [m for m in every if m.accelerator.name == accelerator]

    def usable(group):
        return any(m.latency_bound and "output_throughput" in m.values for m in group) and any(
            m.load in ("concurrency", "batch") and m.streams > 1 and "output_throughput" in m.values for m in group)

    basis = own if usable(own) else every
    comps = {m.key: {c.metric: c.achieved for c in compare(m)} for m in basis}
    c1 = [m for m in basis if m.latency_bound]
    dec = [v for m in c1 for k, v in comps[m.key].items() if k in ("itl", "request_latency")]
    ttft = [comps[m.key]["ttft"] for m in c1 if "ttft" in comps[m.key]] or [math.nan]
    stated = [m for m in basis if m.load in ("concurrency", "batch") and "output_throughput" in m.values]
    s_max = max(m.streams for m in stated)
    at_max = [m for m in stated if m.streams == s_max]
    thr_max = max(comps[m.key]["output_throughput"] for m in at_max)
    itl_max = [comps[m.key]["itl"] for m in at_max if "itl" in comps[m.key]]
    thr_c1 = [comps[m.key]["output_throughput"] for m in c1 if "output_throughput" in comps[m.key]]
    allc = [c.achieved for c in calibrate(ms) if c.metric != "ttft"]
    return Summary(accelerator=accelerator, on_accelerator=basis is own, n_entries=len(every),
                   n_publishers=len({m.source.publisher for m in every}),
                   n_accelerators=len({m.accelerator.name for m in every}), n_basis=len(basis),
                   decode_c1=(min(dec), max(dec)), ttft_c1=(min(ttft), max(ttft)), streams_max=s_max,
                   itl_at_max=min(itl_max) if itl_max else None, throughput_at_max=thr_max,
                   throughput_c1=max(thr_c1), overall=(min(allc), max(allc)))


MEASUREMENTS: dict[str, Measurement] = load_measurements()
check_floors(calibrate(MEASUREMENTS), where=str(DATA_DIR / FILE))
check_fractions(calibrate(MEASUREMENTS), where=str(DATA_DIR / FILE))


def get(key: str) -> Measurement:
    try:
        return MEASUREMENTS[key]
    except KeyError:
        raise UnknownEntryError(f"unknown measurement {key!r}; available: {', '.join(MEASUREMENTS)}") from None


__all__ = ["Measurement", "Comparison", "MEASUREMENTS", "METRICS", "METRIC_ORDER", "LOADS", "load_measurements",
           "floors", "strict_floors", "strict_params", "compare", "calibrate", "check_floors", "check_fractions",
           "setup_label", "load_label", "get", "table_rows", "fmt_published", "published_digits",
           "table_markdown", "table_text", "TABLE_TEXT", "Summary", "summary",
           "mean_decode_context"]
