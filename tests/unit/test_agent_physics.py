"""mlsysim.physics.agent (Lecture 19) against hand derivations written out here, plus property tests.

Every expected value below is derived by hand in the comment next to it from the lecture's inputs
(7B GQA-8: N = 6.74e9, L = 32, d = 4,096, 8 KV heads of 128, 2-byte KV; 16,384-token session;
62.5 GB KV budget; PCIe 64 GB/s; prefill at 494.5 TFLOP/s; 20 stalls of 1.5 s in a 60 s task).
"""
import math

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from mlsysim import GB, KiB, Models, byte, ms, second, us
from mlsysim.errors import UnitMismatchError
from mlsysim.physics import agent as A
from mlsysim.units import Q_

N = 6.74e9
L, D = 32, 4096
S = 16_384
K_TOKEN = 2 * L * 8 * 128 * 2                 # 131,072 bytes = 128 KiB
K_SESSION = S * K_TOKEN                       # 2**31 bytes = 2.147483648 GB
B_KV = 62.5e9
BW = 64e9
RATE = 494.5e12


def approx(x, rel=1e-9):
    return pytest.approx(x, rel=rel)


def test_duty_cycle_and_amdahl():
    # d = 30 / (30 + 30) = 0.5; halving the model half saves 0.5 * (1 - 1/2) = 0.25
    assert A.duty_cycle(30 * second, 30 * second) == approx(0.5)
    assert A.duty_cycle(7.1 * second, 30 * second) == approx(7.1 / 37.1)
    assert A.amdahl_saving(0.5, 2) == approx(0.25)


def test_share_sessions_and_budget_tokens():
    assert K_TOKEN == 131_072 and K_SESSION == 2 ** 31
    f = A.kv_share(K_SESSION * byte, 62.5 * GB)
    assert f == approx(2 ** 31 / 62.5e9)                     # 0.034360 -> 3.44 %
    assert A.sessions_per_card(62.5 * GB, K_SESSION * byte) == 29   # 62.5 / 2.147 = 29.10
    assert A.kv_budget_tokens(62.5 * GB, K_TOKEN * byte) == 476_837  # 62.5e9 / 131,072 = 476,837.16
    assert A.kv_budget_tokens(62.5 * GB, 4 * K_TOKEN * byte) == 119_209  # MHA: 512 KiB per token
    assert A.kv_budget_tokens(100 * GB, 327_680 * byte) == 305_175  # 100e9 / 327,680 = 305,175.8 (whole tokens)


def test_prefill_per_token_with_the_lectures_attention_count():
    w, a = A.prefill_time_per_token_split(N, L, D, S, RATE * Q_(1, "flop/second"))
    # weight 2N/pi = 13.48e9 / 494.5e12 = 27.26 us; attention 4 L d S / pi = 8.590e9 / 494.5e12 = 17.37 us
    assert w.to(us).magnitude == approx(2 * N / RATE * 1e6)
    assert a.to(us).magnitude == approx(4 * L * D * S / RATE * 1e6)
    assert round(w.to(us).magnitude, 2) == 27.26 and round(a.to(us).magnitude, 2) == 17.37
    total = A.prefill_time_per_token_attn(N, L, D, S, RATE * Q_(1, "flop/second"))
    assert round(total.to(us).magnitude, 2) == 44.63
    # the whole session: 16,384 * (13.48e9 + 8.590e9) = 3.616e14 flop = 361.6 TFLOP
    assert A.prefill_flops_session(N, L, D, S).to("teraflop").magnitude == approx(S * (2 * N + 4 * L * D * S) / 1e12)


def test_three_prices():
    t_pre = (2 * N + 4 * L * D * S) / RATE                   # 44.63 us
    assert A.discard_price(S, t_pre * second).to(second).magnitude == approx(S * t_pre)  # 0.731 s
    assert round(S * t_pre, 3) == 0.731
    rt = A.swap_price(K_SESSION * byte, BW * Q_(1, "byte/second"))
    assert rt.to(second).magnitude == approx(2 * 2 ** 31 / 64e9)   # 0.0671 s
    assert A.keep_price(0.5, 3 * second).to(second).magnitude == approx(1.5)


def test_break_evens_by_hand():
    t_pre = (2 * N + 4 * L * D * S) / RATE
    ts = A.keep_swap_break_even(K_SESSION * byte, BW * Q_(1, "byte/second"))
    assert round(ts.to(ms).magnitude) == 67                  # 2 * 2.147 GB / 64 GB/s = 67.1 ms
    t_star = A.keep_discard_break_even(t_pre * second, B_KV * byte, K_TOKEN * byte)
    assert t_star.to(second).magnitude == approx(t_pre * B_KV / K_TOKEN)  # 44.63 us * 476,837 = 21.28 s
    assert round(t_star.to(second).magnitude, 1) == 21.3
    # before the cancellation: S t / f, f = S k / B
    t_star_s = A.keep_discard_break_even_session(S, t_pre * second, K_SESSION * byte, B_KV * byte)
    assert t_star_s.to(second).magnitude == approx(t_pre * B_KV / K_TOKEN)
    # at 4,096 tokens: t = (13.48e9 + 4*32*4096*4096)/494.5e12 = 31.60 us, T* = 15.07 s
    t4 = (2 * N + 4 * L * D * 4096) / RATE
    assert round(t4 * 1e6, 2) == 31.60 and round(t4 * B_KV / K_TOKEN, 1) == 15.1
    # multi-head: 4x the bytes, same rebuild -> 5.32 s
    assert round(t_pre * B_KV / (4 * K_TOKEN), 1) == 5.3


def test_stall_fate_policy():
    ts, tstar = 0.067 * second, 21.3 * second
    assert A.stall_fate(5 * ms, ts, tstar) == "keep"
    assert A.stall_fate(1.5 * second, ts, tstar) == "swap"
    assert A.stall_fate(90 * second, ts, tstar) == "swap"
    assert A.stall_fate(90 * second, ts, tstar, pcie_contended=True) == "discard"
    # a link so slow that the round trip T_swap reaches T*: the swap row closes, keep up to T*, discard past it
    # (T_swap = 21.3 s, T* = 0.067 s: the arguments swapped)
    assert A.stall_fate(50 * ms, tstar, ts) == "keep"             # 50 ms ≤ T* = 67 ms
    assert A.stall_fate(1 * second, tstar, ts) == "discard"       # past T*, and swapping would take 21.3 s


def test_tail_mixture():
    # exercise 2: 0.8*0.3 + 0.15*3 + 0.05*90 = 0.24 + 0.45 + 4.5 = 5.19 s; tail share 4.5/5.19 = 86.7 %
    stalls = [0.3 * second, 3 * second, 90 * second]
    assert A.stall_mixture_mean([0.8, 0.15, 0.05], stalls).to(second).magnitude == approx(5.19)
    assert A.keep_bill_share([0.8, 0.15, 0.05], stalls, 2) == approx(4.5 / 5.19)
    # one 60 s call against nineteen 1.5 s calls: 60 / (60 + 28.5) = 67.8 %, mean 88.5/20 = 4.425 s
    assert A.keep_bill_share([1, 19], [60 * second, 1.5 * second], 0) == approx(60 / 88.5)
    assert A.stall_mixture_mean([1, 19], [60 * second, 1.5 * second]).to(second).magnitude == approx(4.425)


def test_sandbox_littles_law():
    lam = A.tool_call_rate(1000, 20, 60 * second)            # 1000 * 20 / 60 = 333.3 /s
    assert lam.to("1/second").magnitude == approx(1000 * 20 / 60)
    assert A.sandbox_concurrency(lam, 1.5 * second) == approx(500)
    assert round(A.sandbox_concurrency(lam, 0.125 * second)) == 42   # 41.67
    assert round(A.sandbox_concurrency(lam, 2.0 * second)) == 667    # 666.7
    lam2 = A.tool_call_rate(2000, 20, 60 * second)
    assert round(A.sandbox_concurrency(lam2, 2.0 * second)) == 1333  # 1,333.3, not 1,334
    assert A.pool_cover_time(800, lam2).to(second).magnitude == approx(800 / (2000 * 20 / 60))  # 1.2 s


def test_overcommit_by_hand():
    per_task = A.swap_bytes_per_task(20, K_SESSION * byte)
    assert per_task.to(GB).magnitude == approx(40 * 2 ** 31 / 1e9)   # 85.90 GB
    per_s = A.swap_bandwidth_per_session(per_task, 60 * second)     # 1.4317 GB/s
    assert per_s.to(GB / second).magnitude == approx(40 * 2 ** 31 / 1e9 / 60)
    assert A.overcommit_hbm_bound(29, 0.5) == approx(58)
    a_pcie = A.overcommit_pcie_bound(64 * GB / second, per_s)
    assert a_pcie == approx(64 / (40 * 2 ** 31 / 1e9 / 60))           # 44.70
    x = A.swap_bound_throughput(64 * GB / second, per_task)
    assert x.to("1/second").magnitude == approx(64e9 / (40 * 2 ** 31))  # 0.7451 tasks/s
    assert A.generating_sessions(x, 30 * second) == approx(30 * 64e9 / (40 * 2 ** 31))  # 22.35
    xr = A.resident_only_throughput(29, 60 * second)
    assert (x / xr).to("").magnitude == approx(64e9 / (40 * 2 ** 31) * 60 / 29)  # 1.54
    cross = A.overcommit_crossover_duration(29, per_task, 64 * GB / second)
    assert cross.to(second).magnitude == approx(29 * 40 * 2 ** 31 / 64e9)  # 38.92 s
    par = A.overcommit_parity_bandwidth(29, per_s)
    assert par.to(GB / second).magnitude == approx(29 * 40 * 2 ** 31 / 1e9 / 60)  # 41.52 GB/s
    t_re = S * (2 * N + 4 * L * D * S) / RATE
    load = A.discard_overcommit_gpu_load(a_pcie, 20, 60 * second, t_re * second)
    assert load == approx(a_pcie * 20 / 60 * t_re)                    # 10.9 GPU-s per s
    assert A.stall_adjusted_footprint(0.5, K_SESSION * byte).to(GB).magnitude == approx(2 ** 30 / 1e9)


def test_units_are_checked():
    with pytest.raises(UnitMismatchError):
        A.swap_price(K_SESSION, BW)                               # bare numbers
    with pytest.raises(UnitMismatchError):
        A.keep_swap_break_even(K_SESSION * byte, 64 * GB)         # bytes, not bytes/s


def test_kv_bytes_of_the_registry_model():
    from mlsysim import kv_bytes_per_token
    m = Models.Language.Llama2_7B.replace(kv_heads=8)
    assert kv_bytes_per_token(m, 2).to(KiB).magnitude == approx(128)


# ---------------------------------------------------------------- properties

lengths = st.integers(min_value=512, max_value=262_144)
budgets = st.floats(min_value=10e9, max_value=500e9)


@settings(max_examples=examples(200), deadline=None)
@given(s=lengths, b=budgets, t=st.floats(min_value=1e-6, max_value=1e-3), k=st.sampled_from([32_768, 131_072, 524_288]))
def test_session_length_cancels(s, b, t, k):
    """T* from S·t/f equals t·B/k for every S: with t_prefill held fixed, S cancels exactly."""
    t_star_s = A.keep_discard_break_even_session(s, t * second, s * k * byte, b * byte)
    assert t_star_s.to(second).magnitude == pytest.approx(t * b / k, rel=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(s1=lengths, s2=lengths)
def test_t_star_drifts_only_through_the_attention_term(s1, s2):
    """To first order T* is independent of S: its relative change is bounded by the attention share."""
    def tstar(s):
        t = A.prefill_time_per_token_attn(N, L, D, s, RATE * Q_(1, "flop/second"))
        return A.keep_discard_break_even(t, B_KV * byte, K_TOKEN * byte).to(second).magnitude
    lo, hi = sorted((s1, s2))
    # T*(S) = (2N + 4LdS) B / (pi k): linear in S with intercept 2N B/(pi k)
    assert tstar(hi) / tstar(lo) == pytest.approx((2 * N + 4 * L * D * hi) / (2 * N + 4 * L * D * lo), rel=1e-9)
    assert tstar(hi) / tstar(lo) <= hi / lo


@settings(max_examples=examples(200), deadline=None)
@given(t_model=st.floats(min_value=1, max_value=300), t_tool=st.floats(min_value=0.1, max_value=3000),
       scale=st.floats(min_value=0.01, max_value=100), n=st.integers(min_value=1, max_value=100),
       bw=st.floats(min_value=8e9, max_value=256e9))
def test_throughput_independent_of_tool_time(t_model, t_tool, scale, n, bw):
    """Overcommitted throughput min(B/T_model, β/2nK) does not change when tool time does."""
    x1 = A.overcommit_throughput(29, bw * Q_(1, "byte/second"), n, K_SESSION * byte, t_model * second, t_tool * second)
    x2 = A.overcommit_throughput(29, bw * Q_(1, "byte/second"), n, K_SESSION * byte, t_model * second,
                                 t_tool * scale * second)
    assert x1.to("1/second").magnitude == pytest.approx(x2.to("1/second").magnitude, rel=1e-9)
    swap = A.swap_bound_throughput(bw * Q_(1, "byte/second"), A.swap_bytes_per_task(n, K_SESSION * byte))
    assert x1.to("1/second").magnitude <= swap.to("1/second").magnitude * (1 + 1e-12)


@settings(max_examples=examples(100), deadline=None)
@given(b=st.integers(min_value=1, max_value=200), n=st.integers(min_value=1, max_value=100),
       bw=st.floats(min_value=8e9, max_value=256e9), t=st.floats(min_value=1, max_value=1000))
def test_crossover_is_where_the_two_throughputs_meet(b, n, bw, t):
    per = A.swap_bytes_per_task(n, K_SESSION * byte)
    cross = A.overcommit_crossover_duration(b, per, bw * Q_(1, "byte/second"))
    x_swap = A.swap_bound_throughput(bw * Q_(1, "byte/second"), per).to("1/second").magnitude
    x_res = A.resident_only_throughput(b, t * second).to("1/second").magnitude
    if not math.isclose(t, cross.to(second).magnitude, rel_tol=1e-9):
        assert (x_swap > x_res) == (t > cross.to(second).magnitude)


def test_swap_window_closes_where_the_round_trip_reaches_t_star():
    # T* = t_prefill · B_kv / k with t_prefill = (2N + 4·L·d·S)/π, by hand:
    # 2N = 1.348e10 flop, 4·32·4,096·16,384 = 8.59e9 flop, sum 2.207e10 flop / 494.5e12 = 44.63 µs;
    # B_kv / k = 62.5e9 / 131,072 = 476,837.2 tokens; T* = 21.28 s.
    t_pre = (2 * N + 4 * L * D * S) / RATE
    t_star = t_pre * B_KV / K_TOKEN
    assert t_star == pytest.approx(21.28, abs=0.01)
    # 2K / β = T*  =>  β = 2 · 2^31 B / 21.28 s = 0.2018 GB/s
    beta = A.swap_window_closing_bandwidth(Q_(K_SESSION, "byte"), Q_(t_star, "second"))
    assert beta.to("GB/second").magnitude == pytest.approx(2 * K_SESSION / t_star / 1e9, rel=1e-12)
    assert beta.to("GB/second").magnitude == pytest.approx(0.2018, abs=0.0005)
    assert A.keep_swap_break_even(Q_(K_SESSION, "byte"), beta).to("second").magnitude == pytest.approx(t_star)
    with pytest.raises(UnitMismatchError):
        A.swap_window_closing_bandwidth(Q_(K_SESSION, "byte"), Q_(1, "byte"))
