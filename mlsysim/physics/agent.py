"""Agent stalls: the duty cycle, the three fates of a stalled session's KV cache, sandbox pools
and swap-based overcommit (Lecture 19, @sec-lec19).

Symbols: T_model and T_tool the model and tool time of one task, d = T_model/(T_model + T_tool) the
duty cycle, S the session's context in tokens, k the KV bytes per token, K = S·k the session's KV
bytes, B_kv the card's KV budget, f = K/B_kv the session's share of it, t_prefill the prefill time
per token, β_PCIe the host link's bandwidth, n the stalls per task, λ an arrival rate.

Card-seconds (the keep price) are returned in seconds: a share of the card times a duration.
"""
from __future__ import annotations

import math

from ..units import Q_
from ._check import need, number
from .equations import equation


def _sec(x, name):
    return need(x, "second", name).to("second")


def _bytes(x, name):
    return need(x, "byte", name).to("byte")


# ---------------------------------------------------------------- the duty cycle (sec-lec19-duty-cycle)

@equation("d = T_model / (T_model + T_tool)", name_en="duty cycle", name_zh="占空比", ref="eq-lec19-duty-cycle")
def duty_cycle(t_model, t_tool) -> float:
    """d = T_model / (T_model + T_tool) (eq-lec19-duty-cycle): the share of a session that generates."""
    m, t = _sec(t_model, "t_model"), _sec(t_tool, "t_tool")
    return float((m / (m + t)).to("").magnitude)


@equation("saving = p (1 − 1/s)", name_en="share of time saved (Amdahl)", name_zh="节省的时间比例（阿姆达尔定律）")
def amdahl_saving(fraction, speedup) -> float:
    """Share of end-to-end time saved by making a part of share ``fraction`` ``speedup`` times faster:
    p (1 − 1/s) (Amdahl)."""
    p, s = number(fraction, "fraction"), number(speedup, "speedup")
    if not 0 <= p <= 1 or s <= 0:
        raise ValueError(f"need 0 <= fraction <= 1 and speedup > 0, got {p}, {s}")
    return p * (1 - 1 / s)


# ---------------------------------------------------------------- what a stalled session holds (sec-lec19-currencies)

@equation("f = K / B_kv", name_en="share of the KV budget", name_zh="占 KV 预算的比例")
def kv_share(session_bytes, kv_budget) -> float:
    """f = K / B_kv: the share of the card's KV budget one session holds."""
    return float((_bytes(session_bytes, "session_bytes") / _bytes(kv_budget, "kv_budget")).to("").magnitude)


@equation("N_sessions = ⌊B_kv / K⌋", name_en="sessions per card", name_zh="每张卡容纳的会话数")
def sessions_per_card(kv_budget, session_bytes) -> int:
    """⌊B_kv / K⌋: whole sessions that fit in the KV budget."""
    return math.floor(1 / kv_share(session_bytes, kv_budget) + 1e-12)


@equation("⌊B_kv / k⌋", name_en="KV budget in tokens", name_zh="以词元计的 KV 预算")
def kv_budget_tokens(kv_budget, bytes_per_token) -> int:
    """⌊B_kv / k⌋: the KV budget in whole tokens."""
    return math.floor((_bytes(kv_budget, "kv_budget") / _bytes(bytes_per_token, "bytes_per_token")).to("").magnitude
                      + 1e-9)


# ---------------------------------------------------------------- prefill with the lecture's attention count

@equation("(t_weights, t_attention) = (2N / π, 4 L d S / π)",
          name_en="weight and attention parts of prefill time per token", name_zh="每词元预填充时间的权重部分与注意力部分", unit="s",
          ref="eq-lec19-prefill-token")
def prefill_time_per_token_split(params, layers, width, seq_len, rate):
    """(2N/π, 4·L·d·S/π) (eq-lec19-prefill-token): the weight and attention parts of one token's prefill.

    The lecture counts a token's attention as 4·L·d·S operations, each token attending over the whole
    context of S tokens (the causal average would be half of that; this is the conservative count the
    re-prefill price uses). ``rate`` is the effective prefill rate in flop/s.
    """
    r = need(rate, "flop/second", "rate")
    n, s = number(params, "params"), number(seq_len, "seq_len")
    weight = (Q_(2 * n, "flop") / r).to("second")
    attention = (Q_(4 * layers * width * s, "flop") / r).to("second")
    return weight, attention


@equation("t_prefill(S) = (2N + 4 L d S) / π", name_en="prefill time per token at context S",
          name_zh="上下文为 S 时的每词元预填充时间", unit="s", ref="eq-lec19-prefill-token")
def prefill_time_per_token_attn(params, layers, width, seq_len, rate):
    """t_prefill(S) = (2N + 4·L·d·S)/π (eq-lec19-prefill-token): prefill seconds per token at context S."""
    w, a = prefill_time_per_token_split(params, layers, width, seq_len, rate)
    return w + a


@equation("F_session = S (2N + 4 L d S)", name_en="operations of a session's re-prefill", name_zh="会话重新预填充的运算量",
          unit="flop")
def prefill_flops_session(params, layers, width, seq_len):
    """S · (2N + 4·L·d·S) operations: a whole session's re-prefill at the lecture's attention count."""
    n, s = number(params, "params"), number(seq_len, "seq_len")
    return Q_(s * (2 * n + 4 * layers * width * s), "flop")


# ---------------------------------------------------------------- the three fates (sec-lec19-fates)

@equation("keep = f · T", name_en="price of keeping (card-seconds)", name_zh="保留的代价（卡·秒）", unit="s")
def keep_price(share, stall):
    """Keep: f · T card-seconds of KV capacity held idle (sec-lec19-fates)."""
    return (number(share, "share") * _sec(stall, "stall")).to("second")


@equation("discard = S · t_prefill", name_en="price of discarding", name_zh="丢弃的代价", unit="s")
def discard_price(context_tokens, t_prefill_per_token):
    """Discard: S · t_prefill seconds of GPU to re-prefill on resume (sec-lec19-fates)."""
    return (number(context_tokens, "context_tokens") * _sec(t_prefill_per_token, "t_prefill_per_token")).to("second")


@equation("swap = 2K / β_PCIe", name_en="price of swapping", name_zh="换出的代价", unit="s")
def swap_price(session_bytes, link_bandwidth):
    """Swap: 2K / β_PCIe seconds of the host link, out and back (sec-lec19-fates)."""
    return (2 * _bytes(session_bytes, "session_bytes")
            / need(link_bandwidth, "byte/second", "link_bandwidth")).to("second")


@equation("T_swap = 2K / β_PCIe", name_en="keep-versus-swap break-even", name_zh="保留与换出的盈亏平衡点", unit="s",
          ref="eq-lec19-keep-swap")
def keep_swap_break_even(session_bytes, link_bandwidth):
    """T_swap = 2K / β_PCIe (eq-lec19-keep-swap): swapping beats keeping once the stall outlasts the round trip."""
    return swap_price(session_bytes, link_bandwidth)


@equation("β_PCIe = 2K / T*", name_en="host link bandwidth at which the swap window closes", name_zh="换出区间消失时的主机链路带宽",
          unit="B/s")
def swap_window_closing_bandwidth(session_bytes, t_star):
    """β_PCIe = 2K / T*: the host link at which the keep-versus-swap break-even 2K/β_PCIe
    (eq-lec19-keep-swap) reaches the keep-versus-discard break-even T*; on any slower link the
    policy's swap row (T_swap < T_stall < T*) is empty."""
    return (2 * _bytes(session_bytes, "session_bytes") / _sec(t_star, "t_star")).to("byte/second")


@equation("T* = t_prefill · B_kv / k", name_en="keep-versus-discard break-even", name_zh="保留与丢弃的盈亏平衡点", unit="s",
          ref="eq-lec19-tstar-symbolic")
def keep_discard_break_even(t_prefill_per_token, kv_budget, bytes_per_token):
    """T* = t_prefill · B_kv / k (eq-lec19-tstar-symbolic): the session length S has cancelled."""
    return (_sec(t_prefill_per_token, "t_prefill_per_token") * _bytes(kv_budget, "kv_budget")
            / _bytes(bytes_per_token, "bytes_per_token")).to("second")


@equation("T* = S · t_prefill / f", name_en="keep-versus-discard break-even of a session", name_zh="一个会话保留与丢弃的盈亏平衡点",
          unit="s", ref="eq-lec19-keep-discard")
def keep_discard_break_even_session(context_tokens, t_prefill_per_token, session_bytes, kv_budget):
    """T* = S · t_prefill / f (eq-lec19-keep-discard), before S cancels: f · T* = S · t_prefill."""
    return (discard_price(context_tokens, t_prefill_per_token) / kv_share(session_bytes, kv_budget)).to("second")


@equation(None, name_en="fate of a stalled session (the stall policy)", name_zh="停顿会话的处置（停顿策略）")
def stall_fate(stall, t_swap, t_star, pcie_contended: bool = False) -> str:
    """The stall policy (tbl-lec19-policy): keep below T_swap; swap between; past T* swap, or discard if PCIe is
    contended. On a link so slow that the round trip T_swap reaches T*, the swap row closes: keep up to T*,
    discard past it."""
    s, a, b = _sec(stall, "stall"), _sec(t_swap, "t_swap"), _sec(t_star, "t_star")
    if not a < b:
        return "keep" if s <= b else "discard"
    if s < a:
        return "keep"
    if s <= b or not pcie_contended:
        return "swap"
    return "discard"


# ---------------------------------------------------------------- the tail (sec-lec19-taxonomy, exercise 2)

@equation("E[T] = Σ w_i T_i / Σ w_i", name_en="mean stall of a mixture", name_zh="停顿混合分布的平均时长", unit="s",
          ref="eq-lec19-tail")
def stall_mixture_mean(weights, stalls):
    """E[T] = Σ w_i T_i / Σ w_i (eq-lec19-tail): the mean of a stall mixture (weights are counts or shares)."""
    ws = [number(w, "weight") for w in weights]
    ts = [_sec(t, "stall") for t in stalls]
    if len(ws) != len(ts) or not ws or sum(ws) <= 0:
        raise ValueError("need as many positive weights as stalls")
    return (sum((w * t for w, t in zip(ws, ts)), Q_(0, "second")) / sum(ws)).to("second")


@equation("share_j = w_j T_j / Σ w_i T_i", name_en="share of the keep bill", name_zh="保留账单中某一类停顿所占的比例",
          ref="eq-lec19-tail")
def keep_bill_share(weights, stalls, index: int) -> float:
    """w_j T_j / Σ w_i T_i (eq-lec19-tail): the share of the always-keep bill f·Σ w_i T_i from component j
    (f cancels)."""
    ws = [number(w, "weight") for w in weights]
    ts = [_sec(t, "stall").magnitude for t in stalls]
    total = sum(w * t for w, t in zip(ws, ts))
    return ws[index] * ts[index] / total


# ---------------------------------------------------------------- the sandbox (sec-lec19-sandbox)

@equation("λ = N · n / T_task", name_en="tool call rate", name_zh="工具调用率", unit="1/s", ref="eq-lec19-sandbox")
def tool_call_rate(sessions, calls_per_task, task_duration):
    """λ = N · n / T_task: tool calls per second from N concurrent sessions (eq-lec19-sandbox)."""
    return (number(sessions, "sessions") * number(calls_per_task, "calls_per_task")
            / _sec(task_duration, "task_duration")).to("1/second")


@equation("L = λ · t", name_en="sandboxes running or booting", name_zh="正在运行或启动的沙箱数", ref="eq-lec19-sandbox")
def sandbox_concurrency(call_rate, time_in_state) -> float:
    """L = λ · t (eq-lec19-sandbox, Little's law): sandboxes running (t = t_run) or booting (t = t_boot)."""
    return float((need(call_rate, "1/second", "call_rate") * _sec(time_in_state, "time_in_state")).to("").magnitude)


@equation("t_cover = P / λ", name_en="time a static sandbox pool covers demand", name_zh="静态沙箱池能覆盖需求的时间", unit="s")
def pool_cover_time(pool_size, call_rate):
    """P / λ: how long a static pool of P idle sandboxes covers demand at rate λ with no replenishment."""
    return (number(pool_size, "pool_size") / need(call_rate, "1/second", "call_rate")).to("second")


# ---------------------------------------------------------------- overcommit (sec-lec19-overcommit)

@equation("2 n K", name_en="bytes a task swaps out and back", name_zh="每个任务换出并换回的字节数", unit="B")
def swap_bytes_per_task(stalls_per_task, session_bytes):
    """2 n K: bytes a task moves over PCIe when every stall is swapped out and back."""
    return (2 * number(stalls_per_task, "stalls_per_task") * _bytes(session_bytes, "session_bytes")).to("byte")


@equation("2 n K / T_task", name_en="host link bandwidth one overcommitted session draws", name_zh="一个超额分配会话占用的主机链路带宽",
          unit="B/s")
def swap_bandwidth_per_session(bytes_per_task, task_duration):
    """2 n K / T_task: the PCIe bandwidth one overcommitted session draws, sustained."""
    return (_bytes(bytes_per_task, "bytes_per_task") / _sec(task_duration, "task_duration")).to("byte/second")


@equation("A ≤ B / d", name_en="admitted sessions, HBM bound", name_zh="超额分配的 HBM 上限")
def overcommit_hbm_bound(resident_sessions, duty) -> float:
    """A ≤ B / d: only generating sessions must be resident, and A · d of them generate at a time."""
    d = number(duty, "duty")
    if not 0 < d <= 1:
        raise ValueError(f"duty cycle must be in (0, 1], got {d}")
    return number(resident_sessions, "resident_sessions") / d


@equation("A ≤ β_PCIe / (2 n K / T_task)", name_en="admitted sessions, PCIe bound", name_zh="超额分配的 PCIe 上限")
def overcommit_pcie_bound(link_bandwidth, bandwidth_per_session) -> float:
    """A ≤ β_PCIe / (2 n K / T_task): the sessions whose swaps the host link can carry."""
    return float((need(link_bandwidth, "byte/second", "link_bandwidth")
                  / need(bandwidth_per_session, "byte/second", "bandwidth_per_session")).to("").magnitude)


@equation("X = β_PCIe / (2 n K)", name_en="swap-bound throughput", name_zh="受换出限制的吞吐量", unit="1/s",
          ref="eq-lec19-swap-throughput")
def swap_bound_throughput(link_bandwidth, bytes_per_task):
    """X = β_PCIe / (2 n K) tasks per second (eq-lec19-swap-throughput): no T_model, no T_tool."""
    return (need(link_bandwidth, "byte/second", "link_bandwidth") / _bytes(bytes_per_task, "bytes_per_task")).to("1/second")


@equation("X_res = B / T_task", name_en="resident-only throughput", name_zh="仅驻留准入的吞吐量", unit="1/s")
def resident_only_throughput(resident_sessions, task_duration):
    """X_res = B / T_task tasks per second: admission limited to the sessions that fit."""
    return (number(resident_sessions, "resident_sessions") / _sec(task_duration, "task_duration")).to("1/second")


@equation("X = min(B / T_model, β_PCIe / 2nK)", name_en="overcommit throughput", name_zh="超额分配的吞吐量", unit="1/s",
          ref="eq-lec19-swap-throughput")
def overcommit_throughput(resident_sessions, link_bandwidth, stalls_per_task, session_bytes, t_model, t_tool):
    """X = min(A_HBM, A_PCIe) / T_task = min(B / T_model, β_PCIe / 2nK): the better of the two bounds.

    Both terms are free of T_tool: T_task cancels in each (eq-lec19-swap-throughput).
    """
    T = _sec(t_model, "t_model") + _sec(t_tool, "t_tool")
    d = duty_cycle(t_model, t_tool)
    per_task = swap_bytes_per_task(stalls_per_task, session_bytes)
    a = min(overcommit_hbm_bound(resident_sessions, d),
            overcommit_pcie_bound(link_bandwidth, swap_bandwidth_per_session(per_task, T)))
    return (a / T).to("1/second")


@equation("X · T_task · d = X · T_model", name_en="sessions generating at once", name_zh="同时生成的会话数")
def generating_sessions(throughput, t_model) -> float:
    """X · T_task · d = X · T_model: sessions generating at once (Little's law on the model half)."""
    return float((need(throughput, "1/second", "throughput") * _sec(t_model, "t_model")).to("").magnitude)


@equation("T_task > B · 2nK / β_PCIe", name_en="task duration above which overcommit beats resident-only admission",
          name_zh="超额分配胜过仅驻留准入的任务时长", unit="s", ref="eq-lec19-overcommit-condition")
def overcommit_crossover_duration(resident_sessions, bytes_per_task, link_bandwidth):
    """T_task > B · 2nK / β_PCIe (eq-lec19-overcommit-condition): overcommit beats resident-only admission
    exactly for sessions longer than this."""
    return (number(resident_sessions, "resident_sessions") * _bytes(bytes_per_task, "bytes_per_task")
            / need(link_bandwidth, "byte/second", "link_bandwidth")).to("second")


@equation("β_PCIe = B · 2nK / T_task",
          name_en="host link bandwidth at which overcommit admits no more than resident-only",
          name_zh="超额分配与仅驻留准入持平的主机链路带宽", unit="B/s")
def overcommit_parity_bandwidth(resident_sessions, bandwidth_per_session):
    """β_PCIe = B · 2nK / T_task: the link at which swap-based overcommit admits no more than fit resident."""
    return (number(resident_sessions, "resident_sessions")
            * need(bandwidth_per_session, "byte/second", "bandwidth_per_session")).to("byte/second")


@equation("A · (n / T_task) · S · t_prefill", name_en="GPU load of overcommit by discarding",
          name_zh="以丢弃实现超额分配时的 GPU 负载")
def discard_overcommit_gpu_load(sessions, stalls_per_task, task_duration, re_prefill):
    """A · (n / T_task) · S·t_prefill: GPU-seconds of re-prefill per wall-clock second if overcommit
    discarded instead of swapping (a single card supplies one)."""
    resumes = number(sessions, "sessions") * number(stalls_per_task, "stalls_per_task") / _sec(task_duration, "task_duration")
    return float((resumes * _sec(re_prefill, "re_prefill")).to("").magnitude)


@equation("d · K", name_en="stall-adjusted HBM footprint of a session", name_zh="按停顿调整后的会话 HBM 占用", unit="B")
def stall_adjusted_footprint(duty, session_bytes):
    """d · K: the HBM an admitted session needs on average once stalls are swapped (sec-lec19-admission)."""
    return (number(duty, "duty") * _bytes(session_bytes, "session_bytes")).to("byte")


__all__ = [n for n, f in list(globals().items())
           if callable(f) and getattr(f, "__module__", "") == __name__ and not n.startswith("_")]
