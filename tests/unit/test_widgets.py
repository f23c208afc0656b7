"""The live explorer's callback recomputes through the physics functions, without a notebook."""
from __future__ import annotations

import dataclasses
import math

import pytest

from mlsysim import Hardware, Models
from mlsysim.reference import reference_values
from mlsysim.widgets import compute_view


def test_registry_values_match_reference_values():
    v = compute_view("H200", "Llama3_8B", "fp8")
    # at Llama-3-8B's 8,192-token window (config.json), shorter than the book's 32,768
    assert v["raw"] == dataclasses.asdict(reference_values(Hardware.Cloud.H200, Models.Language.Llama3_8B, context=8192))
    assert v["shown"]["ridge_flop_per_byte"] == "412"


@pytest.mark.parametrize("factor", [0.5, 2.0, 3.0])
def test_free_bandwidth_scales_ridge_as_inverse(factor):
    base = compute_view("H100", "Llama3_1_70B", "fp8")
    bw = base["bandwidth_tb_s"] * factor
    v = compute_view("H100", "Llama3_1_70B", "fp8", bandwidth=bw)
    assert math.isclose(v["raw"]["ridge_flop_per_byte"], base["raw"]["ridge_flop_per_byte"] / factor, rel_tol=1e-12)
    assert math.isclose(v["raw"]["decode_floor_s"], base["raw"]["decode_floor_s"] / factor, rel_tol=1e-12)
    assert v["raw"]["prefill_per_token_s"] == base["raw"]["prefill_per_token_s"]  # bandwidth does not touch prefill


def test_free_peak_and_context():
    base = compute_view("H100", "Llama3_1_70B", "fp8")
    v = compute_view("H100", "Llama3_1_70B", "fp8", peak=base["peak_tflop_s"] * 2, context=16_384)
    assert math.isclose(v["raw"]["ridge_flop_per_byte"], 2 * base["raw"]["ridge_flop_per_byte"], rel_tol=1e-12)
    pool, m_token = base["raw"]["node_kv_pool_bytes"], base["raw"]["kv_bytes_per_token"]
    assert v["raw"]["resident_trajectories"] == math.floor(pool / (16_384 * m_token))  # eq-appdx-max-batch


def test_peak_makes_unpublished_precision_usable():
    v = compute_view("A100_80GB", "Llama3_8B", "fp8", peak=624)
    assert math.isclose(v["raw"]["ridge_flop_per_byte"], 624e12 / 2039e9, rel_tol=1e-12)
    with pytest.raises(Exception, match="fp8"):
        compute_view("A100_80GB", "Llama3_8B", "fp8")


def test_bad_free_values_raise():
    with pytest.raises(ValueError):
        compute_view("H100", "Llama3_1_70B", "fp8", bandwidth=0)
    with pytest.raises(ValueError):
        compute_view("H100", "Llama3_1_70B", "fp8", peak=-1)


def _cell(box, key):
    """The value the widget's table shows for ``key`` (the table cell with that data-key)."""
    import re
    m = re.search(rf"data-key='{key}'><b>([^<]*)</b>", box.table.value)
    assert m, f"no {key} cell in the widget's table"
    return m.group(1)


def test_widget_shows_reference_values_and_roofline():
    from mlsysim.widgets import explorer
    box = explorer()
    assert (box.accelerator.value, box.model.value, box.precision.value) == ("H100", "Llama3_1_70B", "fp8")
    # H100 SXM datasheet: 1,978.9 TFLOP/s dense fp8 (3,957.8 sparse / 2), 3.35 TB/s -> ridge 590.7 FLOP/byte
    assert _cell(box, "ridge_flop_per_byte") == "591"
    ridge = next(tr for tr in box.figure.data if tr.meta["key"] == "ridge")
    assert math.isclose(ridge.x[0], 1978.9e12 / 3.35e12, rel_tol=1e-9)
    assert math.isclose(ridge.y[0], 1978.9e12, rel_tol=1e-9)


def test_widget_free_bandwidth_updates_table_and_figure_in_place():
    from mlsysim.widgets import explorer
    box = explorer()
    fig = box.figure
    box.bandwidth.value = box.bandwidth.value * 2
    assert _cell(box, "ridge_flop_per_byte") == "295"      # the ridge halves: 590.7 / 2
    assert box.figure is fig                                # the same FigureWidget, updated in place
    ridge = next(tr for tr in fig.data if tr.meta["key"] == "ridge")
    assert math.isclose(ridge.x[0], 1978.9e12 / (2 * 3.35e12), rel_tol=1e-9)
    line = next(s for s in fig.layout.shapes if s.name == "ridge_line")
    assert math.isclose(line.x0, ridge.x[0], rel_tol=1e-12)


def test_b200_keeps_fp8():
    """Issue 13: from H100/fp8, choosing B200 kept tf32 (the new list's first entry). B200 publishes fp8,
    so fp8 stays, and the decode/prefill ratio is π_fp8·b/(2β) = 4,500 TFLOP/s × 1 byte / (2 × 8 TB/s) =
    281.25 (HGX B200 datasheet; the same number as B200's bf16 ridge, 2,250/8 = 281, in the seed's sources)."""
    from mlsysim.widgets import explorer
    box = explorer("H100", "Llama3_1_70B", "fp8")
    box.accelerator.value = "B200"
    assert box.precision.value == "fp8"
    assert _cell(box, "decode_to_prefill_ratio") == "281"
    assert box.status.value == ""
    assert math.isclose(box.peak.value, 4500.0) and math.isclose(box.bandwidth.value, 8.0)


def test_unpublished_precision_is_replaced_by_the_nearest_and_said():
    from mlsysim.widgets import explorer
    box = explorer("H100", "Llama3_1_70B", "fp8")
    box.accelerator.value = "A100_80GB"                    # A100 publishes no fp8: int8 has the same bytes
    assert "fp8" not in box.precision.options and box.precision.value == "int8"
    assert "fp8" in box.status.value and "int8" in box.status.value
    # A100 80GB SXM: 624 TOPS dense int8, 2,039 GB/s -> ridge 306
    assert _cell(box, "ridge_flop_per_byte") == "306"
    box.accelerator.value = "H100"                         # int8 is published by H100: kept
    assert box.precision.value == "int8" and box.status.value == ""


def test_widget_reader_precision_change_resets_peak():
    from mlsysim.widgets import explorer
    box = explorer()
    box.precision.value = "bf16"
    assert math.isclose(box.peak.value, 989.0, rel_tol=1e-3)   # H100 SXM dense bf16: 989 TFLOP/s
    assert _cell(box, "ridge_flop_per_byte") == "295"           # 989 / 3.35


def test_widget_chinese():
    from mlsysim.widgets import explorer
    box = explorer(lang="zh")
    assert box.accelerator.description == "加速器"
    assert "屋脊点" in box.table.value
    assert any("字节" in (tr.hovertemplate or "") for tr in box.figure.data)
