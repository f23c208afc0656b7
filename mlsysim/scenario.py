"""The appendix's reference hardware and scenario, or the reader's choice of them.

The appendix's cells LOAD the accelerator, model, node, weight precision and the scenario's inputs
(context length, key/value precision, batch) from :func:`reference_scenario` instead of naming
registry entries or typing numbers themselves; the lecture's cells LOAD theirs from
:func:`lecture_scenario`. By default that is the book's reference, :data:`REFERENCE` and
:data:`INPUTS` (``data/reference.toml``: an H100 in a DGX H100 serving Llama-3.1-70B with 8-bit
weights, 32,768-token trajectories, 16-bit keys and values). Code that computes a chapter for another
choice says so explicitly::

    with mlsysim.scenario.use({"accelerator": "B200", "model": "Llama3_3_70B"}):
        ...   # the cells' reference_scenario() is that choice here
    with mlsysim.scenario.use({"accelerator": "H100", "bandwidth": "6 TB/s", "context": 200000}):
        ...   # free inputs: the H100 with a 6 TB/s memory, 200k-token trajectories

A choice's free inputs (:data:`FREE`) are numbers in the units the page shows them (``6`` is 6 TB/s
for ``bandwidth``) or quantity strings (``"6 TB/s"``); each is validated here, and a bad one raises
:class:`InputError` with one line naming the input and its range. ``bandwidth``, ``peak`` and
``capacity`` replace the accelerator's own values (its node carries the changed accelerator), so cells
that read the accelerator from the scenario follow them without any change.

Where the chosen accelerator publishes no 8-bit rate, the nearest precision it does publish is used
(same bytes per value first, then the nearest wider one), and :attr:`Scenario.precision_note` says so.
:func:`reference` is always the book's reference, whatever is in use: values that describe the
reference itself (how the chapters word it) are computed from it.
"""
from __future__ import annotations

import dataclasses
import math
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

from . import choice_space
from .errors import MlsysimError, RegistryError, UnknownEntryError
from .registry import (DATA_DIR, SCHEMAS, Accelerator, Compute, Hardware, Memory, Model, Models, Node, Systems,
                       read_checked)
from .units import PRECISION_BYTES, Q_


class InputError(MlsysimError, ValueError):
    """A free input outside its range (one line naming the input, its unit and its range)."""


class NotOfferedError(UnknownEntryError):
    """A registry model the appendix's equations do not cover (:mod:`mlsysim.choice_space`): one line saying why."""


def _load() -> tuple[Mapping[str, str], Mapping[str, Any], Mapping[str, Any]]:
    """``reference.toml`` of the registry's data folder, checked like every registry file; its names must
    be registry entries and its precision one the registry knows (a RegistryError naming the field). Its
    ``[inputs]`` and ``[lecture]`` tables are checked once :data:`FREE` is declared (:func:`_check_inputs`)."""
    data = read_checked("reference.toml", SCHEMAS["reference"])
    where = f"{DATA_DIR / 'reference.toml'}"
    for name, table in (("accelerator", Hardware.Cloud), ("model", Models.Language)):
        if data[name] not in table.names():
            raise RegistryError(f"{where}: {name}: {data[name]!r} is not in the registry "
                                f"(known: {', '.join(table.names())})")
    for name in ("weight_precision", "pool_weight_precision"):
        if data[name] not in PRECISION_BYTES:
            raise RegistryError(f"{where}: {name}: unknown precision {data[name]!r}; use one of {', '.join(PRECISION_BYTES)}")
    choices = data["choices"]
    for k in choices:
        if k != "weight_precisions":
            raise RegistryError(f"{where}: choices.{k}: unknown field (known: choices.weight_precisions)")
    wanted = choices.get("weight_precisions")
    if not isinstance(wanted, list) or not wanted or any(p not in PRECISION_BYTES for p in wanted) \
            or len(set(wanted)) != len(wanted):
        raise RegistryError(f"{where}: choices.weight_precisions: expected a list of distinct precisions from "
                            f"{', '.join(PRECISION_BYTES)}, got {wanted!r}")
    if data["weight_precision"] not in wanted:
        raise RegistryError(f"{where}: choices.weight_precisions: {wanted!r} must hold the reference's "
                            f"weight_precision {data['weight_precision']!r}")
    if data["model"] not in choice_space.read(DATA_DIR).models:
        raise RegistryError(f"{where}: model: {data['model']!r} is not offered to readers (mlsysim/choice_space.py)")
    ref = MappingProxyType({"accelerator": data["accelerator"], "model": data["model"],
                            "precision": data["weight_precision"], "pool_precision": data["pool_weight_precision"]})
    return ref, MappingProxyType(dict(data.get("inputs", {}))), MappingProxyType(dict(data.get("lecture", {})))


#: the book's reference choice (``data/reference.toml``): accelerator, model and weight precision
#: :data:`INPUTS`: the appendix's scenario inputs; :data:`LECTURE`: the lecture's
REFERENCE, INPUTS, LECTURE = _load()
#: the reader's choice space (:mod:`mlsysim.choice_space`: accelerators, offered models, weight precisions)
SPACE = choice_space.read(DATA_DIR)
#: when a precision is not published and none of the same width is: try these, nearest first
FALLBACK_ORDER = ("fp8", "int8", "bf16", "fp16", "fp4", "tf32", "fp32", "fp64")


@lru_cache(maxsize=None)
def _stated(chapter: str, key: str, unit: str, quantity: bool):
    """A reference input as ``data/reference.toml`` states it, in ``unit`` (parsed once: the tables are read-only)."""
    v = (INPUTS if chapter == "appendix" else LECTURE)[key]
    return Q_(v).to(unit).magnitude if quantity else v


@dataclass(frozen=True)
class Free:
    """One free input: its key in a choice (and in the page's address), the unit the page shows it in,
    what it is (for messages), its kind (``quantity``, ``tokens``, ``count``, ``precision``), which
    chapter reads it (``appendix`` or ``lecture``), and the range every page, live mode and the CLI accept
    (``low`` to ``high`` in ``unit``; ``allowed``: the only values a count or precision may take). The
    physics computes for every value in range (tests/test_every_reader.py draws them)."""
    key: str
    unit: str
    what: str
    kind: str
    chapter: str
    label: Mapping[str, str] = field(default_factory=dict)     # the page's label, {en, zh}
    low: float = 0.0
    high: float = math.inf
    allowed: tuple = ()

    def reference(self, sc_accel: Accelerator | None = None, precision: str | None = None):
        """The reference value in the page's unit (a number, or a precision name)."""
        if self.key == "bandwidth":
            return sc_accel.memory.bandwidth.to(self.unit).magnitude
        if self.key == "peak":
            return sc_accel.compute.peak(precision).to(self.unit).magnitude
        if self.key == "capacity":   # as the vendor labels it: 80 GiB is "80 GB" (see _capacity)
            q = sc_accel.memory.capacity
            return q.magnitude if str(q.units) in ("gibibyte", "gigabyte") else q.to("GB").magnitude
        return _stated(self.chapter, self.key.removeprefix("lecture_"), self.unit, self.kind == "quantity")

    @property
    def range_text(self) -> str:
        """The accepted range as a message says it ("from 0.01 to 100 TB/s", "one of 1, 2, 4, 8, 16, 32")."""
        if self.allowed:
            return "one of " + ", ".join(str(a) for a in self.allowed)
        unit = f" {self.unit}" if self.unit else ""
        def plain(x: float) -> str:
            return f"{int(x):,}" if float(x).is_integer() else f"{x:,g}"
        return f"from {plain(self.low)} to {plain(self.high)}{unit}"

    def range_why(self, value: Any) -> dict[str, Any]:
        """What a value outside the range means, for a page to word in its language (:attr:`MlsysimError.why`)."""
        got = value if isinstance(value, str) else repr(value)
        if self.allowed:
            return dict(code="not_one_of", key=self.key, allowed=", ".join(str(a) for a in self.allowed), got=got)
        def plain(x: float) -> str:
            return f"{int(x):,}" if float(x).is_integer() else f"{x:,g}"
        return dict(code="out_of_range", key=self.key, low=plain(self.low), high=plain(self.high), unit=self.unit,
                    got=got)


def _f(key, unit, what, kind, chapter, en, zh, low=0.0, high=math.inf, allowed=()) -> Free:
    return Free(key, unit, what, kind, chapter, MappingProxyType({"en": en, "zh": zh}), low, high, tuple(allowed))


#: the key/value precisions a reader may choose (stored keys and values: 4 to 32 bits)
KV_PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "fp4", "int4")
#: the key-value head counts of the lecture's 32-query-head model: the divisors of 32 (MQA 1 … MHA 32)
LECTURE_KV_HEADS = (1, 2, 4, 8, 16, 32)

#: every free input a choice may set, in the order the page offers them, with the range it accepts
FREE: Mapping[str, Free] = MappingProxyType({f.key: f for f in (
    _f("bandwidth", "TB/s", "the accelerator's memory bandwidth", "quantity", "appendix", "Memory bandwidth β", "内存带宽 β",
       0.01, 100),
    _f("peak", "Tflop/s", "the accelerator's dense peak rate at the weight precision", "quantity", "appendix",
       "Peak rate π", "峰值算力 π", 1, 100_000),
    _f("capacity", "GB", "the accelerator's memory capacity (the vendor's GB label)", "quantity", "appendix",
       "Memory per accelerator", "每个加速器的内存", 1, 10_000),
    _f("kv_precision", "", "the precision keys and values are stored at", "precision", "appendix",
       "Key/value precision", "键值精度", allowed=KV_PRECISIONS),
    _f("context", "tokens", "the context length of a long agent trajectory (the model's window caps it)", "tokens",
       "appendix", "Context length", "上下文长度", 1, 10_000_000),
    _f("batch", "streams", "the streams decoding on one server", "count", "appendix", "Batch", "批大小", 1, 100_000),
    _f("lecture_kv_heads", "heads", "the lecture model's key-value heads", "count", "lecture",
       "Key-value heads", "键值头数", allowed=LECTURE_KV_HEADS),
    _f("lecture_context", "tokens", "the standing session's context length", "tokens", "lecture",
       "Session context", "会话上下文", 1, 10_000_000),
    _f("lecture_kv_budget", "GB", "the card's key/value budget", "quantity", "lecture", "KV budget", "KV 预算",
       0.1, 10_000),
    _f("link_bandwidth", "GB/s", "the host link's bandwidth (one copy path: swap-outs and swap-ins share it)", "quantity", "lecture",
       "Host link bandwidth", "主机链路带宽", 0.1, 10_000),
    _f("prefill_rate", "Tflop/s", "the effective prefill rate", "quantity", "lecture", "Prefill rate", "预填充速率",
       1, 100_000),
    _f("t_model", "s", "the task's model time (all steps)", "quantity", "lecture", "Model time", "模型时间", 1, 100_000),
    _f("t_tool", "s", "the task's tool time (all steps)", "quantity", "lecture", "Tool time", "工具时间", 1, 100_000),
)})
#: the keys a choice may name
CHOICE_KEYS = ("accelerator", "model", "precision", *FREE)
#: the free inputs that replace the accelerator's own values
HARDWARE_INPUTS = ("bandwidth", "peak", "capacity")


def _number(f: Free, value: Any) -> float:
    """``value`` (a number in ``f.unit``, or a quantity string) as a finite number in ``f.unit``."""
    hint = f"{f.key}: expected {f.what}" + (f" in {f.unit}" if f.unit else "")
    if isinstance(value, bool):
        raise InputError(f"{hint}, got {value!r}", code="not_a_number", key=f.key, got=value)
    if isinstance(value, (int, float)):
        x = float(value)
    else:
        text = str(value).strip()
        try:
            x = float(text)
        except ValueError:
            if f.kind != "quantity":
                raise InputError(f"{hint}, a whole number, got {text!r}", code="not_a_number", key=f.key,
                                 got=text) from None
            try:
                q = Q_(text)
                x = float(q.to(f.unit).magnitude)
            except Exception:  # noqa: BLE001 - pint's many parse and dimension errors: one message
                raise InputError(f"{hint} (a number, or a quantity such as '6 {f.unit}'), got {text!r}",
                                 code="not_a_quantity", key=f.key, unit=f.unit, got=text) from None
    if not math.isfinite(x) or not f.low <= x <= f.high:
        raise InputError(f"{hint}, {f.range_text}, got {value!r}", **f.range_why(value))
    return x


def _three(x: float, up: bool = False) -> str:
    """``x`` (> 0) to three significant digits in plain digits ("2.15", "1,310"); ``up``: rounded up, never below."""
    e = math.floor(math.log10(x))
    step = 10.0 ** (e - 2)
    y = (math.ceil(x / step - 1e-9) if up else round(x / step)) * step
    return f"{y:,.{max(0, 2 - e)}f}"


def _whole(f: Free, value: Any) -> int:
    if f.allowed:
        try:
            x = float(str(value).strip())
        except ValueError:
            x = math.nan
        if x not in f.allowed:
            raise InputError(f"{f.key}: expected {f.what}, {f.range_text}, got {value!r}", **f.range_why(value))
        return int(x)
    x = _number(f, value)
    if x != int(x):
        raise InputError(f"{f.key}: expected {f.what}, a whole number of {f.unit}, got {value!r}",
                         code="not_whole", key=f.key, unit=f.unit, got=value)
    return int(x)


def _precision_name(key: str, value: Any, what: str) -> str:
    p = str(value).strip()
    allowed = FREE[key].allowed if key in FREE else tuple(PRECISION_BYTES)
    if p not in allowed:
        raise InputError(f"{key}: unknown precision {p!r} for {what}; use one of {', '.join(allowed)}",
                         code="not_one_of", key=key, allowed=", ".join(allowed), got=p)
    return p


def _check_inputs() -> None:
    """``[inputs]`` and ``[lecture]`` of ``reference.toml``: every free input that is not the accelerator's
    own (bandwidth, peak, capacity) stated once, in range, and nothing else (a RegistryError naming it)."""
    where = DATA_DIR / "reference.toml"
    for table_name, table, chapter in (("inputs", INPUTS, "appendix"), ("lecture", LECTURE, "lecture")):
        wanted = {f.key.removeprefix("lecture_"): f for f in FREE.values()
                  if f.chapter == chapter and f.key not in ("bandwidth", "peak", "capacity")}
        for key in table:
            if key == "base_model" and table_name == "lecture":
                if table[key] not in Models.Language.names():
                    raise RegistryError(f"{where}: lecture.base_model: {table[key]!r} is not in the registry")
                continue
            if key not in wanted:
                raise RegistryError(f"{where}: {table_name}.{key}: unknown field "
                                    f"(known: {', '.join(table_name + '.' + k for k in wanted)})")
        for key, f in wanted.items():
            if key not in table:
                raise RegistryError(f"{where}: {table_name}.{key}: missing field ({f.what})")
            try:
                if f.kind == "precision":
                    _precision_name(f.key, table[key], f.what)
                elif f.kind == "quantity":
                    if not isinstance(table[key], str):
                        raise InputError(f"expected a quantity in quotes such as '1 {f.unit}', got {table[key]!r}",
                                         code="not_a_quantity", key=f.key, unit=f.unit, got=repr(table[key]))
                    _number(f, table[key])
                else:
                    if not isinstance(table[key], int) or isinstance(table[key], bool):
                        raise InputError(f"expected a whole number, got {table[key]!r}", code="not_whole", key=f.key,
                                         got=repr(table[key]))
                    _whole(f, table[key])
            except InputError as e:
                raise RegistryError(f"{where}: {table_name}.{key}: {str(e).removeprefix(f.key + ': ')}") from None


_check_inputs()


@dataclass(frozen=True)
class LectureInputs:
    """The lecture's scenario (``[lecture]`` of ``data/reference.toml``, or the reader's values)."""
    kv_heads: int
    context: int
    kv_budget: Any          # bytes
    link_bandwidth: Any     # byte/s, the one copy path swap-outs and swap-ins share
    prefill_rate: Any       # flop/s
    t_model: Any            # s
    t_tool: Any             # s
    model: Model | None = None   # the standing session's model: [lecture] base_model with these key-value heads


@dataclass(frozen=True)
class Scenario:
    accelerator: Accelerator
    model: Model
    node: Node | None
    weight_precision: str
    wanted_precision: str
    kv_precision: str = "bf16"
    context: int = 32_768
    batch: int = 64
    lecture: LectureInputs | None = None
    #: the free inputs the choice set, as given, by key (empty for a registry choice)
    free: Mapping[str, Any] = field(default_factory=dict)
    #: the context asked for, before the model's window capped it (:attr:`context` is the one computed with)
    context_wanted: int | None = None

    @property
    def kv_bytes(self):
        """Bytes per stored key/value element at :attr:`kv_precision` (a quantity)."""
        return PRECISION_BYTES[self.kv_precision]

    @property
    def is_reference(self) -> bool:
        """The book's reference, every input included."""
        return self.registry_reference and not self.free

    @property
    def registry_reference(self) -> bool:
        """The reference's accelerator, model and weight precision (whatever free inputs the choice sets)."""
        return (self.accelerator.name, self.model.name, self.weight_precision) == (
            REFERENCE["accelerator"], REFERENCE["model"], REFERENCE["precision"])

    @property
    def hardware_changed(self) -> bool:
        """True when the choice replaces the accelerator's own bandwidth, peak rate or capacity."""
        return any(k in self.free for k in HARDWARE_INPUTS)

    @property
    def pool_precision(self) -> str:
        """The precision the node's pool holds the weights at: for the reference's registry choice the one
        ``reference.toml`` declares (the seed's pool holds 16-bit weights, although its floors serve 8-bit
        ones); for every other choice the weight precision served."""
        return pool_precision_for(self.accelerator.name, self.model.name, self.weight_precision)

    @property
    def pool_weight_bytes(self):
        """Bytes per parameter the pool holds (a quantity): :attr:`pool_precision`'s."""
        return PRECISION_BYTES[self.pool_precision]

    @property
    def context_capped(self) -> bool:
        """True when the model's context window shortened the context asked for."""
        return self.context_wanted is not None and self.context_wanted > self.context

    @property
    def precision_note(self) -> str:
        if self.weight_precision == self.wanted_precision:
            return ""
        return (f"{self.accelerator.display_name} publishes no {self.wanted_precision} rate: "
                f"{self.weight_precision} is used")


def pool_precision_for(accelerator: str, model: str, precision: str) -> str:
    """The precision a node's pool holds the weights at for this registry choice (:attr:`Scenario.pool_precision`)."""
    if (accelerator, model, precision) == (REFERENCE["accelerator"], REFERENCE["model"], REFERENCE["precision"]):
        return REFERENCE["pool_precision"]
    return precision


def node_for(accel: Accelerator) -> Node | None:
    """The first registry node built from ``accel`` (DGX H100 for H100), or None."""
    return next((n for n in Systems.Nodes if n.accelerator.name == accel.name), None)


def nearest_precision(accel: Accelerator, want: str) -> str:
    """``want`` if ``accel`` publishes it; else one of the same width; else the first of FALLBACK_ORDER."""
    have = accel.precisions
    if want in have:
        return want
    same = [p for p in have if PRECISION_BYTES[p] == PRECISION_BYTES.get(want)]
    if same:
        return same[0]
    return next((p for p in FALLBACK_ORDER if p in have), have[0])


def _capacity(accel: Accelerator, gb: float):
    """A capacity typed as the vendor labels it: a whole number in the unit the accelerator's own capacity
    is published in (80 on an H100 is 80 GiB, labelled "80 GB"; 141 on an H200 is 141 GB); else decimal GB."""
    unit = str(accel.memory.capacity.units)
    if gb == int(gb) and unit in ("gibibyte", "gigabyte"):
        return Q_(int(gb), unit)
    return Q_(gb, "gigabyte")


def with_hardware(accel: Accelerator, precision: str, *, bandwidth=None, peak=None, capacity=None) -> Accelerator:
    """``accel`` with its memory bandwidth, dense peak at ``precision`` or memory capacity replaced
    (quantities; None keeps the registry's). The sparse figure of a replaced precision is dropped."""
    if bandwidth is None and peak is None and capacity is None:
        return accel
    mem = Memory(capacity if capacity is not None else accel.memory.capacity,
                 bandwidth if bandwidth is not None else accel.memory.bandwidth)
    comp = accel.compute
    if peak is not None:
        dense = dict(comp.precision_flops)
        dense[precision] = peak
        sparse = {k: v for k, v in comp.sparse_flops.items() if k != precision}
        comp = Compute(MappingProxyType(dense), MappingProxyType(sparse), comp.owner)
    return dataclasses.replace(accel, memory=mem, compute=comp)


def _lecture_inputs(free: Mapping[str, Any]) -> LectureInputs:
    def q(key: str, unit: str):
        f = FREE[key]
        return Q_(_number(f, free[key]) if key in free else f.reference(), f.unit).to(unit)
    heads = FREE["lecture_kv_heads"]
    kv_heads = _whole(heads, free["lecture_kv_heads"]) if "lecture_kv_heads" in free else heads.reference()
    ctx = FREE["lecture_context"]
    context = _whole(ctx, free["lecture_context"]) if "lecture_context" in free else ctx.reference()
    base = Models.Language.get(LECTURE.get("base_model", "Llama2_7B"))
    # the lecture's "7B GQA-8": the base geometry with these key-value heads, at its published parameter count
    model = base.replace(kv_heads=int(kv_heads), parameters=base.parameters)
    budget = q("lecture_kv_budget", "GB")
    session = Q_(2 * model.layers * model.kv_heads * model.head_dim * 2 * int(context), "byte")  # K = S k, 16-bit
    if budget < session:   # the lecture prices a card that holds its standing session
        gb = session.to("GB").magnitude
        have, each, least = f"{budget.to('GB').magnitude:,g}", _three(gb), _three(gb, up=True)
        raise InputError(f"lecture_kv_budget: {have} GB holds no standing session of {int(context):,} tokens "
                         f"({each} GB each); choose a budget of at least {least} GB or a shorter session context",
                         code="budget_too_small", key="lecture_kv_budget", budget=have, context=f"{int(context):,}",
                         each=each, least=least)
    return LectureInputs(kv_heads=int(kv_heads), context=int(context), kv_budget=budget,
                         link_bandwidth=q("link_bandwidth", "GB/s"), prefill_rate=q("prefill_rate", "flop/second"),
                         t_model=q("t_model", "second"), t_tool=q("t_tool", "second"), model=model)


def scenario(accelerator: str | None = None, model: str | None = None, precision: str | None = None,
             *, cap_context: bool = False, **free: Any) -> Scenario:
    """A scenario from registry names (the reference's where a name is not given) and free inputs.

    A ``context`` beyond the model's window is refused (a reader asked for it), unless ``cap_context``
    (a sweep of every model at one context, as the explorer is) caps it at the window as the book's own
    context is capped; ``Scenario.context_capped`` then says so."""
    unknown = sorted(set(free) - set(FREE))
    if unknown:
        raise UnknownEntryError(f"unknown input {', '.join(unknown)}; a choice may name {', '.join(CHOICE_KEYS)}")
    free = {k: v for k, v in free.items() if v is not None and str(v).strip() != ""}
    a = Hardware.Cloud.get(accelerator or REFERENCE["accelerator"])
    m = Models.Language.get(model or REFERENCE["model"])
    out_of_scope = SPACE.not_offered.get(m.name)
    if out_of_scope is not None:
        raise NotOfferedError(f"{m.display_name} is not offered: " +
                              choice_space.NOT_OFFERED[out_of_scope["why"]].format(**out_of_scope),
                              code="not_offered", model=m.display_name)
    want = precision or REFERENCE["precision"]
    if want not in PRECISION_BYTES:
        raise UnknownEntryError(f"unknown precision {want!r}; available: {', '.join(PRECISION_BYTES)}")
    used = nearest_precision(a, want)
    hw = {k: Q_(_number(FREE[k], free[k]), FREE[k].unit) for k in ("bandwidth", "peak") if k in free}
    if "capacity" in free:   # the vendor's label: a whole number of GB (80 on an H100 is its 80 GiB)
        hw["capacity"] = _capacity(a, float(_whole(FREE["capacity"], free["capacity"])))
    a = with_hardware(a, used, **hw)
    node = node_for(a)
    if node is not None and node.accelerator is not a:
        node = dataclasses.replace(node, accelerator=a)
    kv = (_precision_name("kv_precision", free["kv_precision"], "keys and values") if "kv_precision" in free
          else str(INPUTS.get("kv_precision", "bf16")))
    ctx = FREE["context"]
    wanted_ctx = _whole(ctx, free["context"]) if "context" in free else int(INPUTS.get("context", 32_768))
    if "context" in free and not cap_context and m.context_length and wanted_ctx > m.context_length:
        raise InputError(f"context: {wanted_ctx:,} tokens exceeds {m.display_name}'s context window of "
                         f"{m.context_length:,} tokens", code="past_window", key="context",
                         context=f"{wanted_ctx:,}", model=m.display_name, window=f"{m.context_length:,}")
    context = min(wanted_ctx, m.context_length) if m.context_length else wanted_ctx   # the book's: capped
    batch = _whole(FREE["batch"], free["batch"]) if "batch" in free else int(INPUTS.get("batch", 64))
    return Scenario(a, m, node, used, want, kv_precision=kv, context=context, batch=batch,
                    lecture=_lecture_inputs(free), free=MappingProxyType(dict(free)), context_wanted=wanted_ctx)


@lru_cache(maxsize=1)
def reference() -> Scenario:
    """The book's reference scenario, whatever choice is in use."""
    return scenario()


_ACTIVE: ContextVar[Scenario | None] = ContextVar("mlsysim_scenario", default=None)


def from_choice(choice: Mapping[str, Any] | Scenario | None) -> Scenario:
    """A scenario from a choice ``{"accelerator": ..., "model": ..., "precision": ..., <free inputs>}``
    (any key may be left out)."""
    if choice is None:
        return reference()
    if isinstance(choice, Scenario):
        return choice
    unknown = sorted(set(choice) - set(CHOICE_KEYS))
    if unknown:
        raise UnknownEntryError(f"a choice names {', '.join(unknown)}; it may name {', '.join(CHOICE_KEYS)}")
    return scenario(choice.get("accelerator"), choice.get("model"), choice.get("precision"),
                    **{k: v for k, v in choice.items() if k in FREE})


@contextmanager
def use(choice: Mapping[str, Any] | Scenario | None):
    """Compute for ``choice`` inside the ``with`` block: :func:`reference_scenario` returns it there."""
    token = _ACTIVE.set(from_choice(choice))
    try:
        yield _ACTIVE.get()
    finally:
        _ACTIVE.reset(token)


def reference_scenario() -> Scenario:
    """The scenario the appendix is computed for: the choice in :func:`use`, else the reference."""
    return _ACTIVE.get() or reference()


def lecture_scenario() -> Scenario:
    """The scenario the lecture is computed for (its inputs are :attr:`Scenario.lecture`): the choice in
    :func:`use`, else the reference. The same object as :func:`reference_scenario`; the name says which
    chapter's inputs a cell reads."""
    return reference_scenario()
