"""The attention state: bytes per token, pool per node, resident trajectories (Appendix A, §A.3–A.4)."""
from __future__ import annotations

import math

from ..units import Q_
from ..errors import DoesNotFitError
from ._check import need, number
from .equations import equation


@equation("M = 2 · L · H_kv · d_head · b_kv · S · B", name_en="KV cache size", name_zh="KV 缓存大小", unit="B",
          ref="eq-appdx-kv-cache-token-size")
def calc_kv_cache_size(n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_elem):
    """M = 2 · L · H_kv · d_head · b_kv · S · B bytes (eq-appdx-kv-cache-token-size, times S·B).

    ``bytes_per_elem`` may be a number of bytes or a quantity in bytes.
    """
    b = need(bytes_per_elem, "byte", "bytes_per_elem") if hasattr(bytes_per_elem, "units") else Q_(bytes_per_elem, "byte")
    elems = 2 * n_layers * n_kv_heads * d_head * number(seq_len, "seq_len") * number(batch, "batch")
    return (elems * b).to("byte")


@equation("m_token = 2 · L · H_kv · d_head · b_kv", name_en="KV cache bytes per token", name_zh="每词元的 KV 缓存字节数",
          unit="B", ref="eq-appdx-kv-cache-token-size")
def kv_bytes_per_token(model, bytes_per_elem, kv_heads=None):
    """m_token of ``model``; ``kv_heads`` overrides the model's (1 = multi-query, heads = multi-head)."""
    h = model.kv_heads if kv_heads is None else kv_heads
    return calc_kv_cache_size(model.layers, h, model.head_dim, 1, 1, bytes_per_elem)


@equation("M_KV(T) = T · m_token", name_en="KV cache of a context of T tokens", name_zh="T 个词元上下文的 KV 缓存", unit="B")
def kv_bytes_at(context_tokens, bytes_per_token):
    """M_KV(T) = T · m_token."""
    return (number(context_tokens, "context_tokens") * need(bytes_per_token, "byte", "bytes_per_token")).to("byte")


@equation("O = M_KV(T) · t_wait", name_en="occupancy during a wait", name_zh="等待期间的占用", unit="B·s")
def occupancy(context_bytes, wait):
    """O = M_KV(T) · t_wait, in byte-seconds."""
    return (need(context_bytes, "byte", "context_bytes") * need(wait, "second", "wait")).to("byte*second")


@equation("E[waste] ≈ (B_s − 1)/2 · m_token", name_en="paged-storage waste per trajectory", name_zh="每条轨迹的分页存储浪费",
          unit="B")
def paged_waste_per_trajectory(block_tokens, bytes_per_token):
    """E[waste] ≈ (B_s − 1)/2 · m_token: the unfilled tail of the last block."""
    return ((number(block_tokens, "block_tokens") - 1) / 2 * need(bytes_per_token, "byte", "bytes_per_token")).to("byte")


@equation("M_dynamic = M_HBM − N b − M_runtime", name_en="memory left for the KV cache", name_zh="留给 KV 缓存的内存",
          unit="B", ref="eq-appdx-mdynamic")
def kv_pool(node_memory, weights, reserve):
    """M_dynamic = M_HBM − N b − M_runtime (eq-appdx-mdynamic)."""
    pool = (need(node_memory, "byte", "node_memory") - need(weights, "byte", "weights")
            - need(reserve, "byte", "reserve")).to("byte")
    if pool.magnitude <= 0:
        needed, memory = f"{(weights + reserve).to('GB'):.1f~}", f"{node_memory.to('GB'):.1f~}"
        raise DoesNotFitError(f"the weights and reserve ({needed}) do not fit in {memory}: no memory is left for "
                              "attention state", code="does_not_fit", needed=needed, memory=memory)
    return pool


@equation("B_max = ⌊M_dynamic / (T̄ · m_token)⌋", name_en="resident trajectories", name_zh="可同时驻留的轨迹数",
          ref="eq-appdx-max-batch")
def resident_trajectories(pool, context_tokens, bytes_per_token) -> int:
    """B_max = ⌊M_dynamic / (T̄ · m_token)⌋ (eq-appdx-max-batch)."""
    per = kv_bytes_at(context_tokens, bytes_per_token)
    return math.floor((need(pool, "byte", "pool") / per).to("").magnitude)


@equation("t_recompute ≈ 2N / π", name_en="recompute time per token of context", name_zh="每个上下文词元的重新计算时间", unit="s",
          ref="eq-appdx-prefill-time")
def recompute_time_per_token(params, peak):
    """Re-prefill cost per token of context, 2N/π (first order)."""
    from .roofline import prefill_time_per_token
    return prefill_time_per_token(params, peak)


@equation("t_reload = m_token / β_link", name_en="reload time per token of context", name_zh="每个上下文词元的重新加载时间", unit="s")
def reload_time_per_token(bytes_per_token, link_bandwidth):
    """Reload cost per token of context, m_token / β_link."""
    return (need(bytes_per_token, "byte", "bytes_per_token") / need(link_bandwidth, "byte/second", "link_bandwidth")).to("second")


__all__ = [n for n, f in list(globals().items())
           if callable(f) and getattr(f, "__module__", "") == __name__ and not n.startswith("_")]
