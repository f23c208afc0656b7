"""Physics against hand derivations (the seed's numbers) and the invariants the book states."""
import math

import pytest
from conftest import examples
from hypothesis import given, settings, strategies as st

from mlsysim import *

PEAK = 1978.9e12 * flop / second  # H100, 8-bit dense
BW = 3.35e12 * byte / second
N = 70.6e9


def test_ridge_point():
    assert ridge_point(PEAK, BW).magnitude == pytest.approx(1978.9e12 / 3.35e12)  # 590.7 -> "591"


def test_decode_and_prefill_floors():
    # 70.6e9 bytes / 3.35e12 B/s = 21.07 ms ; 2 * 70.6e9 / 1978.9e12 = 71.35 us
    assert decode_time_per_token(N, 1 * byte, BW).to(ms).magnitude == pytest.approx(21.075, abs=1e-3)
    assert prefill_time_per_token(N, PEAK).to(us).magnitude == pytest.approx(71.353, abs=1e-3)
    assert decode_to_prefill_ratio(PEAK, BW, 1 * byte) == pytest.approx(1978.9 / 6.70)  # 295.4


def test_attention_crossover_and_share():
    assert attention_crossover_length(N, 80, 8192) == pytest.approx(70.6e9 / 655_360)  # 107,727
    assert attention_share(32_768, N, 80, 8192) == pytest.approx(32_768 * 655_360 / 70.6e9)  # 0.304


def test_prefill_time_long_context_equals_twice_the_weight_term_at_crossover():
    s = attention_crossover_length(N, 80, 8192)
    weights_only = s * prefill_time_per_token(N, PEAK)
    assert prefill_time(N, 80, 8192, s, PEAK).to(second).magnitude == pytest.approx(2 * weights_only.to(second).magnitude)


def test_kv_cache_size():
    # 2 * 80 layers * 8 heads * 128 * 2 bytes = 327,680 bytes per token
    assert calc_kv_cache_size(80, 8, 128, 1, 1, 2) == 327_680 * byte
    assert calc_kv_cache_size(80, 8, 128, 32_768, 2, BYTES_FP16).to(GB).magnitude == pytest.approx(2 * 10.737418, rel=1e-6)


def test_pool_and_resident_trajectories():
    # 8 * 80 GiB - 141.2 GB - 20 GB = 525.995 GB; floor(525.995 / 10.737) = 48
    pool = kv_pool(8 * 80 * GiB, 141.2 * GB, 20 * GB)
    assert pool.to(GB).magnitude == pytest.approx(8 * 80 * 2**30 / 1e9 - 161.2)
    assert resident_trajectories(pool, 32_768, 327_680 * byte) == 48
    with pytest.raises(ValueError, match="no memory is left"):
        kv_pool(80 * GiB, 141.2 * GB, 20 * GB)


def test_batched_step_time_turns_compute_bound_at_the_ratio():
    b_star = compute_bound_batch(PEAK, BW, 1 * byte)
    floor = decode_time_per_token(N, 1 * byte, BW)
    assert batched_step_time(N, 1 * byte, BW, PEAK, math.floor(b_star)) == floor
    assert batched_step_time(N, 1 * byte, BW, PEAK, 2 * b_star) > 1.9 * floor


def test_decode_loop_traffic():
    # 64 streams * 40 tok/s * 128,000 * 2 bytes = 655.36 MB/s ; ids: 64*40*4 = 10,240 B/s
    assert logit_traffic(64, 40 / second, 128_000, BYTES_FP16).to(MB / second).magnitude == pytest.approx(655.36)
    assert token_id_traffic(64, 40 / second, 4 * byte).to(byte / second).magnitude == pytest.approx(10_240)
    assert grammar_table_bytes(131_072, 512) == 8_388_608 * byte


def test_speculative_expected_tokens():
    assert speculative_expected_tokens(0.0, 4) == 1
    assert speculative_expected_tokens(1.0, 4) == 5
    assert speculative_expected_tokens(0.5, 2) == pytest.approx(1 + 0.5 + 0.25)


def test_littles_law_and_kingman():
    w = trajectory_lifetime(15, 4 * second, 20 * second)
    assert w == 360 * second
    assert littles_law(2 / second, w) == pytest.approx(720)
    assert [round(kingman_wait(2, 1, r), 1) for r in (0.5, 0.7, 0.9)] == [1.5, 3.5, 13.5]


def test_erlang_c_known_values():
    assert erlang_c(1, 0.5) == pytest.approx(0.5)  # M/M/1: P(wait) = rho
    # M/M/2 at rho = 0.5 (a = 1): C = (1/2 * 1/(1-0.5)) / (1 + 1 + 1) = 1/3
    assert erlang_c(2, 0.5) == pytest.approx(1 / 3)
    assert allen_cunneen_wait(1, 1, 0.5, 1) == pytest.approx(kingman_wait(1, 1, 0.5))


def test_units_are_checked():
    with pytest.raises(UnitMismatchError, match="bandwidth must convert to byte/second"):
        ridge_point(PEAK, 3.35 * TB)
    with pytest.raises(UnitMismatchError, match="bare number"):
        decode_time_per_token(N, 1 * byte, 3.35e12)


# ── properties the book states ──
rates = st.floats(1e12, 1e16)
bws = st.floats(1e11, 1e14)
precisions = st.sampled_from([0.5, 1, 2, 4])


@settings(max_examples=examples(60), deadline=None)
@given(rates, bws, precisions, st.floats(1e8, 1e12))
def test_ratio_equals_compute_bound_batch_and_is_independent_of_model_size(peak, bw, b, params):
    p, m, bb = peak * flop / second, bw * byte / second, b * byte
    ratio = decode_time_per_token(params, bb, m) / prefill_time_per_token(params, p)
    assert ratio.to("").magnitude == pytest.approx(decode_to_prefill_ratio(p, m, bb), rel=1e-9)
    assert compute_bound_batch(p, m, bb) == decode_to_prefill_ratio(p, m, bb)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 1_000_000), st.floats(1e9, 1e12), st.floats(1e3, 1e7), st.floats(1e9, 1e12))
def test_recompute_versus_reload_does_not_depend_on_context_length(context, params, m_token, link):
    # per-token comparison: T*(2N/pi) vs T*m/beta -- the T cancels
    peak, bpt, bw = 1e15 * flop / second, m_token * byte, link * byte / second
    recompute = context * recompute_time_per_token(params, peak)
    reload = context * reload_time_per_token(bpt, bw)
    per_token = recompute_time_per_token(params, peak) < reload_time_per_token(bpt, bw)
    assert (recompute < reload) == per_token


@settings(max_examples=examples(60), deadline=None)
@given(st.floats(0.01, 100), st.floats(0.01, 1e4))
def test_littles_law_scales(rate, w):
    assert littles_law(rate / second, w * second) == pytest.approx(rate * w)
    assert littles_law(2 * rate / second, w * second) == pytest.approx(2 * littles_law(rate / second, w * second))
