"""The live explorer's callback recomputes through the physics functions, without a notebook."""
from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

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


def test_widget_builds_and_updates():
    pytest.importorskip("ipywidgets")
    from mlsysim.widgets import explorer
    box = explorer()
    (acc, mod, prec), (bw, pk, ctx), out = box.children[0].children, box.children[1].children, box.children[2]
    assert ">591<" in out.value.replace("</b>", "<").replace("<b>", ">")
    bw.value = bw.value * 2
    assert ">295<" in out.value.replace("</b>", "<").replace("<b>", ">")  # ridge halves: 591/2
    acc.value = "A100_80GB"
    assert "fp8" not in prec.options and prec.value in prec.options


def test_import_mlsysim_does_not_import_ipywidgets():
    code = "import sys, mlsysim, mlsysim.widgets; print('ipywidgets' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
