"""The appendix's reference values for any choice of accelerator, model, weight precision and inputs (the CLI
and the explorers use this).

Same physics as the appendix's ``ServingRef`` cell, for a :class:`mlsysim.scenario.Scenario`
(:func:`scenario_values`): decode and prefill at the weight precision's dense peak, per token over the
parameters a token reaches (a mixture of experts' active ones), keys and values at the scenario's
precision, the context capped at the model's window, and the node pool holding the weights at the
scenario's pool precision (the weight precision served; the seed's 16-bit for the reference) and a runtime
reserve (eq-appdx-mdynamic); plus one batched decode step at ``batch`` streams (eq-appdx-batched-step),
which reads more of a mixture's experts as the batch grows. The accelerator may be one with free values
(:func:`mlsysim.scenario.with_hardware`: another bandwidth, peak or capacity): the node's memory is then
that accelerator's, so a live page of the book and ``python -m mlsysim reference --bandwidth ...`` compute
the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ContextWindowError, UnknownEntryError
from .fmt import FormatPrecisionError, fmt, fmt_int
from .physics import (attention_crossover_length, batched_step_time, compute_bound_batch, decode_time_per_token, kv_bytes_at,
                      kv_bytes_per_token, prefill_time_per_token, resident_trajectories, ridge_point, weights_read)
from .registry import Accelerator, Model, Node
from .scenario import INPUTS, REFERENCE, Scenario, node_for
from .units import PRECISION_BYTES, Q_

DEFAULT_CONTEXT = int(INPUTS["context"])       # data/reference.toml [inputs]
DEFAULT_KV_BYTES = PRECISION_BYTES[INPUTS["kv_precision"]].to("byte").magnitude
DEFAULT_BATCH = int(INPUTS["batch"])
DEFAULT_RESERVE = Q_(20, "GB")


@dataclass(frozen=True)
class ReferenceValues:
    accelerator: str
    model: str
    node: str | None
    weight_precision: str
    kv_bytes: float
    context: int
    bandwidth_bytes_per_s: float
    peak_flop_per_s: float
    capacity_bytes: float
    batch: int
    batched_step_s: float
    ridge_flop_per_byte: float
    decode_floor_s: float
    prefill_per_token_s: float
    decode_to_prefill_ratio: float
    attention_crossover_tokens: float
    kv_bytes_per_token: float
    kv_bytes_per_token_mha: float
    kv_bytes_per_token_mqa: float
    kv_bytes_at_context: float
    node_kv_pool_bytes: float | None
    resident_trajectories: int | None
    note: str = ""
    #: the precision the pool holds the weights at, and the runtime reserve it leaves out (bytes)
    pool_precision: str = ""
    reserve_bytes: float = 0.0
    #: parameters a token reaches (a mixture of experts' active ones; N otherwise) and the parameters the
    #: batched step of ``batch`` streams reads
    active_parameters: float = 0.0
    step_parameters_read: float = 0.0
    attention_design: str = ""
    #: the context asked for, where the model's window shortened it to ``context``
    context_wanted: int = 0


def scenario_values(sc: Scenario, *, node: Node | None = None, kv_bytes: float | None = None,
                    reserve=DEFAULT_RESERVE) -> ReferenceValues:
    """Every quantity of the appendix's reference table for ``sc``, in SI base units (seconds, bytes).
    ``node`` replaces the scenario's node (one that carries its accelerator); ``kv_bytes`` its key/value width."""
    kvb = sc.kv_bytes.to("byte").magnitude if kv_bytes is None else kv_bytes
    return reference_values(sc.accelerator, sc.model, node if node is not None else sc.node,
                            weight_precision=sc.weight_precision, kv_bytes=kvb, context=sc.context,
                            reserve=reserve, batch=sc.batch, pool_precision=sc.pool_precision,
                            context_wanted=sc.context_wanted)


def reference_values(accel: Accelerator, model: Model, node: Node | None = None, *, weight_precision: str = REFERENCE["precision"],
                     kv_bytes: float = DEFAULT_KV_BYTES, context: int = DEFAULT_CONTEXT, reserve=DEFAULT_RESERVE,
                     use_default_node: bool = True, batch: int = DEFAULT_BATCH, pool_precision: str | None = None,
                     context_wanted: int | None = None) -> ReferenceValues:
    """Every quantity of the appendix's reference table, in SI base units (seconds, bytes); the pool holds
    the weights at ``pool_precision`` (default: ``weight_precision``)."""
    if context <= 0:
        raise ValueError(f"context must be a positive number of tokens, got {context}")
    if model.context_length and context > model.context_length:
        raise ContextWindowError(f"a context of {context:,} tokens exceeds {model.display_name}'s context window "
                                 f"of {model.context_length:,} tokens (models.toml [{model.name}] context_length); "
                                 "choose a shorter context or a model with a longer window")
    if batch < 1 or batch != int(batch):
        raise ValueError(f"batch must be a positive whole number of streams, got {batch}")
    if not kv_bytes > 0:
        raise ValueError(f"kv bytes per element must be positive, got {kv_bytes}")
    pool_precision = pool_precision or weight_precision
    for p in (weight_precision, pool_precision):
        if p not in PRECISION_BYTES:
            raise UnknownEntryError(f"unknown precision {p!r}; available: {', '.join(PRECISION_BYTES)}")
    if node is not None and node.accelerator.name != accel.name:
        raise ValueError(f"node {node.name} carries {node.accelerator.name}, not {accel.name}")
    peak = accel.compute.peak(weight_precision)  # raises UnknownPrecisionError
    b = PRECISION_BYTES[weight_precision]
    bw = accel.memory.bandwidth
    params = model.parameters.to("count").magnitude
    active = model.active_count
    read = weights_read(params, active, model.experts, model.experts_per_token, int(batch))
    kvb = Q_(kv_bytes, "byte")
    m_token = kv_bytes_per_token(model, kvb)
    node = node if node is not None else (node_for(accel) if use_default_node else None)
    pool = resident = None
    note = ""
    if node is None:
        note = f"no registry node carries {accel.name}; per-node values omitted"
    else:
        hbm = node.accelerators_per_node * accel.memory.capacity   # the node carries accel (checked above)
        left = hbm - model.size_in_bytes(PRECISION_BYTES[pool_precision]) - reserve
        if left.magnitude <= 0:
            note = f"{pool_precision} weights and reserve do not fit in {node.name}'s memory"
            pool, resident = 0.0, 0
        else:
            pool = left.to("byte").magnitude
            resident = resident_trajectories(left, context, m_token)
    return ReferenceValues(
        accelerator=accel.name, model=model.name, node=node.name if node else None,
        weight_precision=weight_precision, kv_bytes=float(kv_bytes), context=int(context),
        bandwidth_bytes_per_s=bw.to("byte/second").magnitude, peak_flop_per_s=peak.to("flop/second").magnitude,
        capacity_bytes=accel.memory.capacity.to("byte").magnitude, batch=int(batch),
        batched_step_s=batched_step_time(params, b, bw, peak, int(batch), active_params=active,
                                         read_params=read).to("second").magnitude,
        ridge_flop_per_byte=ridge_point(peak, bw).magnitude,
        decode_floor_s=decode_time_per_token(active, b, bw).to("second").magnitude,
        prefill_per_token_s=prefill_time_per_token(active, peak).to("second").magnitude,
        decode_to_prefill_ratio=compute_bound_batch(peak, bw, b),
        attention_crossover_tokens=attention_crossover_length(active, model.layers, model.hidden_dim),
        kv_bytes_per_token=m_token.to("byte").magnitude,
        kv_bytes_per_token_mha=kv_bytes_per_token(model, kvb, kv_heads=model.heads).to("byte").magnitude,
        kv_bytes_per_token_mqa=kv_bytes_per_token(model, kvb, kv_heads=1).to("byte").magnitude,
        kv_bytes_at_context=kv_bytes_at(context, m_token).to("byte").magnitude,
        node_kv_pool_bytes=pool, resident_trajectories=resident, note=note, pool_precision=pool_precision,
        reserve_bytes=Q_(reserve).to("byte").magnitude, active_parameters=float(active),
        step_parameters_read=float(read), attention_design=model.attention_design,
        context_wanted=int(context_wanted if context_wanted is not None else context))


#: the words a displayed value may need, per language
DISPLAY_TEXT = {"en": {"no_node": "no registry node", "does_not_fit": "does not fit"},
                "zh": {"no_node": "注册表中无此节点", "does_not_fit": "放不下"}}


def shown(x: float, precision: int) -> str:
    """``fmt(x, precision)``, with more decimals only where the appendix's precision would hide the value."""
    for p in range(precision, precision + 12):
        try:
            return str(fmt(x, p))
        except FormatPrecisionError:
            continue
    return f"{x:.3g}"


def display_values(rv: ReferenceValues, accel, lang: str = "en") -> dict[str, str]:
    """Every displayed value of ``rv`` with the appendix's precision (the ``*_str`` of its ``ServingRef`` cell:
    ridge integer, decode floor in ms with one decimal, prefill in µs as an integer, crossover to the nearest
    thousand, pool in GB with one decimal), and more decimals only where a small value needs them. The HTML
    explorer, the notebook explorer and ``python -m mlsysim reference`` print these strings."""
    from .registry import Systems
    t = DISPLAY_TEXT[lang]
    peak = accel.compute.peak(rv.weight_precision)
    cross = rv.attention_crossover_tokens
    if rv.node is None:
        pool = resident = t["no_node"]
    elif not rv.node_kv_pool_bytes:
        pool, resident = f"0 ({t['does_not_fit']})" if lang == "en" else f"0（{t['does_not_fit']}）", "0"
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
        "kv_bytes_per_token": str(fmt_int(rv.kv_bytes_per_token)) if rv.kv_bytes_per_token >= 1 else shown(rv.kv_bytes_per_token, 1),
        "kv_bytes_per_token_mha": str(fmt_int(rv.kv_bytes_per_token_mha)),
        "kv_bytes_per_token_mqa": shown(rv.kv_bytes_per_token_mqa, 0),
        "kv_bytes_at_context": shown(rv.kv_bytes_at_context / 1e9, 1),
        "node": Systems.Nodes.get(rv.node).display_name if rv.node is not None else t["no_node"],
        "node_kv_pool_bytes": pool,
        "resident_trajectories": resident,
        "batched_step_s": shown(rv.batched_step_s * 1e3, 1),
    }
