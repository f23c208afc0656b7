"""Floors a served configuration cannot beat, to compare with published measurements (Appendix A,
"How close real servers come to the floor").

The appendix's per-token floors (eq-appdx-shuttle-floor, eq-appdx-prefill-long) for one accelerator,
extended to a served configuration: ``n`` accelerators sharing the model by tensor parallelism (their
bandwidths and peak rates add), a request of ``S_in`` prompt tokens and ``S_out`` output tokens, and
``B`` streams sharing each pass.

Symbols: N parameters, b bytes per parameter, m bytes of keys and values per token (m_token),
β and π one accelerator's memory bandwidth and peak rate at the weight precision, n accelerators,
L layers, d model width, S_in and S_out prompt and output tokens, B streams per pass.

The floors the appendix prints (``tp_decode_floor`` … ``throughput_ceiling``) follow its equations and
are a little HIGH, so not strict lower bounds: they count 2N operations per token, including the input
embedding (a table lookup, no multiply) and the output projection at every prompt position (only the
last one's logits are needed); they read the whole embedding table on every pass (a step needs one row
per stream); and they take the published parameter count, which can round up (70.6e9 for a geometry of
70,553,706,496). For a 70B Llama that is about 1.5 % on a decode floor and 3 % on a prefill floor.

The ``strict_*`` functions leave all of that out and are true lower bounds, at full bandwidth and peak
on every accelerator, with one token per stream per pass (no speculative decoding): with N the exact
parameter count (the geometry's where the published one rounds up) and E = V·d the embedding table
(the output projection, untied, has as many weights),

- a decode step reads (N − E) b bytes of weights and performs 2(N − E) operations per stream, and reads
  the stream's keys and values for S̄ − 1 earlier tokens (its own are computed, not read);
- a prefill of S tokens performs 2(N − 2E) S + 2E + 2 L d S² operations (the output projection once;
  causal attention, Σ 4 L d s over s = 1 … S, is at least 2 L d S²) and reads (N − E) b bytes;
- a batch adds these up per request over its S_in + S_out − 1 tokens through the layers and its S_out
  output projections, and reads (N − E) b bytes per pass.

:func:`floor_margin` is how far a printed floor sits above its strict bound (floor / strict − 1, or
strict ceiling / ceiling − 1): the build calls a measurement physically impossible only when it beats
the strict bound.
"""
from __future__ import annotations

import math

from ..units import Q_
from ._check import need, number
from .equations import equation
from .roofline import prefill_flops


def _rates(bandwidth, peak, accelerators):
    n = number(accelerators, "accelerators")
    if n < 1:
        raise ValueError(f"accelerators must be at least 1, got {n:g}")
    return (n * need(bandwidth, "byte/second", "bandwidth"), n * need(peak, "flop/second", "peak"))


def _lengths(input_tokens, output_tokens):
    s_in, s_out = number(input_tokens, "input_tokens"), number(output_tokens, "output_tokens")
    if s_in < 0 or s_out < 1:
        raise ValueError(f"need input_tokens >= 0 and output_tokens >= 1, got {s_in:g} and {s_out:g}")
    return s_in, s_out


@equation("S̄ = S_in + S_out/2", name_en="mean decode context", name_zh="解码步骤的平均上下文")
def mean_decode_context(input_tokens, output_tokens) -> float:
    """S̄ = S_in + S_out/2: the mean context a decode step reads. The first output token comes from
    prefill; decode step k = 1 … S_out − 1 reads S_in + k tokens, whose mean is S_in + S_out/2."""
    s_in, s_out = _lengths(input_tokens, output_tokens)
    return s_in + s_out / 2


@equation("t_decode ≥ max((N b + m S̄) / (n β), 2N / (n π))", name_en="decode floor per token on n accelerators",
          name_zh="n 个加速器上的每词元解码下限", unit="s", ref="eq-appdx-tp-decode-floor")
def tp_decode_floor(params, bytes_per_param, kv_bytes_per_token, bandwidth, peak, accelerators,
                    input_tokens, output_tokens):
    """Per-token decode floor of one stream on n accelerators (tensor parallel):

        t_decode ≥ max( (N b + m S̄) / (n β),  2N / (n π) ),   S̄ = S_in + S_out/2

    the weights plus the stream's keys and values at the mean decode context, read once per token
    from the accelerators' combined bandwidth (eq-appdx-tp-decode-floor: eq-appdx-shuttle-floor with the
    attention state and n β). It holds at any concurrency: more streams in a pass only add bytes and arithmetic.
    """
    bw, pk = _rates(bandwidth, peak, accelerators)
    n_p = number(params, "params")
    bytes_ = n_p * need(bytes_per_param, "byte", "bytes_per_param") + \
        mean_decode_context(input_tokens, output_tokens) * need(kv_bytes_per_token, "byte", "kv_bytes_per_token")
    return max((bytes_ / bw).to("second"), (2 * n_p * Q_(1, "flop") / pk).to("second"))


@equation("T_prefill ≥ max((2N S_in + 2 L d S_in²) / (n π), N b / (n β))", name_en="time-to-first-token floor",
          name_zh="首词元时间下限", unit="s", ref="eq-appdx-prefill-long")
def tp_prefill_floor(params, bytes_per_param, layers, width, bandwidth, peak, accelerators, input_tokens):
    """Time-to-first-token floor of one request on n accelerators:

        T_prefill ≥ max( (2N S_in + 2 L d S_in²) / (n π),  N b / (n β) )

    eq-appdx-prefill-long at the combined peak rate, and never less than one read of the weights.
    Queueing behind other requests only adds to it.
    """
    bw, pk = _rates(bandwidth, peak, accelerators)
    s_in = number(input_tokens, "input_tokens")
    comp = (prefill_flops(params, layers, width, s_in) / pk).to("second")
    mem = (number(params, "params") * need(bytes_per_param, "byte", "bytes_per_param") / bw).to("second")
    return max(comp, mem)


@equation("F = B (2N S + 2 L d S²), S = S_in + S_out", name_en="operations of a batch", name_zh="一批请求的运算量", unit="flop")
def batch_flops(params, layers, width, input_tokens, output_tokens, batch=1):
    """F = B (2N (S_in + S_out) + 2 L d (S_in + S_out)²): every token of B requests passes through the
    weights once, and causal attention over the whole sequence costs 2 L d S² (eq-appdx-prefill-long
    over prompt and output together)."""
    s_in, s_out = _lengths(input_tokens, output_tokens)
    return number(batch, "batch") * prefill_flops(params, layers, width, s_in + s_out)


@equation("M = S_out N b + B m (S_out − 1) S̄", name_en="bytes a batch reads", name_zh="一批请求读取的字节数", unit="B")
def batch_bytes(params, bytes_per_param, kv_bytes_per_token, input_tokens, output_tokens, batch=1):
    """M = S_out N b + B m (S_out − 1) S̄: each of the S_out passes (one prefill, S_out − 1 decode steps)
    reads the weights once for the whole batch, and each decode step reads every stream's keys and
    values (Σ_{k=1}^{S_out−1} (S_in + k) = (S_out − 1) S̄ tokens per stream)."""
    s_in, s_out = _lengths(input_tokens, output_tokens)
    w = s_out * number(params, "params") * need(bytes_per_param, "byte", "bytes_per_param")
    kv = number(batch, "batch") * (s_out - 1) * mean_decode_context(s_in, s_out) * \
        need(kv_bytes_per_token, "byte", "kv_bytes_per_token")
    return (w + kv).to("byte")


@equation("T(B) ≥ max(F / (n π), M / (n β))", name_en="floor on the time to serve a batch", name_zh="一批请求服务时间的下限",
          unit="s", ref="eq-appdx-batch-roofline")
def batch_time_floor(params, bytes_per_param, kv_bytes_per_token, layers, width, bandwidth, peak, accelerators,
                     input_tokens, output_tokens, batch=1):
    """Floor on the time to serve B requests together, the roofline at the batch's intensity I = F/M:

        T ≥ F / min(n π, I · n β) = max( F / (n π),  M / (n β) )

    with F from :func:`batch_flops` and M from :func:`batch_bytes`. For B = 1 it is the floor of one
    request's end-to-end latency.
    """
    bw, pk = _rates(bandwidth, peak, accelerators)
    f = batch_flops(params, layers, width, input_tokens, output_tokens, batch)
    m = batch_bytes(params, bytes_per_param, kv_bytes_per_token, input_tokens, output_tokens, batch)
    return max((f / pk).to("second"), (m / bw).to("second"))


@equation("I(B) = F / M", name_en="arithmetic intensity of a batch", name_zh="一批请求的算术强度", unit="flop/byte")
def batch_intensity(params, bytes_per_param, kv_bytes_per_token, layers, width, input_tokens, output_tokens,
                    batch=1):
    """I(B) = F / M, in flop/byte: the batch's arithmetic intensity."""
    return (batch_flops(params, layers, width, input_tokens, output_tokens, batch)
            / batch_bytes(params, bytes_per_param, kv_bytes_per_token, input_tokens, output_tokens, batch)
            ).to("flop/byte")


@equation("X ≤ B S_out / T(B)", name_en="output throughput ceiling", name_zh="输出吞吐量上限", unit="1/s",
          ref="eq-appdx-batch-roofline")
def throughput_ceiling(params, bytes_per_param, kv_bytes_per_token, layers, width, bandwidth, peak, accelerators,
                       input_tokens, output_tokens, batch=None):
    """Output tokens per second that B streams on n accelerators cannot exceed:

        X ≤ B S_out / T(B) = min( n π S_out / F₁,  B S_out n β / (S_out N b + B m (S_out − 1) S̄) )

    (F₁ the flops of one request). X grows with B, so a published concurrency or batch limit gives a
    valid ceiling even when fewer streams actually ran. ``batch=None`` (a maximum-load run with no
    stated limit) takes B → ∞, where the weights drop out of the memory term:
    X ≤ min( n π S_out / F₁,  n β S_out / (m (S_out − 1) S̄) ).
    """
    bw, pk = _rates(bandwidth, peak, accelerators)
    s_in, s_out = _lengths(input_tokens, output_tokens)
    f1 = batch_flops(params, layers, width, s_in, s_out, 1)
    comp = (pk * s_out / f1).to("1/second")
    if batch is None:
        kv = batch_bytes(0, Q_(0, "byte"), kv_bytes_per_token, s_in, s_out, 1)
        mem = (bw * s_out / kv).to("1/second") if kv.magnitude > 0 else Q_(math.inf, "1/second")
    else:
        b = number(batch, "batch")
        if b < 1:
            raise ValueError(f"batch must be at least 1, got {b:g}")
        mem = (b * s_out * bw / batch_bytes(params, bytes_per_param, kv_bytes_per_token, s_in, s_out, b)
               ).to("1/second")
    return min(comp, mem)


# ───────────────────────────── strict lower bounds ─────────────────────────────

def _strict_params(params, embedding_params):
    n, e = number(params, "params"), number(embedding_params, "embedding_params")
    if not 0 <= 2 * e < n:
        raise ValueError(f"need 0 <= 2 x embedding_params < params, got {e:g} and {n:g}")
    return n, e


@equation("t_decode ≥ max(((N − E) b + m (S̄ − 1)) / (n β), 2 (N − E) / (n π))",
          name_en="strict lower bound on decode time per token", name_zh="每词元解码时间的严格下界", unit="s")
def strict_decode_floor(params, embedding_params, bytes_per_param, kv_bytes_per_token, bandwidth, peak,
                        accelerators, input_tokens, output_tokens):
    """Strict per-token decode floor of one stream on n accelerators:

        t_decode ≥ max( ((N − E) b + m (S̄ − 1)) / (n β),  2 (N − E) / (n π) )

    (the embedding table is not streamed; the new token's own keys and values are not read)."""
    bw, pk = _rates(bandwidth, peak, accelerators)
    n_p, e = _strict_params(params, embedding_params)
    s_bar = mean_decode_context(input_tokens, output_tokens)
    bytes_ = (n_p - e) * need(bytes_per_param, "byte", "bytes_per_param") + \
        max(s_bar - 1, 0) * need(kv_bytes_per_token, "byte", "kv_bytes_per_token")
    return max((bytes_ / bw).to("second"), (2 * (n_p - e) * Q_(1, "flop") / pk).to("second"))


@equation("F_prefill = 2 (N − 2E) S + 2E + 2 L d S²", name_en="prefill operations, strict count",
          name_zh="预填充的运算量（严格计数）", unit="flop")
def strict_prefill_flops(params, embedding_params, layers, width, seq_len):
    """2 (N − 2E) S + 2E + 2 L d S²: the layers for every prompt token, the output projection once."""
    n_p, e = _strict_params(params, embedding_params)
    s = number(seq_len, "seq_len")
    return Q_(2 * (n_p - 2 * e) * s + 2 * e + 2 * layers * width * s * s, "flop")


@equation("T_prefill ≥ max(F_prefill / (n π), (N − E) b / (n β))", name_en="strict lower bound on time to first token",
          name_zh="首词元时间的严格下界", unit="s")
def strict_prefill_floor(params, embedding_params, bytes_per_param, layers, width, bandwidth, peak, accelerators,
                         input_tokens):
    """Strict time-to-first-token floor: max( strict prefill flops / (n π),  (N − E) b / (n β) )."""
    bw, pk = _rates(bandwidth, peak, accelerators)
    n_p, e = _strict_params(params, embedding_params)
    comp = (strict_prefill_flops(n_p, e, layers, width, input_tokens) / pk).to("second")
    mem = ((n_p - e) * need(bytes_per_param, "byte", "bytes_per_param") / bw).to("second")
    return max(comp, mem)


@equation("F = B (2 (N − 2E) T + 2E S_out + 2 L d T²), T = S_in + S_out − 1",
          name_en="operations of a batch, strict count", name_zh="一批请求的运算量（严格计数）", unit="flop")
def strict_batch_flops(params, embedding_params, layers, width, input_tokens, output_tokens, batch=1):
    """B (2 (N − 2E) T + 2E S_out + 2 L d T²), T = S_in + S_out − 1 tokens through the layers per request."""
    n_p, e = _strict_params(params, embedding_params)
    s_in, s_out = _lengths(input_tokens, output_tokens)
    t = s_in + s_out - 1
    return number(batch, "batch") * Q_(2 * (n_p - 2 * e) * t + 2 * e * s_out + 2 * layers * width * t * t, "flop")


@equation("M = S_out (N − E) b + B m (S_out − 1)(S̄ − 1)", name_en="bytes a batch reads, strict count",
          name_zh="一批请求读取的字节数（严格计数）", unit="B")
def strict_batch_bytes(params, embedding_params, bytes_per_param, kv_bytes_per_token, input_tokens, output_tokens,
                       batch=1):
    """S_out (N − E) b + B m (S_out − 1)(S̄ − 1): the weights but the embedding table once per pass, and each
    decode step's reads of the earlier keys and values of every stream."""
    n_p, e = _strict_params(params, embedding_params)
    s_in, s_out = _lengths(input_tokens, output_tokens)
    w = s_out * (n_p - e) * need(bytes_per_param, "byte", "bytes_per_param")
    kv = number(batch, "batch") * (s_out - 1) * max(mean_decode_context(s_in, s_out) - 1, 0) * \
        need(kv_bytes_per_token, "byte", "kv_bytes_per_token")
    return (w + kv).to("byte")


@equation("T(B) ≥ max(F / (n π), M / (n β))", name_en="strict lower bound on the time to serve a batch",
          name_zh="一批请求服务时间的严格下界", unit="s")
def strict_batch_time_floor(params, embedding_params, bytes_per_param, kv_bytes_per_token, layers, width, bandwidth,
                            peak, accelerators, input_tokens, output_tokens, batch=1):
    """Strict floor on the time to serve B requests together: max( F / (n π), M / (n β) ), strict F and M."""
    bw, pk = _rates(bandwidth, peak, accelerators)
    f = strict_batch_flops(params, embedding_params, layers, width, input_tokens, output_tokens, batch)
    m = strict_batch_bytes(params, embedding_params, bytes_per_param, kv_bytes_per_token, input_tokens,
                           output_tokens, batch)
    return max((f / pk).to("second"), (m / bw).to("second"))


@equation("X ≤ B S_out / T(B)", name_en="strict output throughput ceiling", name_zh="输出吞吐量的严格上限", unit="1/s")
def strict_throughput_ceiling(params, embedding_params, bytes_per_param, kv_bytes_per_token, layers, width,
                              bandwidth, peak, accelerators, input_tokens, output_tokens, batch=None):
    """Strict ceiling on output tokens per second: B S_out / strict T(B); ``batch=None`` takes B → ∞."""
    bw, pk = _rates(bandwidth, peak, accelerators)
    s_in, s_out = _lengths(input_tokens, output_tokens)
    f1 = strict_batch_flops(params, embedding_params, layers, width, s_in, s_out, 1)
    comp = (pk * s_out / f1).to("1/second")
    if batch is None:
        kv = need(kv_bytes_per_token, "byte", "kv_bytes_per_token") * (s_out - 1) * \
            max(mean_decode_context(s_in, s_out) - 1, 0)
        mem = (bw * s_out / kv).to("1/second") if kv.magnitude > 0 else Q_(math.inf, "1/second")
    else:
        b = number(batch, "batch")
        if b < 1:
            raise ValueError(f"batch must be at least 1, got {b:g}")
        mem = (b * s_out * bw / strict_batch_bytes(params, embedding_params, bytes_per_param, kv_bytes_per_token,
                                                   s_in, s_out, b)).to("1/second")
    return min(comp, mem)


@equation("margin = floor / strict − 1", name_en="margin of a floor over its strict lower bound", name_zh="下限高出严格下界的比例")
def floor_margin(floor, strict, kind: str = "time") -> float:
    """How far a printed floor sits above its strict bound: floor/strict − 1 for a time, strict/ceiling − 1
    for a throughput ceiling (``kind="rate"``). Never negative for the functions of this module."""
    a, b = (floor, strict) if kind == "time" else (strict, floor)
    unit = "second" if kind == "time" else "1/second"
    return float(a.to(unit).magnitude / b.to(unit).magnitude - 1)


__all__ = ["mean_decode_context", "tp_decode_floor", "tp_prefill_floor", "batch_flops", "batch_bytes",
           "batch_time_floor", "batch_intensity", "throughput_ceiling", "strict_decode_floor",
           "strict_prefill_flops", "strict_prefill_floor", "strict_batch_flops", "strict_batch_bytes",
           "strict_batch_time_floor", "strict_throughput_ceiling", "floor_margin"]
