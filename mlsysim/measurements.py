"""Published serving measurements (``data/measurements.toml``) and how close each comes to its floor.

Loading follows the registry's rules (:mod:`mlsysim.registry`): every measured value is a quantity
string whose unit must convert to the metric's dimension, finite and positive; every entry names a
source defined in ``sources.toml``, a registry accelerator and model, and a precision the accelerator
publishes. A violation raises :class:`RegistryError` naming file, entry and field, when this module is
imported.

Then the guard: for every measured value, the floor the physics puts under it
(:mod:`mlsysim.physics.serving_floors`). A measurement that beats its floor is physically impossible,
so the registry or the physics is wrong, and importing this module raises :class:`GuardError` naming
the entry, the metric, the floor and the measured value.

Achieved fraction: floor / measured for a time (inter-token latency, time to first token, request
latency), measured / ceiling for a throughput; 1 would be the floor itself.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RegistryError, UnknownEntryError, UnknownPrecisionError
from .guards import check
from .physics.serving_floors import (mean_decode_context, throughput_ceiling, tp_decode_floor, tp_prefill_floor,
                                     batch_time_floor)
from .physics.kvcache import kv_bytes_per_token
from .registry import DATA_DIR, REGISTRY, Accelerator, Model, Registry, Source, _Loader, _require
from .units import PRECISION_BYTES, Q_

FILE = "measurements.toml"

#: measured metrics: field -> (kind of quantity, SI unit, short label)
METRICS = {
    "itl": ("time", "second", "inter-token latency"),
    "ttft": ("time", "second", "time to first token"),
    "request_latency": ("time", "second", "request latency"),
    "output_throughput": ("rate", "1/second", "output throughput"),
}
#: the order rows are shown in
METRIC_ORDER = ("itl", "request_latency", "ttft", "output_throughput")
LOADS = ("concurrency", "batch", "max_seqs", "unbounded")
#: keys and values the source does not describe: the narrowest format the stacks offer (a floor stays a floor)
DEFAULT_KV_PRECISION = "fp8"

_FIELDS = ("source", "table", "accelerator", "count", "model", "weight_precision", "load", "input_tokens",
           "output_tokens", "software", "software_version")
_INTS = ("count", "tensor_parallel", "pipeline_parallel", "streams", "input_tokens", "output_tokens")
_KNOWN = set(_FIELDS) | set(_INTS) | set(METRICS) | {"kv_precision", "note"}


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

    @property
    def kind(self) -> str:
        return METRICS[self.metric][0]


def _int(ld, key, e, f):
    v = e[f]
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise RegistryError(f"{ld.where(FILE, key, f)}: expected a positive integer, got {v!r}")
    return v


def load_measurements(data_dir: Path = DATA_DIR, registry: Registry = REGISTRY) -> dict[str, Measurement]:
    """Read and validate ``measurements.toml`` against ``registry`` (same error style as the registry)."""
    ld = _Loader(data_dir)
    ld.sources = dict(registry.sources) if Path(data_dir) == Path(DATA_DIR) else {}
    if not ld.sources:
        for k, s in ld.read("sources.toml").items():
            _require(ld, "sources.toml", k, s, ("title", "publisher", "url", "accessed"))
            ld.sources[k] = Source(key=k, **s)
    out: dict[str, Measurement] = {}
    for key, e in ld.read(FILE).items():
        if not isinstance(e, dict):
            raise RegistryError(f"{ld.dir / FILE}: [{key}] must be a table of fields")
        _require(ld, FILE, key, e, _FIELDS)
        unknown = sorted(set(e) - _KNOWN)
        if unknown:
            raise RegistryError(f"{ld.where(FILE, key, unknown[0])}: unknown field; known fields: "
                                f"{', '.join(sorted(_KNOWN))}")
        src = ld.source(FILE, key, "source", e["source"])
        if e["accelerator"] not in registry.accelerators:
            raise RegistryError(f"{ld.where(FILE, key, 'accelerator')}: unknown accelerator {e['accelerator']!r} "
                                f"(known: {', '.join(registry.accelerators)})")
        if e["model"] not in registry.models:
            raise RegistryError(f"{ld.where(FILE, key, 'model')}: unknown model {e['model']!r} "
                                f"(known: {', '.join(registry.models)}); add it to models.toml with its source")
        accel, model = registry.accelerators[e["accelerator"]], registry.models[e["model"]]
        ints = {f: _int(ld, key, e, f) for f in _INTS if f in e}
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
        for metric, (kind, unit, _) in METRICS.items():
            if metric not in e:
                continue
            q = ld.quantity(FILE, key, metric, e[metric], kind)
            if not math.isfinite(q.magnitude):
                raise RegistryError(f"{ld.where(FILE, key, metric)}: {e[metric]!r} is not finite")
            values[metric] = q.to(unit)
        if not values:
            raise RegistryError(f"{ld.where(FILE, key, 'values')}: no measured value; give at least one of "
                                f"{', '.join(METRICS)}")
        for f in ("table", "software", "software_version"):
            if not isinstance(e[f], str) or not e[f].strip():
                raise RegistryError(f"{ld.where(FILE, key, f)}: expected non-empty text, got {e[f]!r}")
        out[key] = Measurement(
            key=key, source=src, table=e["table"], accelerator=accel, count=ints["count"], model=model,
            weight_precision=wp, kv_precision=kvp, kv_precision_stated="kv_precision" in e,
            tensor_parallel=tp, pipeline_parallel=pp, load=load, streams=ints.get("streams"),
            input_tokens=ints["input_tokens"], output_tokens=ints["output_tokens"], software=e["software"],
            software_version=e["software_version"], values=MappingProxyType(values), note=e.get("note", ""))
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
        if metric == "itl":
            out[metric] = tp_decode_floor(n_p, b, m_token, bw, peak, m.count, m.input_tokens, m.output_tokens)
        elif metric == "ttft":
            out[metric] = tp_prefill_floor(n_p, b, mod.layers, mod.hidden_dim, bw, peak, m.count, m.input_tokens)
        elif metric == "request_latency":
            out[metric] = batch_time_floor(**common, batch=m.streams)
        else:
            out[metric] = throughput_ceiling(**common, batch=m.streams)
    return out


def compare(m: Measurement) -> list[Comparison]:
    """Each measured value of ``m`` with its floor and achieved fraction, in :data:`METRIC_ORDER`."""
    fl = floors(m)
    rows = []
    for metric in METRIC_ORDER:
        if metric not in m.values:
            continue
        unit = METRICS[metric][1]
        meas, floor = m.values[metric].to(unit).magnitude, fl[metric].to(unit).magnitude
        achieved = floor / meas if METRICS[metric][0] == "time" else meas / floor
        rows.append(Comparison(m.key, metric, meas, floor, achieved))
    return rows


def calibrate(measurements: Mapping[str, Measurement] | None = None, *, accelerator: str | None = None,
              model: str | None = None) -> list[Comparison]:
    """Every comparison, optionally only for one registry accelerator and/or model (names as in the registry)."""
    ms = MEASUREMENTS if measurements is None else measurements
    return [c for m in ms.values() if (accelerator is None or m.accelerator.name == accelerator)
            and (model is None or m.model.name == model) for c in compare(m)]


def _show(metric: str, x: float) -> str:
    return f"{x * 1e3:,.2f} ms" if METRICS[metric][0] == "time" else f"{x:,.1f} token/s"


def check_floors(comparisons, where: str = "") -> None:
    """The guard: no measurement may beat its floor. Raises :class:`GuardError` naming the first that does."""
    for c in comparisons:
        beats = c.measured < c.floor if c.kind == "time" else c.measured > c.floor
        what = "floor" if c.kind == "time" else "ceiling"
        check(not beats and c.achieved <= 1,
              f"{where or FILE}: [{c.entry}] {c.metric}: measured {_show(c.metric, c.measured)} beats its {what} "
              f"{_show(c.metric, c.floor)}, which is physically impossible: the registry entry or the physics "
              f"(mlsysim.physics.serving_floors) is wrong")


def setup_label(m: Measurement) -> str:
    """'2 × H100, fp8, TP 2' (parallelism left out when the source does not state it)."""
    par = []
    if m.tensor_parallel is not None:
        par.append(f"TP {m.tensor_parallel}")
    if m.pipeline_parallel not in (None, 1):
        par.append(f"PP {m.pipeline_parallel}")
    return ", ".join([f"{m.count} × {m.accelerator.name}", m.weight_precision] + par)


def load_label(m: Measurement) -> str:
    """'c = 1', 'B = 256', '≤ 3,200', or 'max' for an unbounded maximum-load run."""
    return {"concurrency": f"c = {m.streams:,}", "batch": f"B = {m.streams:,}",
            "max_seqs": f"≤ {m.streams:,}" if m.streams else "max", "unbounded": "max"}[m.load]


MEASUREMENTS: dict[str, Measurement] = load_measurements()
check_floors(calibrate(MEASUREMENTS), where=str(DATA_DIR / FILE))


def get(key: str) -> Measurement:
    try:
        return MEASUREMENTS[key]
    except KeyError:
        raise UnknownEntryError(f"unknown measurement {key!r}; available: {', '.join(MEASUREMENTS)}") from None


__all__ = ["Measurement", "Comparison", "MEASUREMENTS", "METRICS", "METRIC_ORDER", "LOADS", "load_measurements",
           "floors", "compare", "calibrate", "check_floors", "setup_label", "load_label", "get",
           "mean_decode_context"]
