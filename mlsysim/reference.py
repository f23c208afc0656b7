"""The appendix's reference values for any accelerator, model and node (the CLI and explorers use this).

Same physics as the appendix's ``ServingRef`` cell: decode and prefill at the weight precision's dense
peak, keys and values at ``kv_bytes``, and the node pool with 16-bit weights and a runtime reserve
(eq-appdx-mdynamic), as the appendix's reference table states; plus one batched decode step at
``batch`` streams (eq-appdx-batched-step). The accelerator may be one with free values
(:func:`mlsysim.scenario.with_hardware`: another bandwidth, peak or capacity): the node's memory is
then that accelerator's, so a live page of the book and ``python -m mlsysim reference --bandwidth ...``
compute the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ContextWindowError, UnknownEntryError
from .physics import (attention_crossover_length, batched_step_time, compute_bound_batch, decode_time_per_token, kv_bytes_at,
                      kv_bytes_per_token, prefill_time_per_token, resident_trajectories, ridge_point)
from .registry import Accelerator, Model, Node
from .scenario import INPUTS, REFERENCE, node_for
from .units import BYTES_FP16, PRECISION_BYTES, Q_

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


def reference_values(accel: Accelerator, model: Model, node: Node | None = None, *, weight_precision: str = REFERENCE["precision"],
                     kv_bytes: float = DEFAULT_KV_BYTES, context: int = DEFAULT_CONTEXT, reserve=DEFAULT_RESERVE,
                     use_default_node: bool = True, batch: int = DEFAULT_BATCH) -> ReferenceValues:
    """Every quantity of the appendix's reference table, in SI base units (seconds, bytes)."""
    if context <= 0:
        raise ValueError(f"context must be a positive number of tokens, got {context}")
    if model.context_length and context > model.context_length:
        raise ContextWindowError(f"a context of {context:,} tokens exceeds {model.display_name}'s context window "
                                 f"of {model.context_length:,} tokens (models.toml [{model.name}] context_length); "
                                 "choose a shorter context or a model with a longer window")
    if batch < 1 or batch != int(batch):
        raise ValueError(f"batch must be a positive whole number of streams, got {batch}")
    if kv_bytes <= 0:
        raise ValueError(f"kv bytes per element must be positive, got {kv_bytes}")
    if weight_precision not in PRECISION_BYTES:
        raise UnknownEntryError(f"unknown precision {weight_precision!r}; available: {', '.join(PRECISION_BYTES)}")
    if node is not None and node.accelerator.name != accel.name:
        raise ValueError(f"node {node.name} carries {node.accelerator.name}, not {accel.name}")
    peak = accel.compute.peak(weight_precision)  # raises UnknownPrecisionError
    b = PRECISION_BYTES[weight_precision]
    bw = accel.memory.bandwidth
    params = model.parameters.to("count").magnitude
    kvb = Q_(kv_bytes, "byte")
    m_token = kv_bytes_per_token(model, kvb)
    node = node if node is not None else (node_for(accel) if use_default_node else None)
    pool = resident = None
    note = ""
    if node is None:
        note = f"no registry node carries {accel.name}; per-node values omitted"
    else:
        hbm = node.accelerators_per_node * accel.memory.capacity   # the node carries accel (checked above)
        left = hbm - model.size_in_bytes(BYTES_FP16) - reserve
        if left.magnitude <= 0:
            note = f"16-bit weights and reserve do not fit in {node.name}'s memory"
            pool, resident = 0.0, 0
        else:
            pool = left.to("byte").magnitude
            resident = resident_trajectories(left, context, m_token)
    return ReferenceValues(
        accelerator=accel.name, model=model.name, node=node.name if node else None,
        weight_precision=weight_precision, kv_bytes=float(kv_bytes), context=int(context),
        bandwidth_bytes_per_s=bw.to("byte/second").magnitude, peak_flop_per_s=peak.to("flop/second").magnitude,
        capacity_bytes=accel.memory.capacity.to("byte").magnitude, batch=int(batch),
        batched_step_s=batched_step_time(params, b, bw, peak, int(batch)).to("second").magnitude,
        ridge_flop_per_byte=ridge_point(peak, bw).magnitude,
        decode_floor_s=decode_time_per_token(params, b, bw).to("second").magnitude,
        prefill_per_token_s=prefill_time_per_token(params, peak).to("second").magnitude,
        decode_to_prefill_ratio=compute_bound_batch(peak, bw, b),
        attention_crossover_tokens=attention_crossover_length(params, model.layers, model.hidden_dim),
        kv_bytes_per_token=m_token.to("byte").magnitude,
        kv_bytes_per_token_mha=kv_bytes_per_token(model, kvb, kv_heads=model.heads).to("byte").magnitude,
        kv_bytes_per_token_mqa=kv_bytes_per_token(model, kvb, kv_heads=1).to("byte").magnitude,
        kv_bytes_at_context=kv_bytes_at(context, m_token).to("byte").magnitude,
        node_kv_pool_bytes=pool, resident_trajectories=resident, note=note)
