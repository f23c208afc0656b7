"""Roofline, prefill and decode floors, long-context prefill and batching (Appendix A, §A.1).

Symbols: N parameters, b bytes per parameter, π peak rate (flop/s), β memory bandwidth (byte/s),
L layers, d model width, S prompt length, B batch.
"""
from __future__ import annotations

from ..units import Q_
from ._check import need, number
from .equations import equation


@equation("I* = π / β", name_en="ridge point", name_zh="屋脊点", unit="flop/byte")
def ridge_point(peak, bandwidth):
    """I* = π / β, in flop/byte."""
    return (need(peak, "flop/second", "peak") / need(bandwidth, "byte/second", "bandwidth")).to("flop/byte")


@equation("P = min(π, I · β)", name_en="attainable performance (roofline)", name_zh="可达到的性能（屋顶线）", unit="flop/s")
def attainable_performance(intensity, peak, bandwidth):
    """P = min(π, I·β)."""
    p = need(peak, "flop/second", "peak")
    roof = (need(intensity, "flop/byte", "intensity") * need(bandwidth, "byte/second", "bandwidth")).to("flop/second")
    return min(p.to("flop/second"), roof)


@equation("N · b", name_en="weight bytes", name_zh="权重的字节数", unit="B")
def weight_bytes(params, bytes_per_param):
    """N · b."""
    return (number(params, "params") * need(bytes_per_param, "byte", "bytes_per_param")).to("byte")


@equation("I_decode = 2 / b", name_en="arithmetic intensity of decode", name_zh="解码的算术强度", unit="flop/byte")
def decode_intensity(bytes_per_param):
    """2/b flop per byte of weights, batch of one."""
    return (Q_(2, "flop") / need(bytes_per_param, "byte", "bytes_per_param")).to("flop/byte")


@equation("t_prefill ≈ 2N / π", name_en="prefill time per token", name_zh="每词元预填充时间", unit="s",
          ref="eq-appdx-prefill-time")
def prefill_time_per_token(params, peak):
    """t_prefill ≈ 2N / π (eq-appdx-prefill-time)."""
    return (2 * number(params, "params") * Q_(1, "flop") / need(peak, "flop/second", "peak")).to("second")


@equation("t_decode ≥ N b / β", name_en="decode floor per token", name_zh="每词元解码时间下限", unit="s",
          ref="eq-appdx-shuttle-floor")
def decode_time_per_token(params, bytes_per_param, bandwidth):
    """t_decode ≥ N b / β (eq-appdx-shuttle-floor)."""
    return (weight_bytes(params, bytes_per_param) / need(bandwidth, "byte/second", "bandwidth")).to("second")


@equation("t_decode / t_prefill = π b / 2β = (b/2) I*", name_en="decode-to-prefill time ratio", name_zh="解码与预填充的时间比",
          ref="eq-appdx-decode-prefill-ratio")
def decode_to_prefill_ratio(peak, bandwidth, bytes_per_param):
    """t_decode / t_prefill = π b / 2β = (b/2) I* (eq-appdx-decode-prefill-ratio); independent of N."""
    b = need(bytes_per_param, "byte", "bytes_per_param")
    return (ridge_point(peak, bandwidth) * b / (2 * Q_(1, "flop"))).to("").magnitude


@equation("B* = π b / 2β", name_en="compute-bound batch", name_zh="受计算限制的批大小")
def compute_bound_batch(peak, bandwidth, bytes_per_param):
    """B* = π b / 2β: tokens per pass at which a pass turns compute-bound (same value as the ratio)."""
    return decode_to_prefill_ratio(peak, bandwidth, bytes_per_param)


@equation("F_prefill = 2NS + 2LdS²", name_en="prefill operations", name_zh="预填充的运算量", unit="flop")
def prefill_flops(params, layers, width, seq_len):
    """2NS + 2LdS² operations for a causal prefill of S tokens."""
    n, s = number(params, "params"), number(seq_len, "seq_len")
    return Q_(2 * n * s + 2 * layers * width * s * s, "flop")


@equation("T_prefill(S) ≈ (2NS + 2LdS²) / π", name_en="prefill time of S tokens", name_zh="S 个词元的预填充时间", unit="s",
          ref="eq-appdx-prefill-long")
def prefill_time(params, layers, width, seq_len, peak):
    """T_prefill(S) ≈ (2NS + 2LdS²) / π (eq-appdx-prefill-long)."""
    return (prefill_flops(params, layers, width, seq_len) / need(peak, "flop/second", "peak")).to("second")


@equation("S* = N / (L d)", name_en="attention crossover length", name_zh="注意力运算量等于权重运算量时的提示词长度")
def attention_crossover_length(params, layers, width):
    """S* = N / (L d): the prompt length at which attention arithmetic equals weight arithmetic."""
    return number(params, "params") / (layers * width)


@equation("2LdS² / 2NS = S L d / N", name_en="attention over weight arithmetic of a prefill",
          name_zh="预填充中注意力运算量与权重运算量之比")
def attention_share(seq_len, params, layers, width):
    """Attention over weight arithmetic of a prefill of S tokens: 2LdS² / 2NS = S L d / N."""
    return number(seq_len, "seq_len") * layers * width / number(params, "params")


@equation("N_read(B) = N_a + (N − N_a) · (E (1 − (1 − k/E)^B) − k) / (E − k)",
          name_en="parameters a decode step of B streams reads", name_zh="B 路流的一次解码步骤读取的参数量",
          unit="count")
def weights_read(params, active_params, experts, experts_per_token, batch):
    """N_read(B) = N_a + (N − N_a) · (E (1 − (1 − k/E)^B) − k) / (E − k): the parameters one decode step of B
    streams reads from a mixture of E experts, each token routed to k of them (independently, uniformly).
    One stream reads its k experts and the shared weights, N_a (the active parameters); B streams reach
    E (1 − (1 − k/E)^B) distinct experts in expectation, and every expert, N, as B grows. A dense model
    (E = 1, N_a = N) reads N at any B."""
    n, na, b = number(params, "params"), number(active_params, "active_params"), number(batch, "batch")
    e, k = int(experts), int(experts_per_token)
    if e <= 1 or k >= e:
        return n
    touched = e * (1 - (1 - k / e) ** b)
    return na + (n - na) * (touched - k) / (e - k)


@equation("t_step(B) ≈ max(N b / β, 2 N B / π), N_read(B) and N_a in place of N for a mixture of experts",
          name_en="batched decode step time",
          name_zh="批处理解码步骤的耗时", unit="s", ref="eq-appdx-batched-step")
def batched_step_time(params, bytes_per_param, bandwidth, peak, batch, *, active_params=None, read_params=None):
    """t_step(B) ≈ max(N_read(B) b / β, 2 N_a B / π) (eq-appdx-batched-step), attention state ignored; for a
    dense model N_read = N_a = N (``params``), for a mixture of experts ``active_params`` (N_a) and
    ``read_params`` (:func:`weights_read` at this B)."""
    mem = decode_time_per_token(params if read_params is None else read_params, bytes_per_param, bandwidth)
    comp = number(batch, "batch") * prefill_time_per_token(params if active_params is None else active_params, peak)
    return max(mem, comp)


__all__ = [n for n, f in list(globals().items())
           if callable(f) and getattr(f, "__module__", "") == __name__ and not n.startswith("_")]
