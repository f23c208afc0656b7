"""The appendix figures plot the physics functions' values, and their SVG is byte-for-byte stable."""
from __future__ import annotations

import math

import numpy as np
import pytest

from mlsysim import Hardware, Models
from mlsysim.figures import (APPENDIX_FIGURES, batch_figure, kv_design_figure, prefill_figure, queueing_figure,
                             roofline_figure, svg_bytes, write_appendix_figures)
from mlsysim.physics import (attainable_performance, attention_crossover_length, batched_step_time,
                             compute_bound_batch, decode_intensity, kingman_wait, kv_bytes_per_token,
                             prefill_time, ridge_point)
from mlsysim.units import BYTES_FP8, Q_

H100, L70 = Hardware.Cloud.H100, Models.Language.Llama3_70B


def close(a, b, rel=1e-12):
    return math.isclose(float(a), float(b), rel_tol=rel)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def _line_has_point(ax, x, y, rel=1e-12):
    for line in ax.get_lines():
        xs, ys = (np.asarray(v, dtype=float) for v in line.get_data())
        if any(close(a, x, rel) and close(b, y, rel) for a, b in zip(xs, ys)):
            return True
    return False


def test_roofline_ridge_is_ridge_point():
    fig, d = roofline_figure(H100, L70, "fp8")
    ridge = ridge_point(H100.compute.peak("fp8"), H100.memory.bandwidth).magnitude
    assert close(d["ridge_x"], ridge)
    peak = H100.compute.peak("fp8").to("flop/second").magnitude
    ax = fig.axes[0]
    assert _line_has_point(ax, ridge, peak), "the ridge marker must sit at (ridge_point, peak)"
    i_dec = decode_intensity(BYTES_FP8).magnitude
    y_dec = attainable_performance(Q_(i_dec, "flop/byte"), H100.compute.peak("fp8"), H100.memory.bandwidth)
    assert _line_has_point(ax, i_dec, y_dec.to("flop/second").magnitude)
    # the decode pass at the compute-bound batch lands on the ridge
    assert close(d["markers"]["decode_bstar"][0], ridge, 1e-9)
    assert close(d["compute_bound_batch"], compute_bound_batch(H100.compute.peak("fp8"), H100.memory.bandwidth,
                                                               BYTES_FP8))


def test_roofline_curve_is_attainable_performance():
    _, d = roofline_figure("H200", "Llama3_8B", "bf16")
    a = Hardware.Cloud.H200
    for x, y in list(zip(d["intensity"], d["attainable"]))[::17]:
        expect = attainable_performance(Q_(x, "flop/byte"), a.compute.peak("bf16"), a.memory.bandwidth)
        assert close(y, expect.to("flop/second").magnitude)


def test_prefill_crossover_marker():
    fig, d = prefill_figure(H100, L70)
    n = L70.parameters.to("count").magnitude
    s_star = attention_crossover_length(n, L70.layers, L70.hidden_dim)
    assert close(d["crossover_x"], s_star)
    assert _line_has_point(fig.axes[0], s_star, d["crossover_y"])
    # at S*, the weight and attention terms are equal, and total = prefill_time()
    t = prefill_time(n, L70.layers, L70.hidden_dim, s_star, H100.compute.peak("fp8")).to("second").magnitude
    assert close(d["crossover_y"] * 2, t)
    i = int(np.argmin(abs(np.log(d["weight_s"] / d["attention_s"]))))
    assert abs(math.log10(d["seq_len"][i] / s_star)) < 0.05


def test_batch_floor_and_turn():
    _, d = batch_figure(H100, L70)
    b_star = d["compute_bound_batch"]
    n = L70.parameters.to("count").magnitude
    for b, step in zip(d["batch"], d["step_ms"]):
        assert close(step, batched_step_time(n, BYTES_FP8, H100.memory.bandwidth, H100.compute.peak("fp8"), b)
                     .to("ms").magnitude)
    i = list(d["batch"]).index(b_star)
    assert close(d["step_ms"][i], d["floor_ms"], 1e-9)
    assert d["step_ms"][-1] > 10 * d["floor_ms"]


def test_kv_designs_bars():
    fig, d = kv_design_figure(L70)
    expect = [kv_bytes_per_token(L70, Q_(2, "byte"), kv_heads=h).to("byte").magnitude for h in (64, 8, 1)]
    assert list(d["bytes_per_token"]) == expect
    heights = [p.get_height() * 1e3 for p in fig.axes[0].patches]
    assert all(close(h, e, 1e-9) for h, e in zip(heights, expect))


def test_queueing_marks_are_kingman():
    fig, d = queueing_figure()
    assert d["marks_wait"] == [kingman_wait(2.0, 1.0, r) for r in (0.5, 0.7, 0.9)]
    assert _line_has_point(fig.axes[0], 0.9, kingman_wait(2.0, 1.0, 0.9))


@pytest.mark.parametrize("builder", [roofline_figure, prefill_figure, batch_figure, kv_design_figure,
                                     queueing_figure])
def test_svg_deterministic(builder):
    a = svg_bytes(builder()[0])
    b = svg_bytes(builder()[0])
    assert a == b
    assert b"<dc:date>" not in a and b"http://" not in a.replace(b"http://www.w3.org", b"") \
        .replace(b"http://purl.org", b"").replace(b"http://creativecommons.org", b"")


def test_write_appendix_figures_is_stable(tmp_path):
    first = write_appendix_figures(tmp_path)
    blobs = {n: p.read_bytes() for n, (p, _) in first.items()}
    assert sorted(blobs) == sorted(APPENDIX_FIGURES)
    write_appendix_figures(tmp_path)
    assert {n: (tmp_path / f"{n}.svg").read_bytes() for n in blobs} == blobs
